/**
 * The rate limit through `api.handle`: the fields of every answer a policy covers, the 429 over
 * quota, whose count a request joins, the order of counting and authentication, the store's
 * failures, and the mistakes refused when the API is built.
 */
import { describe, expect, it } from 'vitest';
import { collection, createApi, endpoint, NotFoundError, UnauthorizedError, type ApiRequest, type ApiResponse } from '../../../src/index.js';
import { QUOTA_EXCEEDED, rateLimit, type RateLimitOptions } from '../../../src/conventions/rate-limit/index.js';
import { clockedStore, failingStore, silentStore, type Clock } from './stores.js';

const IP = '203.0.113.9';
const TOKENS: Record<string, { id: number }> = { 'Bearer ann': { id: 1 }, 'Bearer bob': { id: 2 } };

function limitedApi(options: Partial<RateLimitOptions> & { clock?: Clock } = {}, extra: { authenticate?: (request: ApiRequest) => unknown; onError?: (error: unknown) => void } = {}) {
  const clock = options.clock ?? { now: 0 };
  const store = options.store ?? clockedStore(clock);
  let handled = 0;
  const api = createApi({
    ...(extra.authenticate === undefined ? {} : { authenticate: extra.authenticate as never }),
    onError: extra.onError ?? (() => {}),
    use: [rateLimit({ policies: { default: { quota: 3, window: 60 } }, ...options, store })],
    endpoints: [
      endpoint('GET', '/notes', { public: true, handle: () => (handled++, [{ id: 1 }]) }),
      endpoint('GET', '/missing', { public: true, errors: { notFound: 'no such note' }, handle: () => { throw new NotFoundError('No such note'); } }),
      endpoint('GET', '/health', { public: true, conventions: { rateLimit: false }, handle: () => ({ status: 'ok' }) }),
    ],
  });
  return { api, handled: () => handled, clock };
}

const get = (api: { handle(request: ApiRequest): Promise<ApiResponse> }, url: string, headers: Record<string, string> = {}, ip: string | null = IP) =>
  api.handle({ method: 'GET', url, headers, ...(ip === null ? {} : { ip }) });

describe('rate limit fields and the 429', () => {
  it('a covered answer carries RateLimit-Policy and RateLimit: the units left and the seconds to the window’s end', async () => {
    const { api, clock } = limitedApi();
    const first = await get(api, '/notes');
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    expect(first.headers.ratelimit).toBe('"default";r=2;t=60');
    clock.now = 43_200;
    expect((await get(api, '/notes')).headers.ratelimit).toBe('"default";r=1;t=17');
  });

  it('the request over quota is a 429 with Retry-After and the quota-exceeded problem; the handler does not run', async () => {
    const { api, handled, clock } = limitedApi();
    for (let index = 0; index < 3; index++) expect((await get(api, '/notes')).status).toBe(200);
    clock.now = 15_500;
    const refused = await get(api, '/notes');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('45');
    expect(refused.headers.ratelimit).toBe('"default";r=0;t=45');
    expect(refused.headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(refused.body).toMatchObject({ type: QUOTA_EXCEEDED, title: 'Quota exceeded', status: 429, code: 'RC_TOO_MANY_REQUESTS' });
    expect((refused.body as { detail: string }).detail).toBe('The quota of "default" is used up; try again in 45 seconds');
    expect(handled()).toBe(3);
  });

  it('an error answer of a covered endpoint carries the fields too (a 404 of the handler)', async () => {
    const { api } = limitedApi();
    const missing = await get(api, '/missing');
    expect(missing.status).toBe(404);
    expect(missing.headers.ratelimit).toBe('"default";r=2;t=60');
  });

  it('an exempt endpoint (conventions: { rateLimit: false }) is neither counted nor marked', async () => {
    const { api } = limitedApi();
    for (let index = 0; index < 5; index++) {
      const health = await get(api, '/health');
      expect(health.status).toBe(200);
      expect(health.headers.ratelimit).toBeUndefined();
    }
    expect((await get(api, '/notes')).headers.ratelimit).toBe('"default";r=2;t=60');
  });

  it('a new window starts from zero once the clock passes the window’s end', async () => {
    const { api, clock } = limitedApi();
    for (let index = 0; index < 4; index++) await get(api, '/notes');
    expect((await get(api, '/notes')).status).toBe(429);
    clock.now = 59_999;
    expect((await get(api, '/notes')).status).toBe(429);
    clock.now = 60_000;
    const fresh = await get(api, '/notes');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.ratelimit).toBe('"default";r=2;t=60');
  });

  it('500 concurrent requests against a quota of 100: exactly 100 succeed', async () => {
    const { api, handled } = limitedApi({ policies: { default: { quota: 100, window: 60 } } });
    const answers = await Promise.all(Array.from({ length: 500 }, () => get(api, '/notes')));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(100);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(400);
    expect(handled()).toBe(100);
  });

  it('each policy of an endpoint is counted and written, and the 429 names the one used up', async () => {
    const clock = { now: 0 };
    const api = createApi({
      use: [rateLimit({ policies: { burst: { quota: 2, window: 1 }, daily: { quota: 5, window: 86_400 } }, store: clockedStore(clock) })],
      endpoints: [endpoint('GET', '/notes', { handle: () => [] })],
    });
    const first = await get(api, '/notes');
    expect(first.headers['ratelimit-policy']).toBe('"burst";q=2;w=1, "daily";q=5;w=86400');
    expect(first.headers.ratelimit).toBe('"burst";r=1;t=1, "daily";r=4;t=86400');
    await get(api, '/notes');
    const third = await get(api, '/notes');
    expect(third.status).toBe(429);
    expect((third.body as { detail: string }).detail).toContain('"burst"');
    expect(third.headers['retry-after']).toBe('1');
  });

  it('a policy’s cost counts that many units a request', async () => {
    const clock = { now: 0 };
    const api = createApi({
      use: [rateLimit({ policies: { default: { quota: 10, window: 60, cost: 4 } }, store: clockedStore(clock) })],
      endpoints: [endpoint('GET', '/notes', { handle: () => [] })],
    });
    expect((await get(api, '/notes')).headers.ratelimit).toBe('"default";r=6;t=60');
    expect((await get(api, '/notes')).headers.ratelimit).toBe('"default";r=2;t=60');
    expect((await get(api, '/notes')).status).toBe(429);
  });
});

