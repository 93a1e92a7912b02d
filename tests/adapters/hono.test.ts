/**
 * restcanon/hono: the conformance suite in a Hono app on @hono/node-server (`serve` on port 0), the
 * API in a sub-app routed below the prefix, then what is Hono's own: `next()`, the route's mount
 * path and its links, a body Hono read before the API, `app.onError`, and the app as a Fetch handler
 * (`app.fetch(new Request(...))`) with no server at all.
 */
import http, { type Server } from 'node:http';
import { createAdaptorServer, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFetch } from '../../src/adapters/fetch.js';
import { toHono } from '../../src/adapters/hono.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { listen, listening, runAdapterSuite, type MountedServer } from './conformance.js';
import { alike, call, rawBytes, type CallInit } from './host-exchange.js';
import { BODY_LIMIT, SECRET, fixtureApi } from '../fixture/api.js';
import { expectProblem } from '../helpers/problem.js';

const start = (app: Hono): Promise<MountedServer> => listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);

runAdapterSuite(
  'hono',
  (api, { prefix }) => {
    const app = new Hono();
    const sub = new Hono();
    // The API owns everything below its mount point here, as node and fetch do.
    sub.use(toHono(api, { fallthrough: false }));
    app.route(prefix ?? '/', sub);
    return start(app);
  },
  { prefix: 'mount' },
);

runAdapterSuite(
  "hono with the API's routes on the sub-app",
  (api, { prefix }) => {
    const app = new Hono();
    const sub = new Hono();
    toHono(api, { fallthrough: false, router: sub });
    app.route(prefix ?? '/', sub);
    return start(app);
  },
  { prefix: 'mount' },
);

const valid = '{"name":"Carol","email":"carol@example.com"}';

describe('hono specifics', () => {
  const fixture = fixtureApi();
  const hostErrors: unknown[] = [];
  let server: MountedServer;

  beforeAll(async () => {
    const app = new Hono();
    app.onError((error, c) => (hostErrors.push(error), c.text('host error', 502)));
    app.use('/v1/*', toHono(fixture.api));
    app.get('/v1/host-route', (c) => c.json({ host: true, path: c.req.path }));
    app.post('/v1/echo', async (c) => c.json({ echoed: await c.req.text() }));
    app.get('/v1/broken', () => {
      throw new Error(`host route failed: ${SECRET}`);
    });
    server = await start(app);
  });
  afterAll(() => server.close());

  it('a path the API does not know goes on to the next handler with next()', async () => {
    const answer = await call(server, 'GET', '/v1/host-route');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ host: true, path: '/v1/host-route' });
  });

  it('a path that goes on keeps its body unread for the host', async () => {
    const answer = await call(server, 'POST', '/v1/echo', { type: 'text/plain', body: 'still here' });
    expect(answer).toMatchObject({ status: 200, text: '{"echoed":"still here"}' });
  });

  it("a path neither knows is Hono's 404, not a problem", async () => {
    expect(await call(server, 'GET', '/v1/nothing')).toMatchObject({ status: 404, text: '404 Not Found' });
  });

  it('the mount path of the route, /v1, names the created item and the next page', async () => {
    const created = await call(server, 'POST', '/v1/users', { token: 'alice', type: 'application/json', body: valid });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/v1/users/3');
    const page = await call(server, 'GET', '/v1/notes?limit=1', { token: 'alice' });
    expect(page.headers.link).toMatch(/^<\/v1\/notes\?limit=1&cursor=[\w-]+>; rel="next"$/);
  });

  // Regression: Hono routes the decoded path, so this target reaches the /v1/* route; the API must
  // not take /%76%31 for the mount path /v1.
  it("GET /%76%31/users/1, which Hono routes to /v1/*, is not the API's: it goes on to Hono's 404", async () => {
    expect(await call(server, 'GET', '/v1/users/1', { token: 'alice' })).toMatchObject({ status: 200 });
    expect(await call(server, 'GET', '/%76%31/users/1', { token: 'alice' })).toMatchObject({ status: 404, text: '404 Not Found' });
  });

  it("an error a later handler throws on a path the API passed on is app.onError's", async () => {
    hostErrors.length = 0;
    expect(await call(server, 'GET', '/v1/broken')).toMatchObject({ status: 502, text: 'host error' });
    expect(hostErrors).toEqual([new Error(`host route failed: ${SECRET}`)]);
  });

  it('a failing handler of the API is a masked 500, which never reaches app.onError', async () => {
    hostErrors.length = 0;
    fixture.errors.length = 0;
    const problem = expectProblem(await call(server, 'GET', '/v1/reports', { token: 'alice' }), { status: 500, code: 'RC_INTERNAL' });
    expect(problem.instance).toMatch(/^urn:uuid:/);
    expect(fixture.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(SECRET) })]);
    expect(hostErrors).toEqual([]);
  });

  it("HEAD is answered like GET, with the GET's Content-Type and no body", async () => {
    const answer = await call(server, 'HEAD', '/v1/users/1', { token: 'alice' });
    expect(answer).toMatchObject({ status: 200, text: '' });
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('an option that is not one is refused, naming the one it resembles', () => {
    expect(() => toHono(fixture.api, { fallthru: false } as never)).toThrow('`fallthru` is not an option of toHono(); did you mean `fallthrough`?');
  });
});

