/**
 * The `cors` option over real HTTP, on every adapter: each serves the same API from a server on an
 * ephemeral port, and Node's `fetch` sends what a browser sends (a preflight, then the request with
 * `Origin`). The adapters only translate: every Access-Control-* header comes from the core.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toExpress } from '../../../src/adapters/express.js';
import { toFastify } from '../../../src/adapters/fastify.js';
import { toFetch } from '../../../src/adapters/fetch.js';
import { toNodeListener } from '../../../src/adapters/node.js';
import { collection, createApi, type Api } from '../../../src/index.js';
import { listen, type MountedServer } from '../../adapters/conformance.js';

const APP = 'http://localhost:5173';
const OTHER = 'https://evil.example';
const EXPOSED = 'ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition, Accept-Ranges, Content-Range';
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

function notesApi(): Api {
  return createApi({
    cors: { origins: [APP], credentials: true, maxAge: 600 },
    authenticate: (request) => (request.headers?.authorization === 'Bearer reader' ? { name: 'reader' } : undefined),
    resources: [
      collection('notes', {
        id: z.coerce.number().int(),
        body: z.object({ text: z.string() }),
        list: (ctx) => {
          ctx.set('ETag', '"v1"');
          return [{ id: 1, text: 'first' }];
        },
        create: (ctx) => ({ id: 2, text: ctx.body.text }),
      }),
    ],
  });
}

type Serve = (api: Api) => Promise<MountedServer>;

const ADAPTERS: ReadonlyArray<readonly [string, Serve]> = [
  ['node', (api) => listen(http.createServer(toNodeListener(api)))],
  [
    'express 4',
    (api) => {
      const app = express4();
      app.disable('x-powered-by');
      app.use(toExpress(api, { fallthrough: false }));
      return listen(http.createServer(app));
    },
  ],
  [
    'express 5',
    (api) => {
      const app = express5();
      app.disable('x-powered-by');
      app.use(toExpress(api, { fallthrough: false }));
      return listen(http.createServer(app));
    },
  ],
  [
    'fastify',
    async (api) => {
      const app = Fastify({ forceCloseConnections: true });
      await app.register(toFastify(api, { fallthrough: false }));
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  ],
  ['fetch', (api) => listen(createAdaptorServer({ fetch: toFetch(api) }) as Server)],
];

/** The headers of an answer, without those of the connection. */
function headersOf(response: Response): Record<string, string> {
  const headers = Object.fromEntries(response.headers);
  for (const name of ['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']) delete headers[name];
  return headers;
}

function corsOf(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith('access-control-')));
}

describe.each(ADAPTERS)('cors over %s', (_name, serve) => {
  let server: MountedServer;
  beforeAll(async () => {
    server = await serve(notesApi());
  });
  afterAll(() => server.close());

  const preflight = (origin: string) =>
    fetch(`${server.baseUrl}/notes`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });

  it('grants a browser’s preflight from an allowed origin', async () => {
    const response = await preflight(APP);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(headersOf(response)).toEqual({
      allow: 'GET, HEAD, POST, OPTIONS',
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-allow-credentials': 'true',
      'access-control-max-age': '600',
      vary: PREFLIGHT_VARY,
    });
  });

  it('gives a preflight from another origin no Access-Control-* header', async () => {
    const response = await preflight(OTHER);
    expect(response.status).toBe(204);
    expect(headersOf(response)).toEqual({ allow: 'GET, HEAD, POST, OPTIONS', vary: PREFLIGHT_VARY });
  });

  it('grants an actual GET with Origin: the origin, the exposed headers, credentials', async () => {
    const response = await fetch(`${server.baseUrl}/notes`, { headers: { origin: APP, authorization: 'Bearer reader' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([{ id: 1, text: 'first' }]);
    const headers = headersOf(response);
    expect(corsOf(headers)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': EXPOSED, 'access-control-allow-credentials': 'true' });
    expect(headers.etag).toBe('"v1"');
    expect(headers.vary).toBe('Origin');
  });

  it('grants a 201 from a JSON POST, with its Location', async () => {
    const response = await fetch(`${server.baseUrl}/notes`, {
      method: 'POST',
      headers: { origin: APP, authorization: 'Bearer reader', 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'second' }),
    });
    expect(response.status).toBe(201);
    const headers = headersOf(response);
    expect(headers.location).toBe('/notes/2');
    expect(headers['access-control-allow-origin']).toBe(APP);
  });

  it.each([
    ['401', '/notes', 401],
    ['404', '/nowhere', 404],
  ] as const)('grants an error answer: %s', async (_status, path, status) => {
    const response = await fetch(server.baseUrl + path, { headers: { origin: APP } });
    expect(response.status).toBe(status);
    expect((await response.json()).status).toBe(status);
    const headers = headersOf(response);
    expect(headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(corsOf(headers)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': EXPOSED, 'access-control-allow-credentials': 'true' });
    expect(headers.vary).toBe('Origin');
    if (status === 401) expect(headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('gives an actual request from another origin no Access-Control-* header, and Vary: Origin', async () => {
    const response = await fetch(`${server.baseUrl}/notes`, { headers: { origin: OTHER, authorization: 'Bearer reader' } });
    expect(response.status).toBe(200);
    const headers = headersOf(response);
    expect(corsOf(headers)).toEqual({});
    expect(headers.vary).toBe('Origin');
  });
});
