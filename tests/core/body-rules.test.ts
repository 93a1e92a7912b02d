/**
 * Body reading as a caller of `api.handle` sees it: the size limit (RFC 9110 §15.5.14), the media
 * type, charset and content coding an endpoint takes (RFC 9110 §8.3, §15.5.16, RFC 7694 §3), JSON
 * parsing (RFC 8259), and the keys and depth a body may not hold. Each case names the rule it pins.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint, PayloadTooLargeError, type ApiResponse, type HeaderRecord } from '../../src/index.js';
import { unreadBodyFate } from '../../src/core/body.js';
import { expectProblem } from '../helpers/problem.js';

const encoder = new TextEncoder();

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array | string> {
  for (const part of parts) yield part;
}

/** An API whose endpoints send back the body they received. */
function echoApi(options: { bodyLimit?: number; maxDepth?: number } = {}) {
  return createApi({
    ...options,
    onError: () => {},
    endpoints: [
      endpoint('POST', '/notes', { body: z.unknown(), handle: (ctx) => ({ received: ctx.body }) }),
      endpoint('PATCH', '/notes/:id', { body: z.unknown(), consumes: ['application/json', 'application/merge-patch+json'], handle: (ctx) => ({ received: ctx.body }) }),
      // A body it does not send back: a framework's parser may give values that are no JSON, such as a bigint.
      endpoint('POST', '/counts', { body: z.unknown(), handle: () => ({ read: true }) }),
      endpoint('POST', '/messages', { consumes: ['text/plain'], body: z.string(), handle: (ctx) => ({ received: ctx.body }) }),
    ],
  });
}

const post = (api: ReturnType<typeof echoApi>, body: unknown, headers: HeaderRecord = { 'content-type': 'application/json' }, url = '/notes', method = 'POST'): Promise<ApiResponse> =>
  api.handle({ method, url, headers, body });

