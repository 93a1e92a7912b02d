/**
 * Each row of the outcome table as a caller of `api.handle` sees it, with the numbers written out
 * rather than read back from the table: the status of each outcome (RFC 9110 §15), which results of
 * an operation are a missing item (`item`) or the empty outcome (`mayBeEmpty`), and which errors a
 * policy may move without hiding what they say (`conceals`, docs/status-policy.md), and what each
 * outcome means as the OpenAPI document describes its answer (`MEANINGS`).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BadRequestError,
  collection,
  ConflictError,
  createApi,
  createStatusPolicy,
  endpoint,
  ForbiddenError,
  GoneError,
  InternalServerError,
  MethodNotAllowedError,
  NotAcceptableError,
  NotFoundError,
  PayloadTooLargeError,
  PreconditionFailedError,
  PreconditionRequiredError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnprocessableContentError,
  UnsupportedMediaTypeError,
  type ApiResponse,
  type HttpError,
  type StatusPolicyOverrides,
} from '../../src/index.js';
import { ERROR_OUTCOMES } from '../../src/engine.js';
import { createOpenApiDocument } from '../../src/openapi/document.js';
import { expectProblem } from '../helpers/problem.js';

const never = () => new Promise<never>(() => {});

/** The answer to a handler that throws `error`, under the policy of `overrides`. */
function thrown(error: HttpError, overrides: StatusPolicyOverrides = {}): Promise<ApiResponse> {
  const api = createApi({ policy: createStatusPolicy(overrides), onError: () => {}, endpoints: [endpoint('GET', '/orders', { handle: () => { throw error; } })] });
  return api.handle({ method: 'GET', url: '/orders' });
}

/** The answer of a request that outlives the API's deadline, under the policy of `overrides`. */
function timedOut(overrides: StatusPolicyOverrides = {}): Promise<ApiResponse> {
  const api = createApi({ policy: createStatusPolicy(overrides), timeout: 20, onError: () => {}, endpoints: [endpoint('GET', '/orders', { handle: never })] });
  return api.handle({ method: 'GET', url: '/orders' });
}

describe('each error answers the status RFC 9110 gives it, with its code', () => {
  it.each([
    ['§15.5.1', 400, 'RC_BAD_REQUEST', () => new BadRequestError('x')],
    ['§15.5.2', 401, 'RC_UNAUTHORIZED', () => new UnauthorizedError('x')],
    ['§15.5.4', 403, 'RC_FORBIDDEN', () => new ForbiddenError('x')],
    ['§15.5.5', 404, 'RC_NOT_FOUND', () => new NotFoundError('x')],
    ['§15.5.6', 405, 'RC_METHOD_NOT_ALLOWED', () => new MethodNotAllowedError(['GET'], { detail: 'x' })],
    ['§15.5.7', 406, 'RC_NOT_ACCEPTABLE', () => new NotAcceptableError('x')],
    ['§15.5.10', 409, 'RC_CONFLICT', () => new ConflictError('x')],
    ['§15.5.11', 410, 'RC_GONE', () => new GoneError('x')],
    ['§15.5.13', 412, 'RC_PRECONDITION_FAILED', () => new PreconditionFailedError('x')],
    ['§15.5.14', 413, 'RC_PAYLOAD_TOO_LARGE', () => new PayloadTooLargeError('x')],
    ['§15.5.16', 415, 'RC_UNSUPPORTED_MEDIA_TYPE', () => new UnsupportedMediaTypeError('x')],
    ['§15.5.21', 422, 'RC_UNPROCESSABLE', () => new UnprocessableContentError('x')],
    ['RFC 6585 §3', 428, 'RC_PRECONDITION_REQUIRED', () => new PreconditionRequiredError('x')],
    ['RFC 6585 §4', 429, 'RC_TOO_MANY_REQUESTS', () => new TooManyRequestsError('x')],
    ['§15.6.1', 500, 'RC_INTERNAL', () => new InternalServerError('x')],
    ['§15.6.4', 503, 'RC_UNAVAILABLE', () => new ServiceUnavailableError('x')],
  ])('%s: %i %s', async (_section, status, code, error) => {
    expectProblem(await thrown(error()), { status, code });
  });

  it('§15.6.4: a request past its deadline is a 503 that says RC_TIMEOUT', async () => {
    expectProblem(await timedOut(), { status: 503, code: 'RC_TIMEOUT', detail: 'The request did not finish in time' });
  });
});