describe('whose count a request joins', () => {
  const authenticate = (request: ApiRequest) => TOKENS[String(request.headers?.authorization)];

  it('two signed-in callers from one address each have their own quota', async () => {
    const { api } = limitedApi({}, { authenticate });
    for (let index = 0; index < 3; index++) expect((await get(api, '/notes', { authorization: 'Bearer ann' })).status).toBe(200);
    expect((await get(api, '/notes', { authorization: 'Bearer ann' })).status).toBe(429);
    const bob = await get(api, '/notes', { authorization: 'Bearer bob' });
    expect(bob.status).toBe(200);
    expect(bob.headers.ratelimit).toBe('"default";r=2;t=60');
  });

  it('two anonymous addresses each have their own quota, apart from the callers signed in there', async () => {
    const { api } = limitedApi({}, { authenticate });
    for (let index = 0; index < 4; index++) await get(api, '/notes', {}, '198.51.100.1');
    expect((await get(api, '/notes', {}, '198.51.100.1')).status).toBe(429);
    expect((await get(api, '/notes', {}, '198.51.100.2')).headers.ratelimit).toBe('"default";r=2;t=60');
    expect((await get(api, '/notes', { authorization: 'Bearer ann' }, '198.51.100.1')).headers.ratelimit).toBe('"default";r=2;t=60');
  });

  it('an IPv4 address written as IPv6 (::ffff:) is the same client', async () => {
    const { api } = limitedApi();
    await get(api, '/notes', {}, '198.51.100.7');
    expect((await get(api, '/notes', {}, '::ffff:198.51.100.7')).headers.ratelimit).toBe('"default";r=1;t=60');
  });

  it('an anonymous request over quota is refused before authenticate runs', async () => {
    const calls: string[] = [];
    const recording = (request: ApiRequest) => {
      calls.push(String(request.headers?.authorization ?? 'anonymous'));
      return TOKENS[String(request.headers?.authorization)];
    };
    const { api } = limitedApi({}, { authenticate: recording });
    for (let index = 0; index < 3; index++) await get(api, '/notes');
    expect(calls).toEqual(['anonymous', 'anonymous', 'anonymous']);
    const refused = await get(api, '/notes');
    expect(refused.status).toBe(429);
    expect(calls).toHaveLength(3);
  });

  it('a bad token on a public endpoint is counted by its address once authentication leaves it anonymous', async () => {
    const { api } = limitedApi({}, { authenticate: (request) => TOKENS[String(request.headers?.authorization)] });
    await get(api, '/notes');
    expect((await get(api, '/notes', { authorization: 'Bearer nobody' })).headers.ratelimit).toBe('"default";r=1;t=60');
  });

  it('refused credentials count at their address: past the quota, a guessed token is refused before authenticate runs, and other addresses and anonymous requests are not', async () => {
    const calls: string[] = [];
    const recording = (request: ApiRequest) => {
      const token = String(request.headers?.authorization ?? 'anonymous');
      calls.push(token);
      if (token.startsWith('Bearer guess')) throw new UnauthorizedError('The token is not valid');
      return TOKENS[token];
    };
    const api = createApi({
      authenticate: recording,
      onError: () => {},
      use: [rateLimit({ policies: { default: { quota: 3, window: 60 } }, store: clockedStore({ now: 0 }) })],
      endpoints: [endpoint('GET', '/private', { handle: () => [] })],
    });
    const guess = (index: number, ip = IP) => api.handle({ method: 'GET', url: '/private', ip, headers: { authorization: `Bearer guess${index}` } });
    for (let index = 0; index < 3; index++) expect((await guess(index)).status).toBe(401);
    const refused = await guess(3);
    expect(refused.status).toBe(429);
    expect(refused.headers.ratelimit).toBe('"default";r=0;t=60');
    expect(calls).toHaveLength(3);
    expect((await guess(4, '198.51.100.9')).status).toBe(401);
    expect((await api.handle({ method: 'GET', url: '/private', ip: IP })).status).toBe(401);
    expect((await api.handle({ method: 'GET', url: '/private', ip: '198.51.100.9', headers: { authorization: 'Bearer ann' } })).status).toBe(200);
  });

  it("partition 'ip' counts signed-in callers of one address together", async () => {
    const { api } = limitedApi({ partition: 'ip' }, { authenticate });
    await get(api, '/notes', { authorization: 'Bearer ann' });
    expect((await get(api, '/notes', { authorization: 'Bearer bob' })).headers.ratelimit).toBe('"default";r=1;t=60');
  });

  it('a partition function gives the key, once the caller is known', async () => {
    const { api } = limitedApi({ partition: (ctx) => String(ctx.headers['x-tenant']) }, { authenticate });
    await get(api, '/notes', { 'x-tenant': 'a' }, '198.51.100.1');
    expect((await get(api, '/notes', { 'x-tenant': 'a' }, '198.51.100.2')).headers.ratelimit).toBe('"default";r=1;t=60');
    expect((await get(api, '/notes', { 'x-tenant': 'b' }, '198.51.100.1')).headers.ratelimit).toBe('"default";r=2;t=60');
  });

  it('a partition function that gives no key is a 500 that names the fix, not one count for everyone', async () => {
    const errors: unknown[] = [];
    const { api } = limitedApi({ partition: (ctx) => ctx.headers['x-tenant'] as string }, { authenticate, onError: (error) => errors.push(error) });
    expect((await get(api, '/notes')).status).toBe(500);
    expect(String(errors[0])).toContain('"partition" returned undefined');
  });

  it('a principal without an id under partition "caller" is a 500 that names the fix', async () => {
    const errors: unknown[] = [];
    const { api } = limitedApi({}, { authenticate: () => ({ name: 'ann' }), onError: (error) => errors.push(error) });
    expect((await get(api, '/notes', { authorization: 'Bearer ann' })).status).toBe(500);
    expect(String(errors[0])).toContain('principal.id');
  });

  it('requests without an address share one count, and the API’s logger is told once', async () => {
    const warned: string[] = [];
    const logger = { error: () => {}, info: () => {}, debug: () => {}, warn: (_fields: object, message?: string) => warned.push(String(message)) };
    const api = createApi({
      logger,
      use: [rateLimit({ policies: { default: { quota: 2, window: 60 } }, store: clockedStore({ now: 0 }) })],
      endpoints: [endpoint('GET', '/notes', { handle: () => [] })],
    });
    await get(api, '/notes', {}, null);
    await get(api, '/notes', {}, null);
    expect((await get(api, '/notes', {}, null)).status).toBe(429);
    expect((await get(api, '/notes', {}, IP)).status).toBe(200);
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('one shared count');
  });
});