describe('RFC 9110 §15.5.16: the media types an endpoint takes, and 415 for others', () => {
  const api = echoApi();

  it('a merge patch (RFC 7396) where the endpoint takes one is JSON to read', async () => {
    const response = await post(api, '{"title":null}', { 'content-type': 'application/merge-patch+json' }, '/notes/1', 'PATCH');
    expect(response.body).toEqual({ received: { title: null } });
  });

  it('a JSON patch (RFC 6902) is no JSON body where only JSON is taken, though its type ends in +json', async () => {
    expectProblem(await post(api, '[]', { 'content-type': 'application/json-patch+json' }), { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', detail: 'Send one of: application/json' });
    expect((await post(api, '{}', { 'content-type': 'application/vnd.api+json' })).body).toEqual({ received: {} });
  });

  it('the 415 names every type the endpoint takes, and Accept-Patch lists them (RFC 5789 §3.1)', async () => {
    expectProblem(await post(api, 'x', { 'content-type': 'text/plain' }, '/notes/1', 'PATCH'), {
      status: 415,
      detail: 'Send one of: application/json, application/merge-patch+json',
      headers: { 'accept-patch': 'application/json, application/merge-patch+json' },
    });
  });

  it.each(['utf-8', 'UTF-8', 'utf8'])('RFC 8259 §8.1: charset=%s is UTF-8', async (charset) => {
    expect((await post(api, '{"a":"é"}', { 'content-type': `application/json; charset=${charset}` })).body).toEqual({ received: { a: 'é' } });
  });
});

describe('RFC 9110 §15.5.14: a body larger than the limit is a 413', () => {
  const api = echoApi({ bodyLimit: 10 });

  it('the 413 says the limit in bytes', async () => {
    expectProblem(await post(api, '"0123456789"'), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE', detail: 'The body is larger than 10 bytes' });
  });

  it('a stream of exactly the limit is read; one byte more is a 413', async () => {
    expect((await post(api, chunks('"0123', '4567"'))).body).toEqual({ received: '01234567' });
    expectProblem(await post(api, chunks('"0123', '45678"')), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  it('a stream without a return() past the limit is still a 413, not a 500', async () => {
    const parts = ['"0123', '456789"'];
    const stream = { [Symbol.asyncIterator]: () => ({ next: async () => (parts.length > 0 ? { done: false, value: parts.shift()! } : { done: true, value: undefined }) }) };
    expectProblem(await post(api, stream), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  it('a stream that fails with an HTTP error answers that error: a host\'s own 413 stays a 413', async () => {
    async function* refused(): AsyncGenerator<Uint8Array> {
      yield encoder.encode('"01');
      throw new PayloadTooLargeError('The proxy refused the rest');
    }
    expectProblem(await post(api, refused()), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE', detail: 'The proxy refused the rest' });
  });

  it('a framework\'s parsed body is measured by the fewest bytes its JSON can take: null 4, a number 1, a key its quotes and colon', async () => {
    const exactly = (body: unknown, limit: number) => post(echoApi({ bodyLimit: limit }), body, undefined, '/counts');
    for (const [body, size] of [
      [[null, null], 11],
      [[1, 2, 3], 7],
      [[1n, 2n], 5],
      [[true, false], 12],
      [{ ab: 1, c: null }, 17],
      [{ a: undefined }, 6],
    ] as const) {
      expect((await exactly(body, size)).status, `${String(size)} bytes`).toBe(200);
      expectProblem(await exactly(body, size - 1), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
    }
  });

  it.each([
    ['\u007f', 1],
    ['\u0080', 2],
    ['\u07ff', 2],
    ['\u0800', 3],
    ['\ud7ff', 3],
    ['\ud800', 2],
    ['\udfff', 2],
    ['\ue000', 3],
  ])('RFC 3629 §3: a parsed string holding U+%s counts its UTF-8 bytes (%i), a lone surrogate 2', async (char, bytes) => {
    const size = 4 + bytes; // ["x"]
    expect((await post(echoApi({ bodyLimit: size }), [char])).status).toBe(200);
    expectProblem(await post(echoApi({ bodyLimit: size - 1 }), [char]), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });
});

describe('RFC 7694 §3: a body in a content coding restcanon does not decode is a 415', () => {
  const api = echoApi();

  it.each(['', ',', ' , ', ' Identity ', 'IDENTITY, identity'])('Content-Encoding: %j is no coding at all', async (coding) => {
    expect((await post(api, '{}', { 'content-type': 'application/json', 'content-encoding': coding })).status).toBe(200);
  });

  it('gzip is a 415 that says the body must not be encoded, with Accept-Encoding: identity', async () => {
    expectProblem(await post(api, '{}', { 'content-type': 'application/json', 'content-encoding': ' GZIP ' }), {
      status: 415,
      detail: 'The body must not be compressed or otherwise encoded',
      headers: { 'accept-encoding': 'identity', 'accept-post': 'application/json' },
    });
  });
});

describe('keys and depth a body may not hold', () => {
  const api = echoApi({ maxDepth: 3 });

  it('a body nested past maxDepth is a 400 that names the depth', async () => {
    expectProblem(await post(api, '[[[[]]]]'), { status: 400, code: 'RC_TOO_DEEP', detail: 'The body nests deeper than 3 levels' });
  });

  it.each(['{"constructor":{"prototype":{"admin":true}}}', '{"a":[{"constructor":{"prototype":1}}]}'])('constructor.prototype in %s is a 400 that does not quote the key', async (text) => {
    expectProblem(await post(api, text), { status: 400, code: 'RC_FORBIDDEN_KEY', detail: 'The body holds a key that is not allowed' });
  });

  it.each(['{"constructor":{"name":"x"}}', '{"constructor":null}', '{"constructor":"x"}', '{"a":{"prototype":{}}}', '{"prototype":{"constructor":1}}'])('%s is an ordinary body', async (text) => {
    expect((await post(api, text)).body).toEqual({ received: JSON.parse(text) });
  });

  it('a parsed body whose prototype a parser replaced, even with one that names a real constructor, is a 400', async () => {
    const planted = Object.create({ constructor: Object, admin: true }) as object;
    expectProblem(await post(api, planted), { status: 400, code: 'RC_FORBIDDEN_KEY' });
  });
});

describe('JSON parsing (RFC 8259)', () => {
  it('malformed JSON leaves the stack trace limit of the process as it was', async () => {
    const before = Error.stackTraceLimit;
    expectProblem(await post(echoApi(), '{"a":'), { status: 400, code: 'RC_MALFORMED_BODY', detail: 'The body is not valid JSON' });
    expect(Error.stackTraceLimit).toBe(before);
    expect(before).toBeGreaterThan(0);
  });
});

describe('a body the API answered without reading it to its end (what an adapter does with the rest)', () => {
  it('RFC 9112 §6.3: a declared length up to 64 MiB is read and dropped; past it the connection closes', () => {
    expect(unreadBodyFate({ 'content-length': '67108864' })).toBe('drain');
    expect(unreadBodyFate({ 'content-length': '67108865' })).toBe('close');
  });

  it('a Content-Length a host gives as a list announces a body of unknown length: drained within the bound', () => {
    expect(unreadBodyFate({ 'content-length': ['10000000000'] })).toBe('drain');
  });

  it('a stream still being read when the deadline comes is told to stop: 503, and return() reaches the source', async () => {
    let stopped = 0;
    const stream = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<Uint8Array>>(() => {}),
        return: async () => {
          stopped++;
          return { done: true as const, value: undefined };
        },
      }),
    };
    const api = createApi({ timeout: 20, onError: () => {}, endpoints: [endpoint('POST', '/notes', { body: z.unknown(), handle: () => ({}) })] });
    expectProblem(await api.handle({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: stream }), { status: 503, code: 'RC_TIMEOUT' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBe(1);
  });
});
