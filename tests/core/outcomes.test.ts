/**
 * The outcome table is the one place where an outcome's status, code and meaning are written: the
 * policy, the error classes, problem bodies, the docs and each route's recorded outcomes follow it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BadRequestError, collection, ConflictError, createStatusPolicy, GoneError, PreconditionFailedError, PreconditionRequiredError, ServiceUnavailableError, TooManyRequestsError, UnprocessableContentError, createApi, endpoint, ERROR_CODES, ForbiddenError, HttpError, InternalServerError, MethodNotAllowedError, NotAcceptableError, NotFoundError, OUTCOMES, PayloadTooLargeError, UnauthorizedError, UnsupportedMediaTypeError, type Outcome } from '../../src/index.js';
import { DEFAULT_STATUSES, ERROR_OUTCOMES, MEANINGS, SUCCESS_OUTCOMES } from '../../src/engine.js';

const page = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'status-policy.md'), 'utf8');
const documented = [...page.matchAll(/^\| `(\w+)` \| (\d{3}) \| (?:`(RC_\w+)`)? ?\| (?:`(\w+)`)? ?\|/gm)].map(([, outcome, status, code, errorClass]) => ({
  outcome,
  status: Number(status),
  code,
  errorClass,
}));

const CLASSES = {
  badRequest: new BadRequestError(),
  unauthorized: new UnauthorizedError(),
  forbidden: new ForbiddenError(),
  notFound: new NotFoundError(),
  methodNotAllowed: new MethodNotAllowedError(['GET']),
  notAcceptable: new NotAcceptableError(),
  payloadTooLarge: new PayloadTooLargeError(),
  unsupportedMediaType: new UnsupportedMediaTypeError(),
  internalError: new InternalServerError(),
  conflict: new ConflictError(),
  gone: new GoneError(),
  preconditionFailed: new PreconditionFailedError(),
  unprocessable: new UnprocessableContentError(),
  preconditionRequired: new PreconditionRequiredError(),
  tooManyRequests: new TooManyRequestsError(),
  unavailable: new ServiceUnavailableError(),
} satisfies Partial<Record<Outcome, HttpError>>;

describe('the outcome table', () => {
  it('splits into successes (2xx, no code) and errors (4xx or 5xx, a registered code)', () => {
    expect([...SUCCESS_OUTCOMES, ...ERROR_OUTCOMES]).toEqual(Object.keys(OUTCOMES));
    for (const outcome of SUCCESS_OUTCOMES) {
      expect(OUTCOMES[outcome].status, outcome).toBeGreaterThanOrEqual(200);
      expect(OUTCOMES[outcome].status, outcome).toBeLessThan(outcome === 'notModified' ? 305 : 300);
      expect(OUTCOMES[outcome], outcome).not.toHaveProperty('code');
    }
    for (const outcome of ERROR_OUTCOMES) {
      expect(OUTCOMES[outcome].status, outcome).toBeGreaterThanOrEqual(400);
      expect(Object.values(ERROR_CODES), outcome).toContain(OUTCOMES[outcome].code);
    }
    expect(Object.keys(MEANINGS)).toEqual(Object.keys(OUTCOMES));
    expect(DEFAULT_STATUSES).toEqual(Object.fromEntries(Object.entries(OUTCOMES).map(([outcome, row]) => [outcome, row.status])));
  });

  it('gives each error class its status and code, and each problem the title of that status', () => {
    for (const [outcome, error] of Object.entries(CLASSES)) {
      const row = OUTCOMES[outcome as keyof typeof CLASSES];
      expect(error.toProblem(), outcome).toMatchObject({ status: row.status, code: row.code, type: 'about:blank' });
      expect(error.name, outcome).toMatch(/Error$/);
      expect(error).toBeInstanceOf(HttpError);
    }
    expect(new NotFoundError('No user 7').toProblem()).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND', detail: 'No user 7' });
    expect(new NotFoundError().name).toBe('NotFoundError');
    // Two outcomes share 503: a plain 503 is `unavailable`; the deadline's own answer says RC_TIMEOUT.
    expect(new HttpError(503).code).toBe(OUTCOMES.unavailable.code);
    expect(new HttpError(418).code).toBe('RC_HTTP_418');
  });

  it('is the table docs/status-policy.md shows, row for row', () => {
    const classes = new Map(Object.entries(CLASSES).map(([outcome, error]) => [outcome, error.name]));
    expect(documented).toEqual(
      Object.entries(OUTCOMES).map(([outcome, row]) => ({ outcome, status: row.status, code: 'code' in row ? row.code : undefined, errorClass: classes.get(outcome) })),
    );
  });
});

describe('the second edition of outcomes', () => {
  it('Retry-After from seconds or a date, on 429 and 503; anything else refused where the error is built', () => {
    expect(new TooManyRequestsError('Slow down', { retryAfter: 30 }).headers).toEqual({ 'retry-after': '30' });
    expect(new ServiceUnavailableError(undefined, { retryAfter: new Date('2030-01-01T00:00:00Z') }).headers).toEqual({ 'retry-after': 'Tue, 01 Jan 2030 00:00:00 GMT' });
    for (const retryAfter of [-1, 1.5, Number.NaN, new Date('nope')]) expect(() => new TooManyRequestsError(undefined, { retryAfter })).toThrow(/retryAfter must be/);
  });

  it('answers each new error thrown by a handler with its status, code and headers', async () => {
    const errors = [new ConflictError('taken'), new GoneError(), new PreconditionFailedError(), new UnprocessableContentError(), new PreconditionRequiredError(), new TooManyRequestsError(undefined, { retryAfter: 5 }), new ServiceUnavailableError('maintenance', { retryAfter: 60 })];
    for (const error of errors) {
      const api = createApi({ endpoints: [endpoint('GET', '/orders', { handle: () => { throw error; } })], onError: () => {} });
      const response = await api.handle({ method: 'GET', url: '/orders' });
      expect(response.status).toBe(error.status);
      expect(response.headers).toMatchObject({ 'content-type': 'application/problem+json; charset=utf-8', ...error.headers });
      expect(response.body).toMatchObject({ status: error.status, code: error.code, title: error.title });
    }
    const maintenance = await createApi({ endpoints: [endpoint('GET', '/orders', { handle: () => { throw new ServiceUnavailableError('maintenance'); } })], onError: () => {} }).handle({ method: 'GET', url: '/orders' });
    expect(maintenance.body).toMatchObject({ code: 'RC_UNAVAILABLE', detail: 'maintenance' });
  });

  it('badRequest: 422 keeps the code, detail and every invalid input; forbidden: 404 still conceals', async () => {
    const policy = createStatusPolicy({ badRequest: 422, forbidden: 404 });
    const reported: string[] = [];
    const api = createApi({
      policy,
      onError: (error) => reported.push((error as Error).message),
      endpoints: [
        endpoint('POST', '/users', { body: z.object({ email: z.string().email() }), handle: (ctx) => ctx.body }),
        endpoint('GET', '/secret', { handle: () => { throw new ForbiddenError('not yours'); } }),
      ],
    });
    const invalid = await api.handle({ method: 'POST', url: '/users', headers: { 'content-type': 'application/json' }, body: '{"email":"x"}' });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({ type: 'about:blank', title: 'Unprocessable Content', status: 422, code: 'RC_INVALID_INPUT', detail: 'The request has 1 invalid value', errors: [{ in: 'body', pointer: '#/email', detail: expect.any(String) }], instance: expect.any(String) });
    const hidden = await api.handle({ method: 'GET', url: '/secret' });
    expect(hidden.body).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND', instance: expect.any(String) });
    // The thrown ForbiddenError is not declared: reported under the status it answered.
    expect(reported).toEqual([expect.stringMatching(/^GET \/secret answered 404 \(RC_NOT_FOUND\), which it does not declare/)]);
  });

  it('notModified is always 304', () => {
    expect(() => createStatusPolicy({ notModified: 200 })).toThrow(/"notModified" is always 304/);
    expect(createStatusPolicy({ notModified: 304 }).decide('notModified')).toBe(304);
  });
});

describe('the outcomes a route records', () => {
  const body = z.object({ title: z.string() });
  const notes = collection('notes', {
    item: z.object({ id: z.number(), title: z.string(), ownerId: z.number() }),
    id: z.coerce.number(),
    body,
    patch: body.partial(),
    owner: (note, principal) => note.ownerId === (principal as { id: number }).id,
    list: () => [],
    read: () => undefined,
    create: (ctx) => ({ id: 1, ownerId: 1, ...ctx.body }),
    update: () => undefined,
    remove: () => true,
  });
  const outcomesOf = (api: ReturnType<typeof createApi>, method: string, path: string) => api.routes.find((route) => route.method === method && route.path === path)!.outcomes;

  it('lists what each step and operation can answer, in the order of the table', () => {
    const api = createApi({ resources: [notes], authenticate: () => ({ id: 1 }), timeout: false });
    expect(outcomesOf(api, 'GET', '/notes')).toEqual(['list', 'badRequest', 'unauthorized', 'notAcceptable', 'internalError']);
    expect(outcomesOf(api, 'GET', '/notes/:id')).toEqual(['read', 'badRequest', 'unauthorized', 'forbidden', 'notFound', 'notAcceptable', 'internalError']);
    expect(outcomesOf(api, 'POST', '/notes')).toEqual(['create', 'badRequest', 'unauthorized', 'notAcceptable', 'payloadTooLarge', 'unsupportedMediaType', 'internalError']);
    expect(outcomesOf(api, 'DELETE', '/notes/:id')).toEqual(['remove', 'empty', 'badRequest', 'unauthorized', 'forbidden', 'notFound', 'notAcceptable', 'internalError']);
  });

  it('follows the API: no authentication, no 401 and no 400 for credentials; a deadline, a 503', () => {
    const api = createApi({ endpoints: [endpoint('GET', '/health', { handle: () => ({ ok: true }) }), endpoint('POST', '/searches', { handle: () => undefined })] });
    expect(outcomesOf(api, 'GET', '/health')).toEqual(['read', 'notAcceptable', 'internalError', 'timeout']);
    // A POST without a body option refuses a body with a 400, and answers nothing with 204.
    expect(outcomesOf(api, 'POST', '/searches')).toEqual(['submit', 'empty', 'badRequest', 'notAcceptable', 'internalError', 'timeout']);
  });

  it('every status the route answers is one of its outcomes', async () => {
    const api = createApi({ resources: [notes], authenticate: (request) => (request.headers?.authorization === 'Bearer 1' ? { id: 1 } : undefined), timeout: false, onError: () => {} });
    const statuses = (method: string, path: string) => new Set(outcomesOf(api, method, path).map((outcome) => api.policy.decide(outcome)));
    const requests = [
      { method: 'GET', url: '/notes/1', headers: { authorization: 'Bearer 1' } },
      { method: 'GET', url: '/notes/abc', headers: { authorization: 'Bearer 1' } },
      { method: 'GET', url: '/notes/1' },
      { method: 'GET', url: '/notes/1', headers: { authorization: 'Bearer 1', accept: 'image/png' } },
      { method: 'GET', url: '/notes/1', headers: { authorization: 'Bearer 1, Bearer 2' } },
      { method: 'DELETE', url: '/notes/1', headers: { authorization: 'Bearer 1' } },
      { method: 'POST', url: '/notes', headers: { authorization: 'Bearer 1', 'content-type': 'text/plain' }, body: 'hi' },
      { method: 'POST', url: '/notes', headers: { authorization: 'Bearer 1', 'content-type': 'application/json' }, body: '{"title":1}' },
      { method: 'POST', url: '/notes', headers: { authorization: 'Bearer 1', 'content-type': 'application/json' }, body: '{"title":"a"}' },
    ];
    for (const request of requests) {
      const response = await api.handle(request);
      const template = request.url === '/notes' ? '/notes' : '/notes/:id';
      expect(statuses(request.method, template), `${request.method} ${request.url}: ${response.status}`).toContain(response.status);
    }
  });
});

describe("the API's challenge", () => {
  it('is sent with every 401 that names none of its own: a handler\'s UnauthorizedError, an HttpError(401), authenticate\'s', async () => {
    const challenge = 'Token realm="conduit"';
    const api = createApi({
      challenge,
      authenticate: (request) => {
        if (request.headers?.authorization === 'Token bad') throw new UnauthorizedError('expired');
        return request.headers?.authorization === 'Token good' ? { id: 1 } : undefined;
      },
      endpoints: [
        endpoint('GET', '/profiles', { handle: () => { throw new UnauthorizedError('sign in again'); } }),
        endpoint('GET', '/articles', { handle: () => { throw new HttpError(401); } }),
        endpoint('GET', '/tags', { handle: () => { throw new UnauthorizedError(undefined, { challenge: 'Basic realm="x"' }); } }),
      ],
    });
    const good = { authorization: 'Token good' };
    for (const url of ['/profiles', '/articles']) expect((await api.handle({ method: 'GET', url, headers: good })).headers['www-authenticate']).toBe(challenge);
    expect((await api.handle({ method: 'GET', url: '/tags', headers: good })).headers['www-authenticate']).toBe('Basic realm="x"');
    const expired = await api.handle({ method: 'GET', url: '/tags', headers: { authorization: 'Token bad' } });
    expect(expired.status).toBe(401);
    expect(expired.headers['www-authenticate']).toBe(challenge);
    expect(expired.body).toMatchObject({ detail: 'expired' });
  });
});
