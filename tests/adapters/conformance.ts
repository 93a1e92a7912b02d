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
import { textHeaders } from '../helpers/headers.js';
import fc from 'fast-check';
import { BODY_LIMIT, fixtureApi, SECRET, type Fixture, type Note } from '../fixture/api.js';
import { PAGING_SEED, walkPages, walks, type PageAnswer } from '../helpers/paging.js';
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
/** A problem's `instance`: the request's id, a new `urn:uuid:` or the host's own (Fastify's `req-1`), which differ from request to request. */
const INSTANCE = /"instance":"[^"]*"/g;

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

/** The request as `api.handle` gets it; `baseUrl` is the prefix a host took off the URL, as a mounting adapter passes it. */
async function inMemory(api: Api, url: string, exchange: Exchange, baseUrl: string | undefined): Promise<Answer> {
  const { headers, body } = requestParts(exchange);
  if (body !== undefined && exchange.chunked !== true) headers['content-length'] = String(Buffer.byteLength(body));
  const response = await api.handle({ method: exchange.method, url, headers, body, ...(baseUrl === undefined ? {} : { baseUrl }) });
  const payload = response.payload;
  return { status: response.status, headers: textHeaders(response.headers), text: payload === undefined ? '' : typeof payload === 'string' ? payload : Buffer.from(payload).toString() };
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
      const expected = await inMemory(reference.api, (basePath ?? '') + exchange.path, exchange, mounted ? prefix : undefined);
      expect({ status: actual.status, headers: apiHeaders(actual.headers, ignore), text: actual.text.replace(INSTANCE, '"instance":"*"') }).toEqual({
        status: expected.status,
        headers: apiHeaders(expected.headers, ignore),
        text: expected.text.replace(INSTANCE, '"instance":"*"'),
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
      // The request's id: a urn:uuid of its own, or the host's (Fastify's request.id).
      expect(problem.instance).toMatch(/^(?:urn:uuid:[0-9a-f-]{36}|req-[0-9a-z]+)$/);
      expect(served.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(SECRET) })]);
    });

    describeNoteConventions({ check, prefix, served: () => served, reference: () => reference });

    if (prefix !== '') {
      it('a path outside the prefix is not the API', async () => {
        const answer = await overHttp(server.baseUrl, { method: 'GET', path: '/users/1', token: 'alice' });
        expect(answer.status).toBe(404);
      });
    }
  });
}

/** What the notes' tests need of one server's suite. */
interface NoteHarness {
  check: (exchange: Exchange, ignore?: readonly string[]) => Promise<Answer & { json: () => any }>;
  /** The prefix the client puts before each path ('' at the root). */
  prefix: string;
  served: () => Fixture;
  reference: () => Fixture;
}

/** Note 1 of the fixture as the API sends it: its reviewer's note stays in the store. */
const NOTE_1 = { id: 1, ownerId: 1, title: 'groceries', text: 'milk, eggs', status: 'draft', version: 1, updatedAt: '2026-01-01T00:01:00.000Z' };
const NOTE_1_MODIFIED = 'Thu, 01 Jan 2026 00:01:00 GMT';
const MERGE_PATCH = 'application/merge-patch+json';

/**
 * The conventions of the fixture's notes over HTTP: ETag and Last-Modified with 304, 412 and 428
 * before any handler runs, merge patch, cursor pages with their Link, sorting, filtering and the
 * owner's scope. Every answer is also compared with the in-memory one by `check`.
 */
