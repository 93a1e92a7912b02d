/**
 * The status policy as a caller of `api.handle` sees it: an error moved to another status by
 * `createStatusPolicy` (or by a policy written by hand), what the moved answer keeps and what it
 * hides, and the overrides refused when the API is built. Each case names the rule it pins: RFC 9110
 * for statuses and challenges, RFC 9457 for problem members, restcanon's conventions for the rest
 * (docs/status-policy.md).
 */
import { describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, createApi, createStatusPolicy, endpoint, ForbiddenError, HttpError, NotFoundError, TooManyRequestsError, UnauthorizedError, type ApiRequest, type StatusPolicy, type StatusPolicyOverrides } from '../../src/index.js';
import { DEFAULT_STATUSES } from '../../src/engine.js';
import { expectProblem } from '../helpers/problem.js';

const DUPLICATE = 'https://example.com/problems/duplicate-order';

function authenticate(request: ApiRequest) {
  const authorization = request.headers?.authorization;
  if (authorization === 'Bearer ok') return { id: 1 };
  if (authorization === 'Bearer expired') throw new UnauthorizedError('The token expired', { challenge: 'Bearer realm="api", error="invalid_token"' });
  return undefined;
}

/** An API whose endpoints each throw one error, answered by the policy of `overrides`. */
function apiWith(overrides: StatusPolicyOverrides) {
  return apiBy(createStatusPolicy(overrides));
}

/** An API whose endpoints each throw one error, answered by `policy`. */
function apiBy(policy: StatusPolicy) {
  return createApi({
    policy,
    authenticate,
    onError: () => {},
    endpoints: [
      endpoint('GET', '/me', { handle: (ctx) => ctx.principal }),
      endpoint('POST', '/orders', { public: true, operation: 'create', body: 'unvalidated', handle: () => ({ id: 7 }) }),
      endpoint('GET', '/missing', { public: true, handle: () => { throw new NotFoundError('No order 7'); } }),
      endpoint('GET', '/hidden', { public: true, handle: () => { throw new ForbiddenError('This order belongs to user 2'); } }),
      endpoint('GET', '/busy', { public: true, handle: () => { throw new TooManyRequestsError('Slow down', { retryAfter: 30 }); } }),
      endpoint('GET', '/files', { public: true, handle: () => { throw new BadRequestError('Sign in to the file store first', { headers: { 'www-authenticate': 'Basic realm="files"' } }); } }),
      endpoint('GET', '/odd', { public: true, handle: () => { throw new BadRequestError('Odd request'); } }),
      endpoint('GET', '/duplicate', { public: true, handle: () => { throw new HttpError(409, { type: DUPLICATE, title: 'Duplicate order', detail: 'Order 7 exists' }); } }),
      endpoint('GET', '/conflict', { public: true, handle: () => { throw new ConflictError('Order 7 exists'); } }),
      endpoint('GET', '/invalid', {
        public: true,
        handle: () => {
          throw new BadRequestError('The query is invalid', { errors: [{ in: 'query', pointer: '/limit', detail: 'must be a number' }], omittedErrors: 3 });
        },
      }),
    ],
  });
}

// One request id for every request (a host's, as Fastify's `request.id`): answers alike are then alike to the byte.
const get = (api: ReturnType<typeof apiBy>, url: string, headers: Record<string, string> = {}) => api.handle({ method: 'GET', url, headers, id: 'req-1' });

describe('a concealing error moved elsewhere says nothing of itself (docs/status-policy.md: conceals)', () => {
  it('unauthorized: 404 hides the 401\'s code, detail and challenge: a rejected token and no token answer alike', async () => {
    const api = apiWith({ unauthorized: 404 });
    const rejected = await get(api, '/me', { authorization: 'Bearer expired' });
    expectProblem(rejected, { status: 404, code: 'RC_NOT_FOUND', exact: true, headers: { 'www-authenticate': undefined }, secrets: ['expired', 'invalid_token'] });
    const anonymous = await get(api, '/me');
    expectProblem(anonymous, { status: 404, code: 'RC_NOT_FOUND', exact: true, headers: { 'www-authenticate': undefined } });
    expect(rejected.headers).toEqual(anonymous.headers);
    expect(rejected.payload).toEqual(anonymous.payload);
  });

  it('forbidden: 401 answers a plain 401 with the default challenge (RFC 9110 §15.5.2: a 401 carries WWW-Authenticate)', async () => {
    const response = await get(apiWith({ forbidden: 401 }), '/hidden');
    expectProblem(response, { status: 401, code: 'RC_UNAUTHORIZED', exact: true, headers: { 'www-authenticate': 'Bearer realm="api"' }, secrets: ['user 2'] });
  });

  it('forbidden: 599 answers a plain 599 titled by its class (RFC 9110 §15: an unknown 5xx is read as 500)', async () => {
    const response = await get(apiWith({ forbidden: 599 }), '/hidden');
    const problem = expectProblem(response, { status: 599, code: 'RC_HTTP_599', title: 'Server Error', detail: undefined, secrets: ['user 2'] });
    expect(Object.keys(problem).sort()).toEqual(['code', 'instance', 'status', 'title', 'type']);
  });
});

