/**
 * Regression tests: whatever user code hands restcanon to write (a handler's result, a problem body,
 * a thrown error, a header, a validator, a serializer's output, a policy, an `onError`), every
 * request is answered. A value that cannot be written is a masked 500, or the plain built-in problem
 * when building the problem body failed, reported once; the process goes on serving. Every value on
 * every path in memory through `api.handle`, and a few of them over every adapter on real servers.
 */
import http from 'node:http';
import { Readable } from 'node:stream';
import express5 from 'express';
import express4 from 'express4';
import fastJson from 'fast-json-stringify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  collection,
  ConflictError,
  createApi,
  createStatusPolicy,
  endpoint,
  HttpError,
  json,
  NotFoundError,
  text,
  type Api,
  type ApiOptions,
  type ApiRequest,
  type ApiResponse,
  type Endpoint,
  type ErrorInfo,
  type Serializer,
  type StatusPolicy,
} from '../../src/index.js';
import { xml } from '../../src/formats/xml.js';
import { expectProblem } from '../helpers/problem.js';
import { toExpress } from '../../src/adapters/express.js';
import { ADAPTER_SETUPS } from './raw-http.js';
import { listen, type MountedServer } from '../adapters/conformance.js';

/** What `onError` received, in order. */
type Reports = [error: unknown, info: ErrorInfo][];

/** A Proxy that throws on every trap: reading it, listing its keys, asking its prototype. */
function hostileProxy(): object {
  const fail = (): never => {
    throw new Error('the Proxy refuses');
  };
  return new Proxy({}, { get: fail, has: fail, ownKeys: fail, getOwnPropertyDescriptor: fail, getPrototypeOf: fail });
}

interface Attack {
  name: string;
  /** A fresh value each time: a stream can be read once. */
  value: () => unknown;
  /** A serializer may return it: bytes are a payload, whatever a result may be. */
  payload?: boolean;
}

const ATTACKS: readonly Attack[] = [
  { name: 'an object holding a BigInt', value: () => ({ count: 10n }) },
  {
    name: 'an object with a cycle',
    value: () => {
      const item: Record<string, unknown> = { id: 1 };
      item.self = item;
      return item;
    },
  },
  {
    name: 'an object whose toJSON throws',
    value: () => ({
      toJSON() {
        throw new Error('toJSON failed');
      },
    }),
  },
  {
    name: 'an object whose getter throws',
    value: () => ({
      get id(): never {
        throw new Error('the getter failed');
      },
    }),
  },
  { name: 'a Proxy that throws on every trap', value: hostileProxy },
  { name: 'a Node Readable', value: () => Readable.from(['secret bytes']) },
  { name: 'a web ReadableStream', value: () => new ReadableStream() },
  { name: 'a Uint8Array', value: () => new Uint8Array([1, 2, 3]), payload: true },
  { name: 'an ArrayBuffer', value: () => new ArrayBuffer(3) },
  { name: 'a Buffer', value: () => Buffer.from('abc'), payload: true },
  { name: 'a Blob', value: () => new Blob(['abc']) },
  { name: 'a promise nested in an object', value: () => ({ user: Promise.resolve({ id: 1 }) }) },
  { name: 'a function', value: () => () => 1 },
  { name: 'a symbol', value: () => Symbol('id') },
];

const health = endpoint('GET', '/health', { public: true, handle: () => ({ ok: true }) });

/** An API with the health check beside the endpoints under test, whose `onError` records. */
function apiWith(reports: Reports, endpoints: Endpoint[], options: Omit<ApiOptions, 'endpoints' | 'onError'> = {}): Api {
  return createApi({ naming: 'off', ...options, endpoints: [health, ...endpoints], onError: (error, info) => reports.push([error, info]) });
}

