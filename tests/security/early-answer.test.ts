/**
 * A request the API answers before it has read the body (401, 413, 415, a body on an endpoint that
 * takes none, a GET, a 404 or 405, a deadline) must not have the rest of that body read without
 * bound: the server reads and drops at most `DRAIN_LIMIT` of it, and a declared `Content-Length` over
 * that bound is not read at all: its answer says `Connection: close`, and the connection ends after
 * it. A raw socket announces a body of 10 GB (or a chunked one), keeps sending, and counts what the
 * server took; the body holds requests, which must never be answered.
 */
import http from 'node:http';
import net from 'node:net';
import express5 from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toExpress } from '../../src/adapters/express.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { DRAIN_LIMIT } from '../../src/core/body.js';
import { createApi, endpoint, type Api, type ApiRequest } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expectProblem } from '../helpers/problem.js';
import { ADAPTER_SETUPS, type RawAnswer } from './raw-http.js';

const SETUPS: Record<string, (api: Api) => Promise<MountedServer>> = {
  ...ADAPTER_SETUPS,
  // express.json() reads a JSON body to its end before the API runs: these requests carry no JSON type.
  'express 5 behind express.json()': (api) => listen(http.createServer(express5().use(express5.json()).use(toExpress(api)))),
};

const MiB = 1024 * 1024;
/** What the kernel buffers on both ends of a loopback connection hold beyond what the server read. */
const SOCKET_BUFFERS = 48 * MiB;
/** The most a test writes: past this the server is taking everything. */
const WRITE_CAP = DRAIN_LIMIT + SOCKET_BUFFERS + 16 * MiB;
/** How long a write may wait on a server that stopped reading before the test stops writing. */
const STALL_MS = 1000;

/** Request bytes that the body carries over and over: a server that parses its body as requests answers them. */
const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: test\r\n\r\n';

function createEarlyApi() {
  const authenticate = (request: ApiRequest) => {
    const header = request.headers?.authorization;
    if (header === 'Bearer stuck') return new Promise<never>(() => {});
    return header === 'Bearer alice' ? { name: 'alice' } : undefined;
  };
  const createNote = endpoint('POST', '/notes', { body: z.object({ text: z.string() }), handle: (ctx) => ({ id: 1, ...ctx.body }) });
  const readNote = endpoint('GET', '/notes/:id', { handle: (ctx) => (ctx.params.id === '1' ? { id: 1, text: 'hi' } : undefined) });
  const expire = endpoint('POST', '/logins/expiry', { handle: () => ({ expired: true }) });
  return createApi({ endpoints: [createNote, readNote, expire], authenticate, bodyLimit: 1024, timeout: 300, onError: () => {} });
}

interface Pushed {
  /** The first answer on the connection. */
  answer: RawAnswer;
  /** How many answers came on the connection. */
  answers: number;
  /** Bytes of body the socket took before the server closed it or stopped reading. */
  written: number;
}

/**
 * Writes `head`, then body bytes (in chunks when `chunked`) until the server closes the connection,
 * stops reading for `STALL_MS`, or `WRITE_CAP` bytes are written; then waits for what the server
 * answers, a few seconds at most.
 */
function pushBody(server: MountedServer, head: string, chunked: boolean): Promise<Pushed> {
  const { port } = new URL(server.baseUrl);
  const filler = Buffer.from(SMUGGLED.repeat(Math.ceil((64 * 1024) / SMUGGLED.length)).slice(0, 64 * 1024), 'latin1');
  const frame = chunked ? Buffer.concat([Buffer.from(`${filler.length.toString(16)}\r\n`), filler, Buffer.from('\r\n')]) : filler;
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    let closed = false;
    let written = 0;
    const closing = new Promise<void>((done) => socket.on('close', () => ((closed = true), done())));
    socket.on('error', () => {});
    socket.on('data', (data) => (received += data.toString('latin1')));
    const settle = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer: parseAnswer(received), answers: received.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0, written });
    };
    const timer = setTimeout(settle, 30_000);
    socket.once('connect', async () => {
      socket.write(head);
      while (!closed && written < WRITE_CAP) {
        const flowing = socket.write(frame);
        written += frame.length;
        // A turn of the event loop after every write, so that an answer is read as soon as it arrives,
        // before a write into a socket the server closed fails and drops what was not read yet.
        if (flowing) {
          await new Promise((next) => setImmediate(next));
          continue;
        }
        const drained = await Promise.race([new Promise((next) => socket.once('drain', () => next(true))), closing, new Promise((next) => setTimeout(next, STALL_MS, false))]);
        if (drained !== true) break;
      }
      await Promise.race([closing, new Promise((next) => setTimeout(next, 2000))]);
      settle();
    });
  });
}

function parseAnswer(received: string): RawAnswer {
  const [top = '', ...rest] = received.split('\r\n\r\n');
  const [statusLine = '', ...lines] = top.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length'] ?? 0);
  return { status: Number(statusLine.split(' ')[1]), headers, body: Buffer.from(rest.join('\r\n\r\n'), 'latin1').subarray(0, length).toString() };
}

const HUGE = 'Content-Length: 10000000000';
const CHUNKED = 'Transfer-Encoding: chunked';

interface EarlyCase {
  name: string;
  lines: string[];
  status: number;
  code?: string;
  /**
   * Whether the API begins to read a chunked body before it answers (413 past the limit, 400 at the
   * first byte): the adapters drained the rest of such a body within the bound already.
   */
  readsChunked?: boolean;
}

