/**
 * Byte ranges of answers in memory (`api.handle`): `Accept-Ranges`, a 206 of one range and of
 * several (`multipart/byteranges`), the 416 of a range past the end, `If-Range` with the answer's
 * ETag and its Last-Modified, conditional requests before ranges, HEAD, a Blob cut with `slice`,
 * streams of unknown length, and JSON answers, which stay as they were.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApi, endpoint, type ApiResponse, type ErrorInfo } from '../../src/index.js';
import { parseContentRange } from '../../src/core/ranges.js';

const BODY = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(10);
const BYTES = new TextEncoder().encode(BODY);
const DATE = 'Mon, 01 Jan 2024 00:00:00 GMT';

async function bytesOf(response: ApiResponse): Promise<Buffer> {
  if (response.stream === undefined) return response.payload === undefined ? Buffer.alloc(0) : Buffer.from(response.payload);
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A Blob that records the slices taken of it, and the times it was read whole. */
class WatchedBlob extends Blob {
  slices: [number, number][] = [];
  wholeReads = 0;
  override slice(start?: number, end?: number, type?: string): Blob {
    this.slices.push([start!, end!]);
    return super.slice(start, end, type);
  }
  override stream(): ReturnType<Blob['stream']> {
    this.wholeReads++;
    return super.stream();
  }
}

function apiOf(reports: [unknown, ErrorInfo][] = []) {
  const state = { blob: undefined as WatchedBlob | undefined };
  const api = createApi({
    naming: 'off',
    onError: (error, info) => reports.push([error, info]),
    endpoints: [
      endpoint('GET', '/bytes', { produces: ['application/octet-stream'], handle: () => BYTES }),
      endpoint('GET', '/text', { produces: ['text/plain'], handle: () => BODY }),
      endpoint('GET', '/blob', { produces: ['application/octet-stream'], handle: () => (state.blob = new WatchedBlob([BYTES])) }),
      endpoint('GET', '/stream', { produces: ['application/octet-stream'], handle: () => new Blob([BYTES]).stream() }),
      endpoint('GET', '/tagged', {
        produces: ['application/octet-stream'],
        handle: (ctx) => {
          ctx.set('etag', '"v1"');
          ctx.set('last-modified', DATE);
          return BYTES;
        },
      }),
      endpoint('GET', '/weak', {
        produces: ['application/octet-stream'],
        handle: (ctx) => {
          ctx.set('etag', 'W/"v1"');
          return BYTES;
        },
      }),
      endpoint('GET', '/conditional/:id', {
        produces: ['application/octet-stream'],
        conditional: { load: () => ({ version: 3 }), etag: (item: { version: number }) => `"${item.version}"` },
        handle: () => BYTES,
      }),
      endpoint('GET', '/json', { handle: () => ({ body: BODY }) }),
    ],
  });
  return { api, state };
}

const get = (api: ReturnType<typeof apiOf>['api'], url: string, headers: Record<string, string> = {}, method = 'GET') => api.handle({ method, url, headers });