const get = (url: string, accept?: string): ApiRequest => ({ method: 'GET', url, headers: accept === undefined ? {} : { accept } });
const post = (url: string): ApiRequest => ({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{}' });

/** A masked 500: the generic problem, its `instance` the id `onError` got with the one report. */
function expectMasked(response: ApiResponse, reports: Reports): void {
  const problem = expectProblem(response, { status: 500, code: 'RC_INTERNAL', exact: false, detail: undefined });
  expect(Object.keys(problem).sort()).toEqual(['code', 'instance', 'status', 'title', 'type']);
  expect(reports).toHaveLength(1);
  expect(reports[0]![1].requestId).toBe(problem.instance);
}

/** A masked 500 in XML, for a client that asked for XML. */
function expectMaskedXml(response: ApiResponse, reports: Reports): void {
  expect(response.status).toBe(500);
  expect(response.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
  expect(response.payload).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><problem xmlns="urn:ietf:rfc:7807"><type>about:blank<\/type><title>Internal Server Error<\/title><status>500<\/status><code>RC_INTERNAL<\/code><instance>urn:uuid:[0-9a-f-]{36}<\/instance><\/problem>$/);
  expect(reports).toHaveLength(1);
}

/** The plain problem of a 404, as if there were no `problemBody` or custom format, and the one report of what failed. */
function expectPlainNotFound(response: ApiResponse, reports: Reports): void {
  expectProblem(response, { status: 404, code: 'RC_NOT_FOUND' });
  expect(reports).toHaveLength(1);
}

/** A success without the header the value was meant for, and the one report of why. */
function expectWithout(status: number, header: string) {
  return (response: ApiResponse, reports: Reports): void => {
    expect(response.status).toBe(status);
    expect(response.headers).not.toHaveProperty(header);
    expect(reports).toHaveLength(1);
  };
}

/** A format of the user's own that writes the given value whatever the result: for results, or for problems. */
function rawFormat(write: () => unknown, writes: 'results' | 'problems'): Serializer {
  const serializer: Serializer = { type: 'application/vnd.raw', contentType: 'application/vnd.raw', serialize: writes === 'results' ? () => write() as string : JSON.stringify };
  return writes === 'results' ? serializer : { ...serializer, problemType: 'application/problem+vnd.raw', serializeProblem: () => write() as string };
}

interface AnswerPath {
  name: string;
  /** The API that hands the value to restcanon, the request that reaches it, and what the client must get. */
  setup(value: () => unknown, reports: Reports, attack: Attack): { api: Api; request: ApiRequest; check(response: ApiResponse, reports: Reports): void };
}

const asResult = (value: () => unknown) => endpoint('GET', '/values', { handle: () => value() as never });
const cutBy = z.record(z.string(), z.unknown());

const PATHS: readonly AnswerPath[] = [
  {
    name: "a handler's result, in JSON",
    setup: (value, reports) => ({ api: apiWith(reports, [asResult(value)]), request: get('/values'), check: expectMasked }),
  },
  {
    name: "an item of a list handler's result",
    setup: (value, reports) => ({
      api: apiWith(reports, [endpoint('GET', '/values', { operation: 'list', handle: () => [{ id: 1 }, value()] as never })]),
      request: get('/values'),
      check: expectMasked,
    }),
  },
  {
    name: "a member deep in a handler's result",
    setup: (value, reports) => ({
      api: apiWith(reports, [endpoint('GET', '/values', { handle: () => ({ data: { items: [{ value: value() }] } }) as never })]),
      request: get('/values'),
      check: expectMasked,
    }),
  },
  {
    name: "a handler's result, in text/plain",
    setup: (value, reports) => ({ api: apiWith(reports, [asResult(value)], { formats: [json, text] }), request: get('/values', 'text/plain'), check: expectMasked }),
  },
  {
    name: "a handler's result, in XML",
    setup: (value, reports, attack) => ({
      api: apiWith(reports, [asResult(value)], { formats: [json, xml] }),
      request: get('/values', 'application/xml'),
      // XML writes a BigInt as its digits.
      check: attack.name.includes('BigInt') ? (response, seen) => (expect(response.payload).toContain('<count>10</count>'), expect(seen).toEqual([])) : expectMaskedXml,
    }),
  },
  {
    name: "a handler's result, cut by a response schema",
    setup: (value, reports) => ({
      api: apiWith(reports, [endpoint('GET', '/values', { response: cutBy, handle: () => value() as never })]),
      request: get('/values'),
      check: expectMasked,
    }),
  },
  {
    name: "a handler's result, written by a compiled serializer",
    setup: (value, reports) => ({
      api: apiWith(reports, [endpoint('GET', '/values', { response: cutBy, handle: () => value() as never })], { serializerCompiler: fastJson }),
      request: get('/values'),
      check: expectMasked,
    }),
  },
  {
    name: 'a thrown value',
    setup: (value, reports) => ({
      api: apiWith(reports, [
        endpoint('GET', '/values', {
          handle: () => {
            throw value();
          },
        }),
      ]),
      request: get('/values'),
      check: expectMasked,
    }),
  },
  {
    name: 'the result of problemBody.build',
    setup: (value, reports) => ({ api: apiWith(reports, [], { problemBody: { build: () => value() } }), request: get('/missing'), check: expectPlainNotFound }),
  },
  {
    name: "a custom format's serialize",
    setup: (value, reports, attack) => ({
      api: apiWith(reports, [endpoint('GET', '/values', { handle: () => ({ ok: true }) })], { formats: [json, rawFormat(value, 'results')] }),
      request: get('/values', 'application/vnd.raw'),
      // Bytes are a payload: a serializer may give them.
      check: attack.payload === true ? (response, seen) => (expect(response.status).toBe(200), expect(seen).toEqual([])) : expectMasked,
    }),
  },
  {
    name: "a custom format's serializeProblem",
    setup: (value, reports, attack) => ({
      api: apiWith(reports, [], { formats: [json, rawFormat(value, 'problems')] }),
      request: get('/missing', 'application/vnd.raw'),
      check:
        attack.payload === true
          ? (response, seen) => {
              expect(response.status).toBe(404);
              expect(response.headers['content-type']).toBe('application/problem+vnd.raw; charset=utf-8');
              expect(seen).toEqual([]);
            }
          : expectPlainNotFound,
    }),
  },
  {
    name: "a value set with ctx.set",
    setup: (value, reports) => ({
      api: apiWith(reports, [endpoint('GET', '/values', { handle: (ctx) => (ctx.set('x-value', value() as string), { ok: true }) })]),
      request: get('/values'),
      check: expectMasked,
    }),
  },
  {
    name: 'a header name given to ctx.set',
    setup: (value, reports) => ({
      api: apiWith(reports, [endpoint('GET', '/values', { handle: (ctx) => (ctx.set(value() as string, 'x'), { ok: true }) })]),
      request: get('/values'),
      check: expectMasked,
    }),
  },
  {
    name: 'a header written into ctx.reply.headers directly',
    setup: (value, reports) => ({
      api: apiWith(reports, [
        endpoint('GET', '/values', {
          handle: (ctx) => {
            ctx.set('x-other', 'set');
            ctx.reply!.headers['x-value'] = value() as string;
            return { ok: true };
          },
        }),
      ]),
      request: get('/values'),
      check: expectMasked,
    }),
  },
  {
    name: "a collection's idOf",
    setup: (value, reports) => ({
      api: apiWith(reports, [], { resources: [collection('things', { body: 'unvalidated', idOf: () => value() as string, create: () => ({ id: 1 }) })] }),
      request: post('/things'),
      check: expectWithout(201, 'location'),
    }),
  },
  {
    name: "an endpoint's location",
    setup: (value, reports) => ({
      api: apiWith(reports, [endpoint('POST', '/things', { operation: 'create', body: 'unvalidated', location: () => value() as string, handle: () => ({ id: 1 }) })]),
      request: post('/things'),
      check: expectWithout(201, 'location'),
    }),
  },
  {
    name: "a collection's etag",
    setup: (value, reports) => ({
      api: apiWith(reports, [], { resources: [collection('things', { etag: () => value() as string, read: () => ({ id: 1 }) })] }),
      request: get('/things/1'),
      check: expectWithout(200, 'etag'),
    }),
  },
  {
    name: "a collection's lastModified",
    setup: (value, reports) => ({
      api: apiWith(reports, [], { resources: [collection('things', { lastModified: () => value() as Date, read: () => ({ id: 1 }) })] }),
      request: get('/things/1'),
      check: expectWithout(200, 'last-modified'),
    }),
  },
  {
    name: 'what onError throws',
    setup: (value, reports) => ({
      api: createApi({
        naming: 'off',
        endpoints: [health, failing],
        onError: (error, info) => {
          reports.push([error, info]);
          throw value();
        },
      }),
      request: get('/failures'),
      check: expectMasked,
    }),
  },
  {
    name: 'what onError returns',
    setup: (value, reports) => ({
      api: createApi({ naming: 'off', endpoints: [health, failing], onError: (error, info) => (reports.push([error, info]), value() as void) }),
      request: get('/failures'),
      check: expectMasked,
    }),
  },
];

const failing = endpoint('GET', '/failures', {
  handle: () => {
    throw new Error('the database is down');
  },
});

describe('every value on every answer path: answered, reported once, and the API goes on serving', () => {
  for (const path of PATHS) {
    describe(path.name, () => {
      it.each(ATTACKS.map((attack) => [attack.name, attack] as const))('%s', async (_name, attack) => {
        const reports: Reports = [];
        const { api, request, check } = path.setup(attack.value, reports, attack);
        const response = await api.handle(request);
        check(response, reports);
        const next = await api.handle(get('/health'));
        expect(next.status).toBe(200);
        expect(next.body).toEqual({ ok: true });
      });
    });
  }
});

describe('bytes and streams where a format expects data', () => {
  it.each([
    ['a Node Readable', () => Readable.from(['x'])],
    ['a web ReadableStream', () => new ReadableStream()],
    ['a Uint8Array', () => new Uint8Array([1])],
    ['an ArrayBuffer', () => new ArrayBuffer(1)],
    ['a Buffer', () => Buffer.from('x')],
    ['a Blob', () => new Blob(['x'])],
  ])('%s is reported with the advice to declare it in produces', async (_name, value) => {
    const reports: Reports = [];
    const response = await apiWith(reports, [asResult(value)]).handle(get('/values'));
    expectMasked(response, reports);
    expect(String((reports[0]![0] as Error).message)).toMatch(/declare the media type in the endpoint's `produces`/);
  });

  it('a promise nested in a result is reported with where it is and what to do', async () => {
    const reports: Reports = [];
    const response = await apiWith(reports, [asResult(() => ({ data: [{ user: Promise.resolve(1) }] }))]).handle(get('/values'));
    expectMasked(response, reports);
    expect(String((reports[0]![0] as Error).message)).toMatch(/#\/data\/0\/user.*await/);
  });

  it('plain data, dates and class instances are written as before', async () => {
    class Point {
      constructor(readonly x: number, readonly y: number) {}
    }
    const reports: Reports = [];
    const at = new Date('2030-01-02T03:04:05Z');
    const response = await apiWith(reports, [asResult(() => ({ at, point: new Point(1, 2), none: null, list: [1, 'a', true], nothing: undefined }))]).handle(get('/values'));
    expect(response.status).toBe(200);
    expect(response.payload).toBe('{"at":"2030-01-02T03:04:05.000Z","point":{"x":1,"y":2},"none":null,"list":[1,"a",true]}');
    expect(reports).toEqual([]);
  });
});

/** An object that claims the `HttpError` brand, with the members given (getters kept as getters). */
function forged(members: object): object {
  const defaults = Object.getOwnPropertyDescriptors({ code: 'APP_LOCKED', title: 'Locked', type: 'about:blank', expose: true, headers: {} });
  const error = Object.create(null, { ...defaults, ...Object.getOwnPropertyDescriptors(members) }) as object;
  Object.defineProperty(error, Symbol.for('restcanon.HttpError'), { value: true });
  return error;
}

/** A getter that answers `first` on its first read and `later` on every read after it. */
function lying(first: unknown, later: unknown): { get(): unknown } {
  let reads = 0;
  return { get: () => (reads++ === 0 ? first : later) };
}

const LYING_STATUS = (): object => Object.defineProperty(forged({}), 'status', { ...lying(404, 200), enumerable: true });

describe('a thrown error is read once, and only what was read is used', () => {
  it('a status getter that answers 404 and then 200 is answered 404, never a 2xx', async () => {
    const reports: Reports = [];
    const api = apiWith(reports, [endpoint('GET', '/values', { errors: { notFound: 'Locked' }, handle: () => { throw LYING_STATUS(); } })]);
    const response = await api.handle(get('/values'));
    expectProblem(response, { status: 404, code: 'APP_LOCKED', title: 'Locked' });
    expect(reports).toEqual([]);
  });

  it('a real HttpError(423) whose status is redefined as such a getter is answered 423', async () => {
    const error = Object.defineProperty(new HttpError(423, { detail: 'The invoice is locked' }), 'status', lying(423, 200));
    const api = apiWith([], [endpoint('GET', '/values', { handle: () => { throw error; } })]);
    expectProblem(await api.handle(get('/values')), { status: 423, code: 'RC_HTTP_423', title: 'Locked', detail: 'The invoice is locked' });
  });

  it('a Proxy that answers the brand, and 404 then 200 for its status, is answered 404', async () => {
    let reads = 0;
    const target = forged({ status: 404 });
    const proxy = new Proxy(target, { get: (object, key) => (key === 'status' ? (reads++ === 0 ? 404 : 200) : Reflect.get(object, key)) });
    const api = apiWith([], [endpoint('GET', '/values', { handle: () => { throw proxy; } })]);
    expectProblem(await api.handle(get('/values')), { status: 404, code: 'APP_LOCKED', title: 'Locked' });
  });

  const throwing = {
    get(): never {
      throw new Error('the getter refuses');
    },
  };
  it.each([
    ['status "404", a string', { status: '404' }],
    ['status 200', { status: 200 }],
    ['status 204', { status: 204 }],
    ['status 304', { status: 304 }],
    ['status NaN', { status: Number.NaN }],
    ['status 1000', { status: 1000 }],
    ['status 404.5', { status: 404.5 }],
    ['no status', {}],
    ['a status getter that throws', Object.defineProperties({}, { status: throwing })],
    ['a status getter that answers 200 and then 404', Object.defineProperties({}, { status: lying(200, 404) })],
    ['headers that are a string', { status: 404, headers: 'x-a: b' }],
    ['headers that are a number', { status: 404, headers: 42 }],
    ['headers that are null', { status: 404, headers: null }],
    ['headers that are an array', { status: 404, headers: ['x-a'] }],
    ['a headers getter that throws', Object.defineProperties({ status: 404 }, { headers: throwing })],
    ['a header whose value splits the response', { status: 404, headers: { 'x-a': 'b\r\nSet-Cookie: admin=1' } }],
    ['a header whose value is a number', { status: 404, headers: { 'x-a': 42 } }],
    ['a header whose value is a getter that throws', { status: 404, headers: Object.defineProperties({}, { 'x-a': { ...throwing, enumerable: true } }) }],
    ['a header name that is no token', { status: 404, headers: { 'x a': 'b' } }],
    ['a Content-Length header', { status: 404, headers: { 'Content-Length': '0' } }],
    ['a Transfer-Encoding header', { status: 404, headers: { 'transfer-encoding': 'chunked' } }],
    ['a CORS grant', { status: 404, headers: { 'access-control-allow-origin': '*' } }],
    ['a code that is a number', { status: 404, code: 404 }],
    ['expose that is a string', { status: 404, expose: 'yes' }],
    ['a title that is an object', { status: 404, title: {} }],
    ['a detail that is a number', { status: 404, detail: 7 }],
    ['errors that are a string', { status: 400, errors: 'bad' }],
    ['errors holding a number', { status: 400, errors: [42] }],
    ['an issue whose pointer is a number', { status: 400, errors: [{ in: 'body', pointer: 1, detail: 'x' }] }],
    ['an issue whose getter throws', { status: 400, errors: [Object.defineProperties({ in: 'body', pointer: '#' }, { detail: { ...throwing, enumerable: true } })] }],
    ['omittedErrors that is a string', { status: 400, errors: [], omittedErrors: 'many' }],
  ])('%s: a masked 500, reported once', async (_name, members) => {
    const reports: Reports = [];
    const error = forged(members);
    const api = apiWith(reports, [endpoint('GET', '/values', { handle: () => { throw error; } })]);
    const response = await api.handle(get('/values'));
    expectMasked(response, reports);
    expect(String((reports[0]![0] as Error).message)).toMatch(/^A thrown HttpError cannot be answered, so it is a 500: /);
    expect((reports[0]![0] as Error).cause).toBe(error);
    expect(response.headers).not.toHaveProperty('set-cookie');
    expect((await api.handle(get('/health'))).status).toBe(200);
  });

  it('a real ConflictError whose status was set to 200 is a masked 500', async () => {
    const reports: Reports = [];
    const error = new ConflictError('Taken');
    (error as { status: number }).status = 200;
    const api = apiWith(reports, [endpoint('GET', '/values', { handle: () => { throw error; } })]);
    expectMasked(await api.handle(get('/values')), reports);
  });
});

describe('the status policy is read once, when the API is built', () => {
  const table = createStatusPolicy().statuses;
  it.each([
    ['a table that answers notFound with 200', { statuses: { ...table, notFound: 200 }, unacceptable: 'reject', decide: (outcome: string) => (outcome === 'notFound' ? 200 : table[outcome as keyof typeof table]) }, /"policy" answers "notFound" with 200: build it with createStatusPolicy\(\)/],
    ['a table that answers read with "200"', { statuses: { ...table, read: '200' }, unacceptable: 'reject', decide: (outcome: string) => (outcome === 'read' ? '200' : table[outcome as keyof typeof table]) }, /"policy" answers "read" with 200: build/],
    ['a decide that disagrees with its table', { statuses: table, unacceptable: 'reject', decide: () => 200 }, /"policy" answers "create" with 201 and its decide with 200/],
    ['no table', { decide: () => 200 }, /"policy" is no status policy/],
    ['a policy that is no object', 'strict', /build it with createStatusPolicy/],
  ])('%s is refused by createApi', (_name, policy, message) => {
    expect(() => createApi({ policy: policy as unknown as StatusPolicy, endpoints: [health] })).toThrow(message);
  });

  it('a decide that answers 404 for everything after its first answers changes nothing: every create is a 201', async () => {
    const statuses = createStatusPolicy().statuses;
    // As many right answers as there are outcomes, then 404 for everything.
    let calls = 0;
    const policy = { statuses, unacceptable: 'reject', decide: (outcome: keyof typeof statuses) => (calls++ < Object.keys(statuses).length ? statuses[outcome] : 404) } as StatusPolicy;
    const api = createApi({ naming: 'off', policy, endpoints: [endpoint('POST', '/invoices', { operation: 'create', body: 'unvalidated', handle: () => ({ id: 1 }) })] });
    for (let round = 0; round <= Object.keys(statuses).length; round++) expect((await api.handle(post('/invoices'))).status).toBe(201);
  });

  it('a policy built by another copy of restcanon (its table, its decide) is used as its table says', async () => {
    const statuses = { ...createStatusPolicy({ remove: 204 }).statuses };
    const policy: StatusPolicy = { statuses, unacceptable: 'reject', decide: (outcome) => statuses[outcome] };
    const api = createApi({ naming: 'off', policy, endpoints: [endpoint('DELETE', '/things/:id', { operation: 'remove', handle: () => true })] });
    expect((await api.handle({ method: 'DELETE', url: '/things/1' })).status).toBe(204);
  });
});

describe('formats and dates read once', () => {
  it("a format's problemType that could split a header is refused by createApi", () => {
    expect(() => createApi({ formats: [json, { ...xml, problemType: 'application/problem+xml\r\nx: y' }] })).toThrow(/"formats" must give a header value of printable ASCII, got "application\/problem\+xml\\r\\nx: y"/);
  });

  it('a format whose contentType getter changes after createApi still sends what createApi checked', async () => {
    let reads = 0;
    const format: Serializer = {
      type: 'text/plain',
      get contentType() {
        return reads++ === 0 ? 'text/plain; charset=utf-8' : 'text/plain\r\nSet-Cookie: admin=1';
      },
      serialize: (value) => JSON.stringify(value),
    };
    const api = createApi({ formats: [json, format], endpoints: [health] });
    const response = await api.handle(get('/health', 'text/plain'));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('a Date whose toUTCString lies gives Last-Modified from its time', async () => {
    const date = new Date('2030-01-02T03:04:05Z');
    date.toUTCString = () => 'Wed, 02 Jan 2030 03:04:05 GMT\r\nSet-Cookie: admin=1';
    const reports: Reports = [];
    const api = apiWith(reports, [], { resources: [collection('things', { lastModified: () => date, read: () => ({ id: 1 }) })] });
    const response = await api.handle(get('/things/1'));
    expect(response.status).toBe(200);
    expect(response.headers['last-modified']).toBe('Wed, 02 Jan 2030 03:04:05 GMT');
  });

  it('a handler that sets an outcome the endpoint does not declare through ctx.reply is a masked 500', async () => {
    const reports: Reports = [];
    const api = apiWith(reports, [
      endpoint('GET', '/values', {
        handle: (ctx) => {
          ctx.set('x-a', 'b');
          (ctx.reply as { outcome: unknown }).outcome = 'notFound';
          return { ok: true };
        },
      }),
    ]);
    expectMasked(await api.handle(get('/values')), reports);
  });
});

describe('what onError returns', () => {
  it('a rejected promise whose catch and then were replaced is still handled: no unhandled rejection', async () => {
    const reports: unknown[] = [];
    const api = createApi({
      naming: 'off',
      endpoints: [health, failing],
      onError: (error) => {
        reports.push(error);
        const rejected = Promise.reject(new Error('the log sink is down'));
        return Object.assign(rejected, {
          catch: () => {
            throw new Error('catch was replaced');
          },
          then: () => {
            throw new Error('then was replaced');
          },
        }) as never;
      },
    });
    const unhandled: unknown[] = [];
    const record = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      expect((await api.handle(get('/failures'))).status).toBe(500);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', record);
    }
    expect(unhandled).toEqual([]);
    expect(reports).toHaveLength(1);
    expect((await api.handle(get('/health'))).status).toBe(200);
  });
});

describe("Express: the app's own etag fn throws after an answer that had to wait", () => {
  for (const [name, express] of [['express 5', express5], ['express 4', express4 as unknown as typeof express5]] as const) {
    it(`${name}: the app's error handler answers, and the server goes on serving`, async () => {
      const api = createApi({ naming: 'off', endpoints: [health, endpoint('GET', '/slow', { handle: async () => ({ ok: true }) })] });
      const app = express();
      app.set('etag', () => {
        throw new Error('the etag function failed');
      });
      app.use(toExpress(api));
      app.use((_error: unknown, _req: unknown, res: http.ServerResponse, _next: unknown) => res.writeHead(502).end());
      const server = await listen(http.createServer(app));
      try {
        expect((await fetch(`${server.baseUrl}/slow`)).status).toBe(502);
        expect((await fetch(`${server.baseUrl}/health`)).status).toBe(502);
        app.set('etag', false);
        expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
      } finally {
        await server.close();
      }
    });
  }
});

describe('the report of an undeclared error', () => {
  it('names its code with problemBody too: "answered 409 (RC_CONFLICT)"', async () => {
    const reports: Reports = [];
    const api = apiWith(reports, [endpoint('GET', '/values', { handle: () => { throw new ConflictError(); } })], { problemBody: { build: (problem) => ({ message: problem.title }) } });
    const response = await api.handle(get('/values'));
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ message: 'Conflict' });
    expect(reports).toHaveLength(1);
    expect(String((reports[0]![0] as Error).message)).toMatch(/^GET \/values answered 409 \(RC_CONFLICT\), which it does not declare/);
  });
});

/** The representative values, served by one API on every adapter. */
function wireApi(reports: Reports): Api {
  return createApi({
    naming: 'off',
    endpoints: [
      health,
      endpoint('GET', '/cycle', { handle: () => ATTACKS[1]!.value() as never }),
      endpoint('GET', '/to-json', { handle: () => ATTACKS[2]!.value() as never }),
      endpoint('GET', '/stream', { handle: () => Readable.from(['secret bytes']) as never }),
      endpoint('GET', '/lying', { errors: { notFound: 'Locked' }, handle: () => { throw LYING_STATUS(); } }),
      endpoint('GET', '/bigint', { errors: { notFound: 'No count' }, handle: () => { throw new NotFoundError(); } }),
    ],
    // The API's own body is the problem itself, but where it cannot be written.
    problemBody: { build: (problem, request) => (request.url === '/bigint' ? { count: 10n } : request.url === '/cycle' || request.url === '/to-json' ? ATTACKS[request.url === '/cycle' ? 1 : 2]!.value() : problem) },
    onError: (error, info) => reports.push([error, info]),
  });
}

describe('over every adapter on a real server', () => {
  for (const [name, mount] of Object.entries(ADAPTER_SETUPS)) {
    describe(name, () => {
      const reports: Reports = [];
      let server: MountedServer;
      beforeAll(async () => {
        server = await mount(wireApi(reports));
      });
      afterAll(() => server.close());

      const fetchAnswer = async (path: string) => {
        const response = await fetch(`${server.baseUrl}${path}`);
        return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
      };

      // The plain problem goes out as a problem document; the API's own body, in the format's own type.
      it.each([
        ['problemBody.build returns a BigInt: the plain 404 problem', '/bigint', 404, 'RC_NOT_FOUND', 'application/problem+json; charset=utf-8'],
        ['a handler and problemBody.build return a cycle: the plain masked 500', '/cycle', 500, 'RC_INTERNAL', 'application/problem+json; charset=utf-8'],
        ['a handler and problemBody.build return an object whose toJSON throws: the plain masked 500', '/to-json', 500, 'RC_INTERNAL', 'application/problem+json; charset=utf-8'],
        ['a handler returns a Node Readable: a masked 500', '/stream', 500, 'RC_INTERNAL', 'application/json; charset=utf-8'],
        ['a thrown status getter answers 404 and then 200: a 404', '/lying', 404, 'APP_LOCKED', 'application/json; charset=utf-8'],
      ])('%s, and the next request answers 200', async (_case, path, status, code, contentType) => {
        reports.length = 0;
        const answer = await fetchAnswer(path);
        expect(answer.status).toBe(status);
        expect(answer.headers['content-type']).toBe(contentType);
        expect(JSON.parse(answer.text)).toMatchObject({ status, code });
        expect(answer.text).not.toContain('secret bytes');
        // The handler's fault and the problem body's are two, each reported once.
        expect(reports).toHaveLength(path === '/lying' ? 0 : path === '/cycle' || path === '/to-json' ? 2 : 1);
        const next = await fetchAnswer('/health');
        expect(next.status).toBe(200);
        expect(JSON.parse(next.text)).toEqual({ ok: true });
      });
    });
  }
});
