import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint, type Api, type ApiOptions, type ApiResponse, type HeaderRecord } from '../../src/index.js';
import { toNodeListener } from '../../src/adapters/node.js';
import {
  checkContentLength,
  checkMediaType,
  DRAIN_LIMIT,
  isRawBody,
  parseBodyText,
  readBody,
  unreadBodyFate,
  type BodyRules,
} from '../../src/core/body.js';
import { inspectBody } from '../../src/core/body-inspection.js';
import { parseMediaType } from '../../src/core/media-type.js';
import { expectProblem } from '../helpers/problem.js';

const encoder = new TextEncoder();
const SECRET = 'hunter2';

async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += size) yield bytes.slice(start, start + size);
}

/**
 * The same request body in every form `api.handle` takes: raw as a string, as bytes, as an
 * ArrayBuffer, as a stream of 3-byte chunks (which splits multi-byte characters), and pre-parsed as a
 * framework's JSON parser would give it. Each rule below must give the same answer for all of them.
 */
const FORMS: Array<[string, (text: string) => unknown]> = [
  ['a string', (text) => text],
  ['bytes', (text) => encoder.encode(text)],
  ['an ArrayBuffer', (text) => encoder.encode(text).buffer],
  ['3-byte chunks', (text) => chunksOf(encoder.encode(text), 3)],
  ['a pre-parsed value', (text) => (text === '' ? undefined : JSON.parse(text))],
];
const RAW_FORMS = FORMS.slice(0, 4);

let reached = 0;

function apiWith(options: ApiOptions = {}): Api {
  return createApi({
    ...options,
    endpoints: [
      endpoint('POST', '/notes', { body: z.unknown(), handle: (ctx) => ((reached += 1), { received: ctx.body }) }),
      endpoint('PATCH', '/notes/:id', { body: z.unknown(), handle: (ctx) => ({ received: ctx.body }) }),
      endpoint('PUT', '/notes/:id', { body: z.unknown(), handle: (ctx) => ({ received: ctx.body }) }),
      endpoint('POST', '/messages', { consumes: ['text/plain'], body: z.string(), handle: (ctx) => ({ received: ctx.body }) }),
    ],
  });
}

const api = apiWith();

function send(target: Api, body: unknown, headers: HeaderRecord = { 'content-type': 'application/json' }, method = 'POST', url = '/notes'): Promise<ApiResponse> {
  return target.handle({ method, url, headers, body });
}


const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

afterAll(() => {
  expect(({} as Record<string, unknown>).admin).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('admin');
});