const CASES: EarlyCase[] = [
  { name: '401 without a token', lines: ['POST /notes HTTP/1.1'], status: 401, code: 'RC_UNAUTHORIZED' },
  { name: '413', lines: ['POST /notes HTTP/1.1', 'Authorization: Bearer alice'], status: 413, code: 'RC_PAYLOAD_TOO_LARGE', readsChunked: true },
  { name: '415 for text/plain', lines: ['POST /notes HTTP/1.1', 'Authorization: Bearer alice', 'Content-Type: text/plain'], status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE' },
  { name: '400 for a body on an endpoint that takes none', lines: ['POST /logins/expiry HTTP/1.1', 'Authorization: Bearer alice'], status: 400, code: 'RC_UNEXPECTED_BODY', readsChunked: true },
  { name: '200 from a GET that takes no body', lines: ['GET /notes/1 HTTP/1.1', 'Authorization: Bearer alice'], status: 200 },
  { name: '404 from a GET that takes no body', lines: ['GET /notes/2 HTTP/1.1', 'Authorization: Bearer alice'], status: 404, code: 'RC_NOT_FOUND' },
  { name: '405', lines: ['DELETE /notes HTTP/1.1', 'Authorization: Bearer alice'], status: 405, code: 'RC_METHOD_NOT_ALLOWED' },
  { name: '503 at the deadline', lines: ['POST /notes HTTP/1.1', 'Authorization: Bearer stuck'], status: 503, code: 'RC_TIMEOUT' },
];

function headOf(lines: string[], framing: string): string {
  return `${[...lines, 'Host: test', framing].join('\r\n')}\r\n\r\n`;
}

function expectAnswer(answer: RawAnswer, early: EarlyCase): void {
  if (early.code === undefined) expect(answer.status).toBe(early.status);
  else expectProblem(answer, { status: early.status, code: early.code });
}

for (const [name, mount] of Object.entries(SETUPS)) {
  describe(`${name}: a body the API answers before reading`, () => {
    let server: MountedServer;

    beforeAll(async () => {
      server = await mount(createEarlyApi());
    });
    afterAll(() => server.close());

    it.each(CASES)('$name to Content-Length: 10000000000 and a body that keeps coming: the answer, Connection: close, and the body left unread', async (early) => {
      const pushed = await pushBody(server, headOf(early.lines, HUGE), false);
      expectAnswer(pushed.answer, early);
      expect(pushed.answer.headers.connection).toBe('close');
      expect(pushed.answers).toBe(1);
      expect(pushed.written).toBeLessThan(SOCKET_BUFFERS);
    });

    const unreadChunked = CASES.filter((early) => early.readsChunked !== true && early.status !== 503);
    it.each(unreadChunked)('$name to a chunked body that keeps coming: the answer, and at most DRAIN_LIMIT read', async (early) => {
      const pushed = await pushBody(server, headOf(early.lines, CHUNKED), true);
      expectAnswer(pushed.answer, early);
      expect(pushed.answers).toBe(1);
      expect(pushed.written).toBeLessThan(DRAIN_LIMIT + SOCKET_BUFFERS);
    });

    it('413 to a Content-Length just under DRAIN_LIMIT holding requests: the body is drained, and the connection answers only the next request', async () => {
      const { port } = new URL(server.baseUrl);
      const length = DRAIN_LIMIT - 1;
      const body = Buffer.alloc(length);
      body.write(SMUGGLED.repeat(Math.floor(length / SMUGGLED.length)), 'latin1');
      const received = await new Promise<string>((resolve) => {
        let text = '';
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(headOf(['POST /notes HTTP/1.1', 'Authorization: Bearer alice'], `Content-Length: ${length}`));
          socket.write(body);
          socket.write(headOf(['GET /notes/1 HTTP/1.1', 'Authorization: Bearer alice'], 'Connection: close'));
        });
        const timer = setTimeout(() => socket.destroy(), 15_000);
        socket.on('data', (data) => (text += data.toString('latin1')));
        socket.on('error', () => {});
        socket.on('close', () => (clearTimeout(timer), resolve(text)));
      });
      expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
      expect(received).toContain('"text":"hi"');
    });
  });
}

describe('fetch without a node:http host: a body the API answers before reading', () => {
  const handle = toFetch(createEarlyApi());

  /** A body that never ends, counting the chunks it was asked for and whether it was cancelled. */
  function endlessBody() {
    const seen = { pulled: 0, cancelled: false };
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        seen.pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    return { stream, seen };
  }

  function post(framing: Record<string, string>, body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Request {
    return new Request('http://example.test/notes', { method: 'POST', headers: { ...framing, ...headers }, body, duplex: 'half' } as RequestInit);
  }

  it.each([
    ['Content-Length: 10000000000', { 'content-length': '10000000000' }, 'close'],
    ['Transfer-Encoding: chunked', { 'transfer-encoding': 'chunked' }, null],
  ])('401 to a POST with %s: the body is cancelled, not read', async (_case, framing, connection) => {
    const { stream, seen } = endlessBody();
    const response = await handle(post(framing, stream));
    expectProblem({ status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() }, { status: 401, code: 'RC_UNAUTHORIZED' });
    expect(response.headers.get('connection')).toBe(connection);
    await expect.poll(() => seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThanOrEqual(1);
  });

  it('200 to a GET that announces a chunked body, which no Request exposes: Connection: close', async () => {
    const response = await handle(new Request('http://example.test/notes/1', { headers: { authorization: 'Bearer alice', 'transfer-encoding': 'chunked' } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('connection')).toBe('close');
  });
});
