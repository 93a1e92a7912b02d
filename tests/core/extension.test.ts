/**
 * extension(): per-request values on `ctx.state`, a check just before the handler, the outcomes they
 * may end a request with, and an observer of every answer. Each rule is checked through `api.handle`,
 * and what a client sees through every adapter's real server on an ephemeral port; then the checks
 * of `extension()` and of `createApi({ use })` when an API is built.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runInNewContext } from 'node:vm';
import { createAdaptorServer } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { cors } from '../../src/engine.js';
import { openApi } from '../../src/openapi/index.js';
import {
  createApi,
  createEndpointHandler,
  endpoint,
  extension,
  ForbiddenError,
  TooManyRequestsError,
  UnauthorizedError,
  type Api,
  type ApiOptions,
  type ApiRequest,
  type CorsOptions,
  type ErrorInfo,
  type ExtensionOptions,
  type Observation,
} from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expectProblem } from '../helpers/problem.js';

interface Reported {
  error: unknown;
  info: ErrorInfo;
}

/** An API whose `onError` records what it gets, so that an expected report stays out of the console. */
function reportingApi(options: ApiOptions & { cors?: CorsOptions }): { api: Api; reports: Reported[] } {
  const reports: Reported[] = [];
  const api = createApi({ ...options, onError: (error, info) => reports.push({ error, info }) });
  return { api, reports };
}

const get = (url: string, headers: Record<string, string> = {}): ApiRequest => ({ method: 'GET', url, headers });