describe.each(FORMS)('a body given as %s', (form, make) => {
  const preParsed = form === 'a pre-parsed value';

  it('JSON is parsed, multi-byte characters included', async () => {
    const value = { text: 'Grüße, € and 😀', list: [1, null, true] };
    const response = await send(api, make(JSON.stringify(value)));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: value });
  });

  it('an empty body where the schema needs one is a 400', async () => {
    const response = await send(api, make(''));
    expectProblem(response, { status: 400, code: 'RC_MALFORMED_BODY' });
    expect((response.body as { detail: string }).detail).toBe('The request needs a body');
  });

  it.each([
    ['__proto__', '{"__proto__":{"admin":true}}'],
    ['__proto__ written with a unicode escape', '{"\\u005f_proto__":{"admin":true}}'],
    ['__proto__ deep inside an array', '{"list":[{"inner":{"__proto__":{"admin":true}}}]}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"admin":true}}}'],
    ['constructor.prototype written with unicode escapes', '{"\\u0063onstructor":{"\\u0070rototype":{"admin":true}}}'],
  ])('%s is a 400, and Object.prototype stays clean', async (_, text) => {
    const before = reached;
    const response = await send(api, make(text));
    expectProblem(response, { status: 400, code: 'RC_FORBIDDEN_KEY' });
    expect(reached).toBe(before);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('"constructor" as an ordinary key or value is fine', async () => {
    const value = { constructor: 'x', nested: { constructor: { name: 'y' } } };
    const response = await send(api, make(JSON.stringify(value)));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: value });
  });

  it('nesting up to maxDepth (64) passes; one level more is a 400', async () => {
    expect((await send(api, make(nested(64)))).status).toBe(200);
    expectProblem(await send(api, make(nested(65))), { status: 400, code: 'RC_TOO_DEEP' });
  });

  it('a body nested 10,000 deep is a 400, not a stack overflow', async () => {
    expectProblem(await send(api, make(nested(10_000))), { status: 400, code: 'RC_TOO_DEEP' });
    expectProblem(await send(apiWith({ maxDepth: 20_000 }), make('{"a":'.repeat(10_000) + '{"__proto__":{}}' + '}'.repeat(10_000))), { status: 400, code: 'RC_FORBIDDEN_KEY' });
  });

  it('maxDepth is configurable', async () => {
    const shallow = apiWith({ maxDepth: 3 });
    expect((await send(shallow, make('{"a":{"b":{}}}'))).status).toBe(200);
    expectProblem(await send(shallow, make('{"a":{"b":{"c":{}}}}')), { status: 400, code: 'RC_TOO_DEEP' });
  });

  it('a Content-Length past the limit is a 413', async () => {
    const response = await send(apiWith({ bodyLimit: 16 }), make('"€€€€€"'), { 'content-type': 'application/json', 'content-length': '17' });
    expectProblem(response, { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  // The limit counts bytes, not characters: ["€€€€€"] is 9 characters but 19 bytes.
  it('without Content-Length, 19 bytes in 9 characters are past an 18-byte limit', async () => {
    const limited = apiWith({ bodyLimit: 18 });
    expect((await send(limited, make('["€€€€"]'))).status).toBe(200);
    expectProblem(await send(limited, make('["€€€€€"]')), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  // Regression: the limit check once allocated `new Uint8Array(contentLength)`, a 500 (RangeError) or gigabytes of memory.
  it('a Content-Length of 5 GB is a 413 at once', async () => {
    const response = await send(api, make('{}'), { 'content-type': 'application/json', 'content-length': '5000000000' });
    expectProblem(response, { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  it.each([
    'application/vnd.api+json',
    'application/merge-patch+json',
    'APPLICATION/JSON',
    '  application/json  ',
    '\tapplication/json\t;\tcharset=UTF-8',
    'application/json;charset="utf-8"',
    'Application/Json; Charset=UTF8; profile=x',
  ])('Content-Type %j is JSON', async (contentType) => {
    const response = await send(api, make('{"a":1}'), { 'content-type': contentType });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: { a: 1 } });
  });

  it.each([
    'text/plain',
    'application/xml',
    'application/jsonx',
    'application/json, text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'json',
    '',
    'constructor',
    'toString',
    '__proto__',
    '__proto__/x',
    'x/__proto__',
    'hasOwnProperty/valueOf',
  ])('Content-Type %j is a 415 with Accept-Post', async (contentType) => {
    const response = await send(api, make('{"a":1}'), { 'content-type': contentType });
    expectProblem(response, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE' });
    expect(response.headers['accept-post']).toBe('application/json');
  });

  it.each(['latin1', 'utf-16', '""', 'UTF-16; format=x'])('charset=%s is a 415', async (charset) => {
    const response = await send(api, make('{"a":1}'), { 'content-type': `application/json; charset=${charset}` });
    expectProblem(response, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE' });
    expect((response.body as { detail: string }).detail).toBe('The body must be encoded as UTF-8');
  });

  it.each(['application/json; charset=utf-8; charset=iso-8859-1', 'application/json; charset = utf-8', 'application/json; profile=http://localhost', 'application/json; x="open'])(
    'Content-Type %j is malformed: a 415 that says so',
    async (contentType) => {
      const response = await send(api, make('{"a":1}'), { 'content-type': contentType });
      expectProblem(response, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', detail: 'The Content-Type is malformed', headers: { 'accept-post': 'application/json' } });
    },
  );

  it('a 415 on PATCH carries Accept-Patch, and on PUT neither header', async () => {
    const patch = await send(api, make('{}'), { 'content-type': 'text/csv' }, 'PATCH', '/notes/1');
    expect(patch.status).toBe(415);
    expect(patch.headers['accept-patch']).toBe('application/json');
    expect(patch.headers['accept-post']).toBeUndefined();
    const put = await send(api, make('{}'), { 'content-type': 'text/csv' }, 'PUT', '/notes/1');
    expect(put.status).toBe(415);
    expect(put.headers['accept-patch']).toBeUndefined();
    expect(put.headers['accept-post']).toBeUndefined();
  });
});

describe('raw bodies only', () => {
  // Regression, found by tests/fuzz: a string body kept its byte order mark, so '\uFEFF{"a":1}' was a
  // 400 given as a string and a 200 given as the same bytes.
  it.each(RAW_FORMS)('JSON after a byte order mark (U+FEFF then {"a":1}) as %s reads like the same bytes', async (_, make) => {
    const response = await send(api, make('\uFEFF{"a":1}'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: { a: 1 } });
  });

  it.each(RAW_FORMS)('malformed JSON as %s is a 400 that does not quote the body', async (_, make) => {
    const response = await send(api, make(`{"password": "${SECRET}",}`));
    expectProblem(response, { status: 400, code: 'RC_MALFORMED_BODY' });
    expect((response.body as { detail: string }).detail).toBe('The body is not valid JSON');
    expect(String(response.payload)).not.toContain(SECRET);
  });

  it.each([
    ['a byte that is never UTF-8', [0x7b, 0xff, 0x7d]],
    ['an overlong encoding', [0x22, 0xc0, 0xaf, 0x22]],
    ['a character cut off at the end', [0x22, 0xe2, 0x82]],
    ['a lone surrogate', [0x22, 0xed, 0xa0, 0x80, 0x22]],
  ])('%s is a 400, as bytes and as chunks', async (_, bytes) => {
    for (const body of [new Uint8Array(bytes), chunksOf(new Uint8Array(bytes), 1)]) {
      const response = await send(api, body);
      expectProblem(response, { status: 400, code: 'RC_MALFORMED_BODY' });
      expect((response.body as { detail: string }).detail).toBe('The body is not valid UTF-8');
    }
  });

  it('a stream past the limit is a 413 and is not read to the end', async () => {
    let pulled = 0;
    let closed = false;
    async function* endless(): AsyncGenerator<Uint8Array> {
      try {
        for (;;) {
          pulled += 1;
          yield new Uint8Array(100).fill(0x20);
        }
      } finally {
        closed = true;
      }
    }
    const response = await send(apiWith({ bodyLimit: 1024 }), endless());
    expectProblem(response, { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
    expect(pulled).toBe(11);
    expect(closed).toBe(true);
  });

  it('string chunks are counted in UTF-8 bytes', async () => {
    async function* chunks() {
      yield '"';
      yield '€€€€€';
      yield '"';
    }
    expectProblem(await send(apiWith({ bodyLimit: 16 }), chunks()), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  it('a raw body without Content-Type is a 415', async () => {
    const response = await send(api, '{"a":1}', {});
    expectProblem(response, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE' });
    expect((response.body as { detail: string }).detail).toBe('The body needs a Content-Type');
  });
});

describe('pre-parsed bodies only', () => {
  it('an object whose prototype a parser replaced from "__proto__" is a 400', async () => {
    for (const body of [{ __proto__: { admin: true }, name: 'x' }, { list: [Object.assign(Object.create({ admin: true }) as object, { a: 1 })] }]) {
      expectProblem(await send(api, body), { status: 400, code: 'RC_FORBIDDEN_KEY' });
    }
  });

  it('a prototype that claims a constructor is still caught', async () => {
    const planted = Object.create({ constructor: 'x', admin: true }) as object;
    expectProblem(await send(api, planted), { status: 400, code: 'RC_FORBIDDEN_KEY' });
  });

  it('null-prototype objects and class instances are fine', async () => {
    const response = await send(api, { query: Object.assign(Object.create(null) as object, { a: 1 }), when: new Date(0) });
    expect(response.status).toBe(200);
  });
});

describe('text/plain where an endpoint consumes it', () => {
  it.each(FORMS.slice(0, 4))('the text as %s reaches the handler as a string', async (_, make) => {
    const response = await send(api, make('hello, €'), { 'content-type': 'Text/Plain; charset=utf-8' }, 'POST', '/messages');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: 'hello, €' });
  });

  it('JSON there is a 415 that names text/plain', async () => {
    const response = await send(api, '{"a":1}', { 'content-type': 'application/json' }, 'POST', '/messages');
    expect(response.status).toBe(415);
    expect(response.headers['accept-post']).toBe('text/plain');
  });
});

describe('createApi refuses a limit that is not a whole number of bytes', () => {
  it.each([Number.NaN, -1, '1mb', Number.POSITIVE_INFINITY, 1.5, null])('bodyLimit %s', (value) => {
    expect(() => apiWith({ bodyLimit: value as number })).toThrow(/"bodyLimit" must be a whole number/);
  });

  it.each([Number.NaN, -1, '64', Number.POSITIVE_INFINITY])('maxDepth %s', (value) => {
    expect(() => apiWith({ maxDepth: value as number })).toThrow(/"maxDepth" must be a whole number/);
  });
});

const rules = (overrides: Partial<BodyRules> = {}): BodyRules => ({
  limit: 1024,
  maxDepth: 64,
  consumes: new Set(['application/json']),
  acceptHeader: { name: 'accept-post', value: 'application/json' },
  ...overrides,
});

describe('parseMediaType', () => {
  it.each([
    ['application/json', 'application/json', {}],
    ['Application/JSON ;\tcharset="UTF-8"', 'application/json', { charset: 'UTF-8' }],
    ['text/plain; format=flowed; CHARSET=utf-8 ', 'text/plain', { format: 'flowed', charset: 'utf-8' }],
  ])('%j', (header, essence, parameters) => {
    const media = parseMediaType(header);
    expect({ essence: media?.essence, parameters: Object.fromEntries(media?.parameters ?? []) }).toEqual({ essence, parameters });
  });

  it.each(['', 'json', '/json', 'application/', 'application /json', 'a/b, c/d', '"a/b"', 'text/plain; CHARSET = utf-8'])('%j is no media type', (header) => {
    expect(parseMediaType(header)).toBeUndefined();
  });
});

describe('checkMediaType', () => {
  it('admits +json types as JSON, and only types the endpoint consumes', () => {
    expect(checkMediaType('application/problem+json', rules())).toBe('application/json');
    expect(checkMediaType('text/plain', rules({ consumes: new Set(['text/plain']) }))).toBe('text/plain');
    expect(() => checkMediaType('application/problem+json', rules({ consumes: new Set(['text/plain']) }))).toThrow(
      expect.objectContaining({ status: 415, headers: { 'accept-post': 'application/json' } }),
    );
    expect(() => checkMediaType(undefined, rules({ acceptHeader: undefined }))).toThrow(expect.objectContaining({ status: 415, headers: {} }));
  });
});

describe('unreadBodyFate', () => {
  it.each([
    ['no framing headers', 'none', {}],
    ['Content-Length: 0', 'none', { 'content-length': '0' }],
    ['a Content-Length that is no number', 'drain', { 'content-length': 'ten' }],
    ['Transfer-Encoding: chunked', 'drain', { 'transfer-encoding': 'chunked' }],
    ['Content-Length: DRAIN_LIMIT', 'drain', { 'content-length': String(DRAIN_LIMIT) }],
    ['Content-Length: DRAIN_LIMIT + 1', 'close', { 'content-length': String(DRAIN_LIMIT + 1) }],
    ['Content-Length: 10000000000', 'close', { 'content-length': '10000000000' }],
  ] as const)('%s: %s', (_case, fate, headers: HeaderRecord) => {
    expect(unreadBodyFate(headers)).toBe(fate);
  });
});

describe('readBody', () => {
  it('takes exactly the limit, and refuses one byte more', async () => {
    expect(await readBody('€€', 6)).toBe('€€');
    await expect(readBody('€€', 5)).rejects.toMatchObject({ status: 413 });
    expect(await readBody(encoder.encode('€€'), 6)).toBe('€€');
    await expect(readBody(encoder.encode('€€'), 5)).rejects.toMatchObject({ status: 413 });
  });

  it('joins characters split across chunks, and drops a byte order mark', async () => {
    expect(await readBody(chunksOf(encoder.encode('\uFEFF€😀'), 1), 100)).toBe('€😀');
  });

  it('drops a byte order mark from a string as from bytes, and counts its 3 bytes', async () => {
    expect(await readBody('\uFEFF€', 6)).toBe('€');
    expect(await readBody(encoder.encode('\uFEFF€'), 6)).toBe('€');
    await expect(readBody('\uFEFF€', 5)).rejects.toMatchObject({ status: 413 });
  });
});

describe('parseBodyText and isRawBody', () => {
  it('parses JSON only for JSON', () => {
    expect(parseBodyText('{"a":1}', 'application/json')).toEqual({ a: 1 });
    expect(parseBodyText('{"a":1}', 'text/plain')).toBe('{"a":1}');
    expect(() => parseBodyText(`{${SECRET}`, 'application/json')).toThrow(expect.objectContaining({ status: 400, detail: 'The body is not valid JSON' }));
  });

  it('tells raw bodies from parsed ones', () => {
    expect([isRawBody('x'), isRawBody(new Uint8Array(1)), isRawBody(new ArrayBuffer(1)), isRawBody(chunksOf(new Uint8Array(0), 1))]).toEqual([true, true, true, true]);
    expect([isRawBody({}), isRawBody([]), isRawBody(null), isRawBody(1)]).toEqual([false, false, false, false]);
  });
});

describe('inspectBody', () => {
  it('measures a parsed body against a limit with a lower bound of its JSON size', () => {
    // The bound is exact for compact JSON without numbers: {"text":"€€€€€","list":[true,null]} is 45 bytes.
    const value = { text: '€€€€€', list: [true, null] };
    expect(encoder.encode(JSON.stringify(value)).byteLength).toBe(45);
    expect(() => inspectBody(value, 64, 45)).not.toThrow();
    expect(() => inspectBody(value, 64, 44)).toThrow(expect.objectContaining({ status: 413 }));
    expect(() => inspectBody(['😀'], 64, 7)).toThrow(expect.objectContaining({ status: 413 }));
    expect(() => inspectBody([1e21, 1.5], 64, 5)).not.toThrow(); // [1e21,1.5] could be 10 bytes; numbers count 1 each
  });

  it('counts depth from 1 at the top', () => {
    expect(() => inspectBody({}, 1)).not.toThrow();
    expect(() => inspectBody({ a: {} }, 1)).toThrow(expect.objectContaining({ code: 'RC_TOO_DEEP' }));
    expect(() => inspectBody('scalar', 0)).not.toThrow();
  });
});

describe('checkContentLength', () => {
  it('refuses a declared length past the limit without allocating it', () => {
    expect(() => checkContentLength('5000000000', 1024)).toThrow(expect.objectContaining({ status: 413 }));
    expect(() => checkContentLength('1025', 1024)).toThrow(expect.objectContaining({ status: 413 }));
    expect(() => checkContentLength('1024', 1024)).not.toThrow();
  });

  it('leaves a missing or malformed value to the reading', () => {
    for (const header of [undefined, '', 'abc', '-5', '1e9', '10, 10']) expect(() => checkContentLength(header, 1024)).not.toThrow();
  });
});

describe('a body stream that fails mid-way', () => {
  // Regression: a client aborting its upload reached onError as a 500 (ECONNRESET: aborted).
  it('is a 400 for the client, not a 500 for the operator', async () => {
    const onError = vi.fn();
    const api = createApi({ onError, endpoints: [endpoint('POST', '/notes', { body: 'unvalidated', handle: (ctx) => ctx.body })] });
    async function* aborted() {
      yield new TextEncoder().encode('{"text":');
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    }
    const response = await api.handle({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: aborted() });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'RC_MALFORMED_BODY', detail: 'The body could not be read to its end', instance: expect.any(String) });
    expect(onError).not.toHaveBeenCalled();
  });
});

describe('Content-Encoding', () => {
  const api = createApi({ endpoints: [endpoint('PATCH', '/notes/:id', { body: 'unvalidated', handle: (ctx) => ctx.body })] });
  it.each(['gzip', 'br', 'deflate', 'identity, gzip'])('%s is 415 with Accept-Encoding: identity and Accept-Patch', async (coding) => {
    const response = await api.handle({ method: 'PATCH', url: '/notes/1', headers: { 'content-type': 'application/json', 'content-encoding': coding }, body: '{}' });
    expect(response.status).toBe(415);
    expect(response.headers).toEqual({ 'accept-encoding': 'identity', 'accept-patch': 'application/json', 'content-type': 'application/problem+json; charset=utf-8' });
  });
  it('identity is no coding at all', async () => {
    const response = await api.handle({ method: 'PATCH', url: '/notes/1', headers: { 'content-type': 'application/json', 'content-encoding': 'Identity' }, body: '{"a":1}' });
    expect(response).toMatchObject({ status: 200, body: { a: 1 } });
  });
});

describe("body: 'ignored'", () => {
  const follow = endpoint('POST', '/profiles/:username/follow', { body: 'ignored', handle: (ctx) => ({ following: ctx.params.username, body: ctx.body ?? 'none' }) });
  const ignoring = createApi({ bodyLimit: 16, endpoints: [follow] });
  const post = (headers: HeaderRecord, body: unknown) => send(ignoring, body, headers, 'POST', '/profiles/ada/follow');

  it('POST /profiles/:username/follow answers the same with a body, an empty one or none, and the handler sees no body', async () => {
    const bodies: Array<[HeaderRecord, unknown]> = [
      [{ 'content-type': 'application/json' }, '{"user":{}}'],
      [{ 'content-type': 'application/json' }, { user: {} }],
      [{}, undefined],
      [{ 'content-length': '0' }, ''],
    ];
    for (const [headers, body] of bodies) {
      const response = await post(headers, body);
      expect(response).toMatchObject({ status: 200, body: { following: 'ada', body: 'none' } });
    }
  });

  it('is neither measured, checked nor parsed: malformed JSON, another media type, a gzip coding and a length past bodyLimit all pass', async () => {
    const bodies: Array<[HeaderRecord, unknown]> = [
      [{ 'content-type': 'application/json' }, '{"a":'],
      [{ 'content-type': 'application/xml' }, '<follow/>'],
      [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, new Uint8Array([0x1f, 0x8b])],
      [{ 'content-type': 'application/json', 'content-length': String(5 * 1024 ** 3) }, '{}'],
      [{ 'content-type': 'application/json' }, JSON.stringify({ __proto__: 'x', text: 'y'.repeat(100) })],
    ];
    for (const [headers, body] of bodies) expect((await post(headers, body)).status).toBe(200);
  });

  it('a streamed body is never read: not one chunk is pulled', async () => {
    let pulled = 0;
    async function* stream(): AsyncGenerator<Uint8Array> {
      for (;;) {
        pulled += 1;
        yield new Uint8Array(1024);
      }
    }
    expect((await post({ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, stream())).status).toBe(200);
    expect(pulled).toBe(0);
  });

  it('an endpoint without a body option still refuses one, and a collection operation may ignore its body too', async () => {
    const strict = createApi({ endpoints: [endpoint('POST', '/profiles/:username/follow', { handle: () => ({}) })] });
    expectProblem(await send(strict, '{"user":{}}', { 'content-type': 'application/json' }, 'POST', '/profiles/ada/follow'), { status: 400, code: 'RC_UNEXPECTED_BODY' });
    const favorites = collection('favorites', { body: 'ignored', create: (ctx) => ({ id: 1, body: ctx.body ?? 'none' }) });
    const created = await send(createApi({ resources: [favorites] }), '{"a":', { 'content-type': 'application/json' }, 'POST', '/favorites');
    expect(created).toMatchObject({ status: 201, body: { id: 1, body: 'none' } });
  });

  it('over node:http, a body larger than bodyLimit is answered 200 and the connection serves the next request', async () => {
    const server = createServer(toNodeListener(ignoring));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/profiles/ada/follow`;
      const big = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x'.repeat(256 * 1024) }) });
      expect([big.status, await big.json()]).toEqual([200, { following: 'ada', body: 'none' }]);
      const next = await fetch(url, { method: 'POST' });
      expect(next.status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("body must be a schema, 'unvalidated', 'bytes', 'stream' or 'ignored'", () => {
    expect(() => endpoint('POST', '/follows', { body: 'skip' as never, handle: () => ({}) })).toThrow(
      `endpoint(POST /follows): "body" must be a Standard Schema, such as a zod schema, 'unvalidated' to take any body unchecked, 'bytes' or 'stream' to take its bytes, or 'ignored' to take a body and never read it`,
    );
  });
});
