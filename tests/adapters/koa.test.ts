/**
 * restcanon/koa on Koa 3 and on Koa 2 (`koa2`, an npm alias): the conformance suite below a koa-mount
 * mount path, then what is Koa's own: `next()`, koa-mount and @koa/router prefixes, the body parsers
 * in front of the API, Koa's error handling, and answers written byte for byte as the node adapter's.
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import koaBodyParser from 'koa-bodyparser';
import { bodyParser as koaOrgBodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';
import Koa2 from 'koa2';
import mount from 'koa-mount';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parserErrorsOf, toKoa, type KoaContext } from '../../src/adapters/koa.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { createApi, endpoint } from '../../src/index.js';
import { listen, listening, runAdapterSuite, type MountedServer } from './conformance.js';
import { alike, call, rawBytes, type CallInit } from './host-exchange.js';
import { BODY_LIMIT, SECRET, fixtureApi } from '../fixture/api.js';
import { expectProblem } from '../helpers/problem.js';

type Application = typeof Koa;

const serve = (app: Koa): Promise<MountedServer> => listening(app.listen(0, '127.0.0.1'));

/** The two body parsers, each with its name for the error option. */
const PARSERS = {
  'koa-bodyparser': (onError?: (error: unknown, ctx: KoaContext) => void) => koaBodyParser(onError === undefined ? {} : { onerror: onError }),
  '@koa/bodyparser': (onError?: (error: unknown, ctx: KoaContext) => void) => koaOrgBodyParser(onError === undefined ? {} : { onError }),
} as const;

const big = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT * 2), email: 'big@example.com' });
const valid = '{"name":"Carol","email":"carol@example.com"}';

/** Bodies to POST /users (and one PATCH), each answered by the API alone and by the API behind a parser. */
const BODY_CASES: [string, string, CallInit][] = [
  ['POST', '/users', { token: 'alice', type: 'application/json', body: valid }],
  ['POST', '/users', { token: 'alice', type: 'application/json', body: '{"name":"","email":"nope"}' }],
  ['POST', '/users', { token: 'alice', type: 'application/json', body: '{"__proto__":{"admin":true}}' }],
  ['POST', '/users', { token: 'alice', type: 'application/json', body: `${' '.repeat(BODY_LIMIT)}${valid}`, chunked: true }],
  ['POST', '/users', { token: 'alice', type: 'application/json', body: big }],
  ['POST', '/users', { token: 'alice', type: 'application/json', body: big, chunked: true }],
  ['POST', '/users', { token: 'alice', type: 'application/json', body: '{"name":' }],
  ['POST', '/users', { type: 'application/json', body: '{"name":' }],
  ['POST', '/users', { token: 'alice', type: 'application/json', body: '"Carol"' }],
  ['POST', '/users', { token: 'alice', type: 'text/plain', body: 'name=Carol' }],
  ['POST', '/users', { token: 'alice', type: 'application/x-www-form-urlencoded', body: 'name=Carol' }],
  ['POST', '/users', { token: 'alice', type: 'application/json; charset=latin1', body: valid }],
  ['POST', '/users', { token: 'alice', type: 'application/json', headers: { 'content-encoding': 'gzip' }, body: new Uint8Array(gzipSync(valid)) }],
  ['POST', '/users', { token: 'alice', type: 'application/json', headers: { 'content-encoding': 'gzip' }, body: 'not gzip' }],
  ['POST', '/users', { token: 'alice', type: 'application/json', headers: { 'content-encoding': 'zstd-x' }, body: valid }],
  ['POST', '/users', { token: 'alice', type: 'application/json' }],
  ['POST', '/users', { type: 'application/json', body: valid }],
  ['PATCH', '/users/2', { token: 'bob', type: 'application/merge-patch+json', body: '{"name":"Robert"}' }],
  ['PUT', '/users/999', { token: 'bob', type: 'application/json', body: '{"name":"Nobody","email":"no@example.com"}' }],
];

const caseTitle = ([method, path, init]: [string, string, CallInit]) =>
  `${method} ${path} as ${init.token ?? 'nobody'}, ${init.type ?? 'no type'}${init.headers?.['content-encoding'] === undefined ? '' : `, ${init.headers['content-encoding']}`}${init.chunked === true ? ', chunked' : ''}: ${typeof init.body === 'string' ? init.body.trim().slice(0, 30) : 'gzip of a valid body'}`;

