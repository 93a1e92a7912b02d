/**
 * Bodies of any media type: bytes arrive as they were sent, `'bytes'` and `'stream'` take them
 * whatever their type, ranges in `consumes`, and the mistakes refused when an endpoint is defined.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint } from '../../src/index.js';
import { expectProblem } from '../helpers/problem.js';

const BYTES = Uint8Array.of(0xff, 0xfe, 0x00, 0x80);

async function* chunks(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield part;
}

const json = (response: { body?: unknown }): unknown => response.body;
const hex = (bytes: unknown): string => Buffer.from(bytes as Uint8Array).toString('hex');

function binaryApi(options: { timeout?: number } = {}) {
  const blob = endpoint('PUT', '/blobs/:id', { consumes: ['application/octet-stream'], body: 'unvalidated', handle: (ctx) => ({ hex: hex(ctx.body), isBytes: ctx.body instanceof Uint8Array }) });
  const avatar = endpoint('PUT', '/avatar', { consumes: ['image/*'], body: 'bytes', bodyLimit: 8, handle: (ctx) => ({ hex: hex(ctx.body) }) });
  const checked = endpoint('PUT', '/checked', {
    consumes: ['application/octet-stream'],
    body: z.instanceof(Uint8Array).refine((bytes) => bytes[0] === 0xff, 'starts with FF'),
    handle: (ctx) => ({ length: ctx.body.byteLength }),
  });
  const streamed = endpoint('POST', '/streams', {
    consumes: ['application/octet-stream'],
    body: 'stream',
    bodyLimit: 8,
    handle: async (ctx) => {
      const seen: string[] = [];
      for await (const chunk of ctx.body) seen.push(hex(chunk));
      return { seen };
    },
  });
  const slow = endpoint('POST', '/slow', {
    consumes: ['application/octet-stream'],
    body: 'stream',
    handle: async (ctx) => {
      try {
        for await (const chunk of ctx.body) void chunk;
        return { ended: 'clean' };
      } catch (error) {
        ended.push((error as { status?: number }).status);
        throw error;
      }
    },
  });
  const ended: (number | undefined)[] = [];
  const text = endpoint('POST', '/texts', { consumes: ['text/*'], body: z.string(), handle: (ctx) => ({ text: ctx.body }) });
  return { api: createApi({ endpoints: [blob, avatar, checked, streamed, slow, text], onError: () => {}, ...options }), ended };
}

describe('binary bodies', () => {
  const { api } = binaryApi();
  const octets = { 'content-type': 'application/octet-stream' };

  it('the bytes FF FE 00 80 of an application/octet-stream body arrive exact, not a 400 "not valid UTF-8"', async () => {
    for (const body of [BYTES, BYTES.buffer.slice(0), chunks(BYTES.subarray(0, 1), BYTES.subarray(1))]) {
      const response = await api.handle({ method: 'PUT', url: '/blobs/1', headers: octets, body });
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({ hex: 'fffe0080', isBytes: true });
    }
  });

  it("a range in consumes takes every type of it, and body: 'bytes' is a Uint8Array within bodyLimit", async () => {
    expect(json(await api.handle({ method: 'PUT', url: '/avatar', headers: { 'content-type': 'image/png' }, body: BYTES }))).toEqual({ hex: 'fffe0080' });
    expect((await api.handle({ method: 'PUT', url: '/avatar', headers: { 'content-type': 'image/webp; charset=latin1' }, body: BYTES })).status).toBe(200);
    expectProblem(await api.handle({ method: 'PUT', url: '/avatar', headers: { 'content-type': 'text/plain' }, body: BYTES }), { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE' });
    expectProblem(await api.handle({ method: 'PUT', url: '/avatar', headers: { 'content-type': 'image/png' }, body: chunks(BYTES, BYTES, BYTES) }), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  it('a schema validates a Uint8Array body', async () => {
    expect(json(await api.handle({ method: 'PUT', url: '/checked', headers: octets, body: BYTES }))).toEqual({ length: 4 });
    expectProblem(await api.handle({ method: 'PUT', url: '/checked', headers: octets, body: Uint8Array.of(1) }), { status: 400, code: 'RC_INVALID_INPUT' });
  });

  it('text/* is still text, and bytes that are not UTF-8 there still a 400', async () => {
    expect(json(await api.handle({ method: 'POST', url: '/texts', headers: { 'content-type': 'text/csv' }, body: 'a,b' }))).toEqual({ text: 'a,b' });
    expectProblem(await api.handle({ method: 'POST', url: '/texts', headers: { 'content-type': 'text/csv' }, body: BYTES }), { status: 400, code: 'RC_MALFORMED_BODY' });
  });

  it("body: 'stream' hands the chunks to the handler as they come", async () => {
    const response = await api.handle({ method: 'POST', url: '/streams', headers: octets, body: chunks(BYTES.subarray(0, 2), BYTES.subarray(2)) });
    expect(json(response)).toEqual({ seen: ['fffe', '0080'] });
  });

  it("body: 'stream' past bodyLimit throws the 413 in the handler's loop", async () => {
    expectProblem(await api.handle({ method: 'POST', url: '/streams', headers: octets, body: chunks(BYTES, BYTES, BYTES) }), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
    expectProblem(await api.handle({ method: 'POST', url: '/streams', headers: { ...octets, 'content-length': '9' }, body: chunks(BYTES) }), { status: 413 });
  });

  it("body: 'stream' whose request runs out of time ends the handler's loop with an error", async () => {
    const { api: timed, ended } = binaryApi({ timeout: 50 });
    const never = { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<Uint8Array>>(() => {}) }) };
    expectProblem(await timed.handle({ method: 'POST', url: '/slow', headers: octets, body: never }), { status: 503, code: 'RC_TIMEOUT' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ended).toEqual([503]);
  });
});

describe('definition-time checks of consumes and the body', () => {
  it("body: 'bytes' or 'stream' with only JSON in consumes is refused with a sentence", () => {
    expect(() => endpoint('PUT', '/files', { body: 'bytes', handle: () => ({}) })).toThrow(
      `endpoint(PUT /files): body 'bytes' takes bytes, and "consumes" names only JSON; name the media types of those bytes, such as consumes: ['application/octet-stream'] or ['image/*']`,
    );
    expect(() => endpoint('PUT', '/files', { body: 'stream', consumes: ['application/json'], handle: () => ({}) })).toThrow(/body 'stream' takes bytes/);
  });

  it.each(['image', 'image/png; q=1', '*/png', '', ' image/png', 'image/png, text/plain'])('a malformed consumes entry %j is refused', (entry) => {
    expect(() => endpoint('PUT', '/files', { body: 'bytes', consumes: [entry], handle: () => ({}) })).toThrow(/"consumes" holds .*, which is no media type/);
  });

  it('multipart/form-data on an API without the module is refused when the API is built, naming multipart()', () => {
    const upload = endpoint('POST', '/uploads', { consumes: ['multipart/form-data'], body: 'unvalidated', handle: () => ({}) });
    expect(() => createApi({ endpoints: [upload] })).toThrow(
      'POST /uploads: it consumes multipart/form-data, which the API reads only with a module; add multipart() from restcanon/multipart to createApi({ use: [...] }), or take the bytes as they come with body: \'stream\'',
    );
  });
});
