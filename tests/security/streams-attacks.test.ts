/**
 * Attacks on bytes and streams: a download name of megabytes, a `Range` of two parts of a large
 * file, a multipart body that repeats one field name thousands of times, and Readable answers left
 * open: one that waits while its client goes away or its deadline passes, one with autoDestroy: false.
 */
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, endpoint, type ApiResponse } from '../../src/index.js';
import { multipart } from '../../src/multipart.js';
import { MOUNTS } from '../adapters/mounts.js';
import { request } from '../helpers/raw-answer.js';

async function chunksOf(response: ApiResponse): Promise<Uint8Array[]> {
  if (response.stream === undefined) return [response.payload as Uint8Array];
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.stream) chunks.push(chunk);
  return chunks;
}

describe('ctx.attachment with a file name of megabytes', () => {
  /** The name the next download is given, as a handler passes on one a client sent. */
  let name = '';
  const api = createApi({ naming: 'off', endpoints: [endpoint('GET', '/export', { produces: ['text/csv'], handle: (ctx) => (ctx.attachment(name), 'a,b\n') })] });
  const disposition = async (given: string) => {
    name = given;
    return (await api.handle({ method: 'GET', url: '/export' })).headers['content-disposition'];
  };

  it('a name of 4 Mi lone surrogates is cut before it is read: a bounded header, at once', async () => {
    // Read whole, such a name is scanned by several regular expressions and spread into an array of
    // millions; the next test shows that nothing past the bound is read.
    const value = await disposition('\ud800'.repeat(4 * 1024 * 1024));
    expect(value).toBe(`attachment; filename="${'_'.repeat(255)}"; filename*=UTF-8''${'%EF%BF%BD'.repeat(255)}`);
  });

  it('a long name keeps its first 255 characters, a pair of surrogates cut at the bound dropped whole; past 1,020 code units nothing is read, even after control characters', async () => {
    expect(await disposition(`dir/${'a'.repeat(1019)}\u{1F600}tail.csv`)).toBe(`attachment; filename="${'a'.repeat(255)}"`);
    expect(await disposition('\u{1F600}'.repeat(600))).toBe(`attachment; filename="${'_'.repeat(255)}"; filename*=UTF-8''${'%F0%9F%98%80'.repeat(255)}`);
    expect(await disposition(`${'\u0001'.repeat(1019)}\u{1F600}report.csv`)).toBe('attachment');
  });
});

describe('Range: two parts of a file Blob of 16 MiB', () => {
  const SIZE = 16 * 1024 * 1024;
  let dir: string;
  let path: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'restcanon-ranges-'));
    path = join(dir, 'big.bin');
    const bytes = new Uint8Array(SIZE);
    for (let index = 0; index < SIZE; index += 4096) bytes[index] = (index / 4096) % 251;
    writeFileSync(path, bytes);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bytes=0-8388607,8388700- streams each part in the chunks of the file, never a part of 8 MiB in memory', async () => {
    const api = createApi({ naming: 'off', endpoints: [endpoint('GET', '/big.bin', { produces: ['application/octet-stream'], handle: () => openAsBlob(path) })] });
    const response = await api.handle({ method: 'GET', url: '/big.bin', headers: { range: 'bytes=0-8388607,8388700-' } });
    expect(response.status).toBe(206);
    expect(response.headers['content-type']).toMatch(/^multipart\/byteranges; boundary=/);
    const chunks = await chunksOf(response);
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(1024 * 1024);
    const body = Buffer.concat(chunks);
    expect(String(body.length)).toBe(response.headers['content-length']);
    const whole = new Uint8Array(await (await openAsBlob(path)).arrayBuffer());
    const boundary = (response.headers['content-type'] as string).split('boundary=')[1]!;
    const head = (range: string, first: boolean) => Buffer.from(`${first ? '' : '\r\n'}--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes ${range}/${SIZE}\r\n\r\n`);
    const expected = Buffer.concat([head('0-8388607', true), whole.subarray(0, 8388608), head(`8388700-${SIZE - 1}`, false), whole.subarray(8388700), Buffer.from(`\r\n--${boundary}--\r\n`)]);
    expect(body.equals(expected)).toBe(true);
  });
});

describe('a multipart body that repeats one field name 32,000 times', () => {
  const COUNT = 32_000;
  const api = createApi({
    naming: 'off',
    use: [multipart()],
    endpoints: [
      endpoint('POST', '/survey', {
        consumes: ['multipart/form-data'],
        body: 'unvalidated',
        bodyLimit: 8 * 1024 * 1024,
        conventions: { multipart: { fields: COUNT, parts: COUNT } },
        handle: (ctx) => {
          const fields = ctx.body as Record<string, string | string[]>;
          return { names: Object.keys(fields).length, values: Object.values(fields).flat().length, first: [fields.answer].flat().slice(0, 2) };
        },
      }),
    ],
  });
  const form = (name: (index: number) => string): string => {
    let body = '';
    for (let index = 0; index < COUNT; index++) body += `--B\r\nContent-Disposition: form-data; name="${name(index)}"\r\n\r\n${index}\r\n`;
    return `${body}--B--\r\n`;
  };
  const timed = async (body: string) => {
    const started = performance.now();
    const response = await api.handle({ method: 'POST', url: '/survey', headers: { 'content-type': 'multipart/form-data; boundary=B' }, body: Buffer.from(body) });
    return { elapsed: performance.now() - started, status: response.status, body: JSON.parse(String(response.payload)) as unknown };
  };

  it('is read in about the time of 32,000 different names, not with a copy of the array per value', async () => {
    const distinct = await timed(form((index) => `answer${index}`));
    expect(distinct).toMatchObject({ status: 200, body: { names: COUNT, values: COUNT } });
    const repeated = await timed(form(() => 'answer'));
    expect(repeated).toMatchObject({ status: 200, body: { names: 1, values: COUNT, first: ['0', '1'] } });
    // Copied on each value, the repeated name costs n²/2 element copies, many times the work of the distinct names.
    expect(repeated.elapsed).toBeLessThan(3 * distinct.elapsed + 200);
  }, 60_000);
});