for (const [name, KoaApp] of [['koa 3', Koa], ['koa 2', Koa2 as Application]] as const) {
  runAdapterSuite(
    name,
    (api, { prefix }) => {
      const app = new KoaApp();
      // The API owns everything below its mount point here, as node and fetch do.
      const middleware = toKoa(api, { fallthrough: false });
      app.use(prefix === undefined ? middleware : mount(prefix, middleware));
      return serve(app);
    },
    { prefix: 'mount' },
  );

  runAdapterSuite(
    `${name} with the API's routes on an @koa/router router`,
    (api, { prefix }) => {
      const app = new KoaApp();
      const middleware = toKoa(api, { fallthrough: false, router: new Router() });
      app.use(prefix === undefined ? middleware : mount(prefix, middleware));
      return serve(app);
    },
    { prefix: 'mount' },
  );

  describe(`${name} specifics`, () => {
    const fixture = fixtureApi();
    const hostErrors: unknown[] = [];
    const seenAfterNext: { status: number; path: string }[] = [];
    let server: MountedServer;

    beforeAll(async () => {
      const app = new KoaApp();
      app.silent = true;
      app.on('error', (error) => hostErrors.push(error));
      app.use(async (ctx, next) => {
        ctx.set('x-request-id', 'r-1');
        await next();
        seenAfterNext.push({ status: ctx.status, path: ctx.path });
      });
      app.use(mount('/v1', toKoa(fixture.api)));
      app.use(koaBodyParser({ enableTypes: ['json', 'text'] }));
      const router = new Router();
      router.get('/v1/host-route', (ctx) => void (ctx.body = { host: true, url: ctx.url, originalUrl: ctx.originalUrl }));
      router.post('/v1/echo', (ctx) => void (ctx.body = { echoed: ctx.request.body }));
      router.get('/v1/broken', () => {
        throw Object.assign(new Error(`host route failed: ${SECRET}`), { status: 502 });
      });
      app.use(router.routes());
      server = await serve(app);
    });
    afterAll(() => server.close());

    it('a path the API does not know goes on to the next middleware with next(), with its URLs untouched', async () => {
      const answer = await call(server, 'GET', '/v1/host-route');
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ host: true, url: '/v1/host-route', originalUrl: '/v1/host-route' });
    });

    it('a path that goes on keeps its body unread, for the body parser after the API', async () => {
      const answer = await call(server, 'POST', '/v1/echo', { type: 'application/json', body: '{"still":"here"}' });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ echoed: { still: 'here' } });
    });

    it("a path neither knows is Koa's 404, not a problem", async () => {
      const answer = await call(server, 'GET', '/v1/nothing');
      expect(answer).toMatchObject({ status: 404, text: 'Not Found' });
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
    });

    it("an error a later middleware throws on a path the API passed on is Koa's to handle", async () => {
      hostErrors.length = 0;
      const answer = await call(server, 'GET', '/v1/broken');
      expect(answer.status).toBe(502);
      expect(hostErrors).toEqual([expect.objectContaining({ message: `host route failed: ${SECRET}` })]);
    });

    it("a failing handler of the API is a masked 500, which never reaches Koa's error event", async () => {
      hostErrors.length = 0;
      fixture.errors.length = 0;
      const problem = expectProblem(await call(server, 'GET', '/v1/reports', { token: 'alice' }), { status: 500, code: 'RC_INTERNAL' });
      expect(problem.instance).toMatch(/^urn:uuid:/);
      expect(fixture.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(SECRET) })]);
      expect(hostErrors).toEqual([]);
    });

    it('headers a middleware set before the API stay on its answer, and after next() it reads the API’s status', async () => {
      seenAfterNext.length = 0;
      const answer = await call(server, 'DELETE', '/v1/users', { token: 'alice' });
      expectProblem(answer, { status: 405, code: 'RC_METHOD_NOT_ALLOWED' });
      expect(answer.headers['x-request-id']).toBe('r-1');
      expect(seenAfterNext).toEqual([{ status: 405, path: '/v1/users' }]);
    });

    it("HEAD is answered like GET, with the GET's Content-Type, no body and no Content-Length", async () => {
      const answer = await call(server, 'HEAD', '/v1/users/1', { token: 'alice' });
      expect(answer).toMatchObject({ status: 200, text: '' });
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['content-length']).toBeUndefined();
    });

    it('an option that is not one is refused, naming the one it resembles', () => {
      expect(() => toKoa(fixture.api, { fallthru: false } as never)).toThrow('`fallthru` is not an option of toKoa(); did you mean `fallthrough`?');
      expect(() => parserErrorsOf(fixture.api, { prefx: '/v1' } as never)).toThrow('`prefx` is not an option of parserErrorsOf(); did you mean `prefix`?');
    });
  });

  describe(`${name}: answers byte for byte as the node adapter's`, () => {
    let node: MountedServer;
    let koa: MountedServer;
    beforeAll(async () => {
      node = await listen(http.createServer(toNodeListener(fixtureApi().api)));
      const app = new KoaApp();
      app.use(toKoa(fixtureApi().api, { fallthrough: false }));
      koa = await serve(app);
    });
    afterAll(async () => {
      await node.close();
      await koa.close();
    });

    const head = (lines: string[], body = '') =>
      `${[...lines, 'Host: test', ...(body === '' ? [] : [`Content-Length: ${Buffer.byteLength(body)}`]), 'Connection: close'].join('\r\n')}\r\n\r\n${body}`;
    const alice = 'Authorization: Bearer alice';
    const json = 'Content-Type: application/json';

    // Koa's own answer would differ on several of these: its 204 and 304 without headers it takes for
    // a body's, its text for a status without a body, and its Content-Length.
    it.each([
      ['GET 200', head(['GET /users/1 HTTP/1.1', alice])],
      ['HEAD 200', head(['HEAD /users/1 HTTP/1.1', alice])],
      ['OPTIONS 204', head(['OPTIONS /users/1 HTTP/1.1'])],
      ['GET 304', head(['GET /notes/1 HTTP/1.1', alice, 'If-None-Match: "v1"'])],
      ['HEAD 304', head(['HEAD /notes/1 HTTP/1.1', alice, 'If-None-Match: "v1"'])],
      ['POST 201 with Location, ETag and Last-Modified', head(['POST /notes HTTP/1.1', 'Authorization: Bearer bob', json], '{"title":"plums"}')],
      ['GET 200 with Link', head(['GET /notes?limit=1 HTTP/1.1', alice])],
      ['GET 404', head(['GET /nothing HTTP/1.1', alice])],
      ['DELETE 405', head(['DELETE /users HTTP/1.1', alice])],
      ['GET 401', head(['GET /users/1 HTTP/1.1'])],
      ['POST 413', head(['POST /users HTTP/1.1', alice, json], big)],
      ['POST 413 to a declared Content-Length of 10 GB, Connection: close', `POST /users HTTP/1.1\r\nHost: test\r\n${alice}\r\n${json}\r\nContent-Length: 10000000000\r\n\r\n{}`],
      ['GET 500', head(['GET /reports HTTP/1.1', alice])],
    ])('%s', async (_case, request) => {
      const fromNode = await rawBytes(node, request);
      expect(fromNode).toMatch(/^HTTP\/1\.1 \d{3} /);
      expect(await rawBytes(koa, request)).toBe(fromNode);
    });

    it('GET 200 in a format whose serializer gives bytes (a Uint8Array, which ctx.body would write as JSON)', async () => {
      const bytes = { type: 'application/x-bytes', contentType: 'application/x-bytes', serialize: (value: unknown) => new TextEncoder().encode(JSON.stringify(value)) };
      const bytesApi = () => createApi({ formats: [bytes], endpoints: [endpoint('GET', '/bytes', { handle: () => ({ ok: true }) })] });
      const app = new KoaApp();
      app.use(toKoa(bytesApi()));
      const servers = [await listen(http.createServer(toNodeListener(bytesApi()))), await serve(app)] as const;
      try {
        const request = head(['GET /bytes HTTP/1.1']);
        const fromNode = await rawBytes(servers[0], request);
        expect(fromNode).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"ok":true\}$/);
        expect(await rawBytes(servers[1], request)).toBe(fromNode);
      } finally {
        for (const server of servers) await server.close();
      }
    });
  });

  describe(`${name}: mounted below a prefix, the API's Location and links name it`, () => {
    const servers: MountedServer[] = [];
    afterAll(async () => {
      for (const server of servers) await server.close();
    });

    async function started(app: Koa): Promise<MountedServer> {
      const server = await serve(app);
      servers.push(server);
      return server;
    }

    async function expectLinks(server: MountedServer, prefix: string): Promise<void> {
      const created = await call(server, 'POST', `${prefix}/users`, { token: 'alice', type: 'application/json', body: valid });
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(`${prefix}/users/3`);
      expect((await call(server, 'GET', created.headers.location!, { token: 'alice' })).status).toBe(200);
      const page = await call(server, 'GET', `${prefix}/notes?limit=1`, { token: 'alice' });
      const next = (JSON.parse(page.text) as { next: string }).next;
      expect(next).toMatch(new RegExp(`^${prefix}/notes\\?limit=1&cursor=`));
      expect(page.headers.link).toBe(`<${next}>; rel="next"`);
      expect((await call(server, 'GET', next, { token: 'alice' })).status).toBe(200);
    }

    it('koa-mount inside koa-mount: /a/b', async () => {
      const app = new KoaApp();
      app.use(mount('/a', mount('/b', toKoa(fixtureApi().api))));
      await expectLinks(await started(app), '/a/b');
    });

    // Regression: koa-mount at a path that ends with a slash leaves `users`, without its slash, which
    // the API refused as a malformed target (400 on every path below the mount).
    it('koa-mount at /v1/, which leaves the path without its leading slash: /v1', async () => {
      const app = new KoaApp();
      app.use(mount('/v1/', toKoa(fixtureApi().api)));
      await expectLinks(await started(app), '/v1');
    });

    it('koa-mount at /api/v1 with the API’s basePath /v1: served once, at /api/v1', async () => {
      const app = new KoaApp();
      app.use(mount('/api/v1', toKoa(fixtureApi({ basePath: '/v1' }).api)));
      const server = await started(app);
      await expectLinks(server, '/api/v1');
      expect((await call(server, 'GET', '/api/v1/v1/users/1', { token: 'alice' })).status).toBe(404);
    });

    it("@koa/router, which takes nothing off the path, with its prefix as the API's basePath", async () => {
      const router = new Router({ prefix: '/api' });
      router.all('/{*rest}', toKoa(fixtureApi({ basePath: '/api' }).api));
      router.get('/host', (ctx) => void (ctx.body = 'host'));
      const app = new KoaApp();
      app.use(router.routes());
      const server = await started(app);
      await expectLinks(server, '/api');
      expect((await call(server, 'GET', '/api/host')).text).toBe('host');
    });

    // koa-mount compares the target as sent: another spelling of its prefix is not below it.
    it('GET /%76%31/users and /V1/users are not below koa-mount’s /v1', async () => {
      const app = new KoaApp();
      app.use(mount('/v1', toKoa(fixtureApi().api)));
      const server = await started(app);
      for (const path of ['/%76%31/users/1', '/V1/users/1']) expect(await call(server, 'GET', path, { token: 'alice' })).toMatchObject({ status: 404, text: 'Not Found' });
    });
  });

  for (const [parserName, parser] of Object.entries(PARSERS)) {
    describe(`${name} behind ${parserName}`, () => {
      const servers: Record<'alone' | 'handed' | 'parsed' | 'before', MountedServer> = {} as never;
      const fixtures = { alone: fixtureApi(), handed: fixtureApi(), parsed: fixtureApi(), before: fixtureApi() };
      const hostErrors: unknown[] = [];

      beforeAll(async () => {
        const start = async (app: Koa) => {
          app.silent = true;
          app.on('error', (error) => hostErrors.push(error));
          const router = new Router();
          router.post('/v1/echo', (ctx) => void (ctx.body = { echoed: ctx.request.body ?? null }));
          app.use(router.routes());
          return serve(app);
        };
        const alone = new KoaApp();
        alone.use(mount('/v1', toKoa(fixtures.alone.api)));
        servers.alone = await start(alone);
        // The parser in front, its failures on the API's paths handed to the API.
        const handed = new KoaApp();
        handed.use(parser(parserErrorsOf(fixtures.handed.api, { prefix: '/v1' })));
        handed.use(mount('/v1', toKoa(fixtures.handed.api)));
        servers.handed = await start(handed);
        // The parser in front, on its own.
        const parsed = new KoaApp();
        parsed.use(parser());
        parsed.use(mount('/v1', toKoa(fixtures.parsed.api)));
        servers.parsed = await start(parsed);
        // The API in front of the parser, which parses for the routes after it.
        const before = new KoaApp();
        before.use(mount('/v1', toKoa(fixtures.before.api)));
        before.use(parser());
        servers.before = await start(before);
      });
      afterAll(async () => {
        for (const server of Object.values(servers)) await server.close();
      });

      async function answers(kind: keyof typeof servers, [method, path, init]: [string, string, CallInit]) {
        for (const fixture of Object.values(fixtures)) fixture.store.reset();
        return call(servers[kind], method, `/v1${path}`, init);
      }

      it.each(BODY_CASES.map((bodyCase) => [caseTitle(bodyCase), bodyCase] as const))(
        'with parserErrorsOf, and mounted before it: %s answers as the API alone',
        async (_title, bodyCase) => {
          const alone = alike(await answers('alone', bodyCase));
          expect(alike(await answers('handed', bodyCase))).toEqual(alone);
          expect(alike(await answers('before', bodyCase))).toEqual(alone);
        },
      );

      it.each(BODY_CASES.map((bodyCase) => [caseTitle(bodyCase), bodyCase] as const))(
        'on its own: %s answers as the API alone, or is the parser’s error in Koa’s text',
        async (_title, bodyCase) => {
          const alone = await answers('alone', bodyCase);
          const parsed = await answers('parsed', bodyCase);
          if (parsed.headers['content-type'] !== 'text/plain; charset=utf-8') return expect(alike(parsed)).toEqual(alike(alone));
          expect(parsed.status).toBeGreaterThanOrEqual(400);
          expect(parsed.text).not.toContain('at ');
        },
      );

      it('a body the parser read is checked by the API: the text past the API’s limit is 413, sent chunked', async () => {
        const answer = await answers('parsed', ['POST', '/users', { token: 'alice', type: 'application/json', body: `${' '.repeat(BODY_LIMIT)}${valid}`, chunked: true }]);
        expectProblem(answer, { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
        expect(fixtures.parsed.store.users.has(3)).toBe(false);
      });

      it('with parserErrorsOf, malformed JSON on a path the API does not serve is still the parser’s error, for the host', async () => {
        hostErrors.length = 0;
        const answer = await call(servers.handed, 'POST', '/v1/echo', { type: 'application/json', body: '{"a":' });
        expect(answer).toMatchObject({ status: 400, text: 'Bad Request' });
        expect(hostErrors).toEqual([expect.objectContaining({ status: 400 })]);
        expect(await call(servers.handed, 'POST', '/v1/echo', { type: 'application/json', body: '{"a":1}' })).toMatchObject({ status: 200, text: '{"echoed":{"a":1}}' });
      });

      it('mounted before it, the API leaves the body of a path it passes on to the parser', async () => {
        const answer = await call(servers.before, 'POST', '/v1/echo', { type: 'application/json', body: '{"a":1}' });
        expect(answer).toMatchObject({ status: 200, text: '{"echoed":{"a":1}}' });
      });
    });
  }
}

describe('parserErrorsOf with the API passing a path on that it was told to answer', () => {
  it('the parser’s error goes on to Koa, rather than a route running without its body', async () => {
    const fixture = fixtureApi();
    const hostErrors: unknown[] = [];
    const app = new Koa();
    app.silent = true;
    app.on('error', (error) => hostErrors.push(error));
    // parserErrorsOf is told the API owns everything below /v1; toKoa passes unknown paths on.
    app.use(koaBodyParser({ onerror: parserErrorsOf(fixture.api, { prefix: '/v1', fallthrough: false }) }));
    app.use(mount('/v1', toKoa(fixture.api)));
    const reached: string[] = [];
    app.use((ctx) => void reached.push(ctx.path));
    const server = await serve(app);
    try {
      const answer = await call(server, 'POST', '/v1/elsewhere', { type: 'application/json', body: '{"a":' });
      expect(answer.status).toBe(400);
      expect(reached).toEqual([]);
      expect(hostErrors).toEqual([expect.objectContaining({ status: 400 })]);
    } finally {
      await server.close();
    }
  });
});

