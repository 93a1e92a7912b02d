/**
 * restcanon/client against the demo API and small APIs, over HTTP (the node adapter on an ephemeral
 * port) and in memory (api.handle): the same calls, the same answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint, json, text } from 'restcanon';
import { bodyOf, ClientError, createClient, type ClientOptions } from 'restcanon/client';
import { toNodeListener } from 'restcanon/node';
import { createDemoApi } from '../../examples/demo-api.mjs';
import { OPEN_TIMEOUT, openDemoDatabase, resetDemoData } from '../helpers/demo-database.js';

type DemoApi = ReturnType<typeof createDemoApi>;

const servers: Server[] = [];

/** Serves an API on an ephemeral port; the URL of its basePath. */
async function serve(api: Parameters<typeof toNodeListener>[0]): Promise<string> {
  const server = createServer(toNodeListener(api));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${api.basePath === '/' ? '' : api.basePath}`;
}

let db: Awaited<ReturnType<typeof openDemoDatabase>>;
beforeAll(async () => {
  db = await openDemoDatabase();
}, OPEN_TIMEOUT);
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await db.close();
});

const ALICE = { authorization: 'Bearer alice-token' };
const ADMIN = { authorization: 'Bearer admin-token' };

describe.each(['http', 'memory'] as const)('the demo API through the client (%s)', (transport) => {
  let options: (headers?: Record<string, string>, etags?: boolean) => ClientOptions;

  beforeAll(async () => {
    // Each transport starts from the demo's first data.
    await resetDemoData(db);
    const api = createDemoApi(db, { onError: () => {} });
    const baseUrl = transport === 'http' ? await serve(api) : undefined;
    options = (headers = {}, etags = false) => ({ ...(baseUrl === undefined ? { api } : { baseUrl }), headers, etags });
  });

  it('reads a public endpoint, and a user with a token', async () => {
    const client = createClient<DemoApi>(options(ALICE));
    expect(bodyOf(await client.get('/health'))).toEqual({ status: 'ok' });
    const answer = await client.get('/users/:id', { params: { id: 1 } });
    expect(answer).toMatchObject({ ok: true, status: 200, body: { id: 1, name: 'Alice', email: 'alice@example.com' } });
    expect(answer.headers.get('etag')).toBe('"1"');
  });

  it('answers an error as a problem with its code, and bodyOf throws it as a ClientError', async () => {
    const anonymous = createClient<DemoApi>(options());
    const answer = await anonymous.get('/users/:id', { params: { id: 1 } });
    expect(answer).toMatchObject({ ok: false, status: 401, problem: { code: 'RC_UNAUTHORIZED' } });
    const client = createClient<DemoApi>(options(ALICE));
    const error = await client.get('/users/:id', { params: { id: 2 } }).then(bodyOf, (failure: unknown) => failure).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ status: 403, problem: { code: 'RC_FORBIDDEN' } });
  });

  it('creates, replaces, merge-patches with If-Match from the kept ETag, and removes', async () => {
    const admin = createClient<DemoApi>(options(ADMIN, true));
    const created = await admin.post('/users', { body: { name: 'Grace', email: 'grace@example.com' } });
    expect(created).toMatchObject({ status: 201, body: { name: 'Grace' } });
    const id = bodyOf(created).id;
    expect(created.headers.get('location')).toMatch(new RegExp(`/users/${id}$`));
    expect((await admin.get('/users/:id', { params: { id } })).status).toBe(200);
    // The kept ETag makes the next GET conditional: a 304 answers the kept body.
    expect(await admin.get('/users/:id', { params: { id } })).toMatchObject({ status: 304, body: { name: 'Grace' } });
    expect(await admin.put('/users/:id', { params: { id }, body: { name: 'Grace H.', email: 'grace@example.com' } })).toMatchObject({ status: 200, body: { name: 'Grace H.' } });
    const patched = await admin.patch('/users/:id', { params: { id }, body: { name: 'Grace Hopper' }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched).toMatchObject({ status: 200, body: { name: 'Grace Hopper' } });
    // A stale If-Match given by the call wins over the kept one: 412.
    expect(await admin.patch('/users/:id', { params: { id }, body: { name: 'X' }, headers: { 'if-match': '"1"' } })).toMatchObject({ status: 412, problem: { code: 'RC_PRECONDITION_FAILED' } });
    expect((await admin.delete('/users/:id', { params: { id } })).status).toBe(200);
    expect((await admin.get('/users/:id', { params: { id } })).status).toBe(404);
  });

  it('sends the query, and walks the pages of a paged list', async () => {
    const client = createClient<DemoApi>(options(ALICE));
    await client.post('/users/:userId/orders', { params: { userId: 1 }, body: { item: 'Stapler', quantity: 1 } });
    const pages = [];
    for await (const page of client.pages('/users/:userId/orders', { params: { userId: 1 }, query: { limit: 1, sort: 'item' } })) pages.push(page.items.map((order) => order.item));
    expect(pages).toEqual([['Eraser'], ['Notebook'], ['Stapler']]);
    const invalid = await client.post('/users/:userId/orders', { params: { userId: 1 }, body: { item: '', quantity: 0 } });
    expect(invalid).toMatchObject({ status: 400, problem: { code: 'RC_INVALID_INPUT' } });
  });

  it('throws a ClientError from pages on an error answer', async () => {
    const client = createClient<DemoApi>(options(ALICE));
    const walk = async () => {
      for await (const page of client.pages('/users/:userId/orders', { params: { userId: 2 } })) expect(page).toBeUndefined();
    };
    await expect(walk()).rejects.toMatchObject({ name: 'ClientError', status: 403 });
  });
});

describe('pages and links that lead away from the API', () => {
  const api = createApi({ resources: [collection('numbers', { page: { by: 'offset' }, list: () => [] })] });

  /** A server that answers every request with `body` as JSON, and counts the requests it gets. */
  async function answering(body: unknown): Promise<{ url: string; requests: () => number; authorization: () => string | undefined }> {
    let count = 0;
    let authorization: string | undefined;
    const server = createServer((request, response) => {
      count += 1;
      authorization = request.headers.authorization;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(body));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => count, authorization: () => authorization };
  }

  it.each(['absolute', 'protocol-relative'])('never follows a %s next link to another origin, so the credentials stay with the API', async (form) => {
    const elsewhere = await answering({ items: [], next: null });
    const next = form === 'absolute' ? `${elsewhere.url}/steal` : `//${elsewhere.url.slice('http://'.length)}/steal`;
    const server = await answering({ items: [1], next, prev: null });
    const client = createClient<typeof api>({ baseUrl: server.url, headers: { authorization: 'Bearer secret' } });
    const seen: unknown[] = [];
    const walk = async () => {
      for await (const page of client.pages('/numbers')) seen.push(page.items);
    };
    await expect(walk()).rejects.toThrow(/leads away from the API/);
    expect(seen).toEqual([[1]]);
    expect(server.authorization()).toBe('Bearer secret');
    expect(elsewhere.requests()).toBe(0);
  });

  it('in memory, follows only paths', async () => {
    // The same route, answering a page whose next link names another host.
    const hostile = createApi({ endpoints: [endpoint('GET', '/numbers', { handle: () => ({ items: [1], next: 'http://elsewhere.example/numbers', prev: null }) })] });
    const walk = async () => {
      for await (const page of createClient<typeof api>({ api: hostile }).pages('/numbers')) expect(page.items).toEqual([1]);
    };
    await expect(walk()).rejects.toThrow(/leads away from the API/);
  });
});