/** Lets pending callbacks run: what an observer does after the answer is settled. */
const aWhile = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('ctx.state', () => {
  it('reaches the API’s authorize, the endpoint’s authorize and the handler', async () => {
    const seen: unknown[] = [];
    const tenants = extension({ name: 'tenants', state: (request) => ({ tenant: String(request.headers?.['x-tenant'] ?? 'public') }) });
    const { api } = reportingApi({
      use: [tenants],
      authorize: (ctx) => (seen.push(['api', ctx.state.tenant]), ctx.state.tenant !== 'blocked'),
      endpoints: [
        endpoint('GET', '/books', {
          authorize: (ctx) => (seen.push(['endpoint', ctx.state.tenant]), true),
          handle: (ctx) => ({ tenant: ctx.state.tenant }),
        }),
      ],
    });
    const response = await api.handle(get('/books', { 'X-Tenant': 'acme' }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ tenant: 'acme' });
    expect(seen).toEqual([
      ['api', 'acme'],
      ['endpoint', 'acme'],
    ]);
    expectProblem(await api.handle(get('/books', { 'x-tenant': 'blocked' })), { status: 403, code: 'RC_FORBIDDEN' });
  });

  it('merges the values of two extensions, the later one winning a name both set', async () => {
    const { api } = reportingApi({
      use: [extension({ name: 'first', state: () => ({ db: 'main', region: 'eu' }) }), extension({ name: 'second', state: () => ({ region: 'us', tenant: 't1' }) })],
      endpoints: [endpoint('GET', '/books', { handle: (ctx) => ctx.state })],
    });
    const response = await api.handle(get('/books'));
    expect(response.body).toEqual({ db: 'main', region: 'us', tenant: 't1' });
  });

  it('waits for an async state, and an extension giving undefined adds nothing', async () => {
    const { api } = reportingApi({
      use: [
        extension({ name: 'later', state: async () => ((await aWhile()), { user: 'ada' }) }),
        extension({ name: 'nothing', state: () => undefined }),
      ],
      endpoints: [endpoint('GET', '/books', { handle: (ctx) => ctx.state })],
    });
    const response = await api.handle(get('/books'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ user: 'ada' });
  });

  it('a state that throws an HttpError ends the request with its status, as a problem', async () => {
    const { api, reports } = reportingApi({
      use: [
        extension({
          name: 'quota',
          state: (request) => {
            if (request.headers?.['x-tenant'] === 'over') throw new TooManyRequestsError('The quota of this tenant is spent', { retryAfter: 30 });
            return { tenant: 'ok' };
          },
          outcomes: ['tooManyRequests'],
        }),
      ],
      endpoints: [endpoint('GET', '/books', { handle: (ctx) => ctx.state })],
    });
    expectProblem(await api.handle(get('/books', { 'x-tenant': 'over' })), {
      status: 429,
      code: 'RC_TOO_MANY_REQUESTS',
      detail: 'The quota of this tenant is spent',
      headers: { 'retry-after': '30' },
    });
    expect((await api.handle(get('/books'))).status).toBe(200);
    // Declared in `outcomes`: no report of an undeclared status.
    expect(reports).toEqual([]);
  });

  it('a state that rejects with an HttpError answers it too', async () => {
    const { api } = reportingApi({
      use: [extension({ name: 'gate', state: async () => Promise.reject(new ForbiddenError('This tenant is suspended')), outcomes: ['forbidden'] })],
      endpoints: [endpoint('GET', '/books', { handle: () => 'never' })],
    });
    expectProblem(await api.handle(get('/books')), { status: 403, code: 'RC_FORBIDDEN', detail: 'This tenant is suspended' });
  });

  it('runs before authentication: a protected endpoint without credentials answers the state’s error, not 401', async () => {
    let authenticated = 0;
    const { api } = reportingApi({
      authenticate: (request) => {
        authenticated++;
        if (request.headers?.authorization !== 'Bearer ada') throw new UnauthorizedError();
        return { id: 1 };
      },
      use: [
        extension({
          name: 'maintenance',
          state: (request) => {
            if (request.headers?.['x-region'] === 'closed') throw new TooManyRequestsError('Come back later');
            return undefined;
          },
          outcomes: ['tooManyRequests'],
        }),
      ],
      endpoints: [endpoint('GET', '/books', { handle: () => ['dune'] })],
    });
    expectProblem(await api.handle(get('/books', { 'x-region': 'closed' })), { status: 429, detail: 'Come back later' });
    expect(authenticated).toBe(0);
    expectProblem(await api.handle(get('/books')), { status: 401, code: 'RC_UNAUTHORIZED' });
    expect((await api.handle(get('/books', { authorization: 'Bearer ada' }))).body).toEqual(['dune']);
  });

  it.each([
    ['null', null, 'returned null'],
    ['a number', 42, 'returned number'],
    ['an array', ['tenant'], 'returned an array'],
    ['a string', 'acme', 'returned string'],
  ])('a state that returns %s is a masked 500, reported to onError with the extension named', async (_name, value, said) => {
    const { api, reports } = reportingApi({
      use: [extension({ name: 'tenants', state: () => value as never })],
      endpoints: [endpoint('GET', '/books', { handle: () => 'never' })],
    });
    const response = await api.handle(get('/books'));
    expectProblem(response, { status: 500, code: 'RC_INTERNAL', secrets: ['tenants'] });
    expect(reports).toHaveLength(1);
    expect(String(reports[0]!.error)).toContain('extension("tenants"): "state" ' + said);
    expect(String(reports[0]!.error)).toContain('return an object of values, or undefined');
    expect(reports[0]!.info.status).toBe(500);
  });

  it('a state that never settles ends in the timeout’s 503', async () => {
    const { api } = reportingApi({
      timeout: 50,
      use: [extension({ name: 'stuck', state: () => new Promise<never>(() => {}) })],
      endpoints: [endpoint('GET', '/books', { handle: () => 'never' })],
    });
    expectProblem(await api.handle(get('/books')), { status: 503, code: 'RC_TIMEOUT' });
  });

  it('an API without extensions gives every handler one empty, frozen ctx.state', async () => {
    const states: object[] = [];
    const { api } = reportingApi({
      endpoints: [
        endpoint('GET', '/books', {
          handle: (ctx) => {
            states.push(ctx.state);
            return { frozen: Object.isFrozen(ctx.state), keys: Object.keys(ctx.state) };
          },
        }),
      ],
    });
    expect((await api.handle(get('/books'))).body).toEqual({ frozen: true, keys: [] });
    await api.handle(get('/books'));
    // One object for every request: none is allocated.
    expect(states[0]).toBe(states[1]);
  });

  it('an extension’s state is the request’s own: another request never sees it', async () => {
    const { api } = reportingApi({
      use: [extension({ name: 'caller', state: (request) => ({ caller: request.headers?.['x-caller'] }) })],
      endpoints: [
        endpoint('GET', '/books', {
          handle: (ctx) => {
            const before = ctx.state.caller;
            (ctx.state as Record<string, unknown>).touched = true;
            return { before, frozen: Object.isFrozen(ctx.state) };
          },
        }),
      ],
    });
    expect((await api.handle(get('/books', { 'x-caller': 'ada' }))).body).toEqual({ before: 'ada', frozen: false });
    const second = await api.handle(get('/books'));
    expect(second.body).toEqual({ frozen: false });
  });

  it('state returning JSON.parse(\'{"__proto__":{"admin":true}}\') after another extension’s state does not give ctx.state a prototype', async () => {
    // A value parsed from a header: `__proto__` is an own key of it, as it is for JSON.
    const parsed = extension({ name: 'parsed', state: (request) => JSON.parse(String(request.headers?.['x-context'] ?? '{}')) as Record<string, unknown> });
    const { api } = reportingApi({
      use: [
        extension({ name: 'first', state: () => ({ tenant: 'acme' }) }),
        parsed,
      ],
      endpoints: [
        endpoint('GET', '/books', {
          handle: (ctx) => ({ admin: ctx.state.admin ?? null, plain: Object.getPrototypeOf(ctx.state) === Object.prototype, tenant: ctx.state.tenant }),
        }),
      ],
    });
    const response = await api.handle(get('/books', { 'x-context': '{"__proto__":{"admin":true}}' }));
    expect(response.body).toEqual({ admin: null, plain: true, tenant: 'acme' });
    // The same values from the only extension of an API, and from the first of two.
    for (const use of [[parsed], [parsed, extension({ name: 'later', state: () => ({ tenant: 'acme' }) })]]) {
      const alone = createApi({ use, endpoints: [endpoint('GET', '/books', { handle: (ctx) => ({ admin: ctx.state.admin ?? null, plain: Object.getPrototypeOf(ctx.state) === Object.prototype }) })] });
      expect((await alone.handle(get('/books', { 'x-context': '{"__proto__":{"admin":true}}' }))).body).toEqual({ admin: null, plain: true });
    }
  });
});