function describeNoteConventions({ check, prefix, served, reference }: NoteHarness): void {
  describe('notes: preconditions, merge patch, pages', () => {
    /** A link as the client got it, as `check` takes a path: without the prefix. */
    const local = (link: string): string => {
      expect(link.startsWith(`${prefix}/notes`), link).toBe(true);
      return link.slice(prefix.length);
    };
    const changes = [
      { method: 'PATCH', operation: 'update', json: { title: 'renamed' }, headers: { 'content-type': MERGE_PATCH } },
      { method: 'PUT', operation: 'replace', json: { title: 'renamed', text: 'new', status: 'published' }, headers: {} },
      { method: 'DELETE', operation: 'remove', json: undefined, headers: {} },
    ] as const;

    it('a GET answers ETag and Last-Modified; If-None-Match with the tag is 304 with the ETag and no body, for GET and HEAD', async () => {
      const read = await check({ method: 'GET', path: '/notes/1', token: 'alice' });
      expect(read.status).toBe(200);
      expect(read.headers.etag).toBe('"v1"');
      expect(read.headers['last-modified']).toBe(NOTE_1_MODIFIED);
      expect(read.json()).toEqual(NOTE_1);
      for (const method of ['GET', 'HEAD']) {
        const current = await check({ method, path: '/notes/1', token: 'alice', headers: { 'if-none-match': read.headers.etag! } });
        expect(current.status, method).toBe(304);
        expect(current.text).toBe('');
        // RFC 9110 15.4.5: the ETag a 200 would carry; Last-Modified only without an ETag.
        expect(apiHeaders(current.headers, [])).toEqual({ etag: '"v1"' });
      }
      // If-None-Match compares weakly, and takes a list.
      expect((await check({ method: 'GET', path: '/notes/1', token: 'alice', headers: { 'if-none-match': 'W/"v1"' } })).status).toBe(304);
      expect((await check({ method: 'GET', path: '/notes/1', token: 'alice', headers: { 'if-none-match': '"v0", "v1"' } })).status).toBe(304);
      expect((await check({ method: 'GET', path: '/notes/1', token: 'alice', headers: { 'if-none-match': '*' } })).status).toBe(304);
      const stale = await check({ method: 'GET', path: '/notes/1', token: 'alice', headers: { 'if-none-match': '"v0"' } });
      expect(stale.status).toBe(200);
      expect(stale.json()).toEqual(NOTE_1);
    });

    it("a conditional GET of someone else's note is 403 and of a missing one 404, whatever its precondition", async () => {
      expectProblem(await check({ method: 'GET', path: '/notes/2', token: 'alice', headers: { 'if-none-match': '"v1"' } }), { status: 403, code: 'RC_FORBIDDEN' });
      expectProblem(await check({ method: 'GET', path: '/notes/99', token: 'alice', headers: { 'if-none-match': '*' } }), { status: 404, code: 'RC_NOT_FOUND' });
      expectProblem(await check({ method: 'DELETE', path: '/notes/99', token: 'alice', headers: { 'if-match': '*' } }), { status: 404, code: 'RC_NOT_FOUND' });
      expectProblem(await check({ method: 'PATCH', path: '/notes/2', token: 'alice', headers: { 'if-match': '"v0"', 'content-type': MERGE_PATCH }, json: {} }), { status: 403, code: 'RC_FORBIDDEN' });
    });

    it('create answers 201 with Location, the ETag and Last-Modified of the new note', async () => {
      const created = await check({ method: 'POST', path: '/notes', token: 'bob', json: { title: 'plums' } }, ['location']);
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(`${prefix}/notes/6`);
      expect(created.headers.etag).toBe('"v1"');
      expect(created.headers['last-modified']).toBe('Thu, 01 Jan 2026 00:06:00 GMT');
      expect(created.json()).toEqual({ id: 6, ownerId: 2, title: 'plums', text: '', status: 'draft', version: 1, updatedAt: '2026-01-01T00:06:00.000Z' });
    });

    it('PATCH, PUT and DELETE with a stale If-Match are 412, and the handler does not run', async () => {
      for (const { method, operation, json, headers } of changes) {
        const answer = await check({ method, path: '/notes/1', token: 'alice', headers: { ...headers, 'if-match': '"v0"' }, json });
        expectProblem(answer, { status: 412, code: 'RC_PRECONDITION_FAILED' });
        expect(served().store.noteCalls[operation], method).toBe(0);
      }
      expect(served().store.notes.get(1)).toMatchObject({ title: 'groceries', version: 1 });
    });

    it('PATCH, PUT and DELETE without If-Match are 428, and the handler does not run', async () => {
      for (const { method, operation, json, headers } of changes) {
        const answer = await check({ method, path: '/notes/1', token: 'alice', headers, json });
        expectProblem(answer, { status: 428, code: 'RC_PRECONDITION_REQUIRED' });
        expect(served().store.noteCalls[operation], method).toBe(0);
      }
      expect(served().store.notes.get(1)).toMatchObject({ title: 'groceries', version: 1 });
      // A missing note is 404 and someone else's 403 before any word on preconditions.
      expectProblem(await check({ method: 'DELETE', path: '/notes/99', token: 'alice' }), { status: 404, code: 'RC_NOT_FOUND' });
      expectProblem(await check({ method: 'DELETE', path: '/notes/2', token: 'alice' }), { status: 403, code: 'RC_FORBIDDEN' });
      // If-Unmodified-Since with a date is a precondition too; one that is no date is none.
      expectProblem(await check({ method: 'DELETE', path: '/notes/1', token: 'alice', headers: { 'if-unmodified-since': 'yesterday' } }), { status: 428, code: 'RC_PRECONDITION_REQUIRED' });
      expect((await check({ method: 'DELETE', path: '/notes/1', token: 'alice', headers: { 'if-unmodified-since': NOTE_1_MODIFIED } })).status).toBe(200);
    });

    it('If-Match: * matches the note as it is', async () => {
      const removed = await check({ method: 'DELETE', path: '/notes/1', token: 'alice', headers: { 'if-match': '*' } });
      expect(removed.status).toBe(200);
      expect(removed.json()).toEqual(NOTE_1);
      expect(served().store.notes.has(1)).toBe(false);
    });

    it('a weak tag in If-Match never matches (strong comparison): 412', async () => {
      const answer = await check({ method: 'PUT', path: '/notes/1', token: 'alice', headers: { 'if-match': 'W/"v1"' }, json: { title: 'renamed' } });
      expectProblem(answer, { status: 412, code: 'RC_PRECONDITION_FAILED' });
      expect(served().store.noteCalls.replace).toBe(0);
    });

    it('a merge patch answers 200 with the merged note and its new ETag; the old tag is stale then', async () => {
      const patched = await check({ method: 'PATCH', path: '/notes/1', token: 'alice', headers: { 'if-match': '"v0", "v1"', 'content-type': MERGE_PATCH }, json: { status: 'published', text: null } });
      expect(patched.status).toBe(200);
      expect(patched.headers.etag).toBe('"v2"');
      expect(patched.headers['last-modified']).toBe('Thu, 01 Jan 2026 00:06:00 GMT');
      // The members the patch leaves out keep their values; null removes one (its default comes back).
      expect(patched.json()).toEqual({ ...NOTE_1, status: 'published', text: '', version: 2, updatedAt: '2026-01-01T00:06:00.000Z' });
      expect(served().store.noteCalls.update).toBe(1);
      expectProblem(await check({ method: 'PATCH', path: '/notes/1', token: 'alice', headers: { 'if-match': '"v1"', 'content-type': MERGE_PATCH }, json: { title: 'again' } }), {
        status: 412,
        code: 'RC_PRECONDITION_FAILED',
      });
      // application/json is taken as a merge patch too.
      const again = await check({ method: 'PATCH', path: '/notes/1', token: 'alice', headers: { 'if-match': '"v2"' }, json: { title: 'again' } });
      expect(again.json()).toMatchObject({ title: 'again', status: 'published', version: 3 });
    });

    it('a merge patch changes only what the schema lets a client set: not the owner, the id or the version', async () => {
      const patched = await check({ method: 'PATCH', path: '/notes/1', token: 'alice', headers: { 'if-match': '"v1"', 'content-type': MERGE_PATCH }, json: { ownerId: 2, id: 7, version: 99 } });
      expect(patched.status).toBe(200);
      expect(patched.json()).toMatchObject({ id: 1, ownerId: 1, version: 2 });
      expect(served().store.notes.get(1)?.ownerId).toBe(1);
      expect(served().store.notes.has(7)).toBe(false);
    });

    it('a merge patch that removes a required member ({"title":null}) is 400 naming it, and the note is unchanged', async () => {
      const answer = await check({ method: 'PATCH', path: '/notes/1', token: 'alice', headers: { 'if-match': '"v1"', 'content-type': MERGE_PATCH }, json: { title: null } });
      const problem = expectProblem(answer, { status: 400, code: 'RC_INVALID_INPUT' });
      expect(problem.errors).toEqual([expect.objectContaining({ in: 'body', pointer: '#/title' })]);
      expect(served().store.noteCalls.update).toBe(0);
      expect(served().store.notes.get(1)).toMatchObject({ title: 'groceries', version: 1 });
    });

    it('application/json-patch+json is 415 with Accept-Patch, on notes and on users alike', async () => {
      const body = JSON.stringify([{ op: 'replace', path: '/title', value: 'x' }]);
      const notes = await check({ method: 'PATCH', path: '/notes/1', token: 'alice', headers: { 'if-match': '"v1"', 'content-type': 'application/json-patch+json' }, body });
      expectProblem(notes, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-patch': `${MERGE_PATCH}, application/json` } });
      const users = await check({ method: 'PATCH', path: '/users/1', token: 'alice', headers: { 'content-type': 'application/json-patch+json' }, body });
      expectProblem(users, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-patch': 'application/json' } });
      expect(served().store.noteCalls.update).toBe(0);
    });

    it('Last-Modified: If-Modified-Since at it is 304, If-Unmodified-Since before it is 412, at it the change goes on', async () => {
      const current = await check({ method: 'GET', path: '/notes/1', token: 'alice', headers: { 'if-modified-since': NOTE_1_MODIFIED } });
      expect(current.status).toBe(304);
      expect(apiHeaders(current.headers, [])).toEqual({ etag: '"v1"' });
      expect((await check({ method: 'GET', path: '/notes/1', token: 'alice', headers: { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:59 GMT' } })).status).toBe(200);
      // A date that is no HTTP date is ignored (RFC 9110 13.1.3).
      expect((await check({ method: 'GET', path: '/notes/1', token: 'alice', headers: { 'if-modified-since': 'yesterday' } })).status).toBe(200);
      // If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2).
      expect((await check({ method: 'GET', path: '/notes/1', token: 'alice', headers: { 'if-none-match': '"v0"', 'if-modified-since': NOTE_1_MODIFIED } })).status).toBe(200);
      const past = { 'if-unmodified-since': 'Wed, 31 Dec 2025 23:59:59 GMT', 'content-type': MERGE_PATCH };
      expectProblem(await check({ method: 'PATCH', path: '/notes/1', token: 'alice', headers: past, json: { title: 'x' } }), { status: 412, code: 'RC_PRECONDITION_FAILED' });
      expect(served().store.noteCalls.update).toBe(0);
      const unchanged = { 'if-unmodified-since': NOTE_1_MODIFIED, 'content-type': MERGE_PATCH };
      expect((await check({ method: 'PATCH', path: '/notes/1', token: 'alice', headers: unchanged, json: { title: 'x' } })).status).toBe(200);
      expect(served().store.noteCalls.update).toBe(1);
    });

    it('?limit=1 answers one note and Link: <...>; rel="next"', async () => {
      const first = await check({ method: 'GET', path: '/notes?limit=1', token: 'alice' });
      expect(first.status).toBe(200);
      const page = first.json();
      expect(page).toEqual({ items: [NOTE_1], next: expect.stringMatching(new RegExp(`^${prefix}/notes\\?limit=1&cursor=[\\w-]+$`)), prev: null });
      expect(first.headers.link).toBe(`<${page.next}>; rel="next"`);
      const second = await check({ method: 'GET', path: local(page.next), token: 'alice' });
      expect(second.json()).toMatchObject({ items: [{ id: 3 }], prev: expect.any(String) });
      expect(second.headers.link).toBe(`<${second.json().next}>; rel="next", <${second.json().prev}>; rel="prev"`);
    });

    it("walking next links gives each of the caller's notes exactly once, and never another's", async () => {
      for (const [token, ids] of [['alice', [1, 3, 4]], ['bob', [2, 5]], ['admin', [1, 2, 3, 4, 5]]] as const) {
        const seen: number[] = [];
        let path: string | null = '/notes?limit=1';
        while (path !== null) {
          const answer = await check({ method: 'GET', path, token });
          expect(answer.status).toBe(200);
          seen.push(...answer.json().items.map((note: Note) => note.id));
          path = answer.json().next === null ? null : local(answer.json().next);
          expect(seen.length).toBeLessThanOrEqual(ids.length);
        }
        expect(seen, token).toEqual(ids);
      }
      // In the default page of 2, by title descending, then by id.
      expect((await check({ method: 'GET', path: '/notes?sort=-title', token: 'alice' })).json().items.map((note: Note) => note.id)).toEqual([1, 4]);
    });

    it('a forged cursor, or one from another sort or filter, is 400 naming the cursor', async () => {
      const page = (await check({ method: 'GET', path: '/notes?limit=1&sort=title', token: 'alice' })).json();
      const cursor = new URL(page.next, 'http://x').searchParams.get('cursor')!;
      const forged = Buffer.from(JSON.stringify(['title', '', 'a', ['a', 4]])).toString('base64url');
      for (const path of ['/notes?cursor=abc', '/notes?cursor=%E2%9C%93', `/notes?sort=-title&cursor=${cursor}`, `/notes?sort=title&status=draft&cursor=${cursor}`, `/notes?cursor=${forged}`]) {
        const problem = expectProblem(await check({ method: 'GET', path, token: 'alice' }), { status: 400, code: 'RC_INVALID_INPUT' });
        expect(problem.errors, path).toEqual([expect.objectContaining({ in: 'query', pointer: '#/cursor' })]);
      }
      expect(served().store.noteCalls.list).toBe(1);
    });

    it('a limit above the max (5), below 1 or not a number is 400 naming limit', async () => {
      for (const limit of ['6', '0', 'two', '1.5']) {
        const problem = expectProblem(await check({ method: 'GET', path: `/notes?limit=${limit}`, token: 'alice' }), { status: 400, code: 'RC_INVALID_INPUT' });
        expect(problem.errors, limit).toEqual([expect.objectContaining({ in: 'query', pointer: '#/limit' })]);
      }
      expect((await check({ method: 'GET', path: '/notes?limit=5', token: 'admin' })).json().items).toHaveLength(5);
    });

    it('an unknown sort field is 400 naming it', async () => {
      const problem = expectProblem(await check({ method: 'GET', path: '/notes?sort=title,-text', token: 'alice' }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(problem.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '#/sort', detail: expect.stringContaining('"text"') })]);
      expect(served().store.noteCalls.list).toBe(0);
    });

    it("filtering for another owner's notes is 403, for one's own or by status 200; an unknown parameter is 400", async () => {
      expectProblem(await check({ method: 'GET', path: '/notes?ownerId=2', token: 'alice' }), { status: 403, code: 'RC_FORBIDDEN' });
      expect(served().store.noteCalls.list).toBe(0);
      expect((await check({ method: 'GET', path: '/notes?ownerId=1', token: 'alice' })).json().items.map((note: Note) => note.id)).toEqual([1, 3]);
      expect((await check({ method: 'GET', path: '/notes?status=published', token: 'alice' })).json().items.map((note: Note) => note.id)).toEqual([3, 4]);
      expect((await check({ method: 'GET', path: '/notes?ownerId=2', token: 'admin' })).json().items.map((note: Note) => note.id)).toEqual([2, 5]);
      const unknown = expectProblem(await check({ method: 'GET', path: '/notes?color=red', token: 'alice' }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(unknown.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '#/color' })]);
      const invalid = expectProblem(await check({ method: 'GET', path: '/notes?status=lost', token: 'alice' }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(invalid.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '#/status' })]);
    });

    it('without a caller the list is empty, and its handler does not run', async () => {
      const answer = await check({ method: 'GET', path: '/notes' });
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual({ items: [], next: null, prev: null });
      expect(answer.headers.link).toBeUndefined();
      expect(served().store.noteCalls.list).toBe(0);
    });

    it('walking next links while notes are added gives each note of the start once, in order, and only the caller’s (property)', async () => {
      await fc.assert(
        fc.asyncProperty(walks, async (walk) => {
          served().store.reset();
          reference().store.reset();
          await walkPages(walk, () => served().store.notes.values(), {
            listPath: `${prefix}/notes`,
            get: async (url): Promise<PageAnswer> => {
              const answer = await check({ method: 'GET', path: local(url), token: walk.caller });
              return { status: answer.status, headers: answer.headers, body: answer.json() };
            },
            insert: (fields) => {
              served().store.addNote(fields);
              reference().store.addNote(fields);
            },
          });
        }),
        { seed: PAGING_SEED, numRuns: 8, endOnFailure: true },
      );
    });
  });
}

/**
 * A server its framework started on 127.0.0.1 at an ephemeral port (Koa's `app.listen(0)`,
 * @hono/node-server's `serve`), once it listens; `close` ends every connection, idle or not.
 *
 * @example
 * const mounted = await listening(app.listen(0, '127.0.0.1'));
 */
export async function listening(server: Server): Promise<MountedServer> {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
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

/**
 * Listens on 127.0.0.1 at an ephemeral port; `close` ends every connection, idle or not.
 *
 * @example
 * const mounted = await listen(http.createServer(toNodeListener(api)));
 */
export async function listen(server: Server): Promise<MountedServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return listening(server);
}
