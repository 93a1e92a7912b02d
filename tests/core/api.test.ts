import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createApi, createEndpointHandler, createStatusPolicy, endpoint, HttpError, NotFoundError, type ErrorInfo } from '../../src/index.js';
import { callEndpoint, createTestClient, createTestContext } from '../../src/testing.js';
import { expectProblem } from '../helpers/problem.js';

const SECRET = 'sk_live_SECRET_4242';
const PROBLEM_JSON = 'application/problem+json; charset=utf-8';

function failingApi(onError?: (error: unknown, info: ErrorInfo) => void) {

  const failures: Record<string, () => unknown> = {
    error: () => {
      throw new Error(`database password ${SECRET}`);
    },
    string: () => {
      throw `plain string ${SECRET}`;
    },
    null: () => {
      throw null;
    },
    rejected: () => Promise.reject(new TypeError(`rejected ${SECRET}`)),
    late: () => new Promise((_, reject) => setTimeout(() => reject(new Error(SECRET)), 5)),
    returned: () => new Error(`returned ${SECRET}`),
    returnedHttp: () => new NotFoundError('Returned not found'),
    hidden: () => {
      throw new HttpError(502, { detail: `upstream said ${SECRET}`, cause: new Error(SECRET) });
    },
    bigint: () => ({ total: 10n }),
    cycle: () => {
      const value: Record<string, unknown> = {};
      value.self = value;
      return value;
    },
  };
  return createApi({
    endpoints: [endpoint('GET', '/failures/:kind', { handle: (ctx) => failures[ctx.params.kind]!() })],
    ...(onError ? { onError } : {}),
  });
}

