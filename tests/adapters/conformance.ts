/**
 * One conformance suite for every adapter. Each adapter serves the fixture API from a real server on
 * an ephemeral port; Node's `fetch` is the client. Every answer is checked twice: against explicit
 * expectations (status, headers, body), and against what `api.handle` answers in memory for the same
 * request, so that any difference an adapter introduces (a lost header, a changed body) fails.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Api } from '../../src/index.js';
import { BODY_LIMIT, fixtureApi, SECRET, type Fixture } from '../fixture/api.js';
import { expectProblem } from '../helpers/problem.js';

export interface MountedServer {
  baseUrl: string;
  close(): Promise<void>;
}

export interface MountOptions {
  /** Mount the API below this prefix (adapters that mount: Express `app.use(prefix)`, Fastify `prefix`). */
  prefix?: string;
}

/** Starts a real server on 127.0.0.1, port 0, that serves the API with the adapter under test. */
export type Mount = (api: Api, options: MountOptions) => Promise<MountedServer>;

export interface SuiteOptions {
  /**
   * How the adapter serves an API below `/v1`: `mount` passes `{ prefix: '/v1' }` to `mount` (the API
   * itself has no basePath); `basePath` builds the API with `basePath: '/v1'` and mounts it at the root.
   */
  prefix: 'mount' | 'basePath';
  /**
   * Tests (by title) that the adapter is known to fail for a reason outside its control, each with the
   * reason. They run as `it.fails`, so that a fix shows up as a failure to remove the entry.
   */
  knownGaps?: Readonly<Record<string, string>>;
}

/** Headers that belong to the connection or the framing, not to the API's answer. */
const TRANSPORT_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
const JSON_TYPE = 'application/json; charset=utf-8';
const UUID_URN = /urn:uuid:[0-9a-f-]{36}/g;

interface Exchange {
  method: string;
  path: string;
  token?: string;
  headers?: Record<string, string>;
  /** Sent as JSON with `Content-Type: application/json` unless `headers` names another. */
  json?: unknown;
  body?: string;
  /** Send the body as a stream, without `Content-Length` (chunked). */
  chunked?: boolean;
  /** Send the body as bytes, for which `fetch` adds no `Content-Type`. */
  binary?: boolean;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

function requestParts(exchange: Exchange): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = { accept: '*/*' };
  for (const [name, value] of Object.entries(exchange.headers ?? {})) headers[name.toLowerCase()] = value;
  if (exchange.token !== undefined) headers.authorization = `Bearer ${exchange.token}`;
  let body = exchange.body;
  if (exchange.json !== undefined) {
    body = JSON.stringify(exchange.json);
    headers['content-type'] ??= 'application/json';
  }
  return { headers, body };
}

function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const chunkSize = 16 * 1024;
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

async function overHttp(baseUrl: string, exchange: Exchange): Promise<Answer> {
  const { headers, body } = requestParts(exchange);
  const init: RequestInit & { duplex?: 'half' } = { method: exchange.method, headers };
  if (body !== undefined) {
    init.body = exchange.chunked === true ? streamOf(body) : exchange.binary === true ? new TextEncoder().encode(body) : body;
    if (exchange.chunked === true) init.duplex = 'half';
  }
  const response = await fetch(baseUrl + exchange.path, init);
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
}

async function inMemory(api: Api, url: string, exchange: Exchange): Promise<Answer> {
  const { headers, body } = requestParts(exchange);
  if (body !== undefined && exchange.chunked !== true) headers['content-length'] = String(Buffer.byteLength(body));
  const response = await api.handle({ method: exchange.method, url, headers, body });
  const payload = response.payload;
  return { status: response.status, headers: response.headers, text: payload === undefined ? '' : typeof payload === 'string' ? payload : Buffer.from(payload).toString() };
}

function apiHeaders(headers: Record<string, string>, ignore: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !TRANSPORT_HEADERS.has(name) && !ignore.includes(name)));
}

/**
 * Runs the conformance suite for one adapter: twice, at the root and below `/v1`.
 *
 * @example
 * runAdapterSuite('node', mountNode, { prefix: 'basePath' });
 */
export function runAdapterSuite(name: string, mount: Mount, options: SuiteOptions): void {
  describe(`${name} conformance`, () => {
    describeServer(mount, '', options);
    describeServer(mount, '/v1', options);
  });
}

