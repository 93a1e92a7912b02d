/**
 * restcanon/fastify's `routeOptions`: Fastify route options per template and method of the API, so
 * that per-route hooks and plugins (@fastify/rate-limit's `config.rateLimit`) work on the API's routes
 * as on the host's own. Over real HTTP, with the plugin below `/v1`.
 */
import type { AddressInfo } from 'node:net';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { toFastify, type FastifyOptions } from '../../src/adapters/fastify.js';
import { createApi, endpoint, type Api } from '../../src/index.js';

function usersApi(): Api {
  return createApi({
    onError: () => {},
    endpoints: [
      endpoint('GET', '/users', { handle: () => [{ id: 1 }] }),
      endpoint('GET', '/users/:id', { handle: (ctx) => ({ id: ctx.params.id }) }),
      endpoint('DELETE', '/users/:id', { handle: (ctx) => ({ deleted: ctx.params.id }) }),
    ],
  });
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A Fastify server with the API registered below `/v1`; `setup` runs first (plugins, hooks). */
async function start(options: FastifyOptions, setup: (app: FastifyInstance) => Promise<void> | void = () => {}): Promise<string> {
  const app = Fastify({ forceCloseConnections: true });
  apps.push(app);
  await setup(app);
  await app.register(toFastify(usersApi(), options), { prefix: '/v1' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

describe('fastify: routeOptions per template and method', () => {
  it("a route-level onRequest hook from routeOptions runs on its template's method only, and sees request.routeOptions.url as the template", async () => {
    const seen: string[] = [];
    const hook = async (request: FastifyRequest) => void seen.push(`${request.method} ${request.routeOptions.url} ${String((request.routeOptions.config as { label?: string }).label)}`);
    const base = await start({ routeOptions: ({ path, method }) => (path === '/users/:id' && method === 'GET' ? { onRequest: hook, config: { label: 'read a user' } } : undefined) });
    expect((await fetch(`${base}/v1/users/7`)).status).toBe(200);
    expect((await fetch(`${base}/v1/users/7`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${base}/v1/users/7`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${base}/v1/users`)).status).toBe(200);
    expect(seen).toEqual(['GET /v1/users/:id read a user', 'HEAD /v1/users/:id read a user']);
  });

  it('@fastify/rate-limit with config.rateLimit on GET /users/:id limits that template (any id) and not GET /users', async () => {
    const base = await start(
      { routeOptions: ({ path, method }) => (path === '/users/:id' && method === 'GET' ? { config: { rateLimit: { max: 2, timeWindow: 60_000 } } } : undefined) },
      async (app) => void (await app.register(rateLimit, { global: false })),
    );
    const statuses = async (path: string, method = 'GET') => {
      const answers = [];
      for (let round = 0; round < 3; round++) answers.push((await fetch(base + path.replace('{n}', String(round)), { method })).status);
      return answers;
    };
    expect(await statuses('/v1/users/{n}')).toEqual([200, 200, 429]);
    expect(await statuses('/v1/users')).toEqual([200, 200, 200]);
    expect(await statuses('/v1/users/{n}', 'DELETE')).toEqual([200, 200, 200]);
  });

  it('without routeOptions, the API answers as before: 405 with Allow, OPTIONS 204, under the template', async () => {
    const urls: string[] = [];
    const base = await start({}, (app) => void app.addHook('onRequest', async (request) => void urls.push(request.routeOptions.url ?? '-')));
    const put = await fetch(`${base}/v1/users/7`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
    expect((await fetch(`${base}/v1/users/7`, { method: 'OPTIONS' })).status).toBe(204);
    expect(urls).toEqual(['/v1/users/:id', '/v1/users/:id']);
  });

  it('a 405 and OPTIONS go through a route of the template without the options of its methods', async () => {
    const seen: string[] = [];
    const base = await start({ routeOptions: () => ({ onRequest: async (request: FastifyRequest) => void seen.push(request.method) }) }, (app) => {
      app.addHook('onRequest', async (request) => void seen.push(`global ${request.method} ${request.routeOptions.url}`));
    });
    const put = await fetch(`${base}/v1/users/7`, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
    expect((await fetch(`${base}/v1/users/7`, { method: 'OPTIONS' })).status).toBe(204);
    expect(seen).toEqual(['global PUT /v1/users/:id', 'global OPTIONS /v1/users/:id']);
  });

  it.each(['handler', 'url', 'method', 'path'])('routeOptions that set `%s` throw when the plugin is registered, naming the route', async (option) => {
    const app = Fastify();
    apps.push(app);
    await expect(app.register(toFastify(usersApi(), { routeOptions: () => ({ [option]: 'x' }) })).ready()).rejects.toThrow(`toFastify(): routeOptions for GET /users sets \`${option}\``);
  });

  it('routeOptions that return no object throw when the plugin is registered', async () => {
    const app = Fastify();
    apps.push(app);
    await expect(app.register(toFastify(usersApi(), { routeOptions: () => 'fast' as never })).ready()).rejects.toThrow('toFastify(): routeOptions for GET /users must return an object');
  });
});
