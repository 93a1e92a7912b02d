/**
 * Byte, file and stream answers over every adapter on a real server: the same status, headers and
 * body for each result kind, HEAD, 406, a byte result without `produces`, errors before and after
 * the first chunk, a client that goes away mid-stream, and a 64 MiB download that the server does
 * not buffer (node:http and Fastify).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApi, endpoint, type Api, type ErrorInfo } from '../../src/index.js';
import { toFastify } from '../../src/adapters/fastify.js';
import type { MountedServer } from './conformance.js';
import { MOUNTS, SILENT_MOUNTS } from './mounts.js';
import { eventually, request, type Answer } from '../helpers/raw-answer.js';

const CSV = 'a,b\n1,2\n';

async function* lines(): AsyncGenerator<string> {
  yield 'a,b\n';
  yield '1,2\n';
}

const KINDS: Record<string, () => unknown> = {
  string: () => CSV,
  bytes: () => new TextEncoder().encode(CSV),
  buffer: () => Buffer.from(CSV),
  arraybuffer: () => new TextEncoder().encode(CSV).buffer,
  blob: () => new Blob(['a,b\n', '1,2\n']),
  readable: () => Readable.from(['a,b\n', '1,2\n']),
  'readable of bytes': () => readableOfBytes(Buffer.from(CSV), 4),
  webstream: () => new Blob([CSV]).stream(),
  generator: () => lines(),
};

/** 300 KiB in which every offset has its own byte pattern: a chunk lost, doubled or moved shows. */
const SEQUENCE = Buffer.from(Uint32Array.from({ length: 75 * 1024 }, (_, index) => index).buffer);

/** A Node Readable of bytes (not in object mode) that gives `bytes` in chunks of `size`, a tick apart. */
function readableOfBytes(bytes: Buffer, size: number): Readable {
  let offset = 0;
  return new Readable({
    read() {
      setImmediate(() => {
        this.push(offset < bytes.length ? bytes.subarray(offset, (offset += size)) : null);
      });
    },
  });
}

/** A Node Readable that gives one chunk, then is destroyed a moment later: with `error`, or closed before its end without one. */
function readableEndingLate(error: Error | undefined): Readable {
  let pushed = 0;
  return new Readable({
    read() {
      if (pushed++ === 0) this.push(Buffer.from('first chunk,'));
      else setTimeout(() => this.destroy(error), 20);
    },
  });
}

/** What the endpoints of one adapter's API saw: closed generators and streams, and reports. */
interface Seen {
  generatorClosed: number;
  /** Requests whose ctx.signal was aborted, and why. */
  aborted: string[];
  readable: Readable | undefined;
  reports: [unknown, ErrorInfo][];
}

function apiFor(seen: Seen): Api {
  const produces = ['text/csv', 'application/octet-stream'];
  return createApi({
    naming: 'off',
    onError: (error, info) => seen.reports.push([error, info]),
    endpoints: [
      endpoint('GET', '/kinds/:kind', { produces, handle: (ctx) => KINDS[ctx.params.kind]!() }),
      endpoint('GET', '/endless-generator', {
        produces,
        handle: () =>
          (async function* () {
            try {
              for (;;) yield new Uint8Array(16 * 1024);
            } finally {
              seen.generatorClosed++;
            }
          })(),
      }),
      endpoint('GET', '/endless-readable', {
        produces,
        handle: () => (seen.readable = new Readable({ read() { this.push(Buffer.alloc(16 * 1024)); } })),
      }),
      endpoint('GET', '/readable-of-bytes', { produces, handle: () => readableOfBytes(SEQUENCE, 7 * 1024) }),
      endpoint('GET', '/readable-one-chunk', { produces, handle: () => readableOfBytes(Buffer.from(CSV), 1024) }),
      endpoint('GET', '/readable-fails-late', { produces, handle: () => readableEndingLate(new Error('the Readable failed after its first chunk')) }),
      endpoint('GET', '/readable-closes-late', { produces, handle: () => readableEndingLate(undefined) }),
      endpoint('GET', '/fails-early', { produces, handle: () => (async function* () { throw new Error('failed before the first chunk'); })() }),
      endpoint('GET', '/fails-late', {
        produces,
        handle: () =>
          (async function* () {
            yield 'first chunk,';
            await new Promise((resolve) => setTimeout(resolve, 20));
            throw new Error('failed after the first chunk');
          })(),
      }),
      endpoint('GET', '/waits-for-the-client', {
        handle: (ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              seen.aborted.push((ctx.signal.reason as Error).name);
              resolve({ late: true });
            });
          }),
      }),
      endpoint('GET', '/json-only', { handle: () => new Uint8Array([1, 2, 3]) }),
      endpoint('GET', '/download', { produces: ['application/pdf'], handle: (ctx) => (ctx.attachment(String((ctx.query as { name?: string }).name)), new Uint8Array([37, 80, 68, 70])) }),
    ],
  });
}

