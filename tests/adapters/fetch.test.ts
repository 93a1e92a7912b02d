import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, endpoint } from '../../src/index.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { listen, runAdapterSuite, type MountedServer } from './conformance.js';
import { BODY_LIMIT, fixtureApi } from '../fixture/api.js';

runAdapterSuite('fetch', (api) => listen(createAdaptorServer({ fetch: toFetch(api) }) as Server), { prefix: 'basePath' });

describe('fetch specifics', () => {
  const fixture = fixtureApi();
  const handle = toFetch(fixture.api);
  const alice = { authorization: 'Bearer alice' };

  it('HEAD is answered with a null body and the GET’s Content-Type', async () => {
    const response = await handle(new Request('http://example.test/users/1', { method: 'HEAD', headers: alice }));
    expect(response.status).toBe(200);
    expect(response.body).toBeNull();
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('204 is answered with a null body', async () => {
    const response = await handle(new Request('http://example.test/users', { method: 'OPTIONS' }));
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
  });

  function streamOf(chunks: number, onCancel: () => void): ReadableStream<Uint8Array> {
    let sent = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === chunks) return controller.close();
        controller.enqueue(new Uint8Array(BODY_LIMIT).fill(0x61));
      },
      cancel: onCancel,
    });
  }

  function post(body: ReadableStream<Uint8Array>): Request {
    return new Request('http://example.test/users', { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
  }

  it('a streamed body over the limit is 413; the rest is drained, not cancelled', async () => {
    let cancelled = false;
    const request = post(streamOf(64, () => (cancelled = true)));
    const response = await handle(request);
    expect(response.status).toBe(413);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toBe(false);
    expect(request.bodyUsed).toBe(true);
  });

  it('an endless body over the limit is 413, and the stream is cancelled once 64 MiB are drained', async () => {
    let cancelled = false;
    const response = await handle(post(streamOf(Infinity, () => (cancelled = true))));
    expect(response.status).toBe(413);
    await expect.poll(() => cancelled, { timeout: 10_000 }).toBe(true);
  });

  it('headers are passed with lower-case names', async () => {
    const response = await handle(new Request('http://example.test/users/1', { headers: { Authorization: 'Bearer alice', ACCEPT: 'image/png' } }));
    expect(response.status).toBe(406);
  });
});

describe('ctx.ip from what Bun and Deno pass beside the request', () => {
  const api = createApi({
    endpoints: [
      endpoint('GET', '/ip', { handle: (ctx) => ({ ip: ctx.ip ?? null }) }),
      endpoint('GET', '/other', { handle: () => ({}) }),
    ],
  });
  const handle = toFetch(api);
  const ipOf = async (host: unknown) => ((await (await handle(new Request('http://example.test/ip'), host)).json()) as { ip: string | null }).ip;

  it('Bun: server.requestIP(request) is called only by a request that reads ctx.ip, with that request', async () => {
    const asked: Request[] = [];
    const server = { requestIP: (request: Request) => (asked.push(request), { address: '::1', family: 'IPv6', port: 50000 }) };
    await handle(new Request('http://example.test/other'), server);
    expect(asked).toHaveLength(0);
    const request = new Request('http://example.test/ip');
    expect(await (await handle(request, server)).json()).toEqual({ ip: '::1' });
    expect(asked).toEqual([request]);
  });

  it('Deno: info.remoteAddr.hostname; a Unix socket has none', async () => {
    expect(await ipOf({ remoteAddr: { transport: 'tcp', hostname: '203.0.113.7', port: 50000 } })).toBe('203.0.113.7');
    expect(await ipOf({ remoteAddr: { transport: 'unix', path: '/tmp/api.sock' } })).toBeNull();
  });

  it('an address the host cannot give (requestIP null or throwing) is undefined, not a failed request', async () => {
    expect(await ipOf({ requestIP: () => null })).toBeNull();
    expect(
      await ipOf({
        requestIP: () => {
          throw new Error('closed');
        },
      }),
    ).toBeNull();
    expect(await ipOf({ params: Promise.resolve({}) })).toBeNull(); // Next.js's route context
  });
});

describe('fetch inside a Hono app', () => {
  const fixture = fixtureApi({ basePath: '/api' });
  let server: MountedServer;

  beforeAll(async () => {
    const app = new Hono();
    const handle = toFetch(fixture.api);
    app.get('/', (c) => c.text('home'));
    app.all('/api/*', (c) => handle(c.req.raw));
    server = await listen(createAdaptorServer({ fetch: app.fetch }) as Server);
  });
  afterAll(() => server.close());

  it('serves the API below the Hono route, and Hono keeps its other routes', async () => {
    const created = await fetch(`${server.baseUrl}/api/users`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Eve', email: 'eve@example.com' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/users/3');
    expect(await (await fetch(`${server.baseUrl}/`)).text()).toBe('home');
  });
});
