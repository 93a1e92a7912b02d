/**
 * A host's prefix guard and the API agree on the path: a request that a guard in front of the API
 * does not see never reaches a route of the API under the guarded prefix. Each host puts a guard on
 * `/admin` (or `/v1/admin` with the API mounted at `/v1`) the way its users write one, and every
 * attack target is sent on a raw socket, as written: an HTTP client would normalize most of them.
 * The API has routes under `/admin` whose answers carry a secret, a route at `/` and one at
 * `/public/:name`, so that a target the guard misses has somewhere else to go.
 */
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFastify } from '../../src/adapters/fastify.js';
import { createApi, endpoint, type Api } from '../../src/index.js';
import type { MountedServer } from '../adapters/conformance.js';
import { expressHost, fastifyHost, fetchHost, GUARDED, honoHost, koaHost, nodeHost, withoutDeprecationWarnings, type Express, type Host } from './guarded-hosts.js';
import { rawRequest, type RawAnswer } from './raw-http.js';

/** The API every host serves: two routes under `/admin`, whose answers hold `secret`. */
function adminApi(): Api {
  return createApi({
    onError: () => {},
    endpoints: [
      endpoint('GET', '/', { handle: () => ({ at: 'root' }) }),
      endpoint('GET', '/admin/stats', { handle: () => ({ secret: 'stats' }) }),
      endpoint('GET', '/admin/:id', { handle: (ctx) => ({ secret: ctx.params.id }) }),
      endpoint('GET', '/public/:name', { handle: (ctx) => ({ name: ctx.params.name }) }),
    ],
  });
}

/** What became of a request: the guard stopped it, an admin route of the API answered it, or neither. */
function outcome(answer: RawAnswer): 'guard' | 'admin route' | 'other' {
  if (answer.status === 403 && answer.body === GUARDED) return 'guard';
  return answer.body.includes('"secret"') ? 'admin route' : 'other';
}

const HOSTS: Host[] = [
  ...[undefined, 'case sensitive routing' as const].flatMap((routing) =>
    ['', '/v1'].flatMap((prefix) => [expressHost('express 4', express4 as unknown as Express, prefix, routing), expressHost('express 5', express5, prefix, routing)]),
  ),
  fastifyHost('routeOptions.url', ''),
  fastifyHost('routeOptions.url', '/v1'),
  fastifyHost('request.url', ''),
  fastifyHost('request.url', '/v1'),
  nodeHost('new URL(req.url, base)'),
  nodeHost('req.url'),
  fetchHost,
  koaHost(''),
  koaHost('/v1'),
  koaHost('/v1', '/v1/'),
  honoHost(''),
  honoHost('/v1'),
  // The API's templates as the host router's own routes, with the router's defaults (case folded,
  // a trailing slash optional) and with both turned off.
  ...[{}, { caseSensitive: true, strict: true }].flatMap((router) =>
    ['', '/v1'].flatMap((prefix) => [expressHost('express 4', express4 as unknown as Express, prefix, undefined, router), expressHost('express 5', express5, prefix, undefined, router)]),
  ),
  koaHost('', '', true),
  koaHost('/v1', '/v1', true),
  koaHost('/v1', '/v1/', true),
  honoHost('', true),
  honoHost('/v1', true),
];

/**
 * Targets a guard on `<prefix>/admin` and the API might read differently, each with the prefix the
 * API is mounted at. Absolute-form ones are left out for a guard that compares the raw target as a
 * string: such a guard misses `http://x/admin/stats` on the host's own routes too.
 */