/** The headers an answer of the API carries, without those of the connection or the host. */
function answerHeaders(answer: Answer): Record<string, string | undefined> {
  const { headers } = answer;
  return { 'content-type': headers['content-type'], 'content-length': headers['content-length'], 'content-disposition': headers['content-disposition'] as string | undefined };
}

for (const [name, mount] of Object.entries(SILENT_MOUNTS)) {
  describe(`stream answers on ${name}`, () => {
    const seen: Seen = { generatorClosed: 0, aborted: [], readable: undefined, reports: [] };
    let server: MountedServer;
    beforeAll(async () => {
      server = await mount(apiFor(seen), {});
    });
    afterAll(() => server.close());

    it.each(Object.keys(KINDS))('a %s result answers 200 with its bytes, its type and its length when known', async (kind) => {
      const answer = await request(server.baseUrl, `/kinds/${kind}`, { headers: { accept: 'text/csv' } });
      expect(answer.status).toBe(200);
      expect(answer.body.toString()).toBe(CSV);
      expect(answer.complete).toBe(true);
      const known = ['string', 'bytes', 'buffer', 'arraybuffer', 'blob'].includes(kind);
      expect(answerHeaders(answer)).toEqual({ 'content-type': kind === 'string' ? 'text/csv; charset=utf-8' : 'text/csv', 'content-length': known ? '8' : undefined, 'content-disposition': undefined });
      if (!known) expect(answer.headers['transfer-encoding']).toBe('chunked');
    });

    it.each(['blob', 'generator', 'readable'])('HEAD of a %s result answers the headers of GET and no body', async (kind) => {
      const answer = await request(server.baseUrl, `/kinds/${kind}`, { method: 'HEAD' });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/csv');
      expect(answer.headers['content-length']).toBe(kind === 'blob' ? '8' : undefined);
      expect(answer.body.length).toBe(0);
    });

    it('an Accept that fits no type of produces is a 406', async () => {
      const answer = await request(server.baseUrl, '/kinds/string', { headers: { accept: 'image/png' } });
      expect(answer.status).toBe(406);
    });

    it('a byte result on an endpoint without produces is a masked 500', async () => {
      const before = seen.reports.length;
      const answer = await request(server.baseUrl, '/json-only');
      expect(answer.status).toBe(500);
      expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(String((seen.reports[before]![0] as Error).message)).toMatch(/declare the media type in the endpoint's `produces`/);
    });

    it('an error before the first chunk is a masked 500 problem, reported once', async () => {
      const before = seen.reports.length;
      const answer = await request(server.baseUrl, '/fails-early');
      expect(answer.status).toBe(500);
      expect(answer.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(seen.reports.slice(before).map(([error]) => (error as Error).message)).toEqual(['failed before the first chunk']);
    });

    it('an error after the first chunk truncates the answer, reported once with status 500', async () => {
      const before = seen.reports.length;
      // @hono/node-server writes what a body stream errors with to console.error.
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
      const answer = await request(server.baseUrl, '/fails-late').finally(() => quiet.mockRestore());
      expect(answer.status).toBe(200);
      expect(answer.complete).toBe(false);
      expect(answer.body.toString()).toBe('first chunk,');
      await eventually(() => seen.reports.length > before, 'the report');
      expect(seen.reports.slice(before).map(([error, info]) => [(error as Error).message, info.status])).toEqual([['failed after the first chunk', 500]]);
    });

    it.each([
      ['/readable-of-bytes', SEQUENCE],
      ['/readable-one-chunk', Buffer.from(CSV)],
    ])('a Node Readable of bytes at %s arrives whole, its first chunk once and first', async (path, bytes) => {
      const before = seen.reports.length;
      const answer = await request(server.baseUrl, path);
      expect(answer.status).toBe(200);
      expect(answer.complete).toBe(true);
      expect(answer.body.equals(bytes)).toBe(true);
      expect(seen.reports.length).toBe(before);
    });

    it.each([
      ['/readable-fails-late', 'the Readable failed after its first chunk'],
      ['/readable-closes-late', 'Premature close'],
    ])('a Node Readable of bytes that fails after its first chunk (%s) truncates the answer, reported once with status 500', async (path, message) => {
      const before = seen.reports.length;
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
      const answer = await request(server.baseUrl, path).finally(() => quiet.mockRestore());
      expect(answer.status).toBe(200);
      expect(answer.complete).toBe(false);
      expect(answer.body.toString()).toBe('first chunk,');
      await eventually(() => seen.reports.length > before, 'the report');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen.reports.slice(before).map(([error, info]) => [(error as Error).message, info.status])).toEqual([[message, 500]]);
    });

    it('a client that goes away mid-stream runs the generator\'s finally', async () => {
      const closed = seen.generatorClosed;
      await goAwayAfterFirstChunk(server.baseUrl, '/endless-generator');
      await eventually(() => seen.generatorClosed === closed + 1, 'the generator closed');
    });

    it('a client that goes away mid-stream destroys the Readable', async () => {
      seen.readable = undefined;
      await goAwayAfterFirstChunk(server.baseUrl, '/endless-readable');
      await eventually(() => seen.readable?.destroyed === true, 'the Readable destroyed');
    });

    it('a client that goes away from a Readable of bytes is no failure: nothing is reported', async () => {
      seen.readable = undefined;
      const before = seen.reports.length;
      await goAwayAfterFirstChunk(server.baseUrl, '/endless-readable');
      await eventually(() => seen.readable?.destroyed === true, 'the Readable destroyed');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen.reports.slice(before)).toEqual([]);
    });

    it('ctx.signal is aborted when the client goes away before the answer', async () => {
      const before = seen.aborted.length;
      await new Promise<void>((resolve) => {
        const req = http.get(`${server.baseUrl}/waits-for-the-client`);
        req.on('error', () => resolve());
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100);
      });
      await eventually(() => seen.aborted.length === before + 1, 'ctx.signal aborted');
      expect(seen.aborted.at(-1)).toBe('AbortError');
    });

    it.each([
      ['report.pdf', 'attachment; filename="report.pdf"'],
      ['naïve.pdf', `attachment; filename="na_ve.pdf"; filename*=UTF-8''na%C3%AFve.pdf`],
      ['say "hi".pdf', `attachment; filename="say _hi_.pdf"; filename*=UTF-8''say%20%22hi%22.pdf`],
      ['a.pdf\r\nSet-Cookie: x=1', 'attachment; filename="a.pdfSet-Cookie: x=1"'],
      ['../../etc/passwd', 'attachment; filename="passwd"'],
    ])('an attachment named %j goes out as %s', async (filename, header) => {
      const answer = await request(server.baseUrl, `/download?name=${encodeURIComponent(filename)}`);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-disposition']).toBe(header);
      expect(answer.headers['set-cookie']).toBeUndefined();
      expect(answer.body.toString()).toBe('%PDF');
    });
  });
}

