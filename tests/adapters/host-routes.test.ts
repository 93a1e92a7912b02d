/**
 * The API's templates as the hosts' own routes (`router` of toExpress, toHono and toKoa; Fastify's
 * routes per method with `routeOptions`), on real servers below `/v1`, with the router settings users
 * turn on. Every target, sent on a raw socket as written, gets the same answer as from the same host
 * without routes of the API's; where the host's route names a template, it is the one the API served.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import Router from '@koa/router';
import express5 from 'express';
import express4 from 'express4';
import Fastify, { type FastifyRequest } from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import mount from 'koa-mount';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { toHono } from '../../src/adapters/hono.js';
import { coreTemplates, fastifyPath, honoPath, pathToRegexpPath } from '../../src/adapters/host-routes.js';
import { toKoa } from '../../src/adapters/koa.js';
import { createApi, endpoint, type Api } from '../../src/index.js';
import { listen, listening, type MountedServer } from './conformance.js';
import { rawRequest, type RawAnswer } from '../security/raw-http.js';

/** Templates that overlap (`/users/me`, `/users/:id`) and static segments with path syntax in them. */
function routesApi(): Api {
  return createApi({
    onError: () => {},
    naming: 'off',
    endpoints: [
      endpoint('GET', '/', { handle: () => ({ at: 'root' }) }),
      endpoint('GET', '/users', { handle: () => [] }),
      endpoint('GET', '/users/me', { handle: () => ({ me: true }) }),
      endpoint('GET', '/users/:id', { handle: (ctx) => ({ id: ctx.params.id }) }),
      endpoint('DELETE', '/users/:id', { handle: (ctx) => ({ deleted: ctx.params.id }) }),
      endpoint('GET', '/files/a:b(c)', { handle: () => ({ file: 'a:b(c)' }) }),
      endpoint('GET', '/v*', { handle: () => ({ star: true }) }),
      endpoint('GET', '/x+y', { handle: () => ({ plus: true }) }),
    ],
  });
}

interface Served {
  server: MountedServer;
  /** What the host named the route of each answered request: its template, or `-` for none. */
  labels: string[];
}

interface RoutedHost {
  name: string;
  /** The host serving the API below `/v1`, with the API's routes on its router or not. */
  start(api: Api, routed: boolean): Promise<Served>;
  /** How the host names a template of the API (with `/v1` where the host's route has it). */
  label(template: string): string | undefined;
}

type Express = typeof express5;

function expressHost(name: string, express: Express, options: { caseSensitive?: boolean; strict?: boolean }): RoutedHost {
  return {
    name: `${name}, express.Router(${JSON.stringify(options)})`,
    start: async (api, routed) => {
      const labels: string[] = [];
      const app = express();
      // A logging middleware: it reads req.route once the answer is out.
      app.use((req, res, next) => {
        res.on('finish', () => labels.push((req.route as { path?: string } | undefined)?.path ?? '-'));
        next();
      });
      app.use('/v1', toExpress(api, { fallthrough: false, ...(routed ? { router: express.Router(options) } : {}) }));
      return { server: await listen(http.createServer(app)), labels };
    },
    label: (template) => pathToRegexpPath(template),
  };
}