describe('ranges of byte answers', () => {
  it('a byte answer of known length says Accept-Ranges: bytes and answers 200 without Range', async () => {
    const { api } = apiOf();
    for (const url of ['/bytes', '/text', '/blob']) {
      const response = await get(api, url);
      expect(response.status).toBe(200);
      expect(response.headers['accept-ranges']).toBe('bytes');
      expect(response.headers['content-length']).toBe(String(BYTES.length));
    }
  });

  it.each(['/bytes', '/text', '/blob'])('Range: bytes=10-19 on %s answers 206 with Content-Range and the ten bytes', async (url) => {
    const { api } = apiOf();
    const response = await get(api, url, { range: 'bytes=10-19' });
    expect(response.status).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes 10-19/${BYTES.length}`);
    expect(response.headers['content-length']).toBe('10');
    expect(response.headers['content-type']).toBe(url === '/text' ? 'text/plain; charset=utf-8' : 'application/octet-stream');
    expect((await bytesOf(response)).toString()).toBe(BODY.slice(10, 20));
  });

  it('a suffix range answers the last bytes', async () => {
    const response = await get(apiOf().api, '/bytes', { range: 'bytes=-5' });
    expect(response.status).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes ${BYTES.length - 5}-${BYTES.length - 1}/${BYTES.length}`);
    expect((await bytesOf(response)).toString()).toBe(BODY.slice(-5));
  });

  it('a Blob is cut with blob.slice, never read whole', async () => {
    const { api, state } = apiOf();
    const response = await get(api, '/blob', { range: 'bytes=100-149' });
    expect((await bytesOf(response)).toString()).toBe(BODY.slice(100, 150));
    expect(state.blob!.slices).toEqual([[100, 150]]);
    const several = await get(api, '/blob', { range: 'bytes=0-1,300-301' });
    expect(several.status).toBe(206);
    await bytesOf(several);
    expect(state.blob!.slices).toEqual([[0, 2], [300, 302]]);
    expect(state.blob!.wholeReads).toBe(0);
  });

  it('several ranges answer multipart/byteranges with a Content-Length that is the body\'s length', async () => {
    const response = await get(apiOf().api, '/text', { range: 'bytes=0-2, 200-202' });
    expect(response.status).toBe(206);
    const type = response.headers['content-type'] as string;
    expect(type).toMatch(/^multipart\/byteranges; boundary=/);
    expect(response.headers['content-range']).toBeUndefined();
    const body = await bytesOf(response);
    expect(response.headers['content-length']).toBe(String(body.length));
    const boundary = type.split('boundary=')[1]!;
    expect(body.toString()).toBe(
      `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes 0-2/${BYTES.length}\r\n\r\nabc` +
        `\r\n--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Range: bytes 200-202/${BYTES.length}\r\n\r\n${BODY.slice(200, 203)}` +
        `\r\n--${boundary}--\r\n`,
    );
  });

  it('a range past the end answers 416 RC_RANGE_NOT_SATISFIABLE with Content-Range: bytes */<length>', async () => {
    const reports: [unknown, ErrorInfo][] = [];
    const response = await get(apiOf(reports).api, '/bytes', { range: `bytes=${BYTES.length}-` });
    expect(response.status).toBe(416);
    expect(response.headers['content-range']).toBe(`bytes */${BYTES.length}`);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(String(response.payload))).toMatchObject({ status: 416, code: 'RC_RANGE_NOT_SATISFIABLE' });
    // 416 is one of the endpoint's statuses: nothing reports it as undeclared.
    expect(reports).toEqual([]);
  });

  it('a malformed Range, another unit or too many overlapping ranges answer 200 with the whole body', async () => {
    const { api } = apiOf();
    for (const range of ['bytes=abc', 'items=0-9', 'bytes=5-1', `bytes=${'0-,'.repeat(5)}0-`]) {
      const response = await get(api, '/bytes', { range });
      expect(response.status, range).toBe(200);
      expect((await bytesOf(response)).toString()).toBe(BODY);
    }
  });

  it('If-Range with the strong ETag the handler set answers 206; another ETag answers 200 with the whole body', async () => {
    const { api } = apiOf();
    expect((await get(api, '/tagged', { range: 'bytes=0-0', 'if-range': '"v1"' })).status).toBe(206);
    const changed = await get(api, '/tagged', { range: 'bytes=0-0', 'if-range': '"v0"' });
    expect(changed.status).toBe(200);
    expect((await bytesOf(changed)).toString()).toBe(BODY);
  });

  it('If-Range with a weak ETag never holds', async () => {
    const response = await get(apiOf().api, '/weak', { range: 'bytes=0-0', 'if-range': 'W/"v1"' });
    expect(response.status).toBe(200);
  });

  it('If-Range with the Last-Modified date answers 206; another date answers 200', async () => {
    const { api } = apiOf();
    expect((await get(api, '/tagged', { range: 'bytes=0-0', 'if-range': DATE })).status).toBe(206);
    expect((await get(api, '/tagged', { range: 'bytes=0-0', 'if-range': 'Tue, 02 Jan 2024 00:00:00 GMT' })).status).toBe(200);
  });

  it('with conditional, If-Range holds against the ETag it sets, and a 304 comes before any range', async () => {
    const { api } = apiOf();
    const ranged = await get(api, '/conditional/1', { range: 'bytes=0-3', 'if-range': '"3"' });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.etag).toBe('"3"');
    expect((await get(api, '/conditional/1', { range: 'bytes=0-3', 'if-none-match': '"3"' })).status).toBe(304);
    expect((await get(api, '/conditional/1', { range: 'bytes=0-3', 'if-range': '"2"' })).status).toBe(200);
  });

  it('HEAD answers the headers of a GET without Range: Accept-Ranges and the whole length, no body', async () => {
    const { api } = apiOf();
    const response = await get(api, '/bytes', { range: 'bytes=0-9' }, 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers['accept-ranges']).toBe('bytes');
    expect(response.headers['content-length']).toBe(String(BYTES.length));
    expect(response.payload).toBeUndefined();
    expect(response.stream).toBeUndefined();
  });

  it('a stream of unknown length has no Accept-Ranges, and its Range is ignored', async () => {
    const response = await get(apiOf().api, '/stream', { range: 'bytes=0-9' });
    expect(response.status).toBe(200);
    expect(response.headers['accept-ranges']).toBeUndefined();
    expect((await bytesOf(response)).toString()).toBe(BODY);
  });

  it('a JSON answer has no Accept-Ranges, and its Range is ignored', async () => {
    const response = await get(apiOf().api, '/json', { range: 'bytes=0-9' });
    expect(response.status).toBe(200);
    expect(response.headers['accept-ranges']).toBeUndefined();
    expect(JSON.parse(String(response.payload))).toEqual({ body: BODY });
  });

  it('any satisfiable range answers the bytes of the whole at that place', async () => {
    const { api } = apiOf();
    const url = fc.constantFrom('/bytes', '/text', '/blob');
    const spec = fc.oneof(
      fc.tuple(fc.nat(BYTES.length - 1), fc.nat(BYTES.length + 10)).map(([first, extra]) => `${first}-${first + extra}`),
      fc.nat(BYTES.length - 1).map((first) => `${first}-`),
      fc.integer({ min: 1, max: BYTES.length + 10 }).map((suffix) => `-${suffix}`),
    );
    await fc.assert(
      fc.asyncProperty(url, spec, async (path, written) => {
        const response = await get(api, path, { range: `bytes=${written}` });
        expect(response.status).toBe(206);
        const { range, length } = parseContentRange(response.headers['content-range'] as string)!;
        expect(length).toBe(BYTES.length);
        const body = await bytesOf(response);
        expect(body).toEqual(Buffer.from(BYTES.subarray(range!.start, range!.end + 1)));
        expect(response.headers['content-length']).toBe(String(body.length));
      }),
      { numRuns: 100 },
    );
  });
});