/** Requests an endless stream, reads its first chunk, and closes the connection. */
function goAwayAfterFirstChunk(baseUrl: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}${path}`, (res) => {
      expect(res.statusCode).toBe(200);
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
  });
}

const MIB = 1024 * 1024;
const CHUNK = 64 * 1024;

/** 64 MiB in chunks of 64 KiB from each kind of source, counting what it produced. */
const BIG_SOURCES: Record<string, (count: (bytes: number) => void) => unknown> = {
  generator: (count) =>
    (async function* () {
      const chunk = new Uint8Array(CHUNK);
      for (let index = 0; index < (64 * MIB) / CHUNK; index++) {
        count(CHUNK);
        yield chunk;
      }
    })(),
  // A Node stream of bytes, which the Node adapters pipe once its first chunk is read.
  'Node Readable': (count) => {
    let index = 0;
    return new Readable({
      read() {
        if (index++ === (64 * MIB) / CHUNK) return void this.push(null);
        count(CHUNK);
        this.push(Buffer.alloc(CHUNK));
      },
    });
  },
};

for (const name of ['node', 'fastify']) {
  describe(`a 64 MiB download on ${name}`, () => {
    it.each(Object.keys(BIG_SOURCES))('from a %s is sent as the client reads it: the producer stays a bounded distance ahead', async (source) => {
      let produced = 0;
      const api = createApi({
        naming: 'off',
        endpoints: [endpoint('GET', '/big', { produces: ['application/octet-stream'], handle: () => BIG_SOURCES[source]!((bytes) => (produced += bytes)) })],
      });
      const server = await MOUNTS[name]!(api, {});
      try {
        let received = 0;
        let ahead = 0;
        await new Promise<void>((resolve, reject) => {
          http.get(`${server.baseUrl}/big`, (res) => {
            res.pause();
            // The client does not read for a while: the producer must stop, not fill memory.
            setTimeout(() => {
              ahead = Math.max(ahead, produced - received);
              let slow = 0;
              res.on('data', (chunk: Buffer) => {
                received += chunk.length;
                ahead = Math.max(ahead, produced - received);
                // The first 4 MiB are read slowly, a pause after each chunk.
                if (received < 4 * MIB && slow++ % 4 === 0) {
                  res.pause();
                  setTimeout(() => res.resume(), 2);
                }
              });
              res.on('end', resolve);
              res.on('error', reject);
              res.resume();
            }, 300);
          }).on('error', reject);
        });
        expect(received).toBe(64 * MIB);
        expect(produced).toBe(64 * MIB);
        // Socket buffers on loopback and the writable's high-water mark: a few MiB, never the whole 64.
        expect(ahead).toBeLessThan(16 * MIB);
      } finally {
        await server.close();
      }
    }, 30_000);
  });
}

describe('stream answers on Fastify with an onSend hook that waits', () => {
  // Fastify pipes the stream only once the hook is done: the handler must not resolve before then.
  it.each(['generator', 'readable of bytes'])('a %s result answers 200 with its bytes, once', async (kind) => {
    const reports: unknown[] = [];
    const api = createApi({ naming: 'off', onError: (error) => reports.push(error), endpoints: [endpoint('GET', '/kinds/:kind', { produces: ['text/csv'], handle: (ctx) => KINDS[ctx.params.kind]!() })] });
    const app = Fastify();
    const hookErrors: unknown[] = [];
    app.addHook('onSend', async (_request, _reply, payload) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return payload;
    });
    app.addHook('onError', async (_request, _reply, error) => void hookErrors.push(error));
    await app.register(toFastify(api));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const answer = await request(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, `/kinds/${kind}`);
      expect(answer.status).toBe(200);
      expect(answer.complete).toBe(true);
      expect(answer.body.toString()).toBe(CSV);
      expect([reports, hookErrors]).toEqual([[], []]);
    } finally {
      await app.close();
    }
  });
});