function fastifyHost(routerOptions: Record<string, boolean>): RoutedHost {
  return {
    name: `fastify, routerOptions ${JSON.stringify(routerOptions)}`,
    start: async (api, routed) => {
      const labels: string[] = [];
      const app = Fastify({ forceCloseConnections: true, routerOptions });
      app.addHook('onResponse', async (request: FastifyRequest) => void labels.push(request.routeOptions.url ?? '-'));
      await app.register(toFastify(api, { fallthrough: false, ...(routed ? { routeOptions: () => ({ config: {} }) } : {}) }), { prefix: '/v1' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { server: { baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() }, labels };
    },
    label: (template) => `/v1${fastifyPath(template)}`.replace(/\/$/, ''),
  };
}

const honoHost: RoutedHost = {
  name: 'hono, the API in a sub-app routed at /v1',
  start: async (api, routed) => {
    const labels: string[] = [];
    const app = new Hono();
    app.use('*', async (c, next) => {
      await next();
      labels.push(c.req.routePath);
    });
    const sub = new Hono();
    if (routed) toHono(api, { fallthrough: false, router: sub });
    else sub.use(toHono(api, { fallthrough: false }));
    app.route('/v1', sub);
    return { server: await listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server), labels };
  },
  // A template Hono cannot spell is served by the catch-all, `/v1/*`.
  label: (template) => (honoPath(template) === undefined ? '/v1/*' : template === '/' ? '/v1' : `/v1${template}`),
};

function koaHost(options: { sensitive?: boolean; strict?: boolean }): RoutedHost {
  return {
    name: `koa, koa-mount at /v1, new Router(${JSON.stringify(options)})`,
    start: async (api, routed) => {
      const labels: string[] = [];
      const app = new Koa();
      app.silent = true;
      app.use(async (ctx, next) => {
        await next();
        labels.push((ctx as { _matchedRoute?: string })._matchedRoute ?? '-');
      });
      app.use(mount('/v1', toKoa(api, { fallthrough: false, ...(routed ? { router: new Router(options) } : {}) })));
      return { server: await listening(app.listen(0, '127.0.0.1')), labels };
    },
    label: (template) => pathToRegexpPath(template),
  };
}

const HOSTS: RoutedHost[] = [
  ...[{}, { caseSensitive: true, strict: true }].flatMap((options) => [expressHost('express 4', express4 as unknown as Express, options), expressHost('express 5', express5, options)]),
  fastifyHost({}),
  fastifyHost({ caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true }),
  honoHost,
  koaHost({}),
  koaHost({ sensitive: true, strict: true }),
];

/** Targets every host routes to a template of the API, as the API does. */
const AGREED: [target: string, template: string][] = [
  ['/v1/users/7', '/users/:id'],
  ['/v1/users/7?sort=name', '/users/:id'],
  ['/v1/users/me', '/users/me'],
  ['/v1/users', '/users'],
  ['/v1/files/a:b(c)', '/files/a:b(c)'],
  ['/v1/v*', '/v*'],
  ['/v1/x+y', '/x+y'],
];

/** Targets a host's router may read otherwise than the API: case, slashes, escapes, path syntax. */
const DISPUTED = [
  '/v1/USERS/7',
  '/v1/Users/me',
  '/v1/users/7/',
  '/v1/users/',
  '/v1//users/7',
  '/v1/users//7',
  '/v1/%75sers/7',
  '/v1/users/%6De',
  '/v1/users/%E0%A4%A',
  '/v1/files/aXb(c)',
  '/v1/files/a%3Ab(c)',
  '/v1/files/a:bc',
  '/v1/vXYZ',
  '/v1/v',
  '/v1/xxy',
  '/v1/xy',
  '/v1/',
  '/v1',
  '/V1/users/7',
];

/** An answer as two servers give it alike: the problem's `instance` names its own request. */
function alike(answer: RawAnswer): unknown {
  return { status: answer.status, type: answer.headers['content-type'], allow: answer.headers.allow, body: answer.body.replace(/"instance":"[^"]*"/, '') };
}

for (const host of HOSTS) {
  describe(`${host.name}: the API's routes as the host's`, () => {
    const api = routesApi();
    const templateOf = coreTemplates(api);
    let routed: Served;
    let plain: Served;
    beforeAll(async () => {
      routed = await host.start(api, true);
      plain = await host.start(api, false);
    });
    afterAll(async () => {
      await routed?.server.close();
      await plain?.server.close();
    });

    it.each(AGREED)('GET %s is served by the host route of %s', async (target, template) => {
      const answer = await rawRequest(routed.server, [`GET ${target} HTTP/1.1`]);
      expect(answer.status).toBe(200);
      expect(alike(answer)).toEqual(alike(await rawRequest(plain.server, [`GET ${target} HTTP/1.1`])));
      expect(routed.labels.at(-1)).toBe(host.label(template));
    });

    it('DELETE, OPTIONS and a method the template lacks (405) answer as without routes', async () => {
      for (const method of ['DELETE', 'OPTIONS', 'PUT', 'HEAD']) {
        const answer = await rawRequest(routed.server, [`${method} /v1/users/7 HTTP/1.1`]);
        expect(alike(answer), method).toEqual(alike(await rawRequest(plain.server, [`${method} /v1/users/7 HTTP/1.1`])));
      }
    });

    // Regression (a host router and the API reading one path two ways): each of these must get the
    // answer the host gave without routes of the API's, and a route the host names must be the API's.
    it.each(DISPUTED)('GET %s answers as without routes, under no template but the one the API served', async (target) => {
      const answer = await rawRequest(routed.server, [`GET ${target} HTTP/1.1`]);
      expect(alike(answer)).toEqual(alike(await rawRequest(plain.server, [`GET ${target} HTTP/1.1`])));
      const label = routed.labels.at(-1);
      const served = templateOf(target.slice(3) || '/');
      // Fastify names the route it matched before any handler runs (with caseSensitive: false,
      // `/USERS/7` is under /users/:id): the answer is the API's 404 all the same.
      if (!host.name.startsWith('fastify')) expect([undefined, '-', '*', '/*', '/v1/*', served === undefined ? '-' : host.label(served)]).toContain(label);
    });
  });
}

describe('a router the adapter cannot register the API on throws at definition time', () => {
  it('toExpress(api, { router }) with something that is no Express router names the option and the fix', () => {
    expect(() => toExpress(routesApi(), { router: {} as never })).toThrow('toExpress(): `router` must be an Express router, such as express.Router(');
  });

  it('toKoa(api, { router }) with a router that has a prefix, which the API would not see', () => {
    expect(() => toKoa(routesApi(), { router: new Router({ prefix: '/v1' }) })).toThrow("toKoa(): the router has the prefix '/v1', which the API would not see");
  });

  it('toHono(api, { router }) with something that is no Hono app', () => {
    expect(() => toHono(routesApi(), { router: {} as never })).toThrow('toHono(): `router` must be a Hono app');
  });
});

describe('templates in the hosts’ path syntax', () => {
  it('path-to-regexp (Express 4 and 5, @koa/router): a static character with a meaning is escaped; a param name 0.1 cannot read is left out', () => {
    expect(pathToRegexpPath('/users/:id')).toBe('/users/:id');
    expect(pathToRegexpPath('/')).toBe('/');
    expect(pathToRegexpPath('/files/a:b(c)/x+y/v*')).toBe('/files/a\\:b\\(c\\)/x\\+y/v\\*');
    expect(pathToRegexpPath('/report.json')).toBe('/report\\.json');
    expect(pathToRegexpPath('/users/:$id')).toBeUndefined();
  });

  it('Hono: no escape, so a template with another character than [\\w~.-] in a static segment is left out', () => {
    expect(honoPath('/users/:id')).toBe('/users/:id');
    expect(honoPath('/report.json')).toBe('/report.json');
    for (const template of ['/a:b', '/v*', '/x+y', '/a(b)', '/users/:$id']) expect(honoPath(template), template).toBeUndefined();
  });

  it('Fastify: `:` in a static segment is written `::`', () => {
    expect(fastifyPath('/files/a:b/:id')).toBe('/files/a::b/:id');
  });

  it('the core’s template of a target: the path as sent, no other spelling', () => {
    const templateOf = coreTemplates(routesApi());
    expect(templateOf('/users/7?x=1')).toBe('/users/:id');
    expect(templateOf('/users/me')).toBe('/users/me');
    expect(templateOf('/users/7/')).toBe('/users/:id');
    for (const target of ['/USERS/7', '//users/7', '/%75sers/7', '*', '/users/%E0%A4%A']) expect(templateOf(target), target).toBeUndefined();
  });
});