describe('a Readable answer that sends nothing before the deadline', () => {
  // Its first chunk, which the answer waits for, never comes: the deadline's 503 goes out, and the
  // Readable is destroyed then, not left open for a chunk that nobody would send on. The 503 is
  // reported, and nothing of the closing.
  it('is destroyed once the 503 is answered', async () => {
    const made: PassThrough[] = [];
    const reports: unknown[] = [];
    const api = createApi({
      naming: 'off',
      timeout: 50,
      onError: (error) => reports.push(error),
      endpoints: [endpoint('GET', '/quiet', { produces: ['text/plain'], handle: () => made[made.push(new PassThrough()) - 1] })],
    });
    const response = await api.handle({ method: 'GET', url: '/quiet' });
    expect(response.status).toBe(503);
    try {
      expect(await within(500, () => made[0]!.destroyed)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      // The 503 alone: the source's closing is no failure of its own.
      expect(reports.map((error) => (error as { code?: unknown }).code)).toEqual(['RC_TIMEOUT']);
    } finally {
      made[0]!.destroy();
    }
  });
});

describe('a Readable with autoDestroy: false that fails after its end', () => {
  // Such a stream stays open at its end with no 'error' listener (Node's iterator and pipe remove
  // theirs), so a destroy(error) of it a moment later would be an uncaught exception that ends the
  // process. The tests check the cause (the stream left open) rather than crash the test runner: one
  // stream ended before its first chunk is taken (iterated), one that ends later (piped).
  const sources = {
    'ended at once': () => {
      const legacy = new Readable({ read() {}, autoDestroy: false });
      legacy.push('a,b\n');
      legacy.push(null);
      return legacy;
    },
    'ended after its first chunk': () => {
      const legacy = new Readable({ read() {}, autoDestroy: false });
      legacy.push('a,b\n');
      setTimeout(() => legacy.push(null), 20);
      return legacy;
    },
  };
  for (const [name, make] of Object.entries(sources)) {
    for (const adapter of ['node', 'fastify'] as const) {
      it(`${name}, on ${adapter}: is destroyed once its answer was read to the end, so that a later failure is no uncaught error`, async () => {
        const legacy = make();
        const app = createApi({ naming: 'off', endpoints: [endpoint('GET', '/export', { produces: ['text/plain'], handle: () => legacy })] });
        const server = await MOUNTS[adapter]!(app, {});
        try {
          const answer = await request(server.baseUrl, '/export');
          expect({ status: answer.status, body: answer.body.toString(), complete: answer.complete }).toEqual({ status: 200, body: 'a,b\n', complete: true });
          expect(await within(500, () => legacy.destroyed)).toBe(true);
        } finally {
          if (!legacy.destroyed) legacy.destroy();
          await server.close();
        }
      });
    }
  }
});

/** Sends a GET, waits for the first chunk of its answer, and goes away. */
function leaveAfterFirstChunk(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (res) => res.once('data', () => (req.destroy(), resolve())));
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
  });
}

async function within(milliseconds: number, condition: () => boolean): Promise<boolean> {
  for (let waited = 0; waited < milliseconds && !condition(); waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  return condition();
}

for (const [name, mount] of Object.entries(MOUNTS)) {
  describe(`a Readable answer that waits for its next chunk on ${name}`, () => {
    const made: PassThrough[] = [];
    let server: Awaited<ReturnType<typeof mount>>;
    beforeAll(async () => {
      const api = createApi({
        naming: 'off',
        onError: () => {},
        endpoints: [
          endpoint('GET', '/tail', {
            produces: ['text/plain'],
            handle: () => {
              const tail = new PassThrough();
              tail.write('first line\n');
              made.push(tail);
              return tail;
            },
          }),
        ],
      });
      server = await mount(api, {});
    });
    afterAll(async () => {
      for (const tail of made) tail.destroy();
      await server.close();
    });

    // A Node stream's iterator queues return() behind the next() that waits for data: a stream that
    // sends nothing more is destroyed first, so that its file or socket is closed all the same.
    it('a PassThrough that sent one chunk is destroyed when the client goes away', async () => {
      await leaveAfterFirstChunk(`${server.baseUrl}/tail`);
      expect(await within(1000, () => made.at(-1)!.destroyed)).toBe(true);
    });
  });
}
