/**
 * A second look at the path rule, the target rule, the early answer and the unwritable values, with
 * inputs their own suites do not send: IPv6 and port-only origins, an upper-case scheme before `//`,
 * a NUL, a raw byte over 0x7F, OPTIONS and HEAD past a guard, a base path under a mount, odd
 * Content-Length framings, a trailing slash below a Fastify prefix; a Map, a Set, an object that
 * holds itself twice, bytes deep down, a getter that changes its mind.
 */
import http, { type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import express5, { type Request as ExpressRequest, type Response as ExpressResponse } from 'express';
import express4 from 'express4';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { createApi, endpoint, type Api, type ApiRequest } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expressHost, fastifyHost, fetchHost, GUARDED, honoHost, koaHost, nodeHost, withoutDeprecationWarnings, type Express, type Host } from './guarded-hosts.js';
import { rawRequest, type RawAnswer } from './raw-http.js';

function adminApi(basePath?: string): Api {
  return createApi({
    ...(basePath === undefined ? {} : { basePath }),
    onError: () => {},
    cors: { origins: ['http://evil.test'] },
    endpoints: [
      endpoint('GET', '/', { handle: () => ({ at: 'root' }) }),
      endpoint('GET', '/admin/stats', { handle: () => ({ secret: 'stats' }) }),
      endpoint('GET', '/admin/:id', { handle: (ctx) => ({ secret: ctx.params.id }) }),
      endpoint('DELETE', '/admin/:id', { handle: () => ({ secret: 'deleted' }) }),
    ],
  });
}

/** Whether an admin route of the API answered, or told of itself (its methods in Allow or a preflight's answer). */
function reachedAdmin(answer: RawAnswer): boolean {
  if (answer.status === 403 && answer.body === GUARDED) return false;
  return answer.body.includes('secret') || (answer.headers.allow ?? '').includes('DELETE') || (answer.headers['access-control-allow-methods'] ?? '').includes('DELETE');
}

const HOSTS: Host[] = [
  ...[undefined, 'strict routing' as const].flatMap((routing) =>
    ['', '/v1'].flatMap((prefix) => [expressHost('express 4', express4 as unknown as Express, prefix, routing), expressHost('express 5', express5, prefix, routing)]),
  ),
  fastifyHost('routeOptions.url', ''),
  fastifyHost('routeOptions.url', '/v1'),
  nodeHost('new URL(req.url, base)'),
  fetchHost,
  ...['', '/v1'].flatMap((prefix) => [koaHost(prefix), honoHost(prefix)]),
];

function targets(p: string): [method: string, target: string, headers?: string[]][] {
  return [
    ['GET', `http://[::1]${p}/admin/stats`],
    ['GET', `http://[::1]:80${p}/admin/stats`],
    ['GET', `http://[::ffff:127.0.0.1]${p}/admin/stats`],
    ['GET', `http://x:80${p}`],
    ['GET', `http://x:80${p}?`],
    ['GET', `http://x:80${p}?/admin/stats`],
    ['GET', `http://x:${p}/admin/stats`],
    ['GET', `HTTP://x${p}//admin/stats`],
    ['GET', `HtTpS://x${p}/admin/stats`],
    ['GET', `${p}/admin/stats%00`],
    ['GET', `${p}/%00/admin/stats`],
    ['GET', `${p}/admin%00/stats`],
    ['GET', `${p}/admin/`],
    ['GET', `${p}/admin/stats/`],
    ['GET', `${p}/admin;/stats`],
    ['GET', `${p}/admin/%3Bx`],
    ['GET', `${p}/\u00e0dmin/stats`],
    ['GET', `${p}/admin\u00a0/stats`],
    ['GET', `${p}${'/..'.repeat(3000)}/admin/stats`],
    ['HEAD', `${p}/admin/stats`],
    ['HEAD', `${p}/%61dmin/stats`],
    ['OPTIONS', `${p}/admin/7`],
    ['OPTIONS', `${p}/%61dmin/7`],
    ['OPTIONS', `${p}/%61dmin/7`, ['Origin: http://evil.test', 'Access-Control-Request-Method: DELETE']],
    ['OPTIONS', `http://x${p}?/admin/7`, ['Origin: http://evil.test', 'Access-Control-Request-Method: DELETE']],
    ['DELETE', `${p}/ADMIN/7`],
  ];
}

