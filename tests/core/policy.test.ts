import { describe, expect, it } from 'vitest';
import { applyPolicy, DEFAULT_POLICY } from '../../src/core/policy.js';
import { createStatusPolicy, ForbiddenError, HttpError, NotFoundError, problemOf, UnauthorizedError } from '../../src/index.js';
import { DEFAULT_STATUSES, ERROR_OUTCOMES, SUCCESS_OUTCOMES } from '../../src/engine.js';

describe('the default status table', () => {
  it.each([
    ['list', 200],
    ['read', 200],
    ['create', 201],
    ['submit', 200],
    ['replace', 200],
    ['update', 200],
    ['remove', 200],
    ['options', 204],
    ['empty', 204],
    ['badRequest', 400],
    ['unauthorized', 401],
    ['forbidden', 403],
    ['notFound', 404],
    ['methodNotAllowed', 405],
    ['notAcceptable', 406],
    ['payloadTooLarge', 413],
    ['unsupportedMediaType', 415],
    ['internalError', 500],
    ['timeout', 503],
  ] as const)('decides %s → %i', (outcome, status) => {
    expect(DEFAULT_POLICY.decide(outcome)).toBe(status);
  });

  it('has a row for every outcome and nothing else', () => {
    expect(Object.keys(DEFAULT_STATUSES).sort()).toEqual([...SUCCESS_OUTCOMES, ...ERROR_OUTCOMES].sort());
  });

  it('is the policy createStatusPolicy() builds without overrides, frozen alike', () => {
    const built = createStatusPolicy();
    expect(DEFAULT_POLICY.statuses).toEqual(built.statuses);
    expect(DEFAULT_POLICY.unacceptable).toBe(built.unacceptable);
    expect(Object.isFrozen(DEFAULT_POLICY) && Object.isFrozen(DEFAULT_POLICY.statuses)).toBe(true);
    expect(DEFAULT_POLICY.statuses).not.toBe(DEFAULT_STATUSES);
  });
});

describe('createStatusPolicy', () => {
  it('overrides single rows and keeps the rest', () => {
    const policy = createStatusPolicy({ remove: 204, forbidden: 404 });
    expect(policy.decide('remove')).toBe(204);
    expect(policy.decide('forbidden')).toBe(404);
    expect(policy.decide('create')).toBe(201);
    expect(Object.isFrozen(policy.statuses)).toBe(true);
  });

  it.each([
    [{ notFound: 200 }, /error and must be answered with a 4xx or 5xx/],
    [{ internalError: 204 }, /error/],
    [{ forbidden: 302 }, /error/],
    [{ create: 404 }, /success and must be answered with a 2xx/],
    [{ read: 600 }, /from 100 to 599/],
    [{ read: 99 }, /from 100 to 599/],
    [{ read: 200.5 }, /integer/],
    [{ read: '200' as unknown as number }, /integer/],
    [{ deleted: 204 } as never, /`deleted` is not an option of createStatusPolicy\(\)/],
    [{ unacceptable: 'maybe' } as never, /unacceptable/],
  ])('refuses %j', (overrides, message) => {
    expect(() => createStatusPolicy(overrides)).toThrow(message);
  });

  it('can fall back to JSON instead of 406', () => {
    expect(createStatusPolicy({ unacceptable: 'json' }).unacceptable).toBe('json');
    expect(DEFAULT_POLICY.unacceptable).toBe('reject');
  });
});

describe('applyPolicy', () => {
  it('keeps an error whose status the policy does not change', () => {
    const error = new NotFoundError('x');
    expect(applyPolicy(DEFAULT_POLICY, error)).toBe(error);
  });

  it('turns a 403 into a 404 that says nothing of the original', () => {
    const mapped = applyPolicy(createStatusPolicy({ forbidden: 404 }), new ForbiddenError('This order belongs to user 2'));
    expect(mapped.status).toBe(404);
    expect(problemOf(mapped)).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND' });
  });

  it('keeps a challenge when another outcome is mapped to 401', () => {
    const mapped = applyPolicy(createStatusPolicy({ forbidden: 401 }), new ForbiddenError());
    expect(mapped.headers['www-authenticate']).toBe('Bearer realm="api"');
    expect(applyPolicy(DEFAULT_POLICY, new UnauthorizedError()).headers['www-authenticate']).toBe('Bearer realm="api"');
  });

  it('leaves statuses outside the table alone', () => {
    const conflict = new HttpError(409);
    expect(applyPolicy(createStatusPolicy({ notFound: 410 }), conflict)).toBe(conflict);
  });
});
