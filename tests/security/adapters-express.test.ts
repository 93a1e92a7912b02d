/**
 * The errors of a body parser mounted before `toExpress` (the common `app.use(express.json())`) are
 * the API's answers on the API's paths, in its problem format: never Express's HTML error page with a
 * stack trace. Run on Express 5 and Express 4, over real servers and real clients.
 */
import http from 'node:http';
import net from 'node:net';
import express5, { type NextFunction, type Request, type Response } from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toExpress } from '../../src/adapters/express.js';
import { createApi, endpoint, UnauthorizedError, type ApiRequest } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expectProblem, PROBLEM_TYPE } from '../helpers/problem.js';

type Express = typeof express5;

/** Above express.json()'s default limit of 100 kB, below the API's own limit of 1 MiB. */
const OVER_PARSER_LIMIT = 150 * 1024;

/** A notes API with the default body limit (1 MiB), a bearer token `alice`, and a count of created notes. */
function createNotesApi() {
  const created: unknown[] = [];
  const createNote = endpoint('POST', '/notes', {
    body: z.object({ text: z.string() }),
    handle: (ctx) => {
      created.push(ctx.body);
      return { id: created.length, ...ctx.body };
    },
  });
  const authenticate = (request: ApiRequest) => {
    const header = request.headers?.authorization;
    if (header === undefined) return undefined;
    if (header !== 'Bearer alice') throw new UnauthorizedError('The token is not valid');
    return { name: 'alice' };
  };
  return { api: createApi({ endpoints: [createNote], authenticate, onError: () => {} }), created };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

async function post(server: MountedServer, path: string, init: { token?: string; type?: string; body: string | ReadableStream<Uint8Array>; encoding?: string }): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.type !== undefined) headers['content-type'] = init.type;
  if (init.encoding !== undefined) headers['content-encoding'] = init.encoding;
  const request: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, body: init.body };
  if (typeof init.body !== 'string') request.duplex = 'half';
  const response = await fetch(server.baseUrl + path, request);
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
}

function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 16 * 1024));
      offset += 16 * 1024;
    },
  });
}

/** Writes a raw request and resolves to what the server answered within `waitMs` (or until it closed). */
function rawExchange(server: MountedServer, head: string, waitMs = 1000): Promise<string> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(head));
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (data) => {
      received += data.toString();
      // The whole answer is in once its body is: a problem body ends with `}`.
      if (/\r\n\r\n[\s\S]*}$/.test(received)) socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

/** A POST that announces a body of 1 000 000 000 bytes and sends five of them. */
function hugeContentLength(token: string | undefined): string {
  const authorization = token === undefined ? '' : `Authorization: Bearer ${token}\r\n`;
  return `POST /notes HTTP/1.1\r\nHost: test\r\n${authorization}Content-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"te`;
}