describe('each success answers its status (RFC 9110 §15.3, §15.4.5)', () => {
  const results: unknown[] = [];
  const next = () => results.shift();
  const api = createApi({
    resources: [
      collection('notes', {
        id: z.coerce.number().int(),
        body: 'unvalidated',
        patch: 'unvalidated',
        list: () => [{ id: 1, version: 1 }],
        read: next,
        create: () => ({ id: 2, version: 1 }),
        replace: next,
        update: next,
        remove: next,
      }),
      collection('articles', { id: z.coerce.number().int(), etag: (article: { version: number }) => String(article.version), read: () => ({ id: 1, version: 1 }) }),
    ],
    endpoints: [
      endpoint('POST', '/searches', { body: 'unvalidated', handle: next }),
      endpoint('POST', '/exports', { body: 'unvalidated', outcomes: ['accepted'], handle: (ctx) => (ctx.outcome('accepted'), { job: 1 }) }),
      endpoint('GET', '/reports', { operation: 'list', handle: next }),
    ],
  });
  const answer = (method: string, url: string, result?: unknown, headers: Record<string, string> = {}) => {
    results.length = 0;
    results.push(result);
    return api.handle({ method, url, headers: { 'content-type': 'application/json', ...headers }, ...(method === 'GET' || method === 'OPTIONS' || method === 'DELETE' ? {} : { body: '{}' }) });
  };
  const note = { id: 1, version: 1 };

  it.each([
    ['list', 200, 'GET', '/notes', undefined],
    ['read', 200, 'GET', '/notes/1', note],
    ['create', 201, 'POST', '/notes', undefined],
    ['submit', 200, 'POST', '/searches', { hits: 0 }],
    ['replace', 200, 'PUT', '/notes/1', note],
    ['update', 200, 'PATCH', '/notes/1', note],
    ['remove', 200, 'DELETE', '/notes/1', note],
    ['accepted', 202, 'POST', '/exports', undefined],
    ['options', 204, 'OPTIONS', '/notes', undefined],
    ['empty (a submit that returns nothing)', 204, 'POST', '/searches', undefined],
  ])('%s answers %i: %s %s', async (_outcome, status, method, url, result) => {
    expect((await answer(method, url, result)).status).toBe(status);
  });

  it('notModified: a GET whose copy is current answers 304', async () => {
    expect((await answer('GET', '/articles/1', undefined, { 'if-none-match': '"1"' })).status).toBe(304);
  });

  describe('item: a replace, an update, a read or a remove that returns nothing found no item, a 404 (docs/resources.md)', () => {
    it.each([
      ['read', 'GET'],
      ['replace', 'PUT'],
      ['update', 'PATCH'],
      ['remove', 'DELETE'],
    ])('%s', async (_operation, method) => {
      expectProblem(await answer(method, '/notes/1', undefined), { status: 404, code: 'RC_NOT_FOUND' });
    });

    it('a list is no item: one that returns nothing is the empty outcome, 204', async () => {
      const response = await answer('GET', '/reports', undefined);
      expect(response).toEqual({ status: 204, headers: {}, body: undefined, payload: undefined });
    });
  });

  it('mayBeEmpty: a submit and a remove may answer the empty outcome, and their routes list it; a replace and an update do not', () => {
    const outcomes = (method: string, path: string) => api.routes.find((route) => route.method === method && route.path === path)!.outcomes;
    expect(outcomes('POST', '/searches')).toContain('empty');
    expect(outcomes('DELETE', '/notes/:id')).toContain('empty');
    expect(outcomes('PUT', '/notes/:id')).not.toContain('empty');
    expect(outcomes('PATCH', '/notes/:id')).not.toContain('empty');
  });
});

describe('conceals: only unauthorized and forbidden hide what they say when the policy moves them (docs/status-policy.md)', () => {
  it.each([
    ['notAcceptable', 400, 'RC_NOT_ACCEPTABLE', () => new NotAcceptableError('Ask for JSON')],
    ['gone', 404, 'RC_GONE', () => new GoneError('Order 7 was archived')],
    ['preconditionFailed', 409, 'RC_PRECONDITION_FAILED', () => new PreconditionFailedError('The order changed')],
    ['payloadTooLarge', 400, 'RC_PAYLOAD_TOO_LARGE', () => new PayloadTooLargeError('At most 1 KiB')],
    ['unsupportedMediaType', 400, 'RC_UNSUPPORTED_MEDIA_TYPE', () => new UnsupportedMediaTypeError('Send JSON')],
    ['unprocessable', 400, 'RC_UNPROCESSABLE', () => new UnprocessableContentError('The total is negative')],
    ['preconditionRequired', 400, 'RC_PRECONDITION_REQUIRED', () => new PreconditionRequiredError('Send If-Match')],
    ['unavailable', 500, 'RC_UNAVAILABLE', () => new ServiceUnavailableError('Down for maintenance')],
  ] as const)('%s moved to %i keeps its code and detail', async (outcome, status, code, error) => {
    const problem = expectProblem(await thrown(error(), { [outcome]: status }), { status, code });
    expect(problem.detail).toBe(error().detail);
  });

  it('internalError moved to 503: an exposed one keeps its code and detail; an unexposed one says only what its new status says (docs/errors.md: expose)', async () => {
    expectProblem(await thrown(new InternalServerError('The ledger is being rebuilt', { expose: true }), { internalError: 503 }), { status: 503, code: 'RC_INTERNAL', detail: 'The ledger is being rebuilt' });
    expectProblem(await thrown(new InternalServerError('db down'), { internalError: 503 }), { status: 503, code: 'RC_UNAVAILABLE', detail: undefined, secrets: ['db down'] });
  });

  it('timeout moved to 504 keeps its code and detail', async () => {
    expectProblem(await timedOut({ timeout: 504 }), { status: 504, code: 'RC_TIMEOUT', title: 'Gateway Timeout', detail: 'The request did not finish in time' });
  });

  it.each([
    ['unauthorized', () => new UnauthorizedError('The token expired')],
    ['forbidden', () => new ForbiddenError('This order belongs to user 2')],
  ] as const)('%s moved to 404 is answered as a plain 404: no code, detail or challenge of its own', async (outcome, error) => {
    expectProblem(await thrown(error(), { [outcome]: 404 }), { status: 404, code: 'RC_NOT_FOUND', exact: true, headers: { 'www-authenticate': undefined } });
  });
});