describe('any other error moved elsewhere keeps what it says (docs/status-policy.md)', () => {
  it('tooManyRequests: 503 keeps Retry-After, the code and the detail (RFC 9110 §10.2.3)', async () => {
    const response = await get(apiWith({ tooManyRequests: 503 }), '/busy');
    expectProblem(response, { status: 503, code: 'RC_TOO_MANY_REQUESTS', title: 'Service Unavailable', detail: 'Slow down', headers: { 'retry-after': '30' } });
  });

  it('methodNotAllowed: 400 keeps Allow (RFC 9110 §10.2.1)', async () => {
    const response = await apiWith({ methodNotAllowed: 400 }).handle({ method: 'DELETE', url: '/busy' });
    expectProblem(response, { status: 400, code: 'RC_METHOD_NOT_ALLOWED', title: 'Bad Request', headers: { allow: 'GET, HEAD, OPTIONS' } });
  });

  it('badRequest: 401 keeps the error\'s own challenge (RFC 9110 §11.6.1) rather than the default one', async () => {
    const response = await get(apiWith({ badRequest: 401 }), '/files');
    expectProblem(response, { status: 401, code: 'RC_BAD_REQUEST', title: 'Unauthorized', detail: 'Sign in to the file store first', exact: true, headers: { 'www-authenticate': 'Basic realm="files"' } });
  });

  it('badRequest: 401 gives an error without a challenge the default one (RFC 9110 §15.5.2)', async () => {
    const response = await get(apiWith({ badRequest: 401 }), '/odd');
    expectProblem(response, { status: 401, code: 'RC_BAD_REQUEST', detail: 'Odd request', exact: true, headers: { 'www-authenticate': 'Bearer realm="api"' } });
  });

  it('a challenge is added only under 401: badRequest: 403 carries none', async () => {
    const response = await get(apiWith({ badRequest: 403 }), '/odd');
    expectProblem(response, { status: 403, code: 'RC_BAD_REQUEST', detail: 'Odd request', exact: true, headers: { 'www-authenticate': undefined } });
  });

  it('conflict: 422 keeps a problem type of its own and its title (RFC 9457 §4.2.1)', async () => {
    const response = await get(apiWith({ conflict: 422 }), '/duplicate');
    expectProblem(response, { status: 422, code: 'RC_CONFLICT', type: DUPLICATE, title: 'Duplicate order', detail: 'Order 7 exists', exact: true });
  });

  it('conflict: 422 titles an about:blank problem by its new status (RFC 9457 §4.2.1)', async () => {
    const response = await get(apiWith({ conflict: 422 }), '/conflict');
    expectProblem(response, { status: 422, code: 'RC_CONFLICT', title: 'Unprocessable Content', detail: 'Order 7 exists', exact: true });
  });

  it('badRequest: 422 keeps errors and omittedErrors', async () => {
    const response = await get(apiWith({ badRequest: 422 }), '/invalid');
    const problem = expectProblem(response, { status: 422, code: 'RC_BAD_REQUEST', detail: 'The query is invalid' });
    expect(problem.errors).toEqual([{ in: 'query', pointer: '/limit', detail: 'must be a number' }]);
    expect(problem.omittedErrors).toBe(3);
  });

  it.each([400, 599])('notFound: %i moves a 404 to the edge of the error range', async (status) => {
    const response = await get(apiWith({ notFound: status }), '/missing');
    expectProblem(response, { status, code: 'RC_NOT_FOUND', title: status === 400 ? 'Bad Request' : 'Server Error', detail: 'No order 7' });
  });

  it('an error the policy keeps is sent as thrown', async () => {
    const response = await get(apiWith({ notFound: 410 }), '/busy');
    expectProblem(response, { status: 429, code: 'RC_TOO_MANY_REQUESTS', detail: 'Slow down', exact: true, headers: { 'retry-after': '30' } });
  });
});

