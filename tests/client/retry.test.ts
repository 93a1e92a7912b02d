/**
 * The retry policy of restcanon/client, over HTTP against servers that answer 503 then 200: which
 * calls are tried again, how long the client waits (Retry-After, RateLimit, else a backoff with full
 * jitter), its bounds, and a signal that stops a wait. Waits go through an injected `sleep`, which
 * records them: no assertion depends on time passing.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient, type RetryPolicy } from '../../src/client/index.js';
import { retryDelay } from '../../src/client/retry.js';

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that answers each request with the next of `answers` (the last one again once they run out), and keeps what it got. */
async function answering(...answers: [number, Record<string, string>?][]): Promise<{ url: string; seen: { method: string; headers: IncomingHttpHeaders }[] }> {
  const seen: { method: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    const [status, headers = {}] = answers[Math.min(seen.length, answers.length - 1)]!;
    seen.push({ method: request.method!, headers: request.headers });
    request.resume();
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ status }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A policy whose waits are recorded, not waited. */
function recorded(policy: RetryPolicy = {}): { retry: RetryPolicy; waits: number[] } {
  const waits: number[] = [];
  return { waits, retry: { random: () => 0.5, ...policy, sleep: async (ms) => void waits.push(ms) } };
}

describe('retries', () => {
  it('waits the Retry-After a 503 asks for (1 second), then answers the 200', async () => {
    const server = await answering([503, { 'retry-after': '1' }], [200]);
    const { retry, waits } = recorded();
    const answer = await createClient({ baseUrl: server.url, retry }).get('/a');
    expect(answer.status).toBe(200);
    expect(waits).toEqual([1000]);
    expect(server.seen).toHaveLength(2);
  });

  it('reads Retry-After as an HTTP-date, and RateLimit\'s t of a spent limit ("default";r=0;t=17)', async () => {
    const now = Date.parse('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(retryDelay({ now: () => now }, 0, 503, new Headers({ 'retry-after': 'Sun, 06 Nov 1994 08:49:40 GMT' }), now)).toBe(3000);
    const server = await answering([429, { ratelimit: '"burst";r=5;t=1, "default";r=0;t=17' }], [200]);
    const { retry, waits } = recorded();
    expect((await createClient({ baseUrl: server.url, retry }).get('/a')).status).toBe(200);
    expect(waits).toEqual([17_000]);
  });

  it('backs off exponentially with full jitter, for as many attempts as the policy allows, then answers the last error', async () => {
    const server = await answering([503]);
    const { retry, waits } = recorded({ attempts: 4, delay: 100 });
    expect((await createClient({ baseUrl: server.url, retry }).get('/a')).status).toBe(503);
    // random() = 0.5 of 100, 200 and 400 ms.
    expect(waits).toEqual([50, 100, 200]);
    expect(server.seen).toHaveLength(4);
  });

  it('does not wait longer than maxDelay, nor past maxElapsed: the answer is returned', async () => {
    const long = await answering([503, { 'retry-after': '3600' }], [200]);
    const { retry, waits } = recorded();
    expect((await createClient({ baseUrl: long.url, retry }).get('/a')).status).toBe(503);
    expect(waits).toEqual([]);
    expect(retryDelay({ maxElapsed: 5000, now: () => 10_000 }, 0, 503, new Headers({ 'retry-after': '2' }), 4000)).toBeUndefined();
  });

  it('tries again only what is safe to repeat: not a POST, but a POST with idempotencyKey (the same key each time), and a PUT with If-Match', async () => {
    const server = await answering([503, { 'retry-after': '0' }]);
    const { retry } = recorded({ attempts: 2 });
    const client = createClient({ baseUrl: server.url, retry });
    await client.post('/orders', { body: {} });
    expect(server.seen.map(({ method }) => method)).toEqual(['POST']);
    await client.post('/orders', { body: {}, idempotencyKey: true });
    const keys = server.seen.slice(1).map(({ headers }) => headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/);
    expect(keys[1]).toBe(keys[0]);
    await client.put('/orders/1', { body: {} });
    await client.put('/orders/1', { body: {}, headers: { 'If-Match': '"1"' } });
    expect(server.seen.slice(3).map(({ method }) => method)).toEqual(['PUT', 'PUT', 'PUT']);
    // Another call, another key.
    await client.post('/orders', { body: {}, idempotencyKey: true });
    expect(server.seen.at(-1)!.headers['idempotency-key']).not.toBe(keys[0]);
  });

  it('is off by default', async () => {
    const server = await answering([503, { 'retry-after': '0' }], [200]);
    expect((await createClient({ baseUrl: server.url }).get('/a')).status).toBe(503);
    expect(server.seen).toHaveLength(1);
  });

  it('tries again a call that got no answer, and a signal stops the wait with its reason', async () => {
    const { retry, waits } = recorded({ attempts: 2 });
    let calls = 0;
    const flaky = createClient({ baseUrl: 'https://api.example', retry, fetch: async () => (calls++ === 0 ? Promise.reject(new TypeError('fetch failed')) : new Response('{}', { headers: { 'content-type': 'application/json' } })) });
    expect((await flaky.get('/a')).status).toBe(200);
    expect(waits).toEqual([125]);
    const server = await answering([503, { 'retry-after': '30' }], [200]);
    const controller = new AbortController();
    const call = createClient({ baseUrl: server.url, retry: true, onResponse: () => controller.abort(new Error('stop')) }).get('/a', { signal: controller.signal });
    await expect(call).rejects.toThrow('stop');
    expect(server.seen).toHaveLength(1);
  });
});
