/**
 * Byte, file and stream answers in memory (`api.handle`): what each result kind answers under an
 * endpoint's `produces`, negotiation against it, errors before and after the first chunk, HEAD,
 * the deadline, `ctx.signal` and what `produces` refuses at definition time.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createApi, endpoint, type ApiResponse, type ErrorInfo } from '../../src/index.js';
import { createTestClient } from '../../src/testing.js';
import { idempotency } from '../../src/idempotency.js';
import { memoryStore } from '../../src/store/memory.js';

type Reports = [unknown, ErrorInfo][];

async function text(response: ApiResponse): Promise<string> {
  if (response.stream === undefined) return response.payload === undefined ? '' : Buffer.from(response.payload).toString();
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

function apiOf(handle: (ctx: never) => unknown, reports: Reports = [], extra: Record<string, unknown> = {}) {
  return createApi({
    naming: 'off',
    onError: (error, info) => reports.push([error, info]),
    endpoints: [endpoint('GET', '/file', { produces: ['text/csv', 'application/octet-stream'], handle: handle as () => unknown, ...extra })],
  });
}

async function* generate(...parts: string[]): AsyncGenerator<string> {
  for (const part of parts) yield part;
}

const KINDS: [string, () => unknown, string | undefined][] = [
  ['a string', () => 'a,b\n1,2\n', '8'],
  ['a Uint8Array', () => new TextEncoder().encode('a,b\n1,2\n'), '8'],
  ['a Buffer', () => Buffer.from('a,b\n1,2\n'), '8'],
  ['an ArrayBuffer', () => new TextEncoder().encode('a,b\n1,2\n').buffer, '8'],
  ['a Blob', () => new Blob(['a,b\n', '1,2\n']), '8'],
  ['a Node Readable', () => Readable.from(['a,b\n', '1,2\n']), undefined],
  ['a web ReadableStream', () => new Blob(['a,b\n1,2\n']).stream(), undefined],
  ['an async generator of strings', () => generate('a,b\n', '1,2\n'), undefined],
];

describe('byte and stream results under produces', () => {
  it.each(KINDS)('%s answers 200 with its bytes, its type and its length when known', async (_name, result, length) => {
    const response = await apiOf(() => result()).handle({ method: 'GET', url: '/file', headers: { accept: 'text/csv' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(_name === 'a string' ? 'text/csv; charset=utf-8' : 'text/csv');
    expect(response.headers['content-length']).toBe(length);
    expect(await text(response)).toBe('a,b\n1,2\n');
  });

  it('a string under a type that is no text/* gets no charset', async () => {
    const response = await apiOf(() => 'x').handle({ method: 'GET', url: '/file', headers: { accept: 'application/octet-stream' } });
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['content-length']).toBe('1');
  });

  it('the Content-Length of a string counts its UTF-8 bytes', async () => {
    const response = await apiOf(() => 'naïve €𝄞').handle({ method: 'GET', url: '/file' });
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength('naïve €𝄞')));
  });

  it('no Accept answers the first type of produces; ctx.responseType is the chosen one', async () => {
    const seen: string[] = [];
    const api = apiOf((ctx: { responseType: string }) => (seen.push(ctx.responseType), 'x'));
    await api.handle({ method: 'GET', url: '/file' });
    await api.handle({ method: 'GET', url: '/file', headers: { accept: 'application/octet-stream' } });
    expect(seen).toEqual(['text/csv', 'application/octet-stream']);
  });

  it('an Accept that fits no type of produces is a 406 naming them', async () => {
    const response = await apiOf(() => 'x').handle({ method: 'GET', url: '/file', headers: { accept: 'application/json' } });
    expect(response.status).toBe(406);
    expect((response.body as { detail: string }).detail).toBe('Available: text/csv, application/octet-stream');
  });

  it('a data result under a type no format writes is a masked 500, reported', async () => {
    const reports: Reports = [];
    const response = await apiOf(() => ({ a: 1 }), reports).handle({ method: 'GET', url: '/file' });
    expect(response.status).toBe(500);
    expect(String((reports[0]![0] as Error).message)).toMatch(/is data, and the answer's type is text\/csv/);
  });

  it('produces naming the API format writes a data result as JSON, and a string as a JSON string', async () => {
    const api = createApi({ naming: 'off', endpoints: [endpoint('GET', '/r', { produces: ['application/json', 'text/csv'], handle: (ctx) => (ctx.responseType === 'text/csv' ? 'a,b' : { a: 'b' }) })] });
    const json = await api.handle({ method: 'GET', url: '/r' });
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.payload).toBe('{"a":"b"}');
    const csv = await api.handle({ method: 'GET', url: '/r', headers: { accept: 'text/csv' } });
    expect(csv.payload).toBe('a,b');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
  });

  it('a byte result on an endpoint without produces stays a masked 500 that says to declare produces', async () => {
    const reports: Reports = [];
    const api = createApi({ naming: 'off', onError: (error, info) => reports.push([error, info]), endpoints: [endpoint('GET', '/json', { handle: () => new Uint8Array([1, 2]) })] });
    const response = await api.handle({ method: 'GET', url: '/json' });
    expect(response.status).toBe(500);
    expect(response.stream).toBeUndefined();
    expect(String((reports[0]![0] as Error).message)).toMatch(/declare the media type in the endpoint's `produces`/);
  });
});

describe('errors of a stream source', () => {
  it('an error before the first chunk is a masked 500 problem, reported once', async () => {
    const reports: Reports = [];
    let closed = false;
    const response = await apiOf(async function* () {
      try {
        throw new Error('disk gone');
      } finally {
        closed = true;
      }
    }, reports).handle({ method: 'GET', url: '/file' });
    expect(response.status).toBe(500);
    expect(response.stream).toBeUndefined();
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(reports.map(([error]) => (error as Error).message)).toEqual(['disk gone']);
    expect(closed).toBe(true);
  });

  it('an HttpError thrown before the first chunk is answered as that problem', async () => {
    const { NotFoundError } = await import('../../src/index.js');
    const response = await apiOf(async function* () {
      throw new NotFoundError('No such file');
    }).handle({ method: 'GET', url: '/file' });
    expect(response.status).toBe(404);
  });

  it('an error after the first chunk is reported once with status 500 and thrown to the reader', async () => {
    const reports: Reports = [];
    const response = await apiOf(async function* () {
      yield 'first';
      throw new Error('disk gone later');
    }, reports).handle({ method: 'GET', url: '/file' });
    expect(response.status).toBe(200);
    expect(reports).toEqual([]);
    await expect(text(response)).rejects.toThrow('disk gone later');
    expect(reports.map(([error, info]) => [(error as Error).message, info.status])).toEqual([['disk gone later', 500]]);
  });

  it('a chunk that is no bytes nor string fails the stream with a TypeError that says so', async () => {
    const reports: Reports = [];
    const response = await apiOf(() => Readable.from([{ row: 1 }]), reports).handle({ method: 'GET', url: '/file' });
    expect(response.status).toBe(500);
    expect(String((reports[0]![0] as Error).message)).toMatch(/chunk that is an object that is no Uint8Array/);
  });
});

describe('HEAD of a stream answer', () => {
  it('answers the headers of a GET and closes the source unread', async () => {
    let read = 0;
    let closed = false;
    const api = apiOf(async function* () {
      try {
        read++;
        yield 'x';
      } finally {
        closed = true;
      }
    });
    const source = Readable.from(['a']);
    const blobApi = apiOf(() => new Blob(['abc']));
    const head = await api.handle({ method: 'HEAD', url: '/file' });
    expect(head.status).toBe(200);
    expect(head.stream).toBeUndefined();
    expect(head.headers['content-type']).toBe('text/csv');
    expect(read).toBe(0);
    expect(closed).toBe(false); // a generator never started has no finally to run; it is closed all the same
    const readable = await apiOf(() => source).handle({ method: 'HEAD', url: '/file' });
    expect(readable.stream).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.destroyed).toBe(true);
    const blob = await blobApi.handle({ method: 'HEAD', url: '/file' });
    expect(blob.headers['content-length']).toBe('3');
    expect(blob.payload).toBeUndefined();
  });
});

describe('the deadline and a stream', () => {
  it('a source whose first chunk does not come in time is a 503, and the source is closed', async () => {
    let closed = false;
    const reports: Reports = [];
    const api = createApi({
      naming: 'off',
      timeout: 50,
      onError: (error, info) => reports.push([error, info]),
      endpoints: [endpoint('GET', '/slow', { produces: ['text/plain'], handle: () => (async function* () {
        try {
          await new Promise((resolve) => setTimeout(resolve, 200));
          yield 'late';
        } finally {
          closed = true;
        }
      })() })],
    });
    const response = await api.handle({ method: 'GET', url: '/slow' });
    expect(response.status).toBe(503);
    expect(reports.map(([, info]) => info.status)).toEqual([503]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(closed).toBe(true);
  });

  it('a stream that started is not cut by the deadline', async () => {
    const api = createApi({
      naming: 'off',
      timeout: 50,
      endpoints: [endpoint('GET', '/long', { produces: ['text/plain'], handle: async function* () {
        yield 'a';
        await new Promise((resolve) => setTimeout(resolve, 120));
        yield 'b';
      } })],
    });
    const response = await api.handle({ method: 'GET', url: '/long' });
    expect(response.status).toBe(200);
    expect(await text(response)).toBe('ab');
  });

  it('ctx.signal is aborted when the deadline passes', async () => {
    let reason: unknown;
    const reports: Reports = [];
    const api = createApi({
      naming: 'off',
      timeout: 30,
      onError: (error, info) => reports.push([error, info]),
      endpoints: [endpoint('GET', '/wait', { handle: (ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve((reason = ctx.signal.reason, { late: true })))) })],
    });
    const response = await api.handle({ method: 'GET', url: '/wait' });
    expect(response.status).toBe(503);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((reason as { status?: number }).status).toBe(503);
    expect(reports.map(([, info]) => info.status)).toEqual([503]);
  });

  it('ctx.signal is aborted through the adapter\'s onClose, which is asked only when the signal is read', async () => {
    let listener: (() => void) | undefined;
    let asked = 0;
    const onClose = (given: () => void): void => {
      asked++;
      listener = given;
    };
    const api = createApi({
      naming: 'off',
      endpoints: [
        endpoint('GET', '/plain', { handle: () => ({ ok: true }) }),
        endpoint('GET', '/watch', { handle: (ctx) => {
          const { signal } = ctx;
          listener!();
          return { aborted: signal.aborted, reason: (signal.reason as Error).name };
        } }),
      ],
    });
    await api.handle({ method: 'GET', url: '/plain', onClose });
    expect(asked).toBe(0);
    const response = await api.handle({ method: 'GET', url: '/watch', onClose });
    expect(asked).toBe(1);
    expect(response.body).toEqual({ aborted: true, reason: 'AbortError' });
  });
});

describe('idempotency and a stream answer', () => {
  it('a stream answer is not kept: its key is released and a retry runs again', async () => {
    let runs = 0;
    const api = createApi({
      naming: 'off',
      authenticate: () => ({ id: 'u1' }),
      use: [idempotency({ store: memoryStore() })],
      endpoints: [endpoint('POST', '/exports', { produces: ['text/csv'], conventions: { idempotency: 'optional' }, handle: () => (runs++, generate('a,b\n')) })],
    });
    const client = createTestClient(api);
    const first = await client.post('/exports', { headers: { 'idempotency-key': 'k1' } });
    expect(first.status).toBe(200);
    expect(await text(first)).toBe('a,b\n');
    const second = await client.post('/exports', { headers: { 'idempotency-key': 'k1' } });
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(await text(second)).toBe('a,b\n');
    expect(runs).toBe(2);
  });
});

describe('produces at definition time', () => {
  it.each([
    [['image/*'], /holds the range "image\/\*"; an answer has one exact type/],
    [['*/*'], /holds the range/],
    [['text/csv', 'Text/CSV'], /lists "text\/csv" twice/],
    [['not a type'], /"not a type", which is no media type/],
    [[], /non-empty array/],
    ['text/csv', /non-empty array/],
  ])('produces %j throws with the fix', (produces, message) => {
    expect(() => endpoint('GET', '/x', { produces: produces as string[], handle: () => 'x' })).toThrow(message);
  });
});