function attacks(prefix: string, raw: boolean): string[] {
  const p = prefix;
  const originForm = [
    `${p}/%61dmin/stats`,
    `${p}/%61%64%6d%69%6e/stats`,
    `${p}/%61%64%6D%69%6E/stats`,
    `${p}/%41dmin/stats`,
    `${p}/ADMIN/stats`,
    `${p}/Admin/stats`,
    `${p}/%61dmin/x`,
    `${p}//admin/stats`,
    `${p}//admin/x`,
    `${p}///admin/stats`,
    `${p}/./admin/stats`,
    `${p}/x/../admin/stats`,
    `${p}/%2e/admin/stats`,
    `${p}/x/%2e%2e/admin/stats`,
    `${p}/x/%2E%2E/admin/stats`,
    `${p}/x/.%2e/admin/stats`,
    `${p}/admin/..`,
    `${p}/admin/.`,
    `${p}/admin/%2e%2e`,
    `${p}/admin/%2E%2E`,
    `${p}/admin/.%2E`,
    `${p}/admin/%2e`,
    `${p}/admin/x/../..`,
    `${p}/admin/x\\..\\..`,
    `${p}/admin/x%5C..%5C..`,
    `${p}/\\admin/stats`,
    `${p}/admin\\stats`,
    `${p}/admin;/stats`,
    `${p}/admin;x=1/stats`,
    `${p}/admin%2Fstats`,
    `${p}/admin%2fstats`,
    `${p}/%2Fadmin/stats`,
    `${p}/admin%3F/stats`,
    `${p}/%61dmin/stats#x`,
    `${p}/admin/stats#x`,
    `${p}/public/..%2F..%2Fadmin%2Fstats`,
  ];
  if (prefix !== '') originForm.push(`${p.toUpperCase()}/admin/stats`, `/%76${p.slice(2)}/admin/stats`, `${p}%2Fadmin/stats`);
  if (raw) return originForm;
  return [
    ...originForm,
    `http://x${p}/admin/stats`,
    `http://x${p}?/admin/stats`,
    `http://x${p}?a=1/admin/stats`,
    `http://x${p}#/admin/stats`,
    `http://x${p}/%61dmin/stats`,
    `HTTP://X${p}/admin/stats`,
    `http://x:80${p}/admin/stats`,
    `http://x;y${p}/admin/stats`,
    `http://x'y${p}/admin/stats`,
    `http://x%2F${p}/admin/stats`,
    `http://x\\y${p}/admin/stats`,
    `http://x:8a${p}/admin/stats`,
    `http://u@x${p}/admin/stats`,
    `http://x@y${p}/admin/stats`,
    `http:///x${p}/admin/stats`,
    `ftp://x${p}/admin/stats`,
    `http:${p}/admin/stats`,
  ];
}

withoutDeprecationWarnings();

for (const host of HOSTS) {
  describe(`${host.name}: a request the guard on ${host.prefix}/admin does not see reaches no route under /admin`, () => {
    let server: MountedServer;
    const get = (target: string) => rawRequest(server, [`GET ${target} HTTP/1.1`]);
    beforeAll(async () => {
      server = await host.start(adminApi());
    });
    afterAll(() => server.close());

    it(`GET ${host.prefix}/admin/stats is the guard's; ${host.prefix}/public/x and ${host.prefix}/ are the API's`, async () => {
      expect(outcome(await get(`${host.prefix}/admin/stats`))).toBe('guard');
      expect(outcome(await get(`${host.prefix}/admin/7`))).toBe('guard');
      expect(await get(`${host.prefix}/public/x`)).toMatchObject({ status: 200, body: '{"name":"x"}' });
      expect(await get(`${host.prefix}/`)).toMatchObject({ status: 200, body: '{"at":"root"}' });
    });

    // Regression: these reached an admin route past the guard: `/%61dmin/stats` on every host but a
    // Fastify route guard, `http://x?/admin/stats` on Express, Fastify's route guard and a WHATWG
    // guard, `/v1//admin/stats` on Express 4 below `/v1`, `/admin/..` and `/admin/x\..\..` past a
    // WHATWG guard, and `http://x;y/admin/stats` (also `'`, `%2F`, `:8a`) on Express.
    it.each(attacks(host.prefix, host.raw === true))('GET %s', async (target) => {
      expect(outcome(await get(target))).not.toBe('admin route');
    });
  });
}

describe('fastify below /v1: a path Fastify routes below the prefix only once decoded or case-folded', () => {
  const apps: { close(): Promise<unknown> }[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  async function served(caseSensitive: boolean): Promise<MountedServer> {
    const api = createApi({
      onError: () => {},
      endpoints: [endpoint('GET', '/:a', { handle: (ctx) => ({ route: '/:a', ...ctx.params }) }), endpoint('GET', '/:a/:b', { handle: (ctx) => ({ route: '/:a/:b', ...ctx.params }) })],
    });
    const app = Fastify({ forceCloseConnections: true, routerOptions: { caseSensitive } });
    apps.push(app);
    await app.register(toFastify(api), { prefix: '/v1' });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  }

  // Regression: the plugin handed the API the whole target when its path did not start with the
  // prefix, so the API routed the prefix as a param of another route than the one Fastify matched.
  it("GET /%76%31/x, which find-my-way routes to /v1/:a, is the API's 404, not its /:a/:b with a = v1", async () => {
    const server = await served(true);
    expect(await rawRequest(server, ['GET /v1/x HTTP/1.1'])).toMatchObject({ status: 200, body: '{"route":"/:a","a":"x"}' });
    const answer = await rawRequest(server, ['GET /%76%31/x HTTP/1.1']);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'RC_NOT_FOUND' });
  });

  it("GET /V1/x with caseSensitive: false is the API's 404", async () => {
    const server = await served(false);
    const answer = await rawRequest(server, ['GET /V1/x HTTP/1.1']);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'RC_NOT_FOUND' });
  });
});