describe('before', () => {
  /** An API with a query schema, a body schema and an authorize rule, whose `before` records each call. */
  function guardedApi(before: ExtensionOptions['before']) {
    const calls: unknown[] = [];
    const handled: string[] = [];
    const { api, reports } = reportingApi({
      authenticate: (request) => (request.headers?.authorization === 'Bearer ada' ? { id: 1, name: 'ada' } : undefined),
      use: [
        extension({ name: 'tenants', state: () => ({ tenant: 'acme' }) }),
        extension({
          name: 'audit',
          before: (ctx) => {
            calls.push({ principal: ctx.principal, query: ctx.query, body: ctx.body, state: ctx.state });
            return before?.(ctx);
          },
          outcomes: ['forbidden', 'tooManyRequests'],
        }),
      ],
      endpoints: [
        endpoint('POST', '/books', {
          query: z.object({ dryRun: z.enum(['yes', 'no']).optional() }),
          body: z.object({ title: z.string().min(1) }),
          authorize: (ctx) => ctx.body.title !== 'forbidden',
          handle: (ctx) => (handled.push(ctx.body.title), { id: 1, title: ctx.body.title }),
        }),
      ],
    });
    const post = (body: unknown, url = '/books') => api.handle({ method: 'POST', url, headers: { authorization: 'Bearer ada', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { api, reports, calls, handled, post };
  }

  it('runs after validation and authorization, with the validated context and ctx.state', async () => {
    const { calls, post } = guardedApi(undefined);
    const response = await post({ title: 'Dune' }, '/books?dryRun=no');
    expect(response.status).toBe(200);
    expect(calls).toEqual([{ principal: { id: 1, name: 'ada' }, query: { dryRun: 'no' }, body: { title: 'Dune' }, state: { tenant: 'acme' } }]);
  });

  it('is not called when validation answers 400 or authorization 403', async () => {
    const { calls, post, api, handled } = guardedApi(undefined);
    expectProblem(await post({ title: '' }), { status: 400, code: 'RC_INVALID_INPUT' });
    expectProblem(await post({ title: 'Dune' }, '/books?dryRun=maybe'), { status: 400, code: 'RC_INVALID_INPUT' });
    expectProblem(await post({ title: 'forbidden' }), { status: 403, code: 'RC_FORBIDDEN' });
    expectProblem(await api.handle({ method: 'POST', url: '/books', headers: { 'content-type': 'application/json' }, body: '{"title":"x"}' }), { status: 401 });
    expect(calls).toEqual([]);
    expect(handled).toEqual([]);
  });

  it('a ForbiddenError it throws is a 403 problem, and the handler does not run', async () => {
    const { post, reports, handled } = guardedApi((ctx) => {
      if ((ctx.body as { title: string }).title === 'Secret') throw new ForbiddenError('Your tenant may not add this book');
    });
    expectProblem(await post({ title: 'Secret' }), { status: 403, code: 'RC_FORBIDDEN', detail: 'Your tenant may not add this book' });
    expect((await post({ title: 'Dune' })).status).toBe(200);
    expect(handled).toEqual(['Dune']);
    expect(reports).toEqual([]);
  });

  it('an async before is awaited: its rejection answers, its fulfilment lets the handler run', async () => {
    let allowed = false;
    const { post } = guardedApi(async () => {
      await aWhile();
      if (!allowed) throw new TooManyRequestsError('Slow down', { retryAfter: 1 });
    });
    expectProblem(await post({ title: 'Dune' }), { status: 429, detail: 'Slow down', headers: { 'retry-after': '1' } });
    allowed = true;
    expect((await post({ title: 'Dune' })).body).toEqual({ id: 1, title: 'Dune' });
  });

  it('anything but an HttpError it throws is a masked 500, reported', async () => {
    const { post, reports } = guardedApi(() => {
      throw new Error('rate store down: redis://secret@cache');
    });
    expectProblem(await post({ title: 'Dune' }), { status: 500, code: 'RC_INTERNAL', secrets: ['redis://secret@cache'] });
    expect(reports.map(({ error }) => String(error))).toEqual(['Error: rate store down: redis://secret@cache']);
  });
});

describe('outcomes', () => {
  const quota = extension({
    name: 'quota',
    before: () => {},
    outcomes: ['tooManyRequests', 'forbidden'],
  });
  const books = endpoint('GET', '/books', { public: true, handle: () => [] });

  it('join every endpoint’s outcomes in api.routes', () => {
    const without = createApi({ endpoints: [books] });
    const withQuota = createApi({ endpoints: [books], use: [quota] });
    expect(without.routes[0]!.outcomes).not.toContain('tooManyRequests');
    expect(without.routes[0]!.outcomes).not.toContain('forbidden');
    expect(withQuota.routes[0]!.outcomes).toEqual(expect.arrayContaining(['read', 'tooManyRequests', 'forbidden']));
  });

  it('appear in the OpenAPI document’s responses of every operation', async () => {
    const api = createApi({ endpoints: [books, endpoint('POST', '/books', { public: true, body: z.object({ title: z.string() }), handle: (ctx) => ctx.body })], use: [quota], openapi: openApi({ info: { title: 'Books', version: '1' } }) });
    const response = await api.handle(get('/openapi.json'));
    expect(response.status).toBe(200);
    const document = response.body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const verb of ['get', 'post']) {
      expect(Object.keys(document.paths['/books']![verb]!.responses)).toEqual(expect.arrayContaining(['403', '429']));
    }
  });
});

describe('observe', () => {
  /** An API with a sync and an async endpoint, CORS, and an observer that records every observation. */
  function observedApi(observe: (observation: Observation) => unknown = () => {}) {
    const seen: Observation[] = [];
    const { api, reports } = reportingApi({
      cors: { origins: ['https://app.example'] },
      use: [
        extension({
          name: 'metrics',
          observe: (observation) => {
            seen.push(observation);
            return observe(observation);
          },
        }),
      ],
      endpoints: [
        endpoint('GET', '/books', { handle: () => [{ id: 1 }] }),
        endpoint('GET', '/books/:id', { handle: async (ctx) => ((await aWhile()), { id: Number(ctx.params.id) }) }),
        endpoint('GET', '/authors', {
          handle: () => {
            throw new Error('db down');
          },
        }),
      ],
    });
    return { api, reports, seen };
  }

  it('sees each answer once: a sync 200, an async 200, a 404, a 405, a 500 and a CORS preflight, with its route and duration', async () => {
    const { api, seen, reports } = observedApi();
    const requests: ApiRequest[] = [
      get('/books'),
      get('/books/7'),
      get('/nowhere'),
      { method: 'DELETE', url: '/books' },
      get('/authors'),
      { method: 'OPTIONS', url: '/books/7', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } },
    ];
    const answers = [];
    for (const request of requests) answers.push(await api.handle(request));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404, 405, 500, 204]);
    expect(seen.map(({ request, response, route }) => [request.method, request.url, response.status, route])).toEqual([
      ['GET', '/books', 200, '/books'],
      ['GET', '/books/7', 200, '/books/:id'],
      ['GET', '/nowhere', 404, undefined],
      ['DELETE', '/books', 405, '/books'],
      ['GET', '/authors', 500, '/authors'],
      ['OPTIONS', '/books/7', 204, '/books/:id'],
    ]);
    for (const [index, { duration, response }] of seen.entries()) {
      expect(duration).toBeGreaterThanOrEqual(0);
      expect(response.headers).toEqual(answers[index]!.headers);
    }
    // The async one waited for its handler.
    expect(seen[1]!.duration).toBeGreaterThanOrEqual(5);
    expect(seen[5]!.response.headers['access-control-allow-origin']).toBe('https://app.example');
    // The 500 was reported once, for the handler; the observer reported nothing.
    expect(reports.map(({ error }) => String(error))).toEqual(['Error: db down']);
  });

  it('sees a request passed on to a host (dispatch of an unmatched path) not at all', async () => {
    const { api, seen } = observedApi();
    expect(await api.dispatch(get('/nowhere'))).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it.each([
    ['throws', () => {
      throw new Error('metrics sink down');
    }],
    ['rejects', () => Promise.reject(new Error('metrics sink down'))],
  ])('an observer that %s changes no answer, and its error reaches onError', async (_name, observe) => {
    const { api, reports } = observedApi(observe);
    const sync = await api.handle(get('/books'));
    const later = await api.handle(get('/books/3'));
    const missing = await api.handle(get('/nowhere'));
    expect([sync.status, sync.body]).toEqual([200, [{ id: 1 }]]);
    expect([later.status, later.body]).toEqual([200, { id: 3 }]);
    expectProblem(missing, { status: 404, code: 'RC_NOT_FOUND' });
    await aWhile();
    expect(reports.map(({ error, info }) => [String(error), info.status])).toEqual([
      ['Error: metrics sink down', 200],
      ['Error: metrics sink down', 200],
      ['Error: metrics sink down', 404],
    ]);
  });

  it.each([
    ['a promise of another realm (node:vm)', () => runInNewContext('Promise.reject(new Error("metrics sink down"))') as Promise<never>],
    [
      'a promise whose catch was replaced',
      () => {
        const rejected = Promise.reject(new Error('metrics sink down'));
        rejected.catch = () => rejected;
        return rejected;
      },
    ],
  ])('an observer that rejects with %s reaches onError, never an unhandled rejection', async (_name, observe) => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const { api, reports } = observedApi(observe);
      expect((await api.handle(get('/books'))).status).toBe(200);
      await aWhile();
      expect(unhandled).toEqual([]);
      expect(reports.map(({ error }) => (error as Error).message)).toEqual(['metrics sink down']);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('an observer that never settles, or settles late, is not waited for', async () => {
    let finished = false;
    const { api } = observedApi(() => new Promise<never>(() => {}));
    expect((await api.handle(get('/books/1'))).status).toBe(200);
    const slow = observedApi(async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      finished = true;
    });
    const response = await slow.api.handle(get('/books'));
    expect(response.status).toBe(200);
    expect(finished).toBe(false);
  });

  it('gets frozen headers: setting one throws, and the client’s answer keeps its own', async () => {
    const thrown: unknown[] = [];
    const { api, reports } = observedApi(({ response }) => {
      try {
        (response.headers as Record<string, string>)['x-observed'] = 'yes';
      } catch (error) {
        thrown.push(error);
      }
    });
    const response = await api.handle(get('/books'));
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(TypeError);
    expect(response.headers['x-observed']).toBeUndefined();
    expect(Object.isFrozen(response.headers)).toBe(false);
    expect(reports).toEqual([]);
  });

  it('an observer that changes response.body changes neither the answer of api.handle nor the OpenAPI document served next', async () => {
    const { api } = reportingApi({
      openapi: openApi({ info: { title: 'Books', version: '1' } }),
      use: [
        extension({
          name: 'meddler',
          observe: ({ response }) => {
            if (typeof response.body === 'object' && response.body !== null) (response.body as Record<string, unknown>).meddled = true;
          },
        }),
      ],
      endpoints: [endpoint('GET', '/books', { handle: () => ({ count: 1 }) })],
    });
    const response = await api.handle(get('/books'));
    expect(response.body).toEqual({ count: 1 });
    await api.handle(get('/openapi.json'));
    const document = await api.handle(get('/openapi.json'));
    expect(document.body).not.toHaveProperty('meddled');
    expect(String(document.payload)).not.toContain('meddled');
  });

  it('reads response.body as the body sent, when an observer logs it', async () => {
    const bodies: unknown[] = [];
    const { api } = observedApi(({ response }) => bodies.push(response.body));
    await api.handle(get('/books'));
    await api.handle(get('/nowhere'));
    expect(bodies[0]).toEqual([{ id: 1 }]);
    expect(bodies[1]).toMatchObject({ status: 404, code: 'RC_NOT_FOUND' });
  });

  it('createEndpointHandler runs an extension’s state and before', async () => {
    const handler = createEndpointHandler(endpoint('GET', '/books', { handle: (ctx) => ctx.state }), {
      use: [
        extension({
          name: 'tenants',
          state: (request) => ({ tenant: request.headers?.['x-tenant'] }),
          before: (ctx) => {
            if (ctx.state.tenant === 'suspended') throw new ForbiddenError('This tenant is suspended');
          },
          outcomes: ['forbidden'],
        }),
      ],
    });
    expect((await handler(get('/books', { 'x-tenant': 'acme' }), {})).body).toEqual({ tenant: 'acme' });
    expectProblem(await handler(get('/books', { 'x-tenant': 'suspended' }), {}), { status: 403, detail: 'This tenant is suspended' });
  });

  it('createEndpointHandler runs an extension’s observer, or refuses it when built', async () => {
    const seen: number[] = [];
    let handler: ((request: ApiRequest, params: Record<string, string>) => Promise<unknown>) | undefined;
    try {
      handler = createEndpointHandler(endpoint('GET', '/books', { handle: () => [] }), { use: [extension({ name: 'metrics', observe: ({ response }) => void seen.push(response.status) })] });
    } catch (error) {
      // Refused when built: the observer is not dropped without a word.
      expect(error).toBeInstanceOf(TypeError);
      return;
    }
    await handler(get('/books'), {});
    expect(seen).toEqual([200]);
  });

  it('a request with X-Request-Id sends header names in lower case to observe, as to state', async () => {
    const seen: unknown[] = [];
    const { api } = reportingApi({
      use: [
        extension({
          name: 'tracing',
          state: (request) => ({ id: request.headers?.['x-request-id'] }),
          observe: ({ request }) => seen.push(request.headers?.['x-request-id']),
        }),
      ],
      endpoints: [endpoint('GET', '/books', { handle: (ctx) => ctx.state })],
    });
    const response = await api.handle(get('/books', { 'X-Request-Id': 'r-1' }));
    expect(response.body).toEqual({ id: 'r-1' });
    expect(seen).toEqual(['r-1']);
  });
});

type Serve = (api: Api) => Promise<MountedServer>;

const ADAPTERS: ReadonlyArray<readonly [string, Serve]> = [
  ['node', (api) => listen(http.createServer(toNodeListener(api)))],
  [
    'express 4',
    (api) => {
      const app = express4();
      app.disable('x-powered-by');
      app.set('etag', false);
      app.use(toExpress(api, { fallthrough: false }));
      return listen(http.createServer(app));
    },
  ],
  [
    'express 5',
    (api) => {
      const app = express5();
      app.disable('x-powered-by');
      app.set('etag', false);
      app.use(toExpress(api, { fallthrough: false }));
      return listen(http.createServer(app));
    },
  ],
  [
    'fastify',
    async (api) => {
      const app = Fastify({ forceCloseConnections: true });
      await app.register(toFastify(api, { fallthrough: false }));
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  ],
  ['fetch', (api) => listen(createAdaptorServer({ fetch: toFetch(api) }) as Server)],
];

describe.each(ADAPTERS)('extensions over %s', (_name, serve) => {
  const seen: Observation[] = [];
  const reports: Reported[] = [];
  let observerThrows = false;
  const api = createApi({
    cors: { origins: ['https://app.example'] },
    authenticate: (request) => (request.headers?.authorization === 'Bearer ada' ? { id: 1 } : undefined),
    onError: (error, info) => reports.push({ error, info }),
    use: [
      extension({
        name: 'tenants',
        state: async (request) => {
          const tenant = request.headers?.['x-tenant'];
          if (tenant === 'over') throw new TooManyRequestsError('The quota of this tenant is spent', { retryAfter: 60 });
          return { tenant: typeof tenant === 'string' ? tenant : 'public' };
        },
        before: (ctx) => {
          if (ctx.state.tenant === 'suspended') throw new ForbiddenError('This tenant is suspended');
        },
        outcomes: ['tooManyRequests', 'forbidden'],
      }),
      extension({
        name: 'metrics',
        observe: (observation) => {
          seen.push(observation);
          if (observerThrows) throw new Error('metrics sink down');
        },
      }),
    ],
    endpoints: [
      endpoint('GET', '/books', { handle: (ctx) => ({ tenant: ctx.state.tenant }) }),
      endpoint('GET', '/books/:id', { handle: async (ctx) => ((await aWhile()), { id: Number(ctx.params.id), tenant: ctx.state.tenant }) }),
      endpoint('GET', '/authors', {
        handle: () => {
          throw new Error('db down');
        },
      }),
    ],
  });
  let server: MountedServer;

  beforeAll(async () => {
    server = await serve(api);
  });
  afterAll(() => server.close());

  async function call(method: string, path: string, headers: Record<string, string> = {}) {
    const response = await fetch(server.baseUrl + path, { method, headers: { authorization: 'Bearer ada', ...headers } });
    return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
  }

  it('the handler answers with ctx.state; a state’s 429 and a before’s 403 are problems', async () => {
    const ok = await call('GET', '/books/4', { 'x-tenant': 'acme' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text)).toEqual({ id: 4, tenant: 'acme' });
    expectProblem(await call('GET', '/books', { 'x-tenant': 'over' }), { status: 429, code: 'RC_TOO_MANY_REQUESTS', detail: 'The quota of this tenant is spent', headers: { 'retry-after': '60' } });
    expectProblem(await call('GET', '/books', { 'x-tenant': 'suspended' }), { status: 403, code: 'RC_FORBIDDEN', detail: 'This tenant is suspended' });
  });

  it('the observer sees a 200, a 404, a 405, a 500 and a preflight as the client does, with the route', async () => {
    seen.length = 0;
    reports.length = 0;
    const answers = [
      await call('GET', '/books'),
      await call('GET', '/books/2'),
      await call('GET', '/nowhere'),
      await call('DELETE', '/books'),
      await call('GET', '/authors'),
      await call('OPTIONS', '/books', { origin: 'https://app.example', 'access-control-request-method': 'GET' }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 404, 405, 500, 204]);
    expect(seen.map(({ request, response, route }) => [request.method, response.status, route])).toEqual([
      ['GET', 200, '/books'],
      ['GET', 200, '/books/:id'],
      ['GET', 404, undefined],
      ['DELETE', 405, '/books'],
      ['GET', 500, '/authors'],
      ['OPTIONS', 204, '/books'],
    ]);
    for (const observation of seen) expect(observation.duration).toBeGreaterThanOrEqual(0);
    expect(answers[5]!.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(seen[5]!.response.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(reports.map(({ error }) => String(error))).toEqual(['Error: db down']);
  });

  it('an observer that throws changes nothing the client gets, and reaches onError', async () => {
    const before = [await call('GET', '/books'), await call('GET', '/books/5')];
    observerThrows = true;
    reports.length = 0;
    try {
      const after = [await call('GET', '/books'), await call('GET', '/books/5')];
      for (const [index, answer] of after.entries()) {
        expect(answer.status).toBe(before[index]!.status);
        expect(answer.text).toBe(before[index]!.text);
        const { date: _date, ...headers } = answer.headers;
        const { date: _was, ...wereHeaders } = before[index]!.headers;
        expect(headers).toEqual(wereHeaders);
      }
    } finally {
      observerThrows = false;
    }
    expect(reports.map(({ error, info }) => [String(error), info.status])).toEqual([
      ['Error: metrics sink down', 200],
      ['Error: metrics sink down', 200],
    ]);
  });
});

describe('extension() refuses a mistake when it is made', () => {
  const observe = () => {};

  it.each([
    ['no options', undefined, 'give its options'],
    ['no name', { observe }, '"name" is a lower-case word such as "audit"'],
    ['a name in capitals', { name: 'Audit', observe }, '"name" is a lower-case word'],
    ['a name with a space', { name: 'a b', observe }, 'extension("a b"): "name" is a lower-case word'],
    ['a name that is a number', { name: 7, observe }, '"name" is a lower-case word'],
    ['an unknown option', { name: 'audit', observe, obsrve: observe }, '`obsrve` is not an option of extension("audit"); did you mean `observe`?'],
    ['a state that is no function', { name: 'audit', state: { tenant: 'acme' } }, 'extension("audit"): "state" must be a function (request) => the values of ctx.state, got an object'],
    ['a before that is no function', { name: 'audit', before: 'check' }, '"before" must be a function'],
    ['an observe that is no function', { name: 'audit', observe: true }, '"observe" must be a function'],
    ['an unknown outcome', { name: 'audit', before: observe, outcomes: ['teapot'] }, '"outcomes" takes error outcomes (badRequest'],
    ['a success outcome', { name: 'audit', before: observe, outcomes: ['read'] }, 'got "read"'],
    ['outcomes that are no array', { name: 'audit', before: observe, outcomes: 'forbidden' }, '"outcomes" must be an array of error outcomes'],
    ['nothing to do', { name: 'audit' }, 'extension("audit"): it does nothing; give it "state", "before" or "observe"'],
    ['outcomes with only an observer', { name: 'audit', observe, outcomes: ['forbidden'] }, 'extension("audit"): "outcomes" are what "state" and "before" may end a request with'],
  ])('%s', (_name, options, message) => {
    expect(() => extension(options as never)).toThrow(TypeError);
    expect(() => extension(options as never)).toThrow(message);
  });

  it('a name that is a BigInt is refused by the name rule, not by JSON', () => {
    expect(() => extension({ name: 10n, observe } as never)).toThrow('"name" is a lower-case word');
  });

  it('returns a frozen module', () => {
    const module = extension({ name: 'audit', observe });
    expect(Object.isFrozen(module)).toBe(true);
    expect(module.name).toBe('audit');
  });
});

describe('createApi({ use }) refuses a mistake when the API is built', () => {
  const books = endpoint('GET', '/books', { handle: () => [] });
  const audit = extension({ name: 'audit', observe: () => {} });

  it.each([
    ['use that is no array', audit, 'createApi: "use" must be an array of modules, such as [extension({ name, ... })]'],
    ['an entry that is no module', [audit, 'cors'], 'createApi: use[1] is not a module; build one with extension({ name, ... })'],
    ['an entry that is null', [null], 'createApi: use[0] is not a module'],
    ['a module without a name', [{ endpoint: () => undefined }], 'use[0] is not a module'],
    ['a module with a bad name', [{ name: 'My Module' }], 'use[0] is named "My Module"; a module\'s name is a lower-case word'],
    ['a module whose endpoint is no function', [{ name: 'stamp', endpoint: {} }], '"endpoint" that is not a function'],
    ['a module whose options are a string', [{ name: 'stamp', options: 'stamp', api: () => undefined }], 'the module "stamp" has "options" that are not an array of the names of createApi\'s options it reads'],
    ['a module whose options hold no string', [{ name: 'stamp', options: [{ stamp: true }], api: () => undefined }], 'the module "stamp" has "options" that are not an array'],
    ['the same module twice', [audit, audit], 'createApi: the module "audit" is given twice; an API runs each module once'],
    ['two modules of one name', [audit, extension({ name: 'audit', before: () => {} })], 'createApi: two modules are named "audit" (use[0] and use[1]); give each a name of its own'],
    ['a module named like restcanon’s CORS', [extension({ name: 'cors', observe: () => {} })], 'createApi: use[0] is named "cors", as restcanon\'s own cors convention is; give it another name'],
    ['a module named like restcanon’s lists', [extension({ name: 'lists', before: () => {} })], 'use[0] is named "lists", as restcanon\'s own lists convention is'],
    ['restcanon’s own CORS given again', [cors], 'createApi: use[0] is restcanon\'s own cors convention, which this createApi has already; leave it out of "use"'],
    ['a module named like a property of every object', [{ name: 'constructor', endpoint: () => undefined }], 'createApi: use[0] is named "constructor", a name every JavaScript object has; give it another name'],
  ])('%s', (_name, use, message) => {
    expect(() => createApi({ endpoints: [books], use: use as never })).toThrow(TypeError);
    expect(() => createApi({ endpoints: [books], use: use as never })).toThrow(message);
  });

  it('a module named "toString" never gets the prototype’s function as its declaration', () => {
    const declared: unknown[] = [];
    expect(() => createApi({ endpoints: [books], use: [{ name: 'toString', endpoint: (_endpoint, given) => void declared.push(given) }] })).toThrow('a name every JavaScript object has');
    expect(declared).toEqual([]);
  });

  it('more than 1000 modules are refused when the API is built, not by a RangeError on its first request', () => {
    const many = Array.from({ length: 20_000 }, (_, index) => extension({ name: `metric${index}`, observe: () => {} }));
    expect(() => createApi({ endpoints: [books], use: many })).toThrow('createApi: "use" holds 20000 modules; an API takes at most 1000');
    const api = createApi({ endpoints: [books], use: many.slice(0, 1000) });
    expect(api.respond(get('/books'))).toMatchObject({ status: 200 });
  });

  it('a use entry that is a Proxy throwing on every read fails createApi with the Proxy’s own error', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(() => createApi({ endpoints: [books], use: [hostile as never] })).toThrow('trap');
  });

  it('an option no module reads is refused, naming the options that are', () => {
    expect(() => createApi({ endpoints: [books], use: [audit], audit: true } as never)).toThrow('`audit` is not an option of createApi()');
  });
});
