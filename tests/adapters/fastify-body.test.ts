/**
 * restcanon/fastify reads a body that arrived with its headers from the stream's buffer at once, and
 * any other through the stream: the answers are the API's either way. Over raw sockets, so that
 * the test decides which bytes arrive together.
 */
import { connect, type AddressInfo, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toFastify } from '../../src/adapters/fastify.js';
import { createApi, endpoint, type Api } from '../../src/index.js';

function echoApi(): Api {
  return createApi({
    onError: () => {},
    bodyLimit: 64,
    endpoints: [endpoint('POST', '/echo', { body: z.object({ a: z.union([z.number(), z.string()]) }), handle: (ctx) => ({ got: ctx.body }) })],
  });
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** The server, and whether each request's stream had ended once its answer was sent. */
async function start(): Promise<{ port: number; ended: boolean[] }> {
  const app = Fastify({ forceCloseConnections: true });
  apps.push(app);
  const ended: boolean[] = [];
  app.addHook('onResponse', async (request) => {
    await new Promise((resolve) => setImmediate(resolve));
    ended.push(request.raw.readableEnded);
  });
  await app.register(toFastify(echoApi()));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as AddressInfo).port, ended };
}

const head = (length: number) => `POST /echo HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/** Reads answers from a socket, one per call, each up to its Content-Length. */
function answers(socket: Socket): () => Promise<{ status: number; connection: string | undefined; body: string }> {
  let received = '';
  const waiting: (() => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    waiting.splice(0).forEach((wake) => wake());
  });
  return async () => {
    for (;;) {
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) {
        const lines = received.slice(0, end).split('\r\n');
        const header = (name: string) => lines.find((line) => line.toLowerCase().startsWith(`${name}:`))?.split(':')[1]?.trim();
        const length = Number(header('content-length') ?? 0);
        if (received.length >= end + 4 + length) {
          const body = received.slice(end + 4, end + 4 + length);
          received = received.slice(end + 4 + length);
          return { status: Number(lines[0]!.split(' ')[1]), connection: header('connection'), body };
        }
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
}

async function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

describe('fastify: a body that arrived with its headers', () => {
  it('{"a":1} written with its headers is read whole, its stream ends, and the connection serves the next request', async () => {
    const { port, ended } = await start();
    const socket = await open(port);
    const next = answers(socket);
    socket.write(`${head(7)}{"a":1}`);
    expect(await next()).toMatchObject({ status: 200, body: '{"got":{"a":1}}' });
    socket.write(`${head(7)}{"a":2}`);
    expect(await next()).toMatchObject({ status: 200, body: '{"got":{"a":2}}' });
    socket.destroy();
    expect(ended).toEqual([true, true]);
  });

  it('{"a":1} written after its headers, in a later write, is read from the stream', async () => {
    const { port } = await start();
    const socket = await open(port);
    const next = answers(socket);
    socket.write(head(7));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write('{"a":1}');
    expect(await next()).toMatchObject({ status: 200, body: '{"got":{"a":1}}' });
    socket.destroy();
  });

  it('half of {"a":1} with its headers and the rest later is read to its end', async () => {
    const { port } = await start();
    const socket = await open(port);
    const next = answers(socket);
    socket.write(`${head(7)}{"a"`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(':1}');
    expect(await next()).toMatchObject({ status: 200, body: '{"got":{"a":1}}' });
    socket.destroy();
  });

  it('a 100-byte body over the limit of 64, written with its headers, gets the 413 and the connection serves the next request', async () => {
    const { port } = await start();
    const socket = await open(port);
    const next = answers(socket);
    const large = JSON.stringify({ a: 'x'.repeat(92) });
    socket.write(`${head(large.length)}${large}`);
    const refused = await next();
    expect(refused.status).toBe(413);
    expect(refused.connection).not.toBe('close');
    socket.write(`${head(7)}{"a":3}`);
    expect(await next()).toMatchObject({ status: 200, body: '{"got":{"a":3}}' });
    socket.destroy();
  });

  it('{"__proto__":{}} written with its headers gets the API\'s 400', async () => {
    const { port } = await start();
    const socket = await open(port);
    const next = answers(socket);
    const poisoned = '{"__proto__":{"x":1}}';
    socket.write(`${head(poisoned.length)}${poisoned}`);
    expect((await next()).status).toBe(400);
    socket.destroy();
  });
});
