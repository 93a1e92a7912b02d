import { BadRequestError, ConflictError, ServiceUnavailableError, UnauthorizedError, UnprocessableContentError, withoutStack, type HttpError } from '../../core/errors.js';

/**
 * The problems of idempotency keys, each with a `type` of its own (RFC 9457), so that a client tells
 * a key it must fix from a key it may send again: the draft's 400 (missing), 422 (reused with another
 * request) and 409 (its first request still runs), a malformed key's 400, an anonymous key's 401 and
 * the store's 503.
 */

/**
 * The `type` of each problem.
 *
 * @example
 * if (problem.type === IDEMPOTENCY_PROBLEMS.inUse) retryLater();
 */
export const IDEMPOTENCY_PROBLEMS = {
  missing: 'urn:restcanon:problem:idempotency-key-missing',
  malformed: 'urn:restcanon:problem:idempotency-key-malformed',
  reused: 'urn:restcanon:problem:idempotency-key-reused',
  inUse: 'urn:restcanon:problem:idempotency-key-in-use',
  unscoped: 'urn:restcanon:problem:idempotency-key-unscoped',
  unavailable: 'urn:restcanon:problem:idempotency-store-unavailable',
} as const;

/** The 400 of a request that must carry a key and carries none. */
export const MISSING = /* @__PURE__ */ withoutStack(
  () => new BadRequestError('This operation needs an Idempotency-Key header, such as Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"', { type: IDEMPOTENCY_PROBLEMS.missing, title: 'Idempotency-Key is missing' }),
);

/**
 * The 400 of a header that is no key, saying why.
 *
 * @example
 * throw malformed('the key is empty');
 */
export function malformed(mistake: string): HttpError {
  return withoutStack(() => new BadRequestError(`The Idempotency-Key header is no key: ${mistake}`, { type: IDEMPOTENCY_PROBLEMS.malformed, title: 'Idempotency-Key is malformed' }));
}

/** The 422 of a key sent again with another request. */
export const REUSED = /* @__PURE__ */ withoutStack(
  () => new UnprocessableContentError('This Idempotency-Key was sent with another request (another method, URL or body); a key belongs to one request: send a new key for a new request', { type: IDEMPOTENCY_PROBLEMS.reused, title: 'Idempotency-Key is already used' }),
);

/** The 409 of a retry while the first request with its key still runs. */
export const IN_USE = /* @__PURE__ */ withoutStack(
  () => new ConflictError('A request with this Idempotency-Key is still being processed; send it again once that one has been answered', { type: IDEMPOTENCY_PROBLEMS.inUse, title: 'A request is outstanding for this Idempotency-Key', headers: { 'retry-after': '1' } }),
);

/** The 401 of a key from a caller no scope names: its answer would be anybody's to replay. */
export const UNSCOPED = /* @__PURE__ */ withoutStack(
  () => new UnauthorizedError('An Idempotency-Key is kept per caller: sign in to send one, or send the request without it', { type: IDEMPOTENCY_PROBLEMS.unscoped, title: 'Idempotency-Key needs a caller' }),
);

/**
 * The 503 of a store that failed or did not answer in time: the request does not run, since
 * nothing could tell whether it ran before.
 *
 * @example
 * throw unavailable(storeError);
 */
export function unavailable(cause: unknown): HttpError {
  return withoutStack(() => new ServiceUnavailableError('Idempotency keys cannot be checked now; send the request again with the same key later', { type: IDEMPOTENCY_PROBLEMS.unavailable, title: 'Idempotency-Key cannot be checked', retryAfter: 1, cause }));
}
