/**
 * The rate limit over real HTTP on every adapter: the fields and the 429 as a client reads them,
 * many clients at once against one quota, and whose count a request joins: the address the host
 * reads after its trust-proxy rule, never an `X-Forwarded-For` the client writes to a host that
 * does not trust it.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toExpress } from '../../../src/adapters/express.js';
import { toFastify } from '../../../src/adapters/fastify.js';
import { toFetch } from '../../../src/adapters/fetch.js';
import { toHono } from '../../../src/adapters/hono.js';
import { toKoa } from '../../../src/adapters/koa.js';
import { toNodeListener } from '../../../src/adapters/node.js';
import { createApi, endpoint, type Api } from '../../../src/index.js';
import { QUOTA_EXCEEDED, rateLimit } from '../../../src/conventions/rate-limit/index.js';
import { listen, listening, type MountedServer } from '../../adapters/conformance.js';

const TOKENS: Record<string, { id: number }> = { 'Bearer ann': { id: 1 }, 'Bearer bob': { id: 2 } };

function limitedApi(quota: number): Api {
  return createApi({
    authenticate: (request) => TOKENS[String(request.headers?.authorization)],
    use: [rateLimit({ policies: { default: { quota, window: 60 } } })],
    endpoints: [endpoint('GET', '/notes', { public: true, handle: () => [{ id: 1 }] })],
  });
}

type Serve = (api: Api) => Promise<MountedServer>;

const fastify = (trustProxy: boolean): Serve => async (api) => {
  const app = Fastify({ forceCloseConnections: true, trustProxy });
  await app.register(toFastify(api, { fallthrough: false }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
};

const express = (make: typeof express5 | typeof express4, trust: boolean): Serve => (api) => {
  const app = make();
  if (trust) app.set('trust proxy', 'loopback');
  app.use(toExpress(api, { fallthrough: false }));
  return listen(http.createServer(app));
};

/** Each adapter as its host serves it by default: no proxy is trusted. */
const ADAPTERS: ReadonlyArray<readonly [string, Serve]> = [
  ['node', (api) => listen(http.createServer(toNodeListener(api)))],
  ['express 4', express(express4, false)],
  ['express 5', express(express5, false)],
  ['fastify', fastify(false)],
  ['fetch', (api) => listen(createAdaptorServer({ fetch: toFetch(api) }) as Server)],
  [
    'koa',
    (api) => {
      const app = new Koa();
      app.use(toKoa(api, { fallthrough: false }));
      return listening(app.listen(0, '127.0.0.1'));
    },
  ],
  [
    'hono',
    (api) => {
      const app = new Hono();
      app.use(toHono(api, { fallthrough: false }));
      return listen(createAdaptorServer({ fetch: app.fetch }) as Server);
    },
  ],
];

describe.each(ADAPTERS)('rate limit over %s', (_name, serve) => {
  let server: MountedServer;
  beforeAll(async () => {
    server = await serve(limitedApi(3));
  });
  afterAll(() => server.close());
  const get = (headers: Record<string, string> = {}) => fetch(`${server.baseUrl}/notes`, { headers });

  it('writes the fields, then answers 429 with Retry-After and the quota-exceeded problem; a spoofed X-Forwarded-For is the same client', async () => {
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=2;t=(59|60)$/);
    // No proxy is trusted: the header is the client's own word and changes nothing.
    expect((await get({ 'x-forwarded-for': '198.51.100.1' })).headers.get('ratelimit')).toMatch(/^"default";r=1;t=/);
    expect((await get({ 'x-forwarded-for': '198.51.100.2' })).headers.get('ratelimit')).toMatch(/^"default";r=0;t=/);
    const refused = await get({ 'x-forwarded-for': '198.51.100.3' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(refused.headers.get('retry-after')).toMatch(/^(59|60)$/);
    expect(refused.headers.get('ratelimit')).toBe(`"default";r=0;t=${refused.headers.get('retry-after')}`);
    expect(await refused.json()).toMatchObject({ type: QUOTA_EXCEEDED, status: 429 });
  });

  it('a signed-in caller has a quota of its own at the same address', async () => {
    const ann = await get({ authorization: 'Bearer ann' });
    expect(ann.status).toBe(200);
    expect(ann.headers.get('ratelimit')).toMatch(/^"default";r=2;t=/);
  });
});

describe.each([
  ['express 5', express(express5, true)],
  ['express 4', express(express4, true)],
  ['fastify', fastify(true)],
] as const)('behind a trusted proxy, %s', (_name, serve) => {
  it('each forwarded address is a count of its own', async () => {
    const server = await serve(limitedApi(1));
    try {
      const from = (ip: string) => fetch(`${server.baseUrl}/notes`, { headers: { 'x-forwarded-for': ip } });
      expect((await from('198.51.100.1')).status).toBe(200);
      expect((await from('198.51.100.1')).status).toBe(429);
      expect((await from('198.51.100.2')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('many clients at once over node:http', () => {
  it('200 concurrent requests against a quota of 50: exactly 50 succeed', async () => {
    const server = await listen(http.createServer(toNodeListener(limitedApi(50))));
    try {
      const statuses = await Promise.all(Array.from({ length: 200 }, () => fetch(`${server.baseUrl}/notes`).then((response) => response.status)));
      expect(statuses.filter((status) => status === 200)).toHaveLength(50);
      expect(statuses.filter((status) => status === 429)).toHaveLength(150);
    } finally {
      await server.close();
    }
  });
});
