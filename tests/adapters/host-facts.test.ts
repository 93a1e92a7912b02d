/**
 * What the host knows reaches the API: its own objects (`ctx.host`), the client's address after the
 * host's trust-proxy rule (`ctx.ip`), its request id (`ctx.id`, every problem's `instance`, what
 * `onError` learns) and its logger (`ctx.log`), over real servers of each host.
 */
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import Fastify from 'fastify';
import pino from 'pino';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, endpoint, UnauthorizedError, type ApiRequest, type ErrorInfo } from '../../src/index.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { expectProblem, answerOf } from '../helpers/problem.js';

interface Seen {
  host: unknown;
  ip: string | undefined;
  id: string;
  principal: unknown;
}

/** What the last handler saw of the host. */
let lastSeen: Seen | undefined;

/** An API that shows what a handler sees of the host, and takes its caller from what the host authenticated. */
function hostApi(reports: ErrorInfo[] = []) {
  return createApi({
    // The identity the host already has: a user its middleware put on the request.
    authenticate: (request: ApiRequest) => {
      const host = request.host as { req?: { user?: unknown }; request?: { user?: unknown } } | undefined;
      const user = host?.req?.user ?? host?.request?.user;
      if (user === 'expired') throw new UnauthorizedError('The sign-in has expired');
      return user as { id: number } | undefined;
    },
    onError: (_error, info) => reports.push(info),
    endpoints: [
      endpoint('GET', '/whoami', {
        handle: (ctx) => {
          ctx.log.info({ requestId: ctx.id }, 'whoami');
          // The host's objects cannot be sent: the test reads them here.
          lastSeen = { host: ctx.host, ip: ctx.ip, id: ctx.id, principal: ctx.principal };
          return { id: ctx.id, ip: ctx.ip ?? null };
        },
      }),
      endpoint('GET', '/crash', {
        handle: () => {
          throw new Error('the store is down');
        },
      }),
    ],
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('in memory', () => {
  it('ctx.host is what the caller passed (nothing, from api.handle alone), ctx.ip undefined, the id a new urn:uuid', async () => {
    const api = hostApi();
    lastSeen = undefined;
    const response = await api.handle({ method: 'GET', url: '/whoami', host: { req: { user: { id: 7 } } } });
    expect(response.status).toBe(200);
    expect(lastSeen).toEqual({ host: { req: { user: { id: 7 } } }, ip: undefined, id: expect.stringMatching(/^urn:uuid:/), principal: { id: 7 } });
    expectProblem(await api.handle({ method: 'GET', url: '/whoami' }), { status: 401 });
    const crash = await api.handle({ method: 'GET', url: '/crash', host: { req: { user: { id: 1 } } } });
    expect(crash.status).toBe(500);
    expect((crash.body as { instance: string }).instance).toMatch(/^urn:uuid:/);
  });
});

describe('node:http', () => {
  let base: string;
  const server = createServer(toNodeListener(hostApi()));
  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('without a caller the API answers its 401, and the handler never runs', async () => {
    lastSeen = undefined;
    expectProblem(await answerOf(await fetch(`${base}/whoami`)), { status: 401, code: 'RC_UNAUTHORIZED' });
    expect(lastSeen).toBeUndefined();
  });

  it('gives { req, res } and the socket’s address to authenticate and the handler', async () => {
    const api = createApi({
      authenticate: (request) => ((request.host as { req: IncomingMessage }).req instanceof IncomingMessage ? { id: 1, ip: request.ip } : undefined),
      endpoints: [endpoint('GET', '/whoami', { handle: (ctx) => ({ principal: ctx.principal, ip: ctx.ip, res: (ctx.host as { res: unknown }).res instanceof ServerResponse }) })],
    });
    const own = createServer(toNodeListener(api));
    const url = await listen(own);
    try {
      expect(await (await fetch(`${url}/whoami`)).json()).toEqual({ principal: { id: 1, ip: '127.0.0.1' }, ip: '127.0.0.1', res: true });
    } finally {
      await new Promise<void>((resolve) => own.close(() => resolve()));
    }
  });
});

describe('Express', () => {
  const reports: ErrorInfo[] = [];
  const app = express();
  app.set('trust proxy', 'loopback');
  // The host's own authentication (as passport would): a user on the request, or none.
  app.use((req, _res, next) => {
    const token = req.headers.authorization;
    if (token === 'Bearer alice') (req as { user?: unknown }).user = { id: 1 };
    if (token === 'Bearer expired') (req as { user?: unknown }).user = 'expired';
    next();
  });
  app.use('/v1', toExpress(hostApi(reports)));
  const server = createServer(app);
  let base: string;
  beforeAll(async () => {
    base = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('the host’s user becomes the principal; ctx.host is { req, res }; ctx.ip follows trust proxy', async () => {
    lastSeen = undefined;
    const response = await fetch(`${base}/v1/whoami`, { headers: { authorization: 'Bearer alice', 'x-forwarded-for': '203.0.113.7' } });
    expect(response.status).toBe(200);
    expect(lastSeen!.principal).toEqual({ id: 1 });
    expect(lastSeen!.ip).toBe('203.0.113.7');
    const host = lastSeen!.host as { req: unknown; res: unknown };
    expect(host.req).toBeInstanceOf(IncomingMessage);
    expect(host.res).toBeInstanceOf(ServerResponse);
    expect((host.req as { originalUrl: string }).originalUrl).toBe('/v1/whoami');
  });

  it('401 and 403 are unchanged: no user is the API’s 401, an expired sign-in the 401 it throws', async () => {
    expectProblem(await answerOf(await fetch(`${base}/v1/whoami`)), { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer realm="api"' } });
    expectProblem(await answerOf(await fetch(`${base}/v1/whoami`, { headers: { authorization: 'Bearer expired' } })), { status: 401, detail: 'The sign-in has expired' });
  });

  it('a problem’s instance is the id onError learns', async () => {
    const crash = await answerOf(await fetch(`${base}/v1/crash`, { headers: { authorization: 'Bearer alice' } }));
    const problem = expectProblem(crash, { status: 500 });
    expect(reports.at(-1)?.requestId).toBe(problem.instance);
  });
});

describe('Fastify', () => {
  const lines: Record<string, unknown>[] = [];
  const reports: ErrorInfo[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  let counter = 0;
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, destination), genReqId: () => `fastify-${++counter}`, trustProxy: true });
  let base: string;
  beforeAll(async () => {
    // The host's own authentication (as @fastify/jwt's request.user after jwtVerify()).
    app.addHook('onRequest', async (request) => {
      if (request.headers.authorization === 'Bearer alice') (request as { user?: unknown }).user = { id: 1 };
    });
    await app.register(toFastify(hostApi(reports)));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('request.id is the request’s id, request.log its logger, request.ip its address; request.user the principal', async () => {
    lastSeen = undefined;
    const response = await fetch(`${base}/whoami`, { headers: { authorization: 'Bearer alice', 'x-forwarded-for': '198.51.100.9' } });
    expect(response.status).toBe(200);
    expect(lastSeen!.id).toMatch(/^fastify-\d+$/);
    expect(lastSeen!.ip).toBe('198.51.100.9');
    expect(lastSeen!.principal).toEqual({ id: 1 });
    expect((lastSeen!.host as { request: { id: string } }).request.id).toBe(lastSeen!.id);
    // The handler's line went through Fastify's child logger: it carries Fastify's reqId.
    expect(lines.find((line) => line.msg === 'whoami')).toMatchObject({ reqId: lastSeen!.id, requestId: lastSeen!.id });
  });

  it('a 4xx and a 5xx name Fastify’s id as their instance, and onError learns it', async () => {
    const denied = expectProblem(await answerOf(await fetch(`${base}/whoami`)), { status: 401 });
    expect(denied.instance).toMatch(/^fastify-\d+$/);
    const crash = expectProblem(await answerOf(await fetch(`${base}/crash`, { headers: { authorization: 'Bearer alice' } })), { status: 500 });
    expect(crash.instance).toMatch(/^fastify-\d+$/);
    expect(reports.at(-1)?.requestId).toBe(crash.instance);
  });
});

describe('Fetch on @hono/node-server', () => {
  it('ctx.host holds the Request and what the host passed beside it; ctx.ip is Node’s socket’s', async () => {
    const api = createApi({
      endpoints: [endpoint('GET', '/whoami', { handle: (ctx) => ({ request: (ctx.host as { request: unknown }).request instanceof Request, env: typeof (ctx.host as { env: unknown }).env, ip: ctx.ip ?? null }) })],
    });
    const viaNode = serve({ fetch: (request, env) => toFetch(api)(request, env), port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => viaNode.once('listening', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(viaNode.address() as AddressInfo).port}`;
      expect(await (await fetch(`${url}/whoami`)).json()).toEqual({ request: true, env: 'object', ip: '127.0.0.1' });
    } finally {
      await new Promise<void>((resolve) => viaNode.close(() => resolve()));
    }
    // A runtime that passes something else beside the Request (Workers' bindings): no address.
    const answer = await toFetch(api)(new Request('http://example.com/whoami'), { kind: 'worker' });
    expect(await answer.json()).toEqual({ request: true, env: 'object', ip: null });
  });
});

describe('requestId over a host', () => {
  it('echo sends the id a trusted header gave, and a new one for an untrusted value', async () => {
    const api = createApi({ requestId: { from: 'x-request-id', echo: 'x-request-id' }, endpoints: [endpoint('GET', '/ping', { handle: (ctx) => ({ id: ctx.id }) })] });
    const server = createServer(toNodeListener(api));
    const base = await listen(server);
    try {
      const given = await fetch(`${base}/ping`, { headers: { 'x-request-id': 'edge-7f3a' } });
      expect(given.headers.get('x-request-id')).toBe('edge-7f3a');
      expect(await given.json()).toEqual({ id: 'edge-7f3a' });
      const forged = await fetch(`${base}/ping`, { headers: { 'x-request-id': 'x'.repeat(200) } });
      expect(forged.headers.get('x-request-id')).toMatch(/^urn:uuid:/);
      const missing = await answerOf(await fetch(`${base}/nothing`, { headers: { 'x-request-id': 'edge-8' } }));
      expect(expectProblem(missing, { status: 404, headers: { 'x-request-id': 'edge-8' } }).instance).toBe('edge-8');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('ctx.ip after the host’s trust-proxy setting, read only when asked', () => {
  /** An API with one endpoint that reads ctx.ip and one that does not. */
  function addressApi() {
    return createApi({
      endpoints: [endpoint('GET', '/ip', { handle: (ctx) => ({ ip: ctx.ip ?? null }) }), endpoint('GET', '/quiet', { handle: () => ({ quiet: true }) })],
    });
  }
  const forwarded = { 'x-forwarded-for': '203.0.113.7' };
  const ipOf = async (base: string) => ((await (await fetch(`${base}/ip`, { headers: forwarded })).json()) as { ip: string }).ip;

  /** Each host with the API at its root, under a trust-proxy setting it reads as its own. */
  const hosts: ReadonlyArray<readonly [string, (trust: unknown) => Promise<{ base: string; close: () => Promise<void> }>]> = [
    [
      'Express',
      async (trust) => {
        const app = express();
        app.set('trust proxy', trust);
        app.use(toExpress(addressApi()));
        const server = createServer(app);
        return { base: await listen(server), close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
      },
    ],
    [
      'Fastify',
      async (trust) => {
        const app = Fastify({ trustProxy: trust as boolean, forceCloseConnections: true });
        await app.register(toFastify(addressApi()));
        await app.listen({ port: 0, host: '127.0.0.1' });
        return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
      },
    ],
  ];

  describe.each(hosts)('%s', (_name, start) => {
    it('without trust proxy, ctx.ip is the socket’s address whatever X-Forwarded-For says; with it, the forwarded client', async () => {
      const untrusting = await start(false);
      try {
        expect(await ipOf(untrusting.base)).toBe('127.0.0.1');
      } finally {
        await untrusting.close();
      }
      const trusting = await start(true);
      try {
        expect(await ipOf(trusting.base)).toBe('203.0.113.7');
      } finally {
        await trusting.close();
      }
    });

    it('the trust-proxy rule runs only for a request whose handler reads ctx.ip (GET /quiet with X-Forwarded-For: none)', async () => {
      const asked: string[] = [];
      const host = await start((address: string) => {
        asked.push(address);
        return address === '127.0.0.1';
      });
      try {
        expect((await fetch(`${host.base}/quiet`, { headers: forwarded })).status).toBe(200);
        expect(asked).toEqual([]);
        expect(await ipOf(host.base)).toBe('203.0.113.7');
        expect(asked).toContain('127.0.0.1');
      } finally {
        await host.close();
      }
    });

    it('with a trust-proxy rule and no X-Forwarded-For, ctx.ip is the socket’s address, and the rule has nothing to weigh', async () => {
      const asked: string[] = [];
      const host = await start((address: string) => {
        asked.push(address);
        return true;
      });
      try {
        expect(((await (await fetch(`${host.base}/ip`)).json()) as { ip: string }).ip).toBe('127.0.0.1');
        expect((await fetch(`${host.base}/quiet`)).status).toBe(200);
        expect(asked).toEqual([]);
      } finally {
        await host.close();
      }
    });
  });
});