describe('hono: where the route mounts the API', () => {
  const servers: MountedServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  async function expectLinks(app: Hono, prefix: string): Promise<MountedServer> {
    const server = await start(app);
    servers.push(server);
    const created = await call(server, 'POST', `${prefix}/users`, { token: 'alice', type: 'application/json', body: valid });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${prefix}/users/3`);
    expect((await call(server, 'GET', created.headers.location!, { token: 'alice' })).status).toBe(200);
    const page = await call(server, 'GET', `${prefix}/notes?limit=1`, { token: 'alice' });
    const next = (JSON.parse(page.text) as { next: string }).next;
    expect(page.headers.link).toBe(`<${next}>; rel="next"`);
    expect(next.startsWith(`${prefix}/notes?limit=1&cursor=`)).toBe(true);
    expect((await call(server, 'GET', next, { token: 'alice' })).status).toBe(200);
    return server;
  }

  it('app.route inside app.route: /a/b', async () => {
    const inner = new Hono().use(toHono(fixtureApi().api));
    await expectLinks(new Hono().route('/a', new Hono().route('/b', inner)), '/a/b');
  });

  it('a param in the mount path: /:tenant/* is the tenant sent, /acme', async () => {
    await expectLinks(new Hono().use('/:tenant/*', toHono(fixtureApi().api)), '/acme');
  });

  it("app.use at the root, with the API's basePath /api", async () => {
    await expectLinks(new Hono().use(toHono(fixtureApi({ basePath: '/api' }).api)), '/api');
  });

  it("/api/v1/* with the API's basePath /v1: served once, at /api/v1", async () => {
    const server = await expectLinks(new Hono().use('/api/v1/*', toHono(fixtureApi({ basePath: '/v1' }).api)), '/api/v1');
    expect((await call(server, 'GET', '/api/v1/v1/users/1', { token: 'alice' })).status).toBe(404);
  });

  it('a route without a wildcard mounts nothing: the API routes the whole path', async () => {
    const server = await start(new Hono().get('/health', toHono(fixtureApi().api)));
    servers.push(server);
    expect(await call(server, 'GET', '/health')).toMatchObject({ status: 200, text: '{"status":"ok"}' });
  });
});

describe('hono: a body Hono read before the API', () => {
  const alone = fixtureApi();
  const byText = fixtureApi();
  const byJson = fixtureApi();
  const usedUp = fixtureApi();
  const servers = {} as Record<'alone' | 'byText' | 'byJson' | 'usedUp', MountedServer>;

  beforeAll(async () => {
    servers.alone = await start(new Hono().use(toHono(alone.api)));
    const reading = (read: 'text' | 'json' | 'raw') =>
      new Hono().use(async (c, next) => {
        if (c.req.method === 'POST') await (read === 'raw' ? c.req.raw.text() : c.req[read]()).catch(() => undefined);
        await next();
      });
    servers.byText = await start(reading('text').use(toHono(byText.api)));
    servers.byJson = await start(reading('json').use(toHono(byJson.api)));
    servers.usedUp = await start(reading('raw').use(toHono(usedUp.api)));
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await server.close();
  });

  const cases: CallInit[] = [
    { token: 'alice', type: 'application/json', body: valid },
    { token: 'alice', type: 'application/json', body: '{"name":"","email":"nope"}' },
    { token: 'alice', type: 'application/json', body: '{"__proto__":{"admin":true}}' },
    { token: 'alice', type: 'application/json', body: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT * 2), email: 'big@example.com' }), chunked: true },
    { token: 'alice', type: 'text/plain', body: 'name=Carol' },
    { type: 'application/json', body: valid },
  ];

  it.each(cases.map((init) => [`${init.token ?? 'nobody'}, ${init.type}${init.chunked === true ? ', chunked' : ''}: ${init.body!.slice(0, 30)}`, init] as const))(
    'POST /users as %s answers as the API alone, read by c.req.text() or c.req.json()',
    async (_title, init) => {
      for (const fixture of [alone, byText, byJson]) fixture.store.reset();
      const expected = alike(await call(servers.alone, 'POST', '/users', init));
      expect(alike(await call(servers.byText, 'POST', '/users', init))).toEqual(expected);
      expect(alike(await call(servers.byJson, 'POST', '/users', init))).toEqual(expected);
    },
  );

  it('a whitespace-padded body over the limit, sent chunked and read by c.req.text(), is 413', async () => {
    const init = { token: 'alice', type: 'application/json', body: `${' '.repeat(BODY_LIMIT)}${valid}`, chunked: true };
    expectProblem(await call(servers.alone, 'POST', '/users', init), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
    expectProblem(await call(servers.byText, 'POST', '/users', init), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  it('malformed JSON that c.req.json() failed on is the 400 of a malformed body', async () => {
    const init = { token: 'alice', type: 'application/json', body: '{"name":' };
    expectProblem(await call(servers.byJson, 'POST', '/users', init), { status: 400, code: 'RC_MALFORMED_BODY' });
    expectProblem(await call(servers.byText, 'POST', '/users', init), { status: 400, code: 'RC_MALFORMED_BODY' });
  });

  // A body read off c.req.raw leaves nothing in Hono's cache: the API must not take the request for
  // one without a body, which an endpoint whose body is optional would serve.
  it('a body a middleware read off c.req.raw, out of the API’s sight, is a body that could not be read, and nothing is created', async () => {
    const answer = await call(servers.usedUp, 'POST', '/users', { token: 'alice', type: 'application/json', body: valid });
    expectProblem(answer, { status: 400, code: 'RC_MALFORMED_BODY', detail: 'The body could not be read to its end' });
    expect(usedUp.store.users.has(3)).toBe(false);
  });
});

describe('hono as a Fetch handler: app.fetch(new Request(...)), no server', () => {
  const fixture = fixtureApi();
  const app = new Hono().route('/v1', new Hono().use(toHono(fixture.api)));
  app.get('/', (c) => c.text('home'));
  const alice = { authorization: 'Bearer alice' };

  it('creates with 201 and a Location below the mount path; the app keeps its other routes', async () => {
    const response = await app.fetch(
      new Request('http://example.test/v1/users', { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body: valid }),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/v1/users/3');
    expect(await response.json()).toEqual({ id: 3, name: 'Carol', email: 'carol@example.com' });
    expect(await (await app.fetch(new Request('http://example.test/'))).text()).toBe('home');
  });

  it("HEAD is answered with a null body and the GET's Content-Type", async () => {
    const response = await app.fetch(new Request('http://example.test/v1/users/1', { method: 'HEAD', headers: alice }));
    expect(response.status).toBe(200);
    expect(response.body).toBeNull();
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('a streamed body over the limit is 413, and a chunked GET is answered with Connection: close', async () => {
    const body = new Blob([JSON.stringify({ name: 'x'.repeat(BODY_LIMIT * 4), email: 'big@example.com' })]).stream();
    const request = new Request('http://example.test/v1/users', { method: 'POST', headers: { ...alice, 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    expectProblem(await answerOf(await app.fetch(request)), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
    const get = await app.fetch(new Request('http://example.test/v1/users/1', { headers: { ...alice, 'transfer-encoding': 'chunked' } }));
    expect(get.status).toBe(200);
    expect(get.headers.get('connection')).toBe('close');
  });

  async function answerOf(response: Response) {
    return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
  }
});

describe('hono: answers byte for byte as the fetch adapter’s on @hono/node-server, and as the node adapter’s but for framing', () => {
  let hono: MountedServer;
  let fetchAdapter: MountedServer;
  let node: MountedServer;
  beforeAll(async () => {
    hono = await start(new Hono().use(toHono(fixtureApi().api, { fallthrough: false })));
    fetchAdapter = await listen(createAdaptorServer({ fetch: toFetch(fixtureApi().api) }) as Server);
    node = await listen(http.createServer(toNodeListener(fixtureApi().api)));
  });
  afterAll(async () => {
    for (const server of [hono, fetchAdapter, node]) await server.close();
  });

  const head = (lines: string[], body = '') =>
    `${[...lines, 'Host: test', ...(body === '' ? [] : [`Content-Length: ${Buffer.byteLength(body)}`]), 'Connection: close'].join('\r\n')}\r\n\r\n${body}`;

  it.each([
    ['GET 200', head(['GET /users/1 HTTP/1.1', 'Authorization: Bearer alice'])],
    ['HEAD 200', head(['HEAD /users/1 HTTP/1.1', 'Authorization: Bearer alice'])],
    ['OPTIONS 204', head(['OPTIONS /users/1 HTTP/1.1'])],
    ['GET 304', head(['GET /notes/1 HTTP/1.1', 'Authorization: Bearer alice', 'If-None-Match: "v1"'])],
    ['POST 201', head(['POST /notes HTTP/1.1', 'Authorization: Bearer bob', 'Content-Type: application/json'], '{"title":"plums"}')],
    ['GET 404', head(['GET /nothing HTTP/1.1', 'Authorization: Bearer alice'])],
    ['GET 500', head(['GET /reports HTTP/1.1', 'Authorization: Bearer alice'])],
  ])('%s', async (_case, request) => {
    const fromFetch = await rawBytes(fetchAdapter, request);
    expect(fromFetch).toMatch(/^HTTP\/1\.1 \d{3} /);
    expect(await rawBytes(hono, request)).toBe(fromFetch);
    // @hono/node-server frames and orders headers its own way; what each says is the node adapter's.
    expect(headersOf(fromFetch)).toEqual(headersOf(await rawBytes(node, request)));
  });

  function headersOf(raw: string) {
    const [top = '', body = ''] = raw.split('\r\n\r\n');
    const [status, ...lines] = top.split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    return { status, headers, body };
  }
});