describe('when the store fails', () => {
  it("'allow' (the default) lets the request through without fields, and reports the failure", async () => {
    const errors: unknown[] = [];
    const { api, handled } = limitedApi({ store: failingStore() }, { onError: (error) => errors.push(error) });
    const answer = await get(api, '/notes');
    expect(answer.status).toBe(200);
    expect(answer.headers.ratelimit).toBeUndefined();
    expect(handled()).toBe(1);
    expect(String(errors[0])).toContain('the store is down');
  });

  it("'deny' answers 503 with Retry-After, without running the handler", async () => {
    const errors: unknown[] = [];
    const { api, handled } = limitedApi({ store: failingStore(), onStoreError: 'deny' }, { onError: (error) => errors.push(error) });
    const answer = await get(api, '/notes');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(handled()).toBe(0);
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as Error).cause)).toContain('the store is down');
  });

  it('a store that does not answer within storeTimeout counts as failed', async () => {
    const errors: unknown[] = [];
    const { api } = limitedApi({ store: silentStore(), storeTimeout: 20, onStoreError: 'deny' }, { onError: (error) => errors.push(error) });
    expect((await get(api, '/notes')).status).toBe(503);
    expect(String((errors[0] as Error).cause)).toContain('did not answer within 20 ms');
    const allowing = limitedApi({ store: silentStore(), storeTimeout: 20 }, { onError: (error) => errors.push(error) });
    expect((await get(allowing.api, '/notes')).status).toBe(200);
  });
});