describe('routing outcomes', () => {
  const api = createApi({
    basePath: '/api',
    endpoints: [
      endpoint('GET', '/users', { operation: 'list', handle: () => [{ id: 1 }] }),
      endpoint('POST', '/users', { operation: 'create', handle: () => ({ id: 2 }) }),
      endpoint('GET', '/users/:id', { handle: (ctx) => ({ id: ctx.params.id }) }),
    ],
  });

  it('answers an unknown path with 404 and a problem body', async () => {
    const response = await api.handle({ method: 'GET', url: '/api/orders' });
    // expectProblem also checks that the payload is the body, as JSON.
    expectProblem(response, { status: 404, code: 'RC_NOT_FOUND', detail: 'No resource matches this path', exact: true });
    expect(response.headers).toEqual({ 'content-type': PROBLEM_JSON });
  });

  it('answers a path outside basePath with 404', async () => {
    expect((await api.handle({ method: 'GET', url: '/users' })).status).toBe(404);
  });

  it('answers a known path with another method (even one named like an inherited key) 405 and the exact Allow', async () => {
    for (const method of ['DELETE', 'PUT', 'PATCH', 'get', 'BREW', '__proto__', 'constructor', 'toString']) {
      const response = await api.handle({ method, url: '/api/users' });
      expectProblem(response, { status: 405, code: 'RC_METHOD_NOT_ALLOWED', headers: { allow: 'GET, HEAD, POST, OPTIONS' } });
    }
  });

  it('answers OPTIONS with 204 and Allow, without running a handler', async () => {
    expect(await api.handle({ method: 'OPTIONS', url: '/api/users/1' })).toEqual({ status: 204, headers: { allow: 'GET, HEAD, OPTIONS' }, body: undefined, payload: undefined });
  });

  it('answers HEAD like GET without a body', async () => {
    const get = await api.handle({ method: 'GET', url: '/api/users/1' });
    const head = await api.handle({ method: 'HEAD', url: '/api/users/1' });
    expect(head).toEqual({ status: 200, headers: get.headers, body: undefined, payload: undefined });
    const missing = await api.handle({ method: 'HEAD', url: '/api/nothing' });
    expect(missing).toMatchObject({ status: 404, body: undefined, payload: undefined });
    expect(missing.headers['content-type']).toBe(PROBLEM_JSON);
  });

  it('reads absolute URLs and query strings', async () => {
    const response = await api.handle({ method: 'GET', url: 'http://example.test/api/users/7?x=1#frag' });
    expect(response.body).toEqual({ id: '7' });
  });

  it('lower-cases the header names of a request built by hand, for authenticate, ctx.headers and ctx.request alike', async () => {
    const echo = createApi({
      authenticate: (request) => (request.headers?.authorization === 'Bearer alice' ? { name: 'alice' } : undefined),
      endpoints: [endpoint('POST', '/echo', { body: 'unvalidated', handle: (ctx) => ({ headers: ctx.headers, fromRequest: ctx.request.headers, caller: ctx.principal, body: ctx.body }) })],
    });
    const headers = { Authorization: 'Bearer alice', 'Content-Type': 'application/json', 'X-Trace': 'abc' };
    const response = await echo.handle({ method: 'POST', url: '/echo', headers, body: '{"a":1}' });
    expect(response.status).toBe(200);
    expect(response.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
    const lowered = { authorization: 'Bearer alice', 'content-type': 'application/json', 'x-trace': 'abc' };
    expect(response.body).toEqual({ headers: lowered, fromRequest: lowered, caller: { name: 'alice' }, body: { a: 1 } });
    expect(headers).toEqual({ Authorization: 'Bearer alice', 'Content-Type': 'application/json', 'X-Trace': 'abc' });
  });

  it('answers JSON with its content type', async () => {
    const response = await api.handle({ method: 'GET', url: '/api/users' });
    expect(response).toEqual({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: [{ id: 1 }], payload: '[{"id":1}]' });
  });
});

describe('safe errors', () => {
  it.each(['error', 'string', 'null', 'rejected', 'late', 'returned', 'hidden', 'bigint', 'cycle'])(
    'a handler failing with %s answers a masked 5xx with an instance id and no secret',
    async (kind) => {
      const onError = vi.fn();
      const response = await failingApi(onError).handle({ method: 'GET', url: `/failures/${kind}` });
      const status = kind === 'hidden' ? 502 : 500;
      expect(response.status).toBe(status);
      expect(response.headers).toEqual({ 'content-type': PROBLEM_JSON });
      expect(response.body).toEqual({
        type: 'about:blank',
        title: kind === 'hidden' ? 'Bad Gateway' : 'Internal Server Error',
        status,
        code: kind === 'hidden' ? 'RC_HTTP_502' : 'RC_INTERNAL',
        instance: expect.stringMatching(/^urn:uuid:[0-9a-f-]{36}$/),
      });
      expect(response.payload).not.toContain(SECRET);
      expect(response.payload).not.toMatch(/stack|at .*\.ts/);
      expect(onError).toHaveBeenCalledTimes(1);
      const [error, info] = onError.mock.calls[0]!;
      expect(info.requestId).toBe((response.body as { instance: string }).instance);
      expect(info.status).toBe(status);
      if (kind === 'string') expect(error).toBe(`plain string ${SECRET}`);
      if (kind === 'null') expect(error).toBeNull();
    },
  );

  it('hides the secret whatever NODE_ENV says', async () => {
    const previous = process.env.NODE_ENV;
    process.env.NODE_ENV = 'development';
    const reported: unknown[] = [];
    try {
      const response = await failingApi((error) => reported.push(error)).handle({ method: 'GET', url: '/failures/error' });
      expect(response.payload).not.toContain(SECRET);
      // The server's own report has it.
      expect(reported).toEqual([new Error(`database password ${SECRET}`)]);
    } finally {
      process.env.NODE_ENV = previous;
    }
  });

  it('treats a returned HttpError like a thrown one', async () => {
    const response = await failingApi().handle({ method: 'GET', url: '/failures/returnedHttp' });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ detail: 'Returned not found' });
  });

  it('survives an onError that throws', async () => {
    const response = await failingApi(() => {
      throw new Error('logger down');
    }).handle({ method: 'GET', url: '/failures/error' });
    expect(response.status).toBe(500);
  });

  it('does not report ordinary 4xx answers to onError', async () => {
    const onError = vi.fn();
    await createApi({ endpoints: [], onError }).handle({ method: 'GET', url: '/nothing' });
    expect(onError).not.toHaveBeenCalled();
  });
});

describe('createApi options are checked at once', () => {
  it.each([Number.NaN, -1, '1mb', Number.POSITIVE_INFINITY, 1.5])('refuses bodyLimit %s', (bodyLimit) => {
    expect(() => createApi({ bodyLimit: bodyLimit as number })).toThrow(/"bodyLimit" must be a whole number/);
  });
  it('refuses an empty format list', () => {
    expect(() => createApi({ formats: [] })).toThrow(/at least one serializer/);
  });
  it('refuses an unknown method for an endpoint', () => {
    expect(() => endpoint('FETCH' as 'GET', '/users', { handle: () => 1 })).toThrow(/unknown method/);
  });
  it('refuses two endpoints with the same method and path', () => {
    const first = endpoint('GET', '/users', { handle: () => 1 });
    const second = endpoint('GET', '/users', { handle: () => 2 });
    expect(() => createApi({ endpoints: [first, second] })).toThrow(/declared twice/);
  });
});

