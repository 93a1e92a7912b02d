/**
 * A 50 MiB upload streamed to a temporary file through node:http and Fastify: the server never holds
 * the file. What it holds is counted exactly: the bytes its socket has read, less those the handler
 * has written, stay within a few MiB at every chunk; its memory, measured loosely, grows by less than
 * the file's size.
 */
import { createWriteStream } from 'node:fs';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, endpoint } from '../../src/index.js';
import { multipart } from '../../src/multipart.js';
import { MOUNTS } from '../adapters/mounts.js';

const SIZE = 50 * 1024 * 1024;
const CHUNK = 64 * 1024;
const BOUNDARY = 'memory-boundary';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restcanon-upload-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The most bytes the server's socket had read beyond those the handler had written, at any chunk. */
let held = 0;

function socketOf(host: unknown): Socket {
  const { req, request } = host as { req?: { socket: Socket }; request?: { raw: { socket: Socket } } };
  return (req ?? request!.raw).socket;
}

function uploadApi() {
  let count = 0;
  const upload = endpoint('POST', '/uploads', {
    consumes: ['multipart/form-data'],
    body: 'unvalidated',
    bodyLimit: SIZE + 1024 * 1024,
    conventions: { multipart: { files: 1 } },
    handle: async (ctx) => {
      const written: number[] = [];
      for await (const file of ctx.files!) {
        // The client's file name is never the path: the server names what it stores.
        const path = join(dir, `upload-${++count}`);
        const socket = socketOf(ctx.host);
        const start = socket.bytesRead;
        const out = createWriteStream(path);
        let done = 0;
        for await (const chunk of file.stream) {
          held = Math.max(held, socket.bytesRead - start - done);
          if (!out.write(chunk)) await once(out, 'drain');
          done += chunk.byteLength;
        }
        await new Promise((resolve) => out.end(resolve));
        written.push((await stat(path)).size);
      }
      return { written };
    },
  });
  return createApi({ endpoints: [upload], use: [multipart()] });
}

/** The body of a multipart upload of one file of SIZE bytes, made as it is sent: never whole in memory. */
function uploadBody(): ReadableStream<Uint8Array> {
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const chunk = new Uint8Array(CHUNK).fill(0x61);
  let sent = -1;
  return new ReadableStream({
    pull(controller) {
      if (sent === -1) {
        controller.enqueue(head);
        sent = 0;
      } else if (sent < SIZE) {
        controller.enqueue(chunk.slice());
        sent += CHUNK;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
}

describe.each(['node', 'fastify'])('a 50 MiB upload through %s', (name) => {
  it('is written to a file whole, the server holding a few MiB of it at most', async () => {
    const server = await MOUNTS[name]!(uploadApi(), {});
    held = 0;
    try {
      globalThis.gc?.();
      const before = process.memoryUsage();
      let peak = 0;
      const sampler = setInterval(() => {
        const now = process.memoryUsage();
        peak = Math.max(peak, now.arrayBuffers - before.arrayBuffers, now.rss - before.rss);
      }, 5);
      const response = await fetch(`${server.baseUrl}/uploads`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        body: uploadBody(),
        duplex: 'half',
      } as RequestInit);
      const answer = await response.json();
      clearInterval(sampler);
      expect(response.status).toBe(200);
      expect(answer).toEqual({ written: [SIZE] });
      expect(held).toBeGreaterThan(0);
      expect(held).toBeLessThan(4 * 1024 * 1024);
      // The client runs in the same process and garbage is collected late: a loose bound only.
      expect(peak).toBeLessThan(SIZE * 1.5);
    } finally {
      await server.close();
    }
  }, 60_000);
});
