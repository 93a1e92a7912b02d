/**
 * The demo API answers every curl line of the README's tour as documented, over real HTTP: on PGlite
 * with its keys and counts in memory, and on Debian's Postgres and Redis servers, where two instances
 * share the keys and the counts.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeListener } from '../src/adapters/node.js';
import { createDemoApi, openDemoStore } from '../examples/demo-api.mjs';
import { DEMO_AVATAR_PNG } from '../examples/avatars.mjs';
import { OPEN_TIMEOUT, openDemoDatabase } from './helpers/demo-database.js';
import { POSTGRES_MISSING, startPostgres } from './helpers/postgres-server.js';
import { answerOf, expectProblem } from './helpers/problem.js';
import { findRedisServer, startRedisServer } from './helpers/redis-server.js';

const alice = { authorization: 'Bearer alice-token' };
const bob = { authorization: 'Bearer bob-token' };
const json = { 'content-type': 'application/json' };
const redisBinary = findRedisServer();

/** A server of the demo's own on a loopback port, and its base URL. */
async function serve(api: ReturnType<typeof createDemoApi>): Promise<{ server: Server; base: string }> {
  const server = createServer(toNodeListener(api));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** An open event stream over fetch: its frames as they come (`next()`), and `close()`, which leaves it. */
function eventStream(response: Response): { next(): Promise<string>; close(): Promise<void> } {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    async next() {
      while (!text.includes('\n\n')) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended after ${JSON.stringify(text)}`);
        text += decoder.decode(value, { stream: true });
      }
      const end = text.indexOf('\n\n');
      const frame = text.slice(0, end);
      text = text.slice(end + 2);
      // A keep-alive comment is no event: the next frame is.
      return frame.startsWith(':') ? this.next() : frame;
    },
    close: () => reader.cancel().catch(() => {}),
  };
}

const orderFrame = (order: { id: number; userId: number; item: string; quantity: number }) => `event: order\nid: ${order.id}\ndata: ${JSON.stringify(order)}`;

/** Where the demo keeps its data, and its idempotency keys and rate-limit counts. */
const SETUPS = [
  { name: 'PGlite, keys and counts in memory', skip: undefined, database: async () => ({ url: undefined, stop: async () => {} }), redis: false },
  {
    name: 'a Postgres server, keys and counts on a Redis server',
    skip: POSTGRES_MISSING ?? (redisBinary === undefined ? 'redis-server is not installed' : undefined),
    database: startPostgres,
    redis: true,
  },
] as const;

for (const { name, skip, database, redis } of SETUPS) describe.skipIf(skip !== undefined)(`the README tour of the demo API on ${name}`, () => {
  let servers: Server[] = [];
  let db: Awaited<ReturnType<typeof openDemoDatabase>>;
  let keys: Awaited<ReturnType<typeof openDemoStore>>;
  let postgres: { url: string | undefined; stop(): Promise<void> };
  let redisServer: Awaited<ReturnType<typeof startRedisServer>> | undefined;
  let base: string;
  /** The base URL of a second instance of the demo, on the same database and store. */
  let other: string;

  beforeAll(async () => {
    postgres = await database();
    if (redis) redisServer = await startRedisServer(redisBinary!);
    // An empty URL is memory even where REDIS_URL is set.
    keys = await openDemoStore({ url: redisServer === undefined ? '' : `redis://127.0.0.1:${redisServer.port}` });
    expect(keys.kind).toBe(redis ? 'redis' : 'memory');
    db = await openDemoDatabase({ url: postgres.url });
    const instances = await Promise.all([serve(createDemoApi(db, { store: keys.store, onError: () => {} })), serve(createDemoApi(db, { store: keys.store, onError: () => {} }))]);
    servers = instances.map((instance) => instance.server);
    [base, other] = instances.map((instance) => instance.base) as [string, string];
  }, OPEN_TIMEOUT);
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    await db?.close();
    await keys?.close();
    await redisServer?.close();
    await postgres?.stop();
  });

  it('GET /health is public', async () => {
    const response = await fetch(`${base}/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('GET /users/1 without a token is 401 with a challenge', async () => {
    const answer = await answerOf(await fetch(`${base}/users/1`));
    expectProblem(answer, { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer realm="api"' }, exact: true });
  });

  it('alice reads herself, with the rate limit of her requests, and not bob', async () => {
    const own = await fetch(`${base}/users/1`, { headers: alice });
    expect(own.status).toBe(200);
    expect(own.headers.get('ratelimit-policy')).toBe('"default";q=300;w=60');
    expect(own.headers.get('ratelimit')).toBe('"default";r=299;t=60');
    expect(await own.json()).toEqual({ id: 1, name: 'Alice', email: 'alice@example.com' });
    expectProblem(await answerOf(await fetch(`${base}/users/2`, { headers: alice })), { status: 403, code: 'RC_FORBIDDEN', exact: true });
  });

  it("a repeated GET with the item's ETag in If-None-Match answers 304, without a body", async () => {
    const first = await fetch(`${base}/users/1`, { headers: alice });
    expect(first.headers.get('etag')).toBe('"1"');
    const again = await fetch(`${base}/users/1`, { headers: { ...alice, 'if-none-match': '"1"' } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe('"1"');
    expect(await again.text()).toBe('');
  });

  it("alice's orders come a page at a time: limit=1 answers one order and a Link to the next page", async () => {
    const first = await fetch(`${base}/users/1/orders?limit=1`, { headers: alice });
    expect(first.status).toBe(200);
    const page = (await first.json()) as { items: { id: number }[]; next: string | null; prev: string | null };
    expect(page.items).toEqual([{ id: 1, userId: 1, item: 'Notebook', quantity: 2 }]);
    expect(page.prev).toBeNull();
    expect(first.headers.get('link')).toBe(`<${page.next}>; rel="next"`);
    const second = await fetch(`${base}${page.next}`, { headers: alice });
    expect(await second.json()).toMatchObject({ items: [{ id: 3, userId: 1, item: 'Eraser', quantity: 1 }], next: null });
  });

  it('alice creates an order: 201 with Location', async () => {
    const response = await fetch(`${base}/users/1/orders`, { method: 'POST', headers: { ...alice, ...json }, body: '{"item":"Stapler","quantity":1}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/users/1/orders/4');
    expect(await response.json()).toEqual({ id: 4, userId: 1, item: 'Stapler', quantity: 1 });
  });

  it('a create with an Idempotency-Key sent again replays its 201 and adds no order; with another body it is 422', async () => {
    const create = (body: string) => fetch(`${base}/users/1/orders`, { method: 'POST', headers: { ...alice, ...json, 'idempotency-key': '"order-7"' }, body });
    const first = await create('{"item":"Ruler","quantity":1}');
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe('/users/1/orders/5');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await first.json()).toEqual({ id: 5, userId: 1, item: 'Ruler', quantity: 1 });
    const again = await create('{"item":"Ruler","quantity":1}');
    expect(again.status).toBe(201);
    expect(again.headers.get('location')).toBe('/users/1/orders/5');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual({ id: 5, userId: 1, item: 'Ruler', quantity: 1 });
    const rulers = await (await fetch(`${base}/users/1/orders?item=Ruler`, { headers: alice })).json();
    expect(rulers.items).toEqual([{ id: 5, userId: 1, item: 'Ruler', quantity: 1 }]);
    expectProblem(await answerOf(await create('{"item":"Ruler","quantity":2}')), { status: 422, title: 'Idempotency-Key is already used', type: 'urn:restcanon:problem:idempotency-key-reused' });
  });

  it('an invalid order is 400 listing both fields', async () => {
    const response = await fetch(`${base}/users/1/orders`, { method: 'POST', headers: { ...alice, ...json }, body: '{"item":"","quantity":0}' });
    const problem = expectProblem(await answerOf(response), { status: 400, code: 'RC_INVALID_INPUT' }) as { errors: { pointer: string }[] };
    expect(problem.errors.map((issue: { pointer: string }) => issue.pointer)).toEqual(['#/item', '#/quantity']);
  });

  it('a PATCH with a stale If-Match answers 412 and changes nothing; with the current ETag the merge patch applies', async () => {
    const patch = (etag: string, body: string) => fetch(`${base}/users/1`, { method: 'PATCH', headers: { ...alice, 'content-type': 'application/merge-patch+json', 'if-match': etag }, body });
    expectProblem(await answerOf(await patch('"0"', '{"name":"Alicia"}')), { status: 412, code: 'RC_PRECONDITION_FAILED' });
    expect(await (await fetch(`${base}/users/1`, { headers: alice })).json()).toEqual({ id: 1, name: 'Alice', email: 'alice@example.com' });
    const changed = await patch('"1"', '{"name":"Alicia"}');
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(await changed.json()).toEqual({ id: 1, name: 'Alicia', email: 'alice@example.com' });
  });

  it('a browser preflight from http://localhost:5173 is granted; one from another origin gets no CORS header', async () => {
    const preflight = (origin: string) =>
      fetch(`${base}/users/1/orders`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    const allowed = await preflight('http://localhost:5173');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const other = await preflight('http://evil.example');
    expect([...other.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const read = await fetch(`${base}/users/1`, { headers: { ...alice, origin: 'http://localhost:5173' } });
    expect(read.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(read.headers.get('access-control-expose-headers')?.toLowerCase().split(/,\s*/)).toEqual(expect.arrayContaining(['etag', 'location', 'link', 'ratelimit', 'ratelimit-policy', 'idempotent-replayed']));
  });

  it("alice sends her avatar as PNG bytes: 200 with its type, size and ETag; a PNG sent as image/jpeg is 422; Bob's is 403", async () => {
    const send = (type: string, user = 1) => fetch(`${base}/users/${user}/avatar`, { method: 'PUT', headers: { ...alice, 'content-type': type }, body: DEMO_AVATAR_PNG });
    const sent = await send('image/png');
    expect(sent.status).toBe(200);
    expect(sent.headers.get('etag')).toMatch(/^"\d+"$/);
    expect(await sent.json()).toEqual({ type: 'image/png', size: 70 });
    expectProblem(await answerOf(await send('image/jpeg')), { status: 422, code: 'RC_UNPROCESSABLE', detail: 'The bytes are not a JPEG image' });
    expectProblem(await answerOf(await send('image/png', 2)), { status: 403, code: 'RC_FORBIDDEN' });
    expectProblem(await answerOf(await fetch(`${base}/users/1/avatar`, { method: 'PUT', headers: { ...alice, 'content-type': 'image/gif' }, body: DEMO_AVATAR_PNG })), { status: 415 });
    const large = new Uint8Array(1024 * 1024 + 1);
    large.set(DEMO_AVATAR_PNG);
    expectProblem(await answerOf(await fetch(`${base}/users/1/avatar`, { method: 'PUT', headers: { ...alice, 'content-type': 'image/png' }, body: large })), { status: 413 });
  });

  it('anyone downloads the avatar as avatar-1.png, from either instance; If-None-Match gets 304; removed, it is 404', async () => {
    const download = await fetch(`${other}/users/1/avatar?download=1`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(download.headers.get('content-length')).toBe('70');
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="avatar-1.png"');
    expect(download.headers.get('cache-control')).toBe('public, no-cache');
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(DEMO_AVATAR_PNG);
    const etag = download.headers.get('etag')!;
    const again = await fetch(`${base}/users/1/avatar`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await fetch(`${base}/users/2/avatar`, { method: 'DELETE', headers: alice })).status).toBe(403);
    expect((await fetch(`${base}/users/1/avatar`, { method: 'DELETE', headers: alice })).status).toBe(204);
    expectProblem(await answerOf(await fetch(`${base}/users/1/avatar`)), { status: 404, code: 'RC_NOT_FOUND' });
    // Sent again, it has a new ETag: a copy of the old one is never taken for it.
    const resent = await fetch(`${base}/users/1/avatar`, { method: 'PUT', headers: { ...alice, 'content-type': 'image/png' }, body: DEMO_AVATAR_PNG });
    expect(resent.headers.get('etag')).not.toBe(etag);
    expect((await fetch(`${base}/users/1/avatar`, { headers: { 'if-none-match': etag } })).status).toBe(200);
  });

  it("alice's event stream sends each order created for her on either instance, and resumes after Last-Event-ID", async () => {
    const open = (headers: Record<string, string> = {}) => fetch(`${base}/users/1/orders/events`, { headers: { ...alice, ...headers } });
    const response = await open();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const stream = eventStream(response);
    try {
      expect(await stream.next()).toBe('retry: 2000');
      const created = await (await fetch(`${other}/users/1/orders`, { method: 'POST', headers: { ...alice, ...json }, body: '{"item":"Compass","quantity":2}' })).json();
      expect(await stream.next()).toBe(orderFrame(created));
      // Bob's orders are not Alice's.
      await fetch(`${base}/users/2/orders`, { method: 'POST', headers: { authorization: 'Bearer admin-token', ...json }, body: '{"item":"Glue","quantity":1}' });
      const next = await (await fetch(`${base}/users/1/orders`, { method: 'POST', headers: { ...alice, ...json }, body: '{"item":"Tape","quantity":1}' })).json();
      expect(await stream.next()).toBe(orderFrame(next));
    } finally {
      await stream.close();
    }
    const orders = (await (await fetch(`${base}/users/1/orders?limit=50`, { headers: alice })).json()).items as { id: number; userId: number; item: string; quantity: number }[];
    const resumed = eventStream(await open({ 'last-event-id': '3' }));
    try {
      expect(await resumed.next()).toBe('retry: 2000');
      for (const order of orders.filter(({ id }) => id > 3)) expect(await resumed.next()).toBe(orderFrame(order));
    } finally {
      await resumed.close();
    }
    expectProblem(await answerOf(await fetch(`${base}/users/2/orders/events`, { headers: alice })), { status: 403, code: 'RC_FORBIDDEN' });
  });

  it('a fourth stream of one user on one instance is 429 with Retry-After; one closed, a new one opens', async () => {
    const open = () => fetch(`${base}/users/1/orders/events`, { headers: alice });
    const streams = [];
    for (let index = 0; index < 3; index++) {
      const stream = eventStream(await open());
      expect(await stream.next()).toBe('retry: 2000');
      streams.push(stream);
    }
    try {
      const refused = await answerOf(await open());
      expectProblem(refused, { status: 429, code: 'RC_TOO_MANY_REQUESTS' });
      expect(refused.headers['retry-after']).toBe('5');
      // The other instance counts its own.
      const elsewhere = eventStream(await fetch(`${other}/users/1/orders/events`, { headers: alice }));
      expect(await elsewhere.next()).toBe('retry: 2000');
      await elsewhere.close();
      await streams.pop()!.close();
      // The server learns that the client left when its connection closes.
      let status = 429;
      for (let tries = 0; status === 429 && tries < 50; tries++) {
        const response = await open();
        status = response.status;
        if (status === 200) streams.push(eventStream(response));
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(status).toBe(200);
    } finally {
      await Promise.all(streams.map((stream) => stream.close()));
    }
  });

  it('only the admin removes users', async () => {
    expect((await fetch(`${base}/users/1`, { method: 'DELETE', headers: alice })).status).toBe(403);
    const removed = await fetch(`${base}/users/2`, { method: 'DELETE', headers: { authorization: 'Bearer admin-token' } });
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ id: 2, name: 'Bob', email: 'bob@example.com' });
  });

  it('GET /openapi.json is the public OpenAPI document', async () => {
    const response = await fetch(`${base}/openapi.json`);
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document).toMatchObject({ openapi: '3.1.0', info: { title: 'restcanon demo', version: '1.0.0' } });
    expect(Object.keys(document.paths)).toEqual(['/health', '/users/{id}/avatar', '/users/{userId}/orders/events', '/openapi.json', '/users', '/users/{id}', '/users/{userId}/orders', '/users/{userId}/orders/{id}']);
  });

  it('PUT /health is 405 with Allow', async () => {
    const response = await fetch(`${base}/health`, { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it.runIf(redis)('an order created by an instance with connections of its own reaches the stream of another, through NOTIFY', async () => {
    const own = await openDemoDatabase({ url: postgres.url });
    const third = await serve(createDemoApi(own, { store: keys.store, onError: () => {} }));
    servers.push(third.server);
    const stream = eventStream(await fetch(`${base}/users/1/orders/events`, { headers: alice }));
    try {
      expect(await stream.next()).toBe('retry: 2000');
      const created = await (await fetch(`${third.base}/users/1/orders`, { method: 'POST', headers: { ...alice, ...json }, body: '{"item":"Atlas","quantity":1}' })).json();
      expect(await stream.next()).toBe(orderFrame(created));
    } finally {
      await stream.close();
      await own.close();
    }
  });

  it.runIf(redis)('a key used on one instance replays on the other, which runs nothing', async () => {
    const create = (at: string) => fetch(`${at}/users/1/orders`, { method: 'POST', headers: { ...alice, ...json, 'idempotency-key': '"across"' }, body: '{"item":"Globe","quantity":3}' });
    const first = await create(base);
    expect(first.status).toBe(201);
    const location = first.headers.get('location');
    const again = await create(other);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(location);
    expect((await (await fetch(`${other}/users/1/orders?item=Globe`, { headers: alice })).json()).items).toHaveLength(1);
  });

  it.runIf(redis)('the rate limit counts the requests of both instances together', async () => {
    const left = async (at: string) => (await fetch(`${at}/users/2`, { headers: bob })).headers.get('ratelimit');
    expect(await left(base)).toBe('"default";r=299;t=60');
    expect(await left(other)).toMatch(/^"default";r=298;t=(59|60)$/);
    expect(await left(base)).toMatch(/^"default";r=297;t=(59|60)$/);
  });

  it.runIf(redis)('a caller over the quota is refused by either instance, with Retry-After', async () => {
    // Two instances with a quota of 3, sharing a store of their own on the same Redis: counts of the tour's requests stay apart.
    const quota = await openDemoStore({ url: `redis://127.0.0.1:${redisServer!.port}`, prefix: 'restcanon-demo-quota:' });
    const low = await Promise.all([1, 2].map(() => serve(createDemoApi(db, { store: quota.store, rateLimit: { quota: 3, window: 60 }, onError: () => {} }))));
    servers.push(...low.map((instance) => instance.server));
    const statuses = [];
    for (const at of [low[0]!.base, low[1]!.base, low[0]!.base]) statuses.push((await fetch(`${at}/users/1`, { headers: alice })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await answerOf(await fetch(`${low[1]!.base}/users/1`, { headers: alice }));
    await quota.close();
    expectProblem(refused, { status: 429, title: 'Quota exceeded', type: 'https://iana.org/assignments/http-problem-types#quota-exceeded' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers.ratelimit).toMatch(/^"default";r=0;t=\d+$/);
  });
});

describe('npm start', () => {
  // It starts Postgres in its process (PGlite) before it listens.
  it('serves the demo on PORT and prints curl lines to try', { timeout: OPEN_TIMEOUT }, async () => {
    const { spawn } = await import('node:child_process');
    const { createServer: createProbe } = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const probe = createProbe().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const child = spawn(process.execPath, ['examples/server.mjs'], { cwd: `${import.meta.dirname}/..`, env: { ...process.env, PORT: String(port) } });
    try {
      let output = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('openapi.json')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
      });
      expect(output).toContain(`restcanon demo API on http://localhost:${port}`);
      expect(output).toContain(`curl -i -H 'Authorization: Bearer alice-token' http://localhost:${port}/users/1`);
      expect(output).toContain(`-H 'Idempotency-Key: "order-7"' -d '{"item":"Ruler","quantity":1}' http://localhost:${port}/users/1/orders`);
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
      // The upload as printed: the PNG it names is there, and is what the demo takes.
      const upload = /--data-binary @(\S+) http:\/\/localhost:\d+\/users\/1\/avatar/.exec(output);
      expect(upload?.[1]).toBe(join(tmpdir(), 'restcanon-demo-avatar.png'));
      const sent = await fetch(`http://127.0.0.1:${port}/users/1/avatar`, { method: 'PUT', headers: { ...alice, 'content-type': 'image/png' }, body: await readFile(upload![1]!) });
      expect(sent.status).toBe(200);
      expect(await sent.json()).toEqual({ type: 'image/png', size: 70 });
      expect(output).toContain(`curl -D - -OJ 'http://localhost:${port}/users/1/avatar?download=1'`);
      expect(output).toContain(`curl -N -H 'Authorization: Bearer alice-token' http://localhost:${port}/users/1/orders/events`);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
