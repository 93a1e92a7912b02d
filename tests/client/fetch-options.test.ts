/**
 * How restcanon/client sends a call: a signal and a timeout that stop it (over HTTP, where the
 * server sees the connection close or nothing at all, and in memory), the Fetch options it passes
 * on, and its hooks in order.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint } from '../../src/index.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { createClient, type ClientRequest } from '../../src/client/index.js';

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An API whose /slow waits until `release` is called, and which counts the requests its handler gets. */
function slowApi() {
  let release: () => void = () => {};
  const waiting = new Promise<void>((resolve) => (release = resolve));
  const seen: string[] = [];
  const api = createApi({
    endpoints: [
      endpoint('POST', '/slow', { body: z.object({ text: z.string() }), handle: async (ctx) => (seen.push(ctx.body.text), await waiting, { done: true }) }),
      endpoint('GET', '/health', { handle: () => ({ status: 'ok' }) }),
    ],
    timeout: false,
  });
  return { api, seen, release: () => release() };
}

describe('a signal stops a call', () => {
  it('an aborted signal rejects with its reason and sends nothing, over HTTP', async () => {
    let requests = 0;
    const url = await listen(createServer((_, response) => (requests++, response.end('{}'))));
    const client = createClient({ baseUrl: url });
    const reason = new Error('the user left');
    await expect(client.post('/slow', { body: { text: 'a' }, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(requests).toBe(0);
  });

  it('an abort while the server works closes the connection and rejects at once with the reason, over HTTP', async () => {
    const { api, seen, release } = slowApi();
    let arrived: (request: IncomingMessage) => void = () => {};
    const reached = new Promise<IncomingMessage>((resolve) => (arrived = resolve));
    const listener = toNodeListener(api);
    const url = await listen(createServer((request, response) => (arrived(request), listener(request, response))));
    const controller = new AbortController();
    const call = createClient<typeof api>({ baseUrl: url }).post('/slow', { body: { text: 'a' }, signal: controller.signal });
    const request = await reached;
    const closed = new Promise((resolve) => request.socket.once('close', resolve));
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    await closed;
    release();
    expect(seen).toEqual(['a']);
  });

  it('in memory, rejects with the reason at once while api.handle runs on, and an aborted signal never reaches the handler', async () => {
    const { api, seen, release } = slowApi();
    const client = createClient<typeof api>({ api });
    const controller = new AbortController();
    const call = client.post('/slow', { body: { text: 'a' }, signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
    await expect(client.post('/slow', { body: { text: 'b' }, signal: AbortSignal.abort(new Error('early')) })).rejects.toThrow('early');
    release();
    expect(seen).toEqual(['a']);
  });

  it("the client's signal stops every call, and its timeout rejects with a TimeoutError", async () => {
    const { api, release } = slowApi();
    const stopped = createClient<typeof api>({ api, signal: AbortSignal.abort(new Error('closed')) });
    await expect(stopped.get('/health')).rejects.toThrow('closed');
    const timed = createClient<typeof api>({ api, timeout: 20 });
    await expect(timed.post('/slow', { body: { text: 'a' } })).rejects.toMatchObject({ name: 'TimeoutError' });
    // A call's own timeout wins over the client's.
    expect((await timed.get('/health', { timeout: 10_000 })).status).toBe(200);
    release();
  });
});

describe('the Fetch options', () => {
  it("passes credentials, cache, keepalive and mode, the call's over the client's", async () => {
    const inits: RequestInit[] = [];
    const client = createClient({
      baseUrl: 'https://shop.example',
      credentials: 'include',
      mode: 'cors',
      fetch: async (_, init) => (inits.push(init), new Response(null, { status: 204 })),
    });
    await client.get('/a');
    await client.get('/a', { credentials: 'omit', cache: 'no-store', keepalive: true });
    expect(inits.map(({ credentials, cache, keepalive, mode }) => ({ credentials, cache, keepalive, mode }))).toEqual([
      { credentials: 'include', cache: undefined, keepalive: undefined, mode: 'cors' },
      { credentials: 'omit', cache: 'no-store', keepalive: true, mode: 'cors' },
    ]);
    expect(inits[0]!.signal).toBeUndefined();
  });
});

describe('hooks', () => {
  it('run in order: onRequest (async, changing the request), then onResponse, each attempt', async () => {
    const api = createApi({ endpoints: [endpoint('GET', '/whoami', { handle: (ctx) => ({ token: ctx.request.headers?.authorization ?? null }) })] });
    const order: string[] = [];
    const client = createClient<typeof api>({
      baseUrl: await listen(createServer(toNodeListener(api))),
      onRequest: [
        async (request) => {
          order.push('request 1');
          await Promise.resolve();
          request.headers.authorization = 'Bearer fresh';
        },
        (request): ClientRequest => (order.push(`request 2 ${request.headers.authorization}`), { ...request, headers: { ...request.headers, 'x-trace': '1' } }),
      ],
      onResponse: (answer, request) => void order.push(`response ${answer.status} ${request.headers['x-trace']}`),
      onError: () => void order.push('error'),
    });
    expect(await client.get('/whoami')).toMatchObject({ status: 200, body: { token: 'Bearer fresh' } });
    expect(order).toEqual(['request 1', 'request 2 Bearer fresh', 'response 200 1']);
  });

  it('onError sees a call that got no answer, which then rejects with the same error', async () => {
    const server = createServer();
    const url = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    const errors: unknown[] = [];
    const client = createClient({ baseUrl: url, onError: (error, request) => void errors.push([error, request.method]) });
    const failure = await client.get('/gone').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect(errors).toEqual([[failure, 'GET']]);
  });
});