describe('what each outcome means, as the OpenAPI document describes its answer (OpenAPI 3.1 §4.8.17: a response\'s description)', () => {
  const everyError = Object.fromEntries(ERROR_OUTCOMES.map((outcome) => [outcome, {}]));
  const api = createApi({
    resources: [
      collection('notes', {
        id: z.coerce.number().int(),
        body: 'unvalidated',
        patch: 'unvalidated',
        etag: (note: { version: number }) => String(note.version),
        list: () => [],
        read: () => ({ id: 1, version: 1 }),
        create: () => ({ id: 1, version: 1 }),
        replace: () => ({ id: 1, version: 1 }),
        update: () => ({ id: 1, version: 1 }),
        remove: () => true,
      }),
    ],
    endpoints: [endpoint('POST', '/exports', { body: 'unvalidated', outcomes: ['accepted'], errors: everyError as never, handle: () => ({ job: 1 }) })],
  });
  const document = createOpenApiDocument(api, { info: { title: 'Notes', version: '1.0.0' } });
  const described = (path: string, verb: 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options', status: number) => document.paths[path]![verb]!.responses[status]!.description;

  it.each([
    ['list', '/notes', 'get', 200, 'OK: the items'],
    ['read', '/notes/{id}', 'get', 200, 'OK: the item'],
    ['create', '/notes', 'post', 201, 'Created: the new item; Location is its URL'],
    ['submit', '/exports', 'post', 200, 'OK: the result of the action'],
    ['replace', '/notes/{id}', 'put', 200, 'OK: the item as replaced'],
    ['update', '/notes/{id}', 'patch', 200, 'OK: the item as updated'],
    ['remove', '/notes/{id}', 'delete', 200, 'OK: the removed item'],
    ['accepted', '/exports', 'post', 202, 'Accepted: accepted; the work goes on after this answer'],
    ['options', '/notes', 'options', 204, 'No Content: Allow lists the methods of this path'],
    ['empty', '/notes/{id}', 'delete', 204, 'No Content: done, nothing to send'],
  ] as const)('%s: %s %s %i', (_outcome, path, verb, status, description) => {
    expect(described(path, verb, status)).toBe(description);
  });

  it('notModified: RFC 9110 §15.4.5, a 304 says the copy the client holds is current, not that the request is done with nothing to send', () => {
    expect(described('/notes/{id}', 'get', 304)).toBe('Not Modified: the copy the client holds is current');
    expect(described('/notes/{id}', 'head', 304)).toBe('Not Modified: the copy the client holds is current');
  });

  it.each([
    [400, 'Bad Request: the request is invalid: a malformed body, URL or credentials, or input that fails its schema (`errors` lists every issue).'],
    [401, 'Unauthorized: no credentials, or credentials that were not accepted.'],
    [403, 'Forbidden: the caller may not do this, or the item is not theirs.'],
    [404, 'Not Found: no such item, or no such parent item.'],
    [405, 'Method Not Allowed: the path does not take this method; Allow lists those it takes.'],
    [406, 'Not Acceptable: no response format matches `Accept`.'],
    [409, 'Conflict: the request conflicts with the current state of the resource.'],
    [410, 'Gone: the resource is gone for good.'],
    [412, 'Precondition Failed: a precondition of the request does not hold.'],
    [413, 'Content Too Large: the body is larger than the limit (1048576 bytes).'],
    [415, 'Unsupported Media Type: the media type, charset or content coding of the body is not accepted.'],
    [422, 'Unprocessable Content: the request is well-formed but cannot be processed as it stands.'],
    [428, 'Precondition Required: a change needs a precondition, such as If-Match.'],
    [429, 'Too Many Requests: too many requests; Retry-After says when to try again.'],
    [500, 'Internal Server Error: a fault on the server; `instance` identifies it in the server log.'],
    [503, 'Service Unavailable: the service cannot answer now; Retry-After says when to try again; or the request took longer than the server allows.'],
  ])('an error answer %i says what its outcomes mean, two that share a status joined by "or"', (status, description) => {
    expect(described('/exports', 'post', status)).toBe(description);
  });
});
