/**
 * Deprecation over real HTTP on every adapter: the fields a client reads on a success and on an
 * error, the links after the page's own in one `Link`, and the 410 past the sunset.
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
import { z } from 'zod';
import { toExpress } from '../../../src/adapters/express.js';
import { toFastify } from '../../../src/adapters/fastify.js';
import { toFetch } from '../../../src/adapters/fetch.js';
import { toHono } from '../../../src/adapters/hono.js';
import { toKoa } from '../../../src/adapters/koa.js';
import { toNodeListener } from '../../../src/adapters/node.js';
import { collection, createApi, endpoint, type Api } from '../../../src/index.js';
import { deprecation } from '../../../src/conventions/deprecation/index.js';
import { listen, listening, type MountedServer } from '../../adapters/conformance.js';

const DECLARED = { at: '2026-01-01T00:00:00Z', sunset: '2027-06-30T00:00:00Z', link: 'https://example.com/changes/v1' };
const LINK = '<https://example.com/changes/v1>; rel="deprecation"';

function deprecatedApi(): Api {
  return createApi({
    use: [deprecation({ gone: true, now: () => Date.parse('2027-01-01T00:00:00Z') })],
    resources: [collection('rows', { page: { by: 'offset', limit: { default: 1, max: 10 } }, list: { conventions: { deprecation: DECLARED }, handle: () => [{ id: 1 }, { id: 2 }] } })],
    endpoints: [
      endpoint('GET', '/v1/users', { conventions: { deprecation: { ...DECLARED, sunset: '2026-06-30T00:00:00Z' } }, handle: () => [] }),
      endpoint('GET', '/v1/teams/:id', { params: z.object({ id: z.coerce.number().int() }), conventions: { deprecation: DECLARED }, handle: () => [] }),
    ],
  });
}

type Serve = (api: Api) => Promise<MountedServer>;

const ADAPTERS: ReadonlyArray<readonly [string, Serve]> = [
  ['node', (api) => listen(http.createServer(toNodeListener(api)))],
  ['express 4', (api) => listen(http.createServer(express4().use(toExpress(api, { fallthrough: false }))))],
  ['express 5', (api) => listen(http.createServer(express5().use(toExpress(api, { fallthrough: false }))))],
  [
    'fastify',
    async (api) => {
      const app = Fastify({ forceCloseConnections: true });
      await app.register(toFastify(api, { fallthrough: false }));
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
    },
  ],
  ['fetch', (api) => listen(createAdaptorServer({ fetch: toFetch(api) }) as Server)],
  ['koa', (api) => listening(new Koa().use(toKoa(api, { fallthrough: false })).listen(0, '127.0.0.1'))],
  ['hono', (api) => listen(createAdaptorServer({ fetch: new Hono().use(toHono(api, { fallthrough: false })).fetch }) as Server)],
];

describe.each(ADAPTERS)('deprecation over %s', (_name, serve) => {
  let server: MountedServer;
  beforeAll(async () => {
    server = await serve(deprecatedApi());
  });
  afterAll(() => server.close());

  it('a page carries Deprecation, Sunset, and one Link with the page’s and the deprecation’s', async () => {
    const response = await fetch(`${server.baseUrl}/rows`);
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe('@1767225600');
    expect(response.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(response.headers.get('link')).toBe(`</rows?limit=1&offset=1>; rel="next", ${LINK}`);
  });

  it('a 400 of a deprecated endpoint carries them; past its sunset another answers 410', async () => {
    const invalid = await fetch(`${server.baseUrl}/v1/teams/abc`);
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('deprecation')).toBe('@1767225600');
    expect(invalid.headers.get('link')).toBe(LINK);
    const gone = await fetch(`${server.baseUrl}/v1/users`);
    expect(gone.status).toBe(410);
    expect(gone.headers.get('sunset')).toBe('Tue, 30 Jun 2026 00:00:00 GMT');
    expect((await gone.json()).detail).toBe('This endpoint was retired on Tue, 30 Jun 2026 00:00:00 GMT');
  });
});