describe('testing helpers', () => {
  const readUser = endpoint('GET', '/users/:id', {
    params: { id: z.coerce.number().int() },
    handle: (ctx) => (ctx.params.id === 1 ? { id: 1, name: 'Ada' } : undefined),
  });

  it('createTestContext calls a handler directly', async () => {
    const ctx = createTestContext({ params: { id: 1 } });
    expect(await readUser.handle(ctx)).toEqual({ id: 1, name: 'Ada' });
  });

  it('callEndpoint runs one endpoint through the pipeline', async () => {
    expect((await callEndpoint(readUser, { method: 'GET', url: '/users/1' })).body).toEqual({ id: 1, name: 'Ada' });
    expect((await callEndpoint(readUser, { method: 'GET', url: '/users/2' })).status).toBe(404);
    expect((await callEndpoint(readUser, { method: 'GET', url: '/users/x' })).status).toBe(400);
  });

  it('createTestClient sends object bodies as JSON', async () => {
    const echo = endpoint('POST', '/echoes', { body: 'unvalidated', handle: (ctx) => ({ received: ctx.body, type: ctx.headers['content-type'] }) });
    const response = await createTestClient(createApi({ endpoints: [echo] })).post('/echoes', { body: { a: 1 } });
    expect(response.body).toEqual({ received: { a: 1 }, type: 'application/json' });
  });

  it('createEndpointHandler takes params from a host router', async () => {
    const handler = createEndpointHandler(readUser);
    expect((await handler({ method: 'GET', url: '/anything?x=1' }, { id: '1' })).body).toEqual({ id: 1, name: 'Ada' });
    expect((await handler({ method: 'GET', url: '/anything' }, { id: 'nope' })).status).toBe(400);
  });
});

describe('timeout', () => {
  it('answers a handler that never resolves with 503 and frees the request', async () => {
    const onError = vi.fn();
    const api = createApi({
      timeout: 20,
      onError,
      endpoints: [endpoint('GET', '/reports', { handle: () => new Promise(() => {}) }), endpoint('GET', '/health', { handle: () => ({ ok: true }) })],
    });
    const response = await api.handle({ method: 'GET', url: '/reports' });
    expect(response.status).toBe(503);
    expect(response.headers).toEqual({ 'content-type': PROBLEM_JSON });
    expect(response.body).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      code: 'RC_TIMEOUT',
      detail: 'The request did not finish in time',
      instance: expect.stringMatching(/^urn:uuid:/),
    });
    expect(onError).toHaveBeenCalledOnce();
    expect((await api.handle({ method: 'GET', url: '/health' })).status).toBe(200);
  });

  it('follows the policy for the timeout status', async () => {
    const reported: { status: number }[] = [];
    const api = createApi({
      timeout: 5,
      policy: createStatusPolicy({ timeout: 500 }),
      endpoints: [endpoint('GET', '/reports', { handle: () => new Promise((resolve) => setTimeout(resolve, 200)) })],
      onError: (_error, { status }) => reported.push({ status }),
    });
    const response = await api.handle({ method: 'GET', url: '/reports' });
    // Moved, the timeout keeps its code and detail: only forbidden and unauthorized conceal themselves.
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({ title: 'Internal Server Error', code: 'RC_TIMEOUT', detail: 'The request did not finish in time' });
    expect(reported).toEqual([{ status: 500 }]);
  });

  it('refuses a timeout that is not a whole number of milliseconds', () => {
    expect(() => createApi({ timeout: -5 })).toThrow(/"timeout" must be a whole number/);
  });
});

