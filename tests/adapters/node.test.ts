import { execFile } from 'node:child_process';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nodeHandler, toNodeListener } from '../../src/adapters/node.js';
import { createApi, endpoint, type Api } from '../../src/index.js';
import { listen, runAdapterSuite, type MountedServer } from './conformance.js';
import { BODY_LIMIT, SECRET, bearer, fixtureApi, handlerOptions } from '../fixture/api.js';
import { answerOf, expectProblem } from '../helpers/problem.js';

const run = promisify(execFile);

runAdapterSuite('node', (api) => listen(http.createServer(toNodeListener(api))), { prefix: 'basePath' });

/** Sends raw bytes and collects what the server answers until it closes the socket or `waitMs` pass. */
function rawExchange(baseUrl: string, chunks: string[], options: { destroyAfterWrite?: boolean; waitMs?: number } = {}): Promise<string> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.destroyAfterWrite === true) setTimeout(() => socket.destroy(), 20);
    });
    const timer = setTimeout(() => socket.destroy(), options.waitMs ?? 500);
    socket.on('data', (data) => (received += data.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

describe('node specifics', () => {
  const fixture = fixtureApi();
  let server: MountedServer;
  const unhandled: unknown[] = [];
  const onUnhandled = (error: unknown) => unhandled.push(error);

  beforeAll(async () => {
    process.on('uncaughtException', onUnhandled);
    process.on('unhandledRejection', onUnhandled);
    server = await listen(http.createServer(toNodeListener(fixture.api)));
  });
  afterAll(async () => {
    process.off('uncaughtException', onUnhandled);
    process.off('unhandledRejection', onUnhandled);
    await server.close();
  });
  beforeEach(() => {
    fixture.errors.length = 0;
  });

  async function stillServes(): Promise<void> {
    const response = await fetch(`${server.baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(unhandled).toEqual([]);
  }

  const postHead = (length: string | undefined) =>
    `POST /users HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer alice\r\nContent-Type: application/json\r\n${length === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;

  it('a request aborted mid-body does not crash the server', async () => {
    await rawExchange(server.baseUrl, [postHead('1000'), '{"name":"'.padEnd(100, 'x')], { destroyAfterWrite: true });
    await stillServes();
  });

  it('a request that is not HTTP gets 400 from Node and the server goes on', async () => {
    const answer = await rawExchange(server.baseUrl, ['NOT HTTP AT ALL\r\n\r\n']);
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    await stillServes();
  });

  it('broken chunked framing mid-body does not crash the server or hang the socket', async () => {
    const answer = await rawExchange(server.baseUrl, [postHead(undefined), '5\r\n{"nam\r\nzz\r\n'], { waitMs: 2000 });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    await stillServes();
  });

  it('an absolute-form request target is routed by its path', async () => {
    const answer = await rawExchange(server.baseUrl, ['GET http://example.test/health HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n']);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('{"status":"ok"}');
  });

  it('a chunked body over the limit is 413 on a raw socket, and the connection stays usable', async () => {
    const chunk = 'x'.repeat(BODY_LIMIT);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(4) + '0\r\n\r\n';
    const answer = await rawExchange(server.baseUrl, [postHead(undefined), body, 'GET /health HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n'], { waitMs: 2000 });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('HTTP/1.1 200');
    await stillServes();
  });

  it('a JSON body is read whole whether it comes with its headers, split across packets, or after them: 201 with its name', async () => {
    const body = JSON.stringify({ name: 'Carol', email: 'carol@example.com' });
    const cut = 10;
    for (const parts of [[postHead(String(body.length)) + body], [postHead(String(body.length)) + body.slice(0, cut), body.slice(cut)], [postHead(String(body.length)), body]]) {
      const answer = await new Promise<string>((resolve) => {
        let received = '';
        const socket = net.connect(Number(new URL(server.baseUrl).port), '127.0.0.1', async () => {
          for (const part of parts) {
            socket.write(part);
            // Apart, so that Node's parser delivers each part in a turn of its own.
            await new Promise((wait) => setTimeout(wait, 30));
          }
        });
        socket.on('data', (data) => {
          received += data.toString();
          if (received.includes('"Carol"')) socket.end();
        });
        socket.on('error', () => {});
        socket.on('close', () => resolve(received));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 201/);
      expect(answer).toContain('"name":"Carol"');
    }
    await stillServes();
  });

  it('a huge declared Content-Length is 413 at once, without waiting for the body', async () => {
    const answer = await rawExchange(server.baseUrl, [postHead('99999999999'), '{}'], { waitMs: 1000 });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
  });
});

describe('toNodeListener options', () => {
  it('fallback serves paths the API does not know', async () => {
    const fixture = fixtureApi();
    const server = await listen(
      http.createServer(
        toNodeListener(fixture.api, {
          fallback: (req, res) => {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end(`static ${req.url}`);
          },
        }),
      ),
    );
    try {
      const fallback = await fetch(`${server.baseUrl}/index.html`);
      expect(await fallback.text()).toBe('static /index.html');
      expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/health`, { method: 'DELETE' })).status).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('an Api object from elsewhere (a wrapper that caches responses) is served through its respond, and its cache stays as it was', async () => {
    const fixture = fixtureApi();
    const cached = await fixture.api.handle({ method: 'GET', url: '/health' });
    const before = structuredClone(cached);
    // The contract: every response respond gives is the caller's own, headers included.
    const wrapper: Api = { ...fixture.api, respond: () => ({ ...cached, headers: { ...cached.headers } }) };
    const server = await listen(http.createServer(toNodeListener(wrapper)));
    try {
      for (let round = 0; round < 2; round++) {
        const response = await fetch(`${server.baseUrl}/anything`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(cached.payload as string)));
        expect(await response.json()).toEqual({ status: 'ok' });
      }
      expect(cached).toEqual(before);
    } finally {
      await server.close();
    }
  });

  it('the listener returns nothing for an answer it wrote at once, and a promise that settles once it wrote one it had to wait for', async () => {
    const api = createApi({
      endpoints: [endpoint('GET', '/now', { handle: () => ({ at: 'now' }) }), endpoint('GET', '/later', { handle: async () => ({ at: 'later' }) })],
    });
    const listener = toNodeListener(api);
    const calls: { url: string | undefined; returned: Promise<void> | undefined; endedWhenSettled?: boolean }[] = [];
    const server = await listen(
      http.createServer((req, res) => {
        const call: (typeof calls)[number] = { url: req.url, returned: listener(req, res) };
        calls.push(call);
        void call.returned?.then(() => (call.endedWhenSettled = res.writableEnded));
      }),
    );
    try {
      for (const path of ['/now', '/later']) {
        const response = await fetch(`${server.baseUrl}${path}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await response.json()).toEqual({ at: path.slice(1) });
      }
      expect(calls.map((call) => call.url)).toEqual(['/now', '/later']);
      expect(calls[0]!.returned).toBeUndefined();
      expect(calls[1]!.returned).toBeInstanceOf(Promise);
      expect(calls[1]!.endedWhenSettled).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('node:http2 compatibility API', () => {
  const fixture = fixtureApi();
  const server = http2.createServer(toNodeListener(fixture.api));
  let connection: http2.ClientHttp2Session;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    connection = http2.connect(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
  });
  afterAll(async () => {
    connection.close();
    await new Promise((resolve) => server.close(resolve));
  });

  function request(headers: http2.OutgoingHttpHeaders, body?: string): Promise<{ status: number; headers: http2.IncomingHttpHeaders; text: string }> {
    return new Promise((resolve, reject) => {
      const stream = connection.request(headers);
      let text = '';
      let responseHeaders: http2.IncomingHttpHeaders = {};
      stream.on('response', (received) => (responseHeaders = received));
      stream.on('data', (chunk) => (text += chunk));
      stream.on('end', () => resolve({ status: Number(responseHeaders[':status']), headers: responseHeaders, text }));
      stream.on('error', reject);
      if (body === undefined) stream.end();
      else stream.end(body);
    });
  }

  it('answers GET, HEAD and a 413 for a body over the limit on one connection', async () => {
    const health = await request({ ':path': '/health' });
    expect(health).toMatchObject({ status: 200, text: '{"status":"ok"}' });
    expect(health.headers['content-type']).toBe('application/json; charset=utf-8');
    const head = await request({ ':path': '/health', ':method': 'HEAD' });
    expect(head).toMatchObject({ status: 200, text: '' });
    const big = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT * 4), email: 'big@example.com' });
    const tooLarge = await request({ ':path': '/users', ':method': 'POST', authorization: 'Bearer alice', 'content-type': 'application/json' }, big);
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.text)).toMatchObject({ status: 413 });
    expect((await request({ ':path': '/health' })).status).toBe(200);
  });
});

describe('nodeHandler', () => {
  const fixture = fixtureApi();
  let server: MountedServer;
  const reported: unknown[] = [];

  beforeAll(async () => {
    const readUserHandler = nodeHandler(fixture.endpoints.readUser, handlerOptions);
    const createUserHandler = nodeHandler(fixture.endpoints.createUser, handlerOptions);
    const failingHandler = nodeHandler(fixture.endpoints.readReports, { ...handlerOptions, onError: (error) => reported.push(error) });
    server = await listen(
      http.createServer((req, res) => {
        const match = /^\/people\/([^/?]+)/.exec(req.url ?? '');
        if (match !== null && req.method === 'GET') void readUserHandler(req, res, { id: decodeURIComponent(match[1]!) });
        else if (req.url === '/people' && req.method === 'POST') void createUserHandler(req, res);
        else void failingHandler(req, res);
      }),
    );
  });
  afterAll(() => server.close());

  const bob = bearer('bob');

  it('reads with the params of the caller’s router, and answers 404 when the handler returns undefined', async () => {
    const found = await fetch(`${server.baseUrl}/people/2`, { headers: bob });
    expect(found.status).toBe(200);
    expect(await found.json()).toEqual({ id: 2, name: 'Bob', email: 'bob@example.com' });
    expectProblem(await answerOf(await fetch(`${server.baseUrl}/people/404`, { headers: bob })), { status: 404, code: 'RC_NOT_FOUND' });
  });

  it('an invalid param or body is 400 with errors; a valid body is 201', async () => {
    const param = expectProblem(await answerOf(await fetch(`${server.baseUrl}/people/zero`, { headers: bob })), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(param.errors).toEqual([expect.objectContaining({ in: 'path', pointer: '#/id' })]);
    const invalid = await fetch(`${server.baseUrl}/people`, { method: 'POST', headers: { ...bob, 'content-type': 'application/json' }, body: '{"name":""}' });
    expect(expectProblem(await answerOf(invalid), { status: 400, code: 'RC_INVALID_INPUT' }).errors).toHaveLength(2);
    const created = await fetch(`${server.baseUrl}/people`, { method: 'POST', headers: { ...bob, 'content-type': 'application/json' }, body: '{"name":"Dan","email":"dan@example.com"}' });
    expect(created.status).toBe(201);
  });

  it('a failing handler is a masked 500', async () => {
    // expectProblem also checks that the answer does not hold the fixture's secret.
    const problem = expectProblem(await answerOf(await fetch(`${server.baseUrl}/anything`, { headers: bob })), { status: 500, code: 'RC_INTERNAL' });
    expect(problem.instance).toMatch(/^urn:uuid:/);
    expect(reported).toEqual([new Error(`connection refused: ${SECRET}`)]);
  });
});

// Where code generation from strings is refused (a strict CSP, some edge runtimes), the router cannot
// generate its matcher and walks its tree instead. This runs the built package in a Node process
// started with --disallow-code-generation-from-strings, where `new Function` really throws.
describe('without code generation from strings', () => {
  it('routes static, param and nested paths, and answers 404 and 405 as usual', async () => {
    const dist = (file: string) => JSON.stringify(pathToFileURL(path.resolve(`dist/${file}`)).href);
    const script = `
      import http from 'node:http';
      import { collection, createApi, endpoint } from ${dist('index.js')};
      import { toNodeListener } from ${dist('node.js')};
      let refused = false;
      try { new Function('return 1'); } catch (error) { refused = error instanceof EvalError; }
      const users = collection('users', { read: (ctx) => ({ id: ctx.params.id }), list: () => [] });
      users.collection('orders', { read: (ctx) => ({ userId: ctx.params.userId, id: ctx.params.id }) });
      const api = createApi({ resources: [users], endpoints: [endpoint('GET', '/health', { handle: () => ({ ok: true }) })] });
      const server = http.createServer(toNodeListener(api)).listen(0);
      await new Promise((resolve) => server.once('listening', resolve));
      const base = 'http://127.0.0.1:' + server.address().port;
      const answers = [];
      for (const [method, target] of [['GET', '/health'], ['GET', '/users/7'], ['GET', '/users/7/orders/9/'], ['GET', '/users/caf%C3%A9'], ['DELETE', '/users/7'], ['GET', '/nope']]) {
        const response = await fetch(base + target, { method });
        answers.push({ target, status: response.status, allow: response.headers.get('allow'), body: await response.json() });
      }
      server.close();
      console.log(JSON.stringify({ refused, answers }));
    `;
    const child = await run(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script]);
    const { refused, answers } = JSON.parse(child.stdout) as { refused: boolean; answers: Array<{ target: string; status: number; allow: string | null; body: Record<string, unknown> }> };
    expect(refused).toBe(true);
    expect(answers.map(({ target, status }) => [target, status])).toEqual([
      ['/health', 200],
      ['/users/7', 200],
      ['/users/7/orders/9/', 200],
      ['/users/caf%C3%A9', 200],
      ['/users/7', 405],
      ['/nope', 404],
    ]);
    expect(answers[1]!.body).toEqual({ id: '7' });
    expect(answers[2]!.body).toEqual({ userId: '7', id: '9' });
    expect(answers[3]!.body).toEqual({ id: 'café' });
    expect(answers[4]!.allow).toBe('GET, HEAD, OPTIONS');
    expect(answers[5]!.body).toMatchObject({ status: 404 });
  });
});