withoutDeprecationWarnings();

for (const host of HOSTS) {
  describe(`${host.name}: a guard on ${host.prefix}/admin`, () => {
    let server: MountedServer;
    beforeAll(async () => {
      server = await host.start(adminApi());
    });
    afterAll(() => server.close());

    it(`GET ${host.prefix}/admin/stats is the guard's`, async () => {
      expect(await rawRequest(server, [`GET ${host.prefix}/admin/stats HTTP/1.1`])).toMatchObject({ status: 403, body: GUARDED });
      expect(await rawRequest(server, [`GET ${host.prefix}/ HTTP/1.1`])).toMatchObject({ status: 200 });
    });

    it.each(targets(host.prefix))('%s %s %j reaches no admin route', async (method, target, headers = []) => {
      const answer = await rawRequest(server, [`${method} ${target} HTTP/1.1`, ...headers]);
      expect(reachedAdmin(answer), JSON.stringify(answer)).toBe(false);
    });
  });
}

describe('in memory: the target rule on the forms hosts differ on', () => {
  const api = adminApi();
  const get = (url: string) => api.handle({ method: 'GET', url, headers: {} });

  it.each([
    ['http://[::1]/admin/stats', 200],
    ['HTTP://[::1]:8080/admin/stats', 200],
    ['http://x:80', 200],
    ['http://x:80?', 200],
    ['http://x:80?/admin/stats', 200],
    ['HTTP://x//admin/stats', 404],
    ['/admin/%2e%2e', 404],
    ['/%00/admin/stats', 404],
    ['http://[::1%25eth0]/admin/stats', 400],
    ['http://[v1.x]/admin/stats', 400],
    ['http://[::1]x/admin/stats', 400],
    ['http://x\u0000/admin/stats', 400],
    ['http://x /admin/stats', 400],
  ])('GET %s is %i', async (url, status) => {
    const response = await get(url);
    expect(response.status).toBe(status);
    if (url.includes('?') || url.endsWith(':80')) expect(response.body).toEqual({ at: 'root' });
  });
});

describe('a basePath under a mount: the guard on the full path sees what the API serves', () => {
  for (const [name, express] of [
    ['express 4', express4 as unknown as Express],
    ['express 5', express5],
  ] as const) {
    it(`${name}: app.use('/api/admin', guard) before app.use('/api', toExpress(createApi({ basePath: '/api' })))`, async () => {
      const app = express();
      app.use('/api/admin', (_req: ExpressRequest, res: ExpressResponse) => void res.status(403).send(GUARDED));
      app.use('/api', toExpress(adminApi('/api')));
      app.use((_req: ExpressRequest, res: ExpressResponse) => void res.status(404).send('host 404'));
      const server = await listen(http.createServer(app));
      try {
        for (const target of ['/api/admin/stats', '/api//admin/stats', '/api/api/admin/stats', '/api/%61dmin/stats', 'http://x/api?/admin/stats', '/api/admin/stats/']) {
          expect(reachedAdmin(await rawRequest(server, [`GET ${target} HTTP/1.1`])), target).toBe(false);
        }
        expect(await rawRequest(server, ['GET /api/ HTTP/1.1'])).toMatchObject({ status: 200, body: '{"at":"root"}' });
      } finally {
        await server.close();
      }
    });
  }
});

/** Writes a raw head (no Content-Length of its own) and a body, and reads the answer until the server closes. */
function rawExchange(server: MountedServer, head: string, body: string): Promise<string> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(`${head}\r\n\r\n${body}`));
    socket.setTimeout(3000, () => socket.destroy());
    socket.on('data', (data) => (received += data.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
  });
}