describe('steps that wait and steps that do not', () => {
  /** A Standard Schema that logs each call and passes its input, or fails it; synchronously or not. */
  function logged(name: string, log: string[], options: { async?: boolean; fail?: string } = {}) {
    return {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) => {
          log.push(name);
          const result = options.fail === undefined ? { value } : { issues: [{ message: options.fail, path: ['page'] }] };
          return options.async ? Promise.resolve(result) : result;
        },
      },
    };
  }

  /** A thenable that is not a Promise, as some libraries return. */
  function thenable<Value>(value: Value) {
    return { then: (resolve: (settled: Value) => void) => resolve(value) };
  }

  it('runs every step in order, whichever of them wait', async () => {
    const log: string[] = [];
    const api = createApi({
      authenticate: async () => {
        log.push('authenticate');
        return { id: 'u1' };
      },
      authorize: () => {
        log.push('authorize (api)');
        return thenable(true) as unknown as Promise<boolean>;
      },
      endpoints: [
        endpoint('GET', '/reports/:id', {
          params: logged('params', log),
          query: logged('query', log, { async: true }),
          headers: logged('headers', log),
          authorize: async () => {
            log.push('authorize (endpoint)');
            return true;
          },
          handle: () => {
            log.push('handle');
            return thenable({ ok: true }) as unknown as Promise<{ ok: boolean }>;
          },
        }),
      ],
    });
    const response = await api.handle({ method: 'GET', url: '/reports/7?page=2' });
    expect(response.status).toBe(200);
    expect(response.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
    expect(response.payload).toBe('{"ok":true}');
    expect(log).toEqual(['authenticate', 'params', 'query', 'headers', 'authorize (api)', 'authorize (endpoint)', 'handle']);
  });

  it('lists the issues of a part that waited with those of a part that did not, in one 400', async () => {
    const log: string[] = [];
    const api = createApi({
      endpoints: [
        endpoint('GET', '/reports/:id', {
          params: { id: z.coerce.number().int() },
          query: logged('query', log, { async: true, fail: 'bad page' }),
          handle: () => ({ ok: true }),
        }),
      ],
    });
    const response = await api.handle({ method: 'GET', url: '/reports/x?page=-1' });
    expect(response.status).toBe(400);
    expect((response.body as { errors: unknown }).errors).toEqual([
      { in: 'path', pointer: '#/id', detail: 'must be a number' },
      { in: 'query', pointer: '#/page', detail: 'is invalid' },
    ]);
  });

  it('answers a rule that says false through a thenable with 403, and one that throws after a step waited with a hidden 500', async () => {
    const query = logged('query', [], { async: true });
    const reported: unknown[] = [];
    const api = createApi({
      onError: (error) => reported.push(error),
      endpoints: [
        endpoint('GET', '/denied', { query, authorize: () => thenable(false) as unknown as Promise<boolean>, handle: () => ({ ok: true }) }),
        endpoint('GET', '/broken', {
          query,
          authorize: () => {
            throw new Error(`rule crashed ${SECRET}`);
          },
          handle: () => ({ ok: true }),
        }),
      ],
    });
    const denied = await api.handle({ method: 'GET', url: '/denied' });
    expectProblem(denied, { status: 403, code: 'RC_FORBIDDEN' });
    expect(denied.headers).toEqual({ 'content-type': PROBLEM_JSON });
    const broken = await api.handle({ method: 'GET', url: '/broken' });
    expect(broken.status).toBe(500);
    expect(broken.headers).toEqual({ 'content-type': PROBLEM_JSON });
    expect(broken.body).toEqual({ type: 'about:blank', title: 'Internal Server Error', status: 500, code: 'RC_INTERNAL', instance: expect.stringMatching(/^urn:uuid:/) });
    expect(broken.payload).not.toContain(SECRET);
    expect(reported).toEqual([new Error(`rule crashed ${SECRET}`)]);
  });

  it('handle and dispatch return promises even when no step waited', async () => {
    const api = createApi({ timeout: 1000, endpoints: [endpoint('GET', '/health', { handle: () => ({ ok: true }) })] });
    const handled = api.handle({ method: 'GET', url: '/health' });
    const head = api.handle({ method: 'HEAD', url: '/health' });
    const unmatched = api.dispatch({ method: 'GET', url: '/nowhere' });
    expect(handled).toBeInstanceOf(Promise);
    expect(head).toBeInstanceOf(Promise);
    expect(unmatched).toBeInstanceOf(Promise);
    expect(await handled).toMatchObject({ status: 200, payload: '{"ok":true}' });
    expect(await head).toMatchObject({ status: 200, body: undefined, payload: undefined });
    expect(await unmatched).toBeUndefined();
  });
});
