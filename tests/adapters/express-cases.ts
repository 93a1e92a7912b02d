/**
 * Express-specific tests, run once with Express 4 and once with Express 5 (their request handling
 * differs: Express 4's body parsers mark `req._body`, Express 5's only end the stream).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressHandler, toExpress } from '../../src/adapters/express.js';
import { createApi, endpoint, type Api } from '../../src/index.js';
import { listen, runAdapterSuite, type MountedServer } from './conformance.js';
import { BODY_LIMIT, SECRET, fixtureApi, handlerOptions } from '../fixture/api.js';
import { expectProblem, withoutInstance } from '../helpers/problem.js';

type Express = typeof express;

async function serve(app: ReturnType<Express>): Promise<MountedServer> {
  return listen(http.createServer(app));
}

async function call(server: MountedServer, method: string, path: string, init: { token?: string; type?: string; body?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.type !== undefined) headers['content-type'] = init.type;
  const response = await fetch(server.baseUrl + path, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) });
  const headerRecord = Object.fromEntries(response.headers);
  delete headerRecord.date;
  delete headerRecord.etag;
  return { status: response.status, headers: headerRecord, text: await response.text() };
}

/** An answer as two requests get it alike: a problem names its own request in `instance`, which is left out. */
function alike(answer: Awaited<ReturnType<typeof call>>): unknown {
  if (answer.headers['content-type']?.startsWith('application/problem+json') !== true) return answer;
  const { 'content-length': _length, ...headers } = answer.headers;
  return { ...answer, headers, text: withoutInstance(JSON.parse(answer.text)) };
}