function describeServer(mount: Mount, prefix: string, options: SuiteOptions): void {
  const mounted = prefix !== '' && options.prefix === 'mount';
  describe(prefix === '' ? 'at the root' : `below ${prefix} (${mounted ? 'mounted' : 'basePath'})`, () => {
    const basePath = mounted ? undefined : prefix;
    let served: Fixture;
    let reference: Fixture;
    let server: MountedServer;

    beforeAll(async () => {
      served = fixtureApi({ basePath });
      reference = fixtureApi({ basePath });
      server = await mount(served.api, mounted ? { prefix } : {});
    });
    afterAll(() => server?.close());
    beforeEach(() => {
      served.store.reset();
      reference.store.reset();
      served.errors.length = 0;
    });

    /** Sends over HTTP, checks the answer equals the in-memory one, and returns it. */
    async function check(exchange: Exchange, ignore: readonly string[] = []): Promise<Answer & { json: () => any }> {
      const actual = await overHttp(server.baseUrl, { ...exchange, path: prefix + exchange.path });
      const expected = await inMemory(reference.api, (basePath ?? '') + exchange.path, exchange);
      expect({ status: actual.status, headers: apiHeaders(actual.headers, ignore), text: actual.text.replace(UUID_URN, 'urn:uuid:*') }).toEqual({
        status: expected.status,
        headers: apiHeaders(expected.headers, ignore),
        text: expected.text.replace(UUID_URN, 'urn:uuid:*'),
      });
      if (actual.text !== '') expect(actual.headers['content-length'] ?? String(Buffer.byteLength(actual.text))).toBe(String(Buffer.byteLength(actual.text)));
      return { ...actual, json: () => JSON.parse(actual.text) };
    }

    /** `it`, or `it.fails` for a known gap of this adapter. */
    function test(title: string, body: () => Promise<void>): void {
      (options.knownGaps?.[title] === undefined ? it : it.fails)(title, body);
    }

    it('GET on a public endpoint answers 200 without a token', async () => {
      const answer = await check({ method: 'GET', path: '/health' });
      expect(answer.status).toBe(200);
      expect(apiHeaders(answer.headers, [])).toEqual({ 'content-type': JSON_TYPE });
      expect(answer.json()).toEqual({ status: 'ok' });
    });

    it('GET lists a collection with 200, also with a query string', async () => {
      const answer = await check({ method: 'GET', path: '/users?sort=name&sort=id', token: 'alice' });
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual([
        { id: 1, name: 'Alice', email: 'alice@example.com' },
        { id: 2, name: 'Bob', email: 'bob@example.com' },
      ]);
    });

    it('GET reads an item with 200', async () => {
      const answer = await check({ method: 'GET', path: '/users/1', token: 'alice' });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe(JSON_TYPE);
      expect(answer.json()).toEqual({ id: 1, name: 'Alice', email: 'alice@example.com' });
    });

    it("HEAD answers like GET, with the GET's Content-Type and no body", async () => {
      const answer = await check({ method: 'HEAD', path: '/users/1', token: 'alice' });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe(JSON_TYPE);
      expect(answer.text).toBe('');
    });

    it('an unknown id is 404 with a problem body', async () => {
      expectProblem(await check({ method: 'GET', path: '/users/999', token: 'alice' }), { status: 404, code: 'RC_NOT_FOUND' });
    });

    it('an unknown path is 404 with a problem body', async () => {
      expectProblem(await check({ method: 'GET', path: '/nothing/here', token: 'alice' }), { status: 404, code: 'RC_NOT_FOUND' });
    });

    it('an id that fails its schema is 400 with an errors array', async () => {
      const problem = expectProblem(await check({ method: 'GET', path: '/users/abc', token: 'alice' }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(problem.errors).toEqual([expect.objectContaining({ in: 'path', pointer: '#/id' })]);
    });

    test('a malformed percent-escape in the path is 400 with a problem body', async () => {
      expectProblem(await check({ method: 'GET', path: '/users/%E0%A4%A', token: 'alice' }), { status: 400, code: 'RC_MALFORMED_URL' });
    });

    // Fastify's router refuses a param over 100 characters (FST_ERR_MAX_PARAM_LENGTH) unless the API answers it.
    test('a param of 150 characters is judged by the API: its schema’s 400, or 401 without a token', async () => {
      const path = `/users/${'x'.repeat(150)}`;
      expectProblem(await check({ method: 'GET', path, token: 'alice' }), { status: 400, code: 'RC_INVALID_INPUT' });
      expectProblem(await check({ method: 'GET', path }), { status: 401, code: 'RC_UNAUTHORIZED' });
    });

    it('POST creates with 201, Location and the new item', async () => {
      const answer = await check({ method: 'POST', path: '/users', token: 'alice', json: { name: 'Carol', email: 'carol@example.com' } }, ['location']);
      expect(answer.status).toBe(201);
      expect(answer.headers['content-type']).toBe(JSON_TYPE);
      expect(answer.json()).toEqual({ id: 3, name: 'Carol', email: 'carol@example.com' });
      expect(served.store.users.get(3)).toEqual({ id: 3, name: 'Carol', email: 'carol@example.com' });
    });

    // Regression: mounted adapters once answered Location without the mount prefix (/users/3, not /v1/users/3).
    it('the Location of a created item is a URL that reads it', async () => {
      const created = await overHttp(server.baseUrl, { method: 'POST', path: `${prefix}/users`, token: 'alice', json: { name: 'Carol', email: 'carol@example.com' } });
      expect(created.headers.location).toBe(`${prefix}/users/3`);
      const read = await overHttp(server.baseUrl, { method: 'GET', path: created.headers.location!, token: 'alice' });
      expect(read.status).toBe(200);
    });

    it('PUT replaces with 200, and answers 404 for an unknown id', async () => {
      const replaced = await check({ method: 'PUT', path: '/users/1', token: 'alice', json: { name: 'Alicia', email: 'alicia@example.com' } });
      expect(replaced.status).toBe(200);
      expect(replaced.json()).toEqual({ id: 1, name: 'Alicia', email: 'alicia@example.com' });
      expectProblem(await check({ method: 'PUT', path: '/users/999', token: 'alice', json: { name: 'Nobody', email: 'no@example.com' } }), { status: 404, code: 'RC_NOT_FOUND' });
    });

    it('PATCH updates with 200, also with a +json media type', async () => {
      const answer = await check({ method: 'PATCH', path: '/users/2', token: 'alice', headers: { 'content-type': 'application/merge-patch+json' }, json: { name: 'Robert' } });
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual({ id: 2, name: 'Robert', email: 'bob@example.com' });
    });

    it('DELETE removes with 200, then the item is 404', async () => {
      const removed = await check({ method: 'DELETE', path: '/users/2', token: 'alice' });
      expect(removed.status).toBe(200);
      expect(removed.json()).toEqual({ id: 2, name: 'Bob', email: 'bob@example.com' });
      expect(served.store.users.has(2)).toBe(false);
      reference.store.users.delete(2);
      expectProblem(await check({ method: 'GET', path: '/users/2', token: 'alice' }), { status: 404, code: 'RC_NOT_FOUND' });
    });

    it('a known path with another method is 405 with the exact Allow', async () => {
      const answer = await check({ method: 'DELETE', path: '/users', token: 'alice' });
      expectProblem(answer, { status: 405, code: 'RC_METHOD_NOT_ALLOWED', headers: { allow: 'GET, HEAD, POST, OPTIONS' } });
      const item = await check({ method: 'POST', path: '/users/1', token: 'alice', json: {} });
      expectProblem(item, { status: 405, code: 'RC_METHOD_NOT_ALLOWED', headers: { allow: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS' } });
    });

    it('OPTIONS is 204 with Allow and no body', async () => {
      const answer = await check({ method: 'OPTIONS', path: '/users/1' });
      expect(answer.status).toBe(204);
      expect(apiHeaders(answer.headers, [])).toEqual({ allow: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS' });
      expect(answer.text).toBe('');
    });

    it('an invalid body is 400 listing every issue', async () => {
      const problem = expectProblem(await check({ method: 'POST', path: '/users', token: 'alice', json: { name: '', email: 'nope' } }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(problem.errors).toHaveLength(2);
      expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'body', pointer: '#/name' }), expect.objectContaining({ in: 'body', pointer: '#/email' })]));
      expect(JSON.stringify(problem)).not.toContain('nope');
    });

    it('malformed JSON is 400 and does not echo the input', async () => {
      const answer = await check({ method: 'POST', path: '/users', token: 'alice', headers: { 'content-type': 'application/json' }, body: '{"name": "secret-input' });
      const problem = expectProblem(answer, { status: 400, code: 'RC_MALFORMED_BODY' });
      expect(JSON.stringify(problem)).not.toContain('secret-input');
    });

    it('a body over the limit with Content-Length is 413', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT * 2), email: 'big@example.com' });
      expectProblem(await check({ method: 'POST', path: '/users', token: 'alice', headers: { 'content-type': 'application/json' }, body }), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
      expect(served.store.users.size).toBe(2);
    });

    it('a chunked body over the limit (no Content-Length) is 413', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT * 2), email: 'big@example.com' });
      expectProblem(await check({ method: 'POST', path: '/users', token: 'alice', headers: { 'content-type': 'application/json' }, body, chunked: true }), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
    });

    it('a 2 MiB body is 413, sent with Content-Length or chunked, and the server answers afterwards', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), email: 'huge@example.com' });
      for (const chunked of [false, true]) {
        expectProblem(await check({ method: 'POST', path: '/users', token: 'alice', headers: { 'content-type': 'application/json' }, body, chunked }), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
        // The connection the 413 came on is reused: it must not be left stalled or reset.
        for (let round = 0; round < 3; round++) expect((await check({ method: 'GET', path: '/health' })).status).toBe(200);
      }
    });

    it('another media type is 415 with Accept-Post', async () => {
      const answer = await check({ method: 'POST', path: '/users', token: 'alice', headers: { 'content-type': 'text/plain' }, body: 'name=Carol' });
      expectProblem(answer, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-post': 'application/json' } });
    });

    it('a Content-Type that is not a media type is 415 with Accept-Post', async () => {
      const answer = await check({ method: 'POST', path: '/users', token: 'alice', headers: { 'content-type': 'json' }, body: '{}' });
      expectProblem(answer, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-post': 'application/json' } });
    });

    it('a body without Content-Type is 415', async () => {
      const answer = await check({ method: 'POST', path: '/users', token: 'alice', body: '{"name":"Carol","email":"carol@example.com"}', binary: true });
      expectProblem(answer, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-post': 'application/json' } });
    });

    it('a compressed body is 415 with Accept-Encoding: identity', async () => {
      const { gzipSync } = await import('node:zlib');
      const body = gzipSync('{"name":"Carol","email":"carol@example.com"}').toString('latin1');
      const answer = await check({ method: 'POST', path: '/users', token: 'alice', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body });
      expectProblem(answer, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-encoding': 'identity' } });
      expect(served.store.users.has(3)).toBe(false);
    });

    it('Accept: image/png is 406', async () => {
      expectProblem(await check({ method: 'GET', path: '/users/1', token: 'alice', headers: { accept: 'image/png' } }), { status: 406, code: 'RC_NOT_ACCEPTABLE' });
    });

    it('no token is 401 with WWW-Authenticate', async () => {
      const answer = await check({ method: 'GET', path: '/users/1' });
      expectProblem(answer, { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer realm="api"' } });
    });

    it('an unknown token is 401 with WWW-Authenticate', async () => {
      const answer = await check({ method: 'GET', path: '/users/1', token: 'mallory' });
      expectProblem(answer, { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer realm="api"' } });
    });

    // Orders keep a warehouse note that their `item` schema does not declare: every order body below
    // leaves it out only because the serializer compiled from that schema (fast-json-stringify) wrote it.
    it("reading someone else's order is 403; the owner and an admin read it", async () => {
      expectProblem(await check({ method: 'GET', path: '/users/2/orders/2', token: 'alice' }), { status: 403, code: 'RC_FORBIDDEN' });
      expect((await check({ method: 'GET', path: '/users/2/orders/2', token: 'bob' })).json()).toEqual({ id: 2, userId: 2, item: 'lamp', quantity: 2 });
      expect((await check({ method: 'GET', path: '/users/2/orders/2', token: 'admin' })).status).toBe(200);
    });

    it('nested collections list, create with 201 + Location, and 404 for a missing parent', async () => {
      const list = await check({ method: 'GET', path: '/users/1/orders', token: 'alice' });
      expect(list.json()).toEqual([{ id: 1, userId: 1, item: 'book', quantity: 1 }]);
      const created = await check({ method: 'POST', path: '/users/1/orders', token: 'alice', json: { item: 'pen', quantity: 3 } }, ['location']);
      expect(created.status).toBe(201);
      expect(created.headers.location).toMatch(/\/users\/1\/orders\/3$/);
      expectProblem(await check({ method: 'GET', path: '/users/9/orders', token: 'admin' }), { status: 404, code: 'RC_NOT_FOUND' });
    });

    it('a failing handler is a masked 500: no message, an instance, and onError sees the error', async () => {
      const answer = await check({ method: 'GET', path: '/reports', token: 'alice' });
      // expectProblem also checks that neither the body nor the headers hold SECRET.
      const problem = expectProblem(answer, { status: 500, code: 'RC_INTERNAL' });
      expect(problem.instance).toMatch(/^urn:uuid:/);
      expect(served.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(SECRET) })]);
    });

    if (prefix !== '') {
      it('a path outside the prefix is not the API', async () => {
        const answer = await overHttp(server.baseUrl, { method: 'GET', path: '/users/1', token: 'alice' });
        expect(answer.status).toBe(404);
      });
    }
  });
}

/**
 * Listens on 127.0.0.1 at an ephemeral port; `close` ends every connection, idle or not.
 *
 * @example
 * const mounted = await listen(http.createServer(toNodeListener(api)));
 */
export async function listen(server: Server): Promise<MountedServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