describe('framings of a body the API answers early: nothing in the body is answered as a request', () => {
  const SMUGGLED = 'GET /smuggled HTTP/1.1\r\nHost: test\r\n\r\n';
  const api = createApi({
    onError: () => {},
    endpoints: [endpoint('GET', '/', { handle: () => ({ ok: true }) }), endpoint('GET', '/smuggled', { handle: () => ({ smuggled: true }) })],
  });
  const servers: Record<string, MountedServer> = {};
  beforeAll(async () => {
    servers.node = await listen(http.createServer(toNodeListener(api)));
    servers['express 5'] = await listen(http.createServer(express5().use(toExpress(api))));
    servers.fetch = await listen(createAdaptorServer({ fetch: toFetch(api) }) as Server);
  });
  afterAll(async () => {
    for (const server of Object.values(servers)) await server.close();
  });

  const framings: [string, string[], string][] = [
    ['Content-Length with leading zeros', [`Content-Length: 000${SMUGGLED.length}`], SMUGGLED],
    ['Content-Length: +N', [`Content-Length: +${SMUGGLED.length}`], SMUGGLED],
    ['two equal Content-Lengths', [`Content-Length: ${SMUGGLED.length}`, `Content-Length: ${SMUGGLED.length}`], SMUGGLED],
    ['two different Content-Lengths', [`Content-Length: ${SMUGGLED.length}`, 'Content-Length: 0'], SMUGGLED],
    ['Content-Length and Transfer-Encoding: chunked', ['Content-Length: 0', 'Transfer-Encoding: chunked'], `${SMUGGLED.length.toString(16)}\r\n${SMUGGLED}\r\n0\r\n\r\n`],
    ['Transfer-Encoding: chunked on a GET', ['Transfer-Encoding: chunked'], `${SMUGGLED.length.toString(16)}\r\n${SMUGGLED}\r\n0\r\n\r\n`],
    ['Transfer-Encoding: gzip, chunked', ['Transfer-Encoding: gzip, chunked'], `${SMUGGLED.length.toString(16)}\r\n${SMUGGLED}\r\n0\r\n\r\n`],
  ];
  for (const name of ['node', 'express 5', 'fetch']) {
    it.each(framings)(`${name}: GET / with %s`, async (_title, headers, body) => {
      const received = await rawExchange(servers[name]!, ['GET / HTTP/1.1', 'Host: test', ...headers].join('\r\n'), body);
      expect(received).not.toContain('smuggled');
      expect(received).toMatch(/^HTTP\/1\.1 (200|400)/);
    });
  }
});