describe('what the client sends and keeps, against hostile or odd input', () => {
  it('keeps ETags per caller: a 304 never answers one user with the body another was sent', async () => {
    const profiles = collection('profiles', {
      item: z.object({ id: z.string(), owner: z.string(), version: z.number() }),
      etag: (profile) => String(profile.version),
      read: (ctx) => ({ id: 'me', owner: String((ctx.principal as { id: string }).id), version: 1 }),
    });
    const api = createApi({ resources: [profiles], authenticate: (request) => ({ id: String(request.headers?.authorization).slice('Bearer '.length) }) });
    const client = createClient<typeof api>({ baseUrl: await serve(api), etags: true });
    const alice = await client.get('/profiles/:id', { params: { id: 'me' }, headers: { authorization: 'Bearer alice' } });
    const bob = await client.get('/profiles/:id', { params: { id: 'me' }, headers: { authorization: 'Bearer bob' } });
    expect([alice.status, bob.status]).toEqual([200, 200]);
    expect(bodyOf(bob)).toMatchObject({ owner: 'bob' });
    const again = await client.get('/profiles/:id', { params: { id: 'me' }, headers: { authorization: 'Bearer alice' } });
    expect(again).toMatchObject({ status: 304, body: { owner: 'alice' } });
  });

  it('refuses a param of ., .. or nothing, which a URL would read as another resource, and sends no request', async () => {
    const seen: string[] = [];
    const files = collection('files', { list: () => (seen.push('list'), []), read: (ctx) => (seen.push(ctx.params.id), { id: ctx.params.id }), remove: () => true });
    const api = createApi({ resources: [files] });
    const client = createClient<typeof api>({ baseUrl: await serve(api) });
    for (const id of ['..', '.', '']) await expect(client.get('/files/:id', { params: { id } })).rejects.toThrow(/the param "id" is empty, "\." or "\.\."/);
    // @ts-expect-error: the params are missing
    await expect(client.get('/files/:id')).rejects.toThrow(/the param "id" has no value/);
    await expect(client.delete('/files/:id', { params: { id: '..' } })).rejects.toThrow(TypeError);
    expect((await client.get('/files/:id', { params: { id: 'a.b' } })).status).toBe(200);
    expect(seen).toEqual(['a.b']);
  });

  it('a call missing a path param says so in the client\'s words, never naming buildPath: get(\'/files/:id\') and get(\'/files/:id\', { params: {} })', async () => {
    const files = collection('files', { read: (ctx) => ({ id: ctx.params.id }) });
    const api = createApi({ resources: [files] });
    const client = createClient<typeof api>({ api });
    const missing = 'GET /files/:id: the param "id" has no value; pass it in params, such as { params: { id: ... } }';
    // @ts-expect-error: the params are missing
    await expect(client.get('/files/:id')).rejects.toThrow(missing);
    // @ts-expect-error: the param is missing
    await expect(client.get('/files/:id', { params: {} })).rejects.toThrow(missing);
    // @ts-expect-error: the param is missing
    await expect(client.get('/files/:id', { params: { id: undefined } })).rejects.toThrow(missing);
  });

  it('does not send a weak ETag as If-Match, which would fail every change', async () => {
    const doc = { id: 1, text: 'a', version: 1 };
    const docs = collection('docs', {
      body: z.object({ text: z.string() }),
      etag: (item) => `W/"${(item as typeof doc).version}"`,
      read: () => doc,
      replace: (ctx) => Object.assign(doc, ctx.body, { version: doc.version + 1 }),
    });
    const api = createApi({ resources: [docs] });
    const client = createClient<typeof api>({ api, etags: true });
    expect((await client.get('/docs/:id', { params: { id: 1 } })).status).toBe(200);
    expect((await client.put('/docs/:id', { params: { id: 1 }, body: { text: 'b' } })).status).toBe(200);
  });

  it('reads malformed JSON and error bodies that are not problems without rejecting', async () => {
    const server = createServer((request, response) => {
      if (request.url === '/broken') response.writeHead(500, { 'content-type': 'Application/JSON' }).end('{"broken');
      else if (request.url === '/html') response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
      else if (request.url === '/empty') response.writeHead(500).end();
      else response.writeHead(200, { 'content-type': 'APPLICATION/JSON; charset=utf-8' }).end('{"ok":true}');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    expect(await client.get('/broken')).toMatchObject({ ok: false, status: 500, problem: { status: 500, detail: '{"broken' } });
    expect(await client.get('/html')).toMatchObject({ ok: false, status: 502, problem: { type: 'about:blank', status: 502, detail: '<h1>Bad Gateway</h1>' } });
    const empty = await client.get('/empty');
    expect(empty).toMatchObject({ ok: false, status: 500, problem: { type: 'about:blank', status: 500 } });
    expect(await client.get('/ok')).toMatchObject({ ok: true, body: { ok: true } });
  });

  it('sends a string body under a non-JSON type as it is', async () => {
    const imports = endpoint('POST', '/imports', { body: 'unvalidated', consumes: ['text/csv'], handle: (ctx) => ({ got: ctx.body }) });
    const api = createApi({ endpoints: [imports] });
    const client = createClient<typeof api>({ baseUrl: await serve(api) });
    const answer = await client.post('/imports', { body: 'a,b\n1,2', headers: { 'content-type': 'text/csv' } });
    expect(answer).toMatchObject({ status: 200, body: { got: 'a,b\n1,2' } });
  });

  it('stops at a next link that came before', async () => {
    const looping = createApi({ endpoints: [endpoint('GET', '/numbers', { handle: () => ({ items: [1], next: '/numbers', prev: null }) })] });
    const api = createApi({ resources: [collection('numbers', { page: { by: 'offset' }, list: () => [] })] });
    const seen: unknown[] = [];
    const walk = async () => {
      for await (const page of createClient<typeof api>({ api: looping }).pages('/numbers')) seen.push(page.items);
    };
    await expect(walk()).rejects.toThrow(/came before/);
    expect(seen).toEqual([[1], [1]]);
  });
});

describe('createClient options', () => {
  const api = createApi({ endpoints: [endpoint('GET', '/ping', { handle: () => 'pong' })] });

  it('refuses a baseUrl with a query or a fragment', () => {
    expect(() => createClient({ baseUrl: 'https://api.example/api?key=1' })).toThrow(/without a query or fragment/);
    expect(() => createClient({ baseUrl: 'https://api.example/api#x' })).toThrow(TypeError);
  });

  it('needs exactly one of baseUrl and api, and refuses unknown options', () => {
    expect(() => createClient({})).toThrow(TypeError);
    expect(() => createClient({ api, baseUrl: 'http://localhost' })).toThrow(/exactly one/);
    expect(() => createClient({ api, baseURL: 'http://localhost' } as ClientOptions)).toThrow(/unknown option "baseURL"/);
  });

  it('reads a text answer as text, and an empty one as undefined', async () => {
    const removed = collection('notes', { remove: () => true });
    const small = createApi({ formats: [json, text], endpoints: [endpoint('GET', '/ping', { handle: () => 'pong' })], resources: [removed] });
    const client = createClient<typeof small>({ api: small });
    expect(await client.get('/ping', { headers: { accept: 'text/plain' } })).toMatchObject({ status: 200, body: 'pong' });
    expect(await client.delete('/notes/:id', { params: { id: 'a b' } })).toMatchObject({ status: 204, body: undefined });
  });

  it('puts the basePath in front in memory, encodes params and sends repeated query keys', async () => {
    const seen: string[] = [];
    const echo = createApi({
      basePath: '/api',
      endpoints: [endpoint('GET', '/files/:name', { query: z.object({ tag: z.array(z.string()) }), handle: (ctx) => { seen.push(ctx.request.url); return ctx.query.tag; } })],
    });
    const client = createClient<typeof echo>({ api: echo });
    expect(bodyOf(await client.get('/files/:name', { params: { name: 'a/b' }, query: { tag: ['x', 'y'] } }))).toEqual(['x', 'y']);
    expect(seen).toEqual(['/api/files/a%2Fb?tag=x&tag=y']);
  });

  it('uses the fetch it is given, with the headers of the client and the call', async () => {
    const calls: [string, RequestInit][] = [];
    const client = createClient<typeof api>({
      baseUrl: 'https://shop.example/api/',
      headers: { Authorization: 'Bearer t' },
      fetch: async (input, init) => {
        calls.push([input, init]);
        return new Response('{"a":1}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    });
    expect(bodyOf(await client.get('/ping', { headers: { 'x-trace': '1' } }))).toEqual({ a: 1 });
    expect(calls).toEqual([['https://shop.example/api/ping', { method: 'GET', headers: { authorization: 'Bearer t', 'x-trace': '1' } }]]);
  });
});