describe('createStatusPolicy refuses a status outside its outcome\'s class', () => {
  it.each([
    [{ create: 150 }, /"create" is a success and must be answered with a 2xx status, got 150/],
    [{ create: 199 }, /success and must be answered with a 2xx status, got 199/],
    [{ create: 300 }, /success and must be answered with a 2xx status, got 300/],
    [{ read: 100 }, /success and must be answered with a 2xx status, got 100/],
    [{ notModified: 200 }, /"notModified" is always 304, got 200/],
    [{ notFound: 399 }, /"notFound" is an error and must be answered with a 4xx or 5xx status, got 399/],
    [{ notFound: 100 }, /is an error and must be answered with a 4xx or 5xx status, got 100/],
    [{ notFound: 600 }, /"notFound" must be an integer status from 100 to 599, got 600/],
    [{ notFound: 99 }, /must be an integer status from 100 to 599, got 99/],
    [{ unacceptable: 'maybe' } as never, /"unacceptable" must be 'reject' \(406\) or 'json' \(send JSON anyway\), got "maybe"/],
  ])('%j throws when the API is built', (overrides, message) => {
    expect(() => createStatusPolicy(overrides)).toThrow(message);
  });

  it.each([200, 299])('create: %i is answered to a POST', async (status) => {
    const response = await apiWith({ create: status }).handle({ method: 'POST', url: '/orders', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(status);
  });

  it('notModified: 304 and an undefined override (from plain JavaScript) are accepted, and the rest keeps its defaults', () => {
    const policy = createStatusPolicy({ notModified: 304, read: undefined, unacceptable: 'json' } as unknown as StatusPolicyOverrides);
    expect(policy.statuses).toEqual(DEFAULT_STATUSES);
    expect(policy.unacceptable).toBe('json');
  });
});

describe('a policy written by hand is checked once, when the API is built', () => {
  const byHand = (statuses: Record<string, unknown>, decide?: (outcome: string) => unknown) =>
    ({ statuses: { ...DEFAULT_STATUSES, ...statuses }, unacceptable: 'reject', ...(decide === undefined ? {} : { decide }) }) as unknown as StatusPolicy;

  it.each([
    [{ create: 199 }, 'create', '199'],
    [{ create: 300 }, 'create', '300'],
    [{ notFound: 399 }, 'notFound', '399'],
    [{ notFound: 600 }, 'notFound', '600'],
    [{ notFound: 404.5 }, 'notFound', '404.5'],
    [{ notFound: '404' }, 'notFound', '404'],
    [{ notModified: 200 }, 'notModified', '200'],
  ])('%j throws, naming the outcome and its status', (statuses, outcome, status) => {
    expect(() => apiBy(byHand(statuses))).toThrow(`createApi: "policy" answers "${outcome}" with ${status}: build it with createStatusPolicy()`);
  });

  it('a decide that disagrees with the table throws, naming both', () => {
    const policy = byHand({ notFound: 410 }, (outcome) => (outcome === 'notFound' ? 200 : DEFAULT_STATUSES[outcome as keyof typeof DEFAULT_STATUSES]));
    expect(() => apiBy(policy)).toThrow('createApi: "policy" answers "notFound" with 410 and its decide with 200: build it with createStatusPolicy()');
  });

  it('decide is called on the policy itself', async () => {
    const policy = { statuses: { ...DEFAULT_STATUSES, notFound: 410 }, unacceptable: 'reject', decide(this: StatusPolicy, outcome: keyof typeof DEFAULT_STATUSES) { return this.statuses[outcome]; } } as StatusPolicy;
    expectProblem(await get(apiBy(policy), '/missing'), { status: 410, code: 'RC_NOT_FOUND', detail: 'No order 7' });
  });

  it.each([
    [{ create: 200, notFound: 400 }, 400],
    [{ create: 299, notFound: 599 }, 599],
  ])('%j is used, and a copy of it: a later change of the table changes no answer', async (statuses, status) => {
    const policy = byHand(statuses);
    const api = apiBy(policy);
    (policy.statuses as Record<string, number>).notFound = 410;
    expectProblem(await get(api, '/missing'), { status, code: 'RC_NOT_FOUND', detail: 'No order 7' });
    expect((await api.handle({ method: 'POST', url: '/orders', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(statuses.create);
  });

  it('an outcome the table does not list keeps its default', async () => {
    const policy = { statuses: { notFound: 410 }, unacceptable: 'reject' } as unknown as StatusPolicy;
    const api = apiBy(policy);
    expectProblem(await get(api, '/missing'), { status: 410, code: 'RC_NOT_FOUND' });
    expectProblem(await get(api, '/conflict'), { status: 409, code: 'RC_CONFLICT' });
  });

  it.each([
    ['no table', { unacceptable: 'reject' }],
    ['a null table', { statuses: null, unacceptable: 'reject' }],
    ['an unknown unacceptable', { statuses: {}, unacceptable: 'maybe' }],
    ['null', null],
  ])('%s throws', (_name, policy) => {
    expect(() => apiBy(policy as unknown as StatusPolicy)).toThrow('createApi: "policy" is no status policy (a statuses table, and unacceptable \'reject\' or \'json\'): build it with createStatusPolicy()');
  });

  it('unacceptable: json is kept', async () => {
    const api = apiBy({ statuses: { ...DEFAULT_STATUSES }, unacceptable: 'json' } as unknown as StatusPolicy);
    const response = await api.handle({ method: 'GET', url: '/me', headers: { authorization: 'Bearer ok', accept: 'image/png' } });
    expect(response.status).toBe(200);
  });
});

describe('createStatusPolicy reads unacceptable (docs/status-policy.md)', () => {
  it.each(['reject', 'json'] as const)('unacceptable: %s is accepted', (unacceptable) => {
    expect(createStatusPolicy({ unacceptable }).unacceptable).toBe(unacceptable);
  });

  it('an unknown outcome is refused by name, with the nearest one', () => {
    expect(() => createStatusPolicy({ notFund: 410 } as never)).toThrow('`notFund` is not an option of createStatusPolicy(); did you mean `notFound`?');
  });
});