function describeExpress(name: string, express: Express): void {
  describe(`${name}: toExpress behind a global express.json()`, () => {
    const { api, created } = createNotesApi();
    const hostErrors: unknown[] = [];
    let server: MountedServer;

    beforeAll(async () => {
      const app = express();
      app.disable('x-powered-by');
      app.use((req, _res, next) => next(req.headers['x-host-fails'] === undefined ? undefined : new Error('failed in the host')));
      app.use(express.json());
      app.use(toExpress(api));
      app.use('/v1', toExpress(api));
      app.use((error: { type?: string; message: string }, _req: Request, res: Response, _next: NextFunction) => {
        hostErrors.push(error);
        res.status(599).type('text/plain').send(`host: ${error.type ?? error.message}`);
      });
      server = await listen(http.createServer(app));
    });
    afterAll(() => server.close());
    beforeEach(() => {
      created.length = 0;
      hostErrors.length = 0;
    });

    it('malformed JSON ({"text":) is the API’s 400 problem RC_MALFORMED_BODY, not the HTML error page', async () => {
      const answer = await post(server, '/notes', { token: 'alice', type: 'application/json', body: '{"text":' });
      expectProblem(answer, { status: 400, code: 'RC_MALFORMED_BODY' });
      expect(hostErrors).toEqual([]);
    });

    it('malformed JSON on /v1/notes, with the API also mounted at /v1, is that API’s 400 problem', async () => {
      const answer = await post(server, '/v1/notes', { token: 'alice', type: 'application/json', body: '{"text":' });
      expectProblem(answer, { status: 400, code: 'RC_MALFORMED_BODY' });
      expect(hostErrors).toEqual([]);
    });

    it('malformed JSON without a token is the API’s 401: authentication comes before the body', async () => {
      const answer = await post(server, '/notes', { type: 'application/json', body: '{"text":' });
      expectProblem(answer, { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer realm="api"' } });
    });

    it('a JSON primitive ("hello") that express.json() refuses in strict mode is judged by the API', async () => {
      expectProblem(await post(server, '/notes', { token: 'alice', type: 'application/json', body: '"hello"' }), { status: 400 });
      expect(created).toEqual([]);
    });

    it('a body over express.json()’s 100 kB limit is the API’s 413 problem, with Content-Length and chunked', async () => {
      const body = JSON.stringify({ text: 'x'.repeat(OVER_PARSER_LIMIT) });
      expectProblem(await post(server, '/notes', { token: 'alice', type: 'application/json', body }), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
      expectProblem(await post(server, '/notes', { token: 'alice', type: 'application/json', body: chunked(body) }), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
      expect(created).toEqual([]);
      expect(hostErrors).toEqual([]);
    });

    it('a charset express.json() refuses (latin1) is the API’s 415 problem', async () => {
      const answer = await post(server, '/notes', { token: 'alice', type: 'application/json; charset=latin1', body: '{"text":"hi"}' });
      expectProblem(answer, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-post': 'application/json' } });
    });

    it('a content coding express.json() does not know (compress) is the API’s 415 with Accept-Encoding: identity', async () => {
      const answer = await post(server, '/notes', { token: 'alice', type: 'application/json', encoding: 'compress', body: '{"text":"hi"}' });
      expectProblem(answer, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-encoding': 'identity' } });
    });

    it.each(['gzip', 'deflate'])('a %s body that does not inflate is the API’s 401 without a token and its 415 with one, never an HTML page', async (encoding) => {
      const anonymous = await post(server, '/notes', { type: 'application/json', encoding, body: '{}' });
      expectProblem(anonymous, { status: 401, code: 'RC_UNAUTHORIZED' });
      const signedIn = await post(server, '/notes', { token: 'alice', type: 'application/json', encoding, body: '{}' });
      expectProblem(signedIn, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', headers: { 'accept-encoding': 'identity' } });
    });

    it('a valid body still reaches the handler, parsed by express.json()', async () => {
      const answer = await post(server, '/notes', { token: 'alice', type: 'application/json', body: '{"text":"hi"}' });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ id: 1, text: 'hi' });
    });

    it('malformed JSON on a path the API does not serve goes to the host’s error handler', async () => {
      const answer = await post(server, '/elsewhere', { token: 'alice', type: 'application/json', body: '{"text":' });
      expect(answer.status).toBe(599);
      expect(answer.text).toBe('host: entity.parse.failed');
      expect(hostErrors).toHaveLength(1);
    });

    it('an error that is not a body parser’s, on the API’s path, goes to the host’s error handler', async () => {
      const response = await fetch(`${server.baseUrl}/notes`, { method: 'POST', headers: { 'x-host-fails': '1', 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(599);
      expect(await response.text()).toBe('host: failed in the host');
    });

    // A known gap: body-parser reads (and drops) a body it refused to its end before it hands the
    // error on, so nothing mounted after it runs before the 1 GB have arrived. Mount the API first.
    it.fails('Content-Length: 1000000000 with 5 bytes sent is answered promptly (401) behind the parser', async () => {
      expect(await rawExchange(server, hugeContentLength(undefined))).toMatch(/^HTTP\/1\.1 401 /);
    });
  });

  describe(`${name}: toExpress behind express.json({ verify })`, () => {
    const { api, created } = createNotesApi();
    let server: MountedServer;

    beforeAll(async () => {
      const app = express();
      app.use(
        express.json({
          verify: () => {
            throw new Error('The signature does not match');
          },
        }),
      );
      app.use(toExpress(api));
      server = await listen(http.createServer(app));
    });
    afterAll(() => server.close());

    it('a body the host’s verify refused never reaches the handler: the API answers 400', async () => {
      const answer = await post(server, '/notes', { token: 'alice', type: 'application/json', body: '{"text":"forged"}' });
      expectProblem(answer, { status: 400, code: 'RC_MALFORMED_BODY' });
      expect(created).toEqual([]);
    });
  });

  describe(`${name}: toExpress with a body announced by Content-Length: 1000000000 and never sent`, () => {
    const { api } = createNotesApi();
    const servers: Record<string, MountedServer> = {};

    beforeAll(async () => {
      const alone = express();
      alone.use(toExpress(api));
      servers.alone = await listen(http.createServer(alone));
      const beforeParser = express();
      beforeParser.use(toExpress(api));
      beforeParser.use(express.json());
      servers['before express.json()'] = await listen(http.createServer(beforeParser));
    });
    afterAll(async () => {
      for (const server of Object.values(servers)) await server.close();
    });

    for (const setup of ['alone', 'before express.json()']) {
      it(`mounted ${setup}: 401 without a token and 413 with one, at once`, async () => {
        const started = Date.now();
        const anonymous = await rawExchange(servers[setup]!, hugeContentLength(undefined), 5000);
        expect(anonymous).toMatch(/^HTTP\/1\.1 401 /);
        expect(anonymous).toContain(`content-type: ${PROBLEM_TYPE}`);
        const authenticated = await rawExchange(servers[setup]!, hugeContentLength('alice'), 5000);
        expect(authenticated).toMatch(/^HTTP\/1\.1 413 /);
        expect(authenticated).toContain('"code":"RC_PAYLOAD_TOO_LARGE"');
        expect(Date.now() - started).toBeLessThan(2000);
      });
    }
  });
}

describeExpress('express 5', express5);
describeExpress('express 4', express4 as unknown as Express);