describe('unwritable values: what JSON would write as junk, or never finish walking', () => {
  function answer(result: () => unknown) {
    const seen: unknown[] = [];
    const api = createApi({ onError: (error) => void seen.push(error), endpoints: [endpoint('GET', '/r', { handle: () => result() })] });
    const request: ApiRequest = { method: 'GET', url: '/r', headers: {} };
    return { seen, response: api.handle(request) };
  }

  it.each([
    ['a Map', () => new Map([['a', 1]])],
    ['a Set', () => ({ tags: new Set(['a']) })],
    ['a WeakMap', () => [new WeakMap()]],
  ])('%s is a masked 500, not {} under a 200', async (_name, value) => {
    const { seen, response } = answer(value);
    expect((await response).status).toBe(500);
    expect(String(seen[0])).toMatch(/(is|holds) a Map or Set( at #\/(tags|0))?: JSON writes it as \{\}/);
  });

  it('an object that holds itself twice is refused by its format at once, not walked 2^depth times', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.a = cyclic;
    cyclic.b = cyclic;
    cyclic.c = [cyclic, cyclic];
    const { seen, response } = answer(() => cyclic);
    expect((await response).status).toBe(500);
    expect(String(seen[0])).toMatch(/circular/i);
  });

  it('bytes beside a DAG that shares one node on each of 40 levels are found after a walk of one step per node', async () => {
    let shared: Record<string, unknown> = { leaf: 1 };
    for (let level = 0; level < 40; level++) shared = { left: shared, right: shared };
    const { seen, response } = answer(() => ({ shared, bytes: new Uint8Array(1) }));
    expect((await response).status).toBe(500);
    expect(String(seen[0])).toContain('bytes at #/bytes');
  });

  it('a Uint8Array in an array nested 100 deep is a masked 500, not {"0":1}', async () => {
    let value: unknown = [new Uint8Array([1])];
    for (let level = 0; level < 100; level++) value = [value];
    const { seen, response } = answer(() => value);
    const awaited = await response;
    expect(awaited.status).toBe(500);
    expect(String(seen[0])).toContain('bytes');
  });

  it('a plain object 20,000 levels deep is answered: 500 when JSON runs out of stack', async () => {
    const root: Record<string, unknown> = {};
    let node = root;
    for (let level = 0; level < 20_000; level++) node = node.a = {};
    const { seen, response } = answer(() => root);
    expect((await response).status).toBe(500);
    expect(seen).toHaveLength(1);
  });

  it('a class that extends Map with a toJSON is written as its toJSON says', async () => {
    class Tags extends Map<string, number> {
      toJSON() {
        return Object.fromEntries(this);
      }
    }
    expect((await answer(() => ({ tags: new Tags([['a', 1]]) })).response).payload).toBe('{"tags":{"a":1}}');
  });

  it('a frozen object and an array of 1,000,000 numbers are written', async () => {
    expect((await answer(() => Object.freeze({ a: Object.freeze([1]) })).response).payload).toBe('{"a":[1]}');
    const big = answer(() => Array.from({ length: 1_000_000 }, (_, index) => index));
    expect((await big.response).status).toBe(200);
  });

  // Left: the check reads a getter (twice: once to see whether the result is flat, once to look
  // into it), then the format reads it again. A getter that gives data to the check and a stream to
  // the format has the stream written as its fields under a 200. Only the user's own code can do
  // this to itself; the check would need to serialize what it read.
  it.fails('a getter that gives {} to the check and a stream to the format is a masked 500', async () => {
    let reads = 0;
    const { response } = answer(() => ({
      get data() {
        reads++;
        return reads <= 2 ? {} : Readable.from(['x']);
      },
    }));
    expect((await response).status).toBe(500);
  });

  // Left: a class's toJSON is trusted; what it returns is not looked at (calling it twice could
  // run user code twice, and a toJSON that returns `this` would loop).
  it.fails('a class whose toJSON returns a stream is a masked 500', async () => {
    class Report {
      toJSON() {
        return Readable.from(['x']);
      }
    }
    const { response } = answer(() => ({ report: new Report() }));
    expect((await response).status).toBe(500);
  });
});

describe('fastify with fallthrough: false: a trailing-slash path has a route that hooks see', () => {
  for (const options of [{}, { routerOptions: { ignoreTrailingSlash: true } }]) {
    // Regression: GET /v1/admin/stats/ went to the not-found handler, where routeOptions.url is
    // undefined, and the API served it as /admin/stats past the guard.
    it(`Fastify(${JSON.stringify(options)}): GET /v1/admin/stats/ is the guard's, GET /v1/ the API's`, async () => {
      const app = Fastify({ forceCloseConnections: true, ...options });
      app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        if (request.routeOptions.url?.startsWith('/v1/admin') === true) return reply.code(403).send(GUARDED);
      });
      await app.register(toFastify(adminApi(), { fallthrough: false }), { prefix: '/v1' });
      try {
        expect((await app.inject({ method: 'GET', url: '/v1/admin/stats/' })).body).toBe(GUARDED);
        expect((await app.inject({ method: 'GET', url: '/v1/admin/7/' })).body).toBe(GUARDED);
        expect((await app.inject({ method: 'GET', url: '/v1/' })).body).toBe('{"at":"root"}');
        expect((await app.inject({ method: 'GET', url: '/v1/nothing/' })).statusCode).toBe(404);
      } finally {
        await app.close();
      }
    });
  }
});