export function runExpressSuite(name: string, express: Express): void {
  runAdapterSuite(
    name,
    (api: Api, { prefix }) => {
      const app = express();
      app.disable('x-powered-by');
      // The suite compares each answer with the API's in memory, which has no ETag of Express's: the
      // app's own ETags are tested on their own below.
      app.set('etag', false);
      // The API owns everything below its mount point here, as node and fetch do.
      app.use(prefix ?? '/', toExpress(api, { fallthrough: false }));
      return serve(app);
    },
    { prefix: 'mount' },
  );

  // Each template a route of an Express router, with the router settings users turn on: the answers
  // stay the API's, also where the router matches spellings the API does not (case, a trailing slash).
  for (const routerOptions of [{}, { caseSensitive: true, strict: true }]) {
    runAdapterSuite(
      `${name} with the API's routes on express.Router(${JSON.stringify(routerOptions)})`,
      (api: Api, { prefix }) => {
        const app = express();
        app.disable('x-powered-by');
        app.set('etag', false);
        app.use(prefix ?? '/', toExpress(api, { fallthrough: false, router: express.Router(routerOptions) }));
        return serve(app);
      },
      { prefix: 'mount' },
    );
  }

  describe(`${name} specifics`, () => {
    const fixture = fixtureApi();
    let server: MountedServer;
    let seenByHost: { url: string; originalUrl: string } | undefined;

    beforeAll(async () => {
      const app = express();
      app.disable('x-powered-by');
      app.use('/v1', toExpress(fixture.api));
      app.get('/v1/host-route', (req, res) => {
        seenByHost = { url: req.url, originalUrl: req.originalUrl };
        res.json({ host: true });
      });
      app.post('/v1/echo', express.text({ type: '*/*' }), (req, res) => {
        res.type('text/plain').send(req.body);
      });
      server = await serve(app);
    });
    afterAll(() => server.close());

    it('a path the API does not know falls through to the host app with next(), with its URLs untouched', async () => {
      const answer = await call(server, 'GET', '/v1/host-route');
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ host: true });
      expect(seenByHost).toEqual({ url: '/v1/host-route', originalUrl: '/v1/host-route' });
    });

    it('a path that falls through keeps its body unread for the host', async () => {
      const answer = await call(server, 'POST', '/v1/echo', { type: 'text/plain', body: 'still here' });
      expect(answer).toMatchObject({ status: 200, text: 'still here' });
    });

    it('a path neither knows is the host app’s 404, not a problem', async () => {
      const answer = await call(server, 'GET', '/v1/nothing');
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).not.toContain('problem');
    });

    it('a known path below the mount point is the API', async () => {
      const answer = await call(server, 'GET', '/v1/users/1', { token: 'alice' });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ id: 1, name: 'Alice', email: 'alice@example.com' });
    });
  });

  describe(`${name}: the app's own ETag and 304 on API routes`, () => {
    const fixture = fixtureApi();
    let server: MountedServer;
    let withoutEtags: MountedServer;

    beforeAll(async () => {
      const app = express();
      app.use(toExpress(fixture.api));
      server = await serve(app);
      const plain = express();
      plain.set('etag', false);
      plain.use(toExpress(fixture.api));
      withoutEtags = await serve(plain);
    });
    afterAll(async () => {
      await server.close();
      await withoutEtags.close();
    });

    const get = (base: MountedServer, path: string, headers: Record<string, string> = {}) =>
      fetch(base.baseUrl + path, { headers: { authorization: 'Bearer alice', ...headers } });

    it('a GET gets the weak ETag Express gives res.send, and the same request with it answers 304 without a body', async () => {
      const first = await get(server, '/users/1');
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^W\/"[^"]+"$/);
      expect(await first.json()).toEqual({ id: 1, name: 'Alice', email: 'alice@example.com' });
      const again = await get(server, '/users/1', { 'if-none-match': etag! });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
      const changed = await get(server, '/users/1', { 'if-none-match': 'W/"other"' });
      expect(changed.status).toBe(200);
    });

    it('errors and other methods get no ETag of Express', async () => {
      const missing = await get(server, '/users/999');
      expect(missing.status).toBe(404);
      expect(missing.headers.get('etag')).toBeNull();
      const created = await fetch(server.baseUrl + '/users', {
        method: 'POST',
        headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Carol', email: 'carol@example.com' }),
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('etag')).toBeNull();
    });

    it("a 206 of one range gets no ETag of Express's made from its part, and Range with If-None-Match of that tag is no 304", async () => {
      const app = express();
      app.use(toExpress(createApi({ endpoints: [endpoint('GET', '/clip', { produces: ['application/octet-stream'], handle: () => new TextEncoder().encode('abcdefghijklmnopqrstuvwxyz') })] })));
      const rangeServer = await serve(app);
      try {
        const whole = await fetch(`${rangeServer.baseUrl}/clip`);
        expect(whole.status).toBe(200);
        expect(whole.headers.get('etag')).toMatch(/^W\/"[^"]+"$/);
        const part = await fetch(`${rangeServer.baseUrl}/clip`, { headers: { range: 'bytes=0-3' } });
        expect(part.status).toBe(206);
        // RFC 9110 §15.3.7: a 206 carries the validator of the whole representation, or none; never one of its part.
        expect(part.headers.get('etag')).toBeNull();
        expect(await part.text()).toBe('abcd');
        const partTag = `W/"4-${createHash('sha1').update('abcd').digest('base64').slice(0, 27)}"`;
        const again = await fetch(`${rangeServer.baseUrl}/clip`, { headers: { range: 'bytes=0-3', 'if-none-match': partTag } });
        expect(again.status).toBe(206);
        expect(await again.text()).toBe('abcd');
      } finally {
        await rangeServer.close();
      }
    });

    it("the app's 304 keeps the CORS grant, so a page that sent the ETag it read can read the 304", async () => {
      const app = express();
      app.use(toExpress(createApi({ cors: { origins: ['http://app.test'] }, endpoints: [endpoint('GET', '/reports', { handle: () => ({ total: 1 }) })] })));
      const corsServer = await serve(app);
      try {
        const headers = { origin: 'http://app.test' };
        const first = await fetch(`${corsServer.baseUrl}/reports`, { headers });
        const etag = first.headers.get('etag')!;
        const again = await fetch(`${corsServer.baseUrl}/reports`, { headers: { ...headers, 'if-none-match': etag } });
        expect(again.status).toBe(304);
        expect(again.headers.get('access-control-allow-origin')).toBe('http://app.test');
        expect(again.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('etag');
        expect(again.headers.get('vary')).toContain('Origin');
      } finally {
        await corsServer.close();
      }
    });

    it("app.set('etag', false) turns them off, as for every other route", async () => {
      const answer = await get(withoutEtags, '/users/1');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('etag')).toBeNull();
    });
  });

  describe(`${name} with and without express.json() before it`, () => {
    const plain = fixtureApi();
    const parsed = fixtureApi();
    let plainServer: MountedServer;
    let parsedServer: MountedServer;

    beforeAll(async () => {
      const plainApp = express();
      plainApp.disable('x-powered-by');
      plainApp.use(toExpress(plain.api));
      plainServer = await serve(plainApp);
      const parsedApp = express();
      parsedApp.disable('x-powered-by');
      parsedApp.use(express.json({ type: ['application/json', 'application/*+json'] }));
      parsedApp.use(toExpress(parsed.api));
      parsedServer = await serve(parsedApp);
    });
    afterAll(async () => {
      await plainServer.close();
      await parsedServer.close();
    });

    const big = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT * 2), email: 'big@example.com' });
    const cases: [string, string, { token?: string; type?: string; body?: string }][] = [
      ['POST', '/users', { token: 'alice', type: 'application/json', body: '{"name":"Carol","email":"carol@example.com"}' }],
      ['POST', '/users', { token: 'alice', type: 'application/json', body: '{"name":"","email":"nope"}' }],
      ['POST', '/users', { token: 'alice', type: 'application/json', body: '{"__proto__":{"admin":true}}' }],
      ['POST', '/users', { token: 'alice', type: 'text/plain', body: 'name=Carol' }],
      ['POST', '/users', { token: 'alice', type: 'application/json', body: big }],
      ['POST', '/users', { token: 'alice', type: 'application/json', body: '{"name":' }],
      ['POST', '/users', { type: 'application/json', body: '{"name":' }],
      ['POST', '/users', { token: 'alice', type: 'application/json; charset=latin1', body: '{"name":"Carol","email":"carol@example.com"}' }],
      ['POST', '/users', { token: 'alice', type: 'application/json' }],
      ['POST', '/users', { type: 'application/json', body: '{"name":"Carol","email":"carol@example.com"}' }],
      ['PATCH', '/users/2', { token: 'bob', type: 'application/merge-patch+json', body: '{"name":"Robert"}' }],
      ['PUT', '/users/999', { token: 'bob', type: 'application/json', body: '{"name":"Nobody","email":"no@example.com"}' }],
      ['DELETE', '/users', { token: 'bob', type: 'application/json', body: '{}' }],
      ['GET', '/users/1', { token: 'alice' }],
    ];
    for (const [method, path, init] of cases) {
      it(`${method} ${path} as ${init.token ?? 'nobody'} ${init.type ?? ''} ${(init.body ?? '').slice(0, 40)} answers the same`, async () => {
        plain.store.reset();
        parsed.store.reset();
        const withoutParser = await call(plainServer, method, path, init);
        const withParser = await call(parsedServer, method, path, init);
        expect(alike(withParser)).toEqual(alike(withoutParser));
      });
    }
  });

  describe(`${name} expressHandler`, () => {
    const fixture = fixtureApi();
    let server: MountedServer;
    const hostErrors: unknown[] = [];
    const reported: unknown[] = [];

    beforeAll(async () => {
      const { readUser, createUser, readReports } = fixture.endpoints;
      const app = express();
      app.disable('x-powered-by');
      app.get('/people/:id', expressHandler(readUser, handlerOptions));
      app.post('/people', expressHandler(createUser, handlerOptions));
      app.post('/parsed-people', express.json(), expressHandler(createUser, handlerOptions));
      app.get('/failures', expressHandler(readReports, { ...handlerOptions, onError: (error) => reported.push(error) }));
      app.use((error: unknown, _req: unknown, res: express.Response, _next: unknown) => {
        hostErrors.push(error);
        res.status(599).end();
      });
      server = await serve(app);
    });
    afterAll(() => server.close());

    it('reads with the params of the Express route', async () => {
      const answer = await call(server, 'GET', '/people/2', { token: 'bob' });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ id: 2, name: 'Bob', email: 'bob@example.com' });
    });

    it('a handler that returns undefined is 404', async () => {
      expectProblem(await call(server, 'GET', '/people/404', { token: 'bob' }), { status: 404, code: 'RC_NOT_FOUND' });
    });

    it('an invalid param or body is 400 with errors, from the raw stream or from express.json()', async () => {
      const param = expectProblem(await call(server, 'GET', '/people/zero', { token: 'bob' }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(param.errors).toEqual([expect.objectContaining({ in: 'path', pointer: '#/id' })]);
      for (const path of ['/people', '/parsed-people']) {
        const body = expectProblem(await call(server, 'POST', path, { token: 'bob', type: 'application/json', body: '{"name":""}' }), { status: 400, code: 'RC_INVALID_INPUT' });
        expect(body.errors).toHaveLength(2);
      }
    });

    it('creates with 201', async () => {
      const answer = await call(server, 'POST', '/parsed-people', { token: 'bob', type: 'application/json', body: '{"name":"Dan","email":"dan@example.com"}' });
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.text)).toMatchObject({ name: 'Dan' });
    });

    it('a failing handler is a masked 500 that never reaches the host error handler', async () => {
      // expectProblem also checks that the answer does not hold the fixture's secret.
      const problem = expectProblem(await call(server, 'GET', '/failures', { token: 'bob' }), { status: 500, code: 'RC_INTERNAL' });
      expect(problem.instance).toMatch(/^urn:uuid:/);
      expect(hostErrors).toEqual([]);
      expect(reported).toEqual([new Error(`connection refused: ${SECRET}`)]);
    });
  });
}