describe('policies of endpoints and collection operations', () => {
  const policies = { default: { quota: 3, window: 60 } };

  it('an endpoint adds a policy, or leaves one of the API’s out by name', async () => {
    const api = createApi({
      use: [rateLimit({ policies, store: clockedStore({ now: 0 }) })],
      endpoints: [
        endpoint('POST', '/uploads', { body: 'ignored', conventions: { rateLimit: { uploads: { quota: 1, window: 3600 } } }, handle: () => ({ id: 1 }) }),
        endpoint('GET', '/search', { conventions: { rateLimit: { default: false, search: { quota: 5, window: 10 } } }, handle: () => [] }),
      ],
    });
    const upload = await api.handle({ method: 'POST', url: '/uploads', ip: IP });
    expect(upload.headers['ratelimit-policy']).toBe('"default";q=3;w=60, "uploads";q=1;w=3600');
    expect((await api.handle({ method: 'POST', url: '/uploads', ip: IP })).status).toBe(429);
    expect((await get(api, '/search')).headers['ratelimit-policy']).toBe('"search";q=5;w=10');
  });

  it('a collection operation declares its own through its conventions', async () => {
    const api = createApi({
      use: [rateLimit({ policies, store: clockedStore({ now: 0 }) })],
      resources: [collection('notes', { body: 'unvalidated', list: () => [], create: { conventions: { rateLimit: { writes: { quota: 1, window: 60 } } }, handle: () => ({ id: 1 }) } })],
    });
    expect((await get(api, '/notes')).headers['ratelimit-policy']).toBe('"default";q=3;w=60');
    const created = await api.handle({ method: 'POST', url: '/notes', ip: IP, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(201);
    expect(created.headers['ratelimit-policy']).toBe('"default";q=3;w=60, "writes";q=1;w=60');
  });

  it.each([
    [{ policies: {} }, '"policies" is empty'],
    [{ policies: { default: { quota: 0, window: 60 } } }, '"quota" must be a whole number of at least 1, got 0'],
    [{ policies: { default: { quota: 10, window: 0.5 } } }, '"window" must be a whole number of seconds'],
    [{ policies: { default: { quota: 10, window: 60, cost: 11 } } }, '"cost" must be a whole number from 1 to its quota (10)'],
    [{ policies: { default: { quota: 10, window: 60, burst: 2 } } }, 'burst'],
    [{ policies: { 'two words': { quota: 10, window: 60 } } }, 'is not a short word'],
    [{ policies, partition: 'user' }, '"partition" must be'],
    [{ policies, onStoreError: 'retry' }, '"onStoreError" must be'],
    [{ policies, storeTimeout: 0 }, '"storeTimeout" must be'],
    [{ policies, store: {} }, '"store" must be a store with a hit'],
    [{ policies, limit: 3 }, 'limit'],
  ])('rateLimit(%j) is refused: %s', (options, message) => {
    expect(() => rateLimit(options as never)).toThrow(message);
  });

  it('refuses when the API is built: one name with two quotas, leaving out a policy the API lacks', () => {
    const limit = () => rateLimit({ policies, store: clockedStore({ now: 0 }) });
    expect(() =>
      createApi({
        use: [limit()],
        endpoints: [
          endpoint('GET', '/a', { conventions: { rateLimit: { uploads: { quota: 1, window: 60 } } }, handle: () => [] }),
          endpoint('GET', '/b', { conventions: { rateLimit: { uploads: { quota: 2, window: 60 } } }, handle: () => [] }),
        ],
      }),
    ).toThrow('GET /b: the policy "uploads" is declared elsewhere with another quota, window or cost');
    expect(() => createApi({ use: [limit()], endpoints: [endpoint('GET', '/a', { conventions: { rateLimit: { daily: false } }, handle: () => [] })] })).toThrow(
      'GET /a: "conventions.rateLimit" leaves out the policy "daily", which the API does not have (it has "default")',
    );
    expect(() => createApi({ endpoints: [endpoint('GET', '/a', { conventions: { rateLimit: false }, handle: () => [] })] })).toThrow('it uses the "rateLimit" convention, which this API does not have');
  });
});
