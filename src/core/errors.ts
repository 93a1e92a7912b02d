import type { ErrorCode } from './error-codes.js';
import { answerHeader, errorText } from './http.js';
import { codeOfStatus, OUTCOMES, type ErrorOutcome } from './outcomes.js';

/** The brand of every `HttpError`, whichever copy of restcanon built it. */
export const BRAND = Symbol.for('restcanon.HttpError');

/** The `WWW-Authenticate` challenge of a 401 when neither the error nor the API names another. */
export const DEFAULT_CHALLENGE = 'Bearer realm="api"';

/** Where an invalid value was found. */
export type IssueLocation = 'path' | 'query' | 'header' | 'body';

/**
 * One invalid value: where it is (`in` and a JSON Pointer into that part of the request) and what is
 * wrong with it. It never holds the value itself.
 *
 * @example
 * const issue: InputIssue = { in: 'body', pointer: '#/address/zip', detail: 'must be a string' };
 */
export interface InputIssue {
  in: IssueLocation;
  pointer: string;
  detail: string;
}

/**
 * An RFC 9457 problem details object, as sent with `application/problem+json`.
 * `code` is restcanon's stable error code; `errors` lists the invalid inputs of a 400, the first 100
 * of them, and `omittedErrors` counts those left out.
 *
 * @example
 * const problem: ProblemDetails = { type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND' };
 */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  code: string;
  errors?: InputIssue[];
  /** How many invalid inputs were found beyond those in `errors`; present only when some were left out. */
  omittedErrors?: number;
}

/** Options shared by every `HttpError` constructor. */
export interface HttpErrorOptions {
  /** A sentence for the client. Sent only when `expose` is true. */
  detail?: string;
  /** A stable code; defaults to the code of the status. */
  code?: ErrorCode;
  /** Problem `title`; defaults to the reason phrase. Set `type` too when you change it (RFC 9457 §4.2.1). */
  title?: string;
  /** Problem `type` URI; defaults to `about:blank`. */
  type?: string;
  /** Response headers that belong to this error, such as `www-authenticate` or `allow`. */
  headers?: Record<string, string>;
  /** Every invalid input, for a 400. */
  errors?: InputIssue[];
  /** How many more invalid inputs there were than `errors` lists, for a 400 that lists only the first ones. */
  omittedErrors?: number;
  /** Whether `detail` and `errors` reach the client. Defaults to true below 500, false from 500. */
  expose?: boolean;
  /** The underlying error. Never sent to the client. */
  cause?: unknown;
}

/**
 * An error that carries its HTTP status. Throw it (or a subclass) from a handler to answer with that
 * status and an RFC 9457 body. Statuses below 400 are refused: an error is never a success.
 *
 * @example
 * throw new HttpError(409, { detail: 'An order with this reference exists' });
 */
export class HttpError extends Error {
  // Declared, not class fields: the constructor sets every one, and fields would be emitted as code.
  declare readonly [BRAND]: true;
  declare readonly status: number;
  declare readonly code: ErrorCode;
  declare readonly title: string;
  declare readonly type: string;
  declare readonly detail: string | undefined;
  declare readonly expose: boolean;
  declare readonly headers: Readonly<Record<string, string>>;
  declare readonly errors: readonly InputIssue[] | undefined;
  declare readonly omittedErrors: number | undefined;

  constructor(status: number, options: HttpErrorOptions = {}) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`HttpError status must be an integer from 400 to 599, got ${String(status)}: an error is never answered with a success status`);
    }
    super(options.detail ?? errorText(status), options.cause === undefined ? undefined : { cause: options.cause });
    this.status = status;
    this.code = options.code ?? codeOfStatus(status);
    this.title = options.title ?? errorText(status);
    this.type = options.type ?? 'about:blank';
    this.detail = options.detail;
    this.expose = options.expose ?? status < 500;
    this.headers = options.headers === undefined ? {} : checkHeaders(options.headers);
    this.errors = options.errors;
    this.omittedErrors = options.omittedErrors;
    // Set last, so the own keys come in the order they always had.
    this.name = new.target.name;
  }

  /**
   * The RFC 9457 body for this error. Unexposed errors (5xx by default) keep only type, title,
   * status and code: never the detail, the message, the stack or the cause.
   *
   * @example
   * new NotFoundError('No user 7').toProblem(); // { type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND', detail: 'No user 7' }
   */
  toProblem(instance?: string): ProblemDetails {
    return problemOf(this, instance);
  }
}
Object.defineProperty(HttpError.prototype, BRAND, { value: true });

/**
 * The headers of an error, refused where the error is built when one could split the response or
 * make the server drop it, or is one a handler may not set either (see {@link answerHeader}).
 */
function checkHeaders(headers: Record<string, string>): Record<string, string> {
  for (const name of Object.keys(headers)) answerHeader('HttpError', name, headers[name]);
  return headers;
}

/**
 * Whether a value is an `HttpError`, also one made by another copy of restcanon (the ESM and the CJS
 * build, or two installed versions), where `instanceof` would say no.
 *
 * @example
 * if (isHttpError(error)) console.log(error.status);
 */
export function isHttpError(value: unknown): value is HttpError {
  return statusOf(value) !== undefined;
}

/**
 * The status of an `HttpError`, read once; undefined for any other value, for one that throws when
 * read, and for a status no `HttpError` can have. The brand is a public `Symbol.for`: a value that
 * claims it with 200, NaN or '500' must not be answered as one, or an error could go out with a 2xx.
 *
 * @example
 * if (statusOf(error) !== 401) throw error;
 */
export function statusOf(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    if ((value as { [BRAND]?: unknown })[BRAND] !== true) return undefined;
    const status = (value as { status?: unknown }).status;
    return isErrorStatus(status) ? status : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a status is one an `HttpError` can have: a whole number from 400 to 599. */
export function isErrorStatus(status: unknown): status is number {
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599;
}

/**
 * What answering an error reads of it: an `HttpError`'s members, or their copy read once from a
 * thrown value (see `snapshotOf`).
 *
 * @example
 * const facts: ErrorFacts = new NotFoundError('No user 7');
 */
export interface ErrorFacts {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly type: string;
  readonly detail: string | undefined;
  readonly expose: boolean;
  readonly headers: Readonly<Record<string, string>>;
  readonly errors: readonly InputIssue[] | undefined;
  readonly omittedErrors: number | undefined;
}

/**
 * The problem body of an error, read from its fields so that errors from another copy of restcanon work.
 *
 * @example
 * problemOf(new ForbiddenError()); // { type: 'about:blank', title: 'Forbidden', status: 403, code: 'RC_FORBIDDEN' }
 */
export function problemOf(error: ErrorFacts, instance?: string): ProblemDetails {
  const problem: ProblemDetails = error.expose
    ? { type: error.type, title: error.title, status: error.status, code: error.code }
    : { type: 'about:blank', title: errorText(error.status), status: error.status, code: codeOfStatus(error.status) };
  if (error.expose && error.detail !== undefined) problem.detail = error.detail;
  if (instance !== undefined) problem.instance = instance;
  if (error.expose && error.errors !== undefined) {
    problem.errors = error.errors.map((issue) => ({ ...issue }));
    if (error.omittedErrors !== undefined && error.omittedErrors > 0) problem.omittedErrors = error.omittedErrors;
  }
  return problem;
}

type DetailOptions = Omit<HttpErrorOptions, 'detail'>;

/** The class of an error outcome: a detail first, then the options; the status is the outcome's. */
export type OutcomeErrorClass = new (detail?: string, options?: DetailOptions) => HttpError;

/**
 * The base class of an error outcome's class, with the status of its row in the outcome table: the
 * classes below extend it, so that a status is written only in the table.
 */
function outcomeError(outcome: ErrorOutcome): OutcomeErrorClass {
  const { status } = OUTCOMES[outcome];
  return class extends HttpError {
    constructor(detail?: string, options: DetailOptions = {}) {
      super(status, withDetail(detail, options));
    }
  };
}

/**
 * 400: the request is invalid. Pass `errors` to list every invalid input.
 *
 * @example
 * throw new BadRequestError('The date range ends before it starts');
 */
export class BadRequestError extends /* @__PURE__ */ outcomeError('badRequest') {}

/** Options of {@link UnauthorizedError}. */
export interface UnauthorizedOptions extends DetailOptions {
  /** The `WWW-Authenticate` challenge. Defaults to `Bearer realm="api"`. */
  challenge?: string;
}

/**
 * 401: no credentials, or credentials that were not accepted. Carries `WWW-Authenticate`.
 *
 * @example
 * throw new UnauthorizedError('The token has expired', { challenge: 'Bearer realm="api", error="invalid_token"' });
 */
export class UnauthorizedError extends HttpError {
  constructor(detail?: string, options: UnauthorizedOptions = {}) {
    const { challenge = DEFAULT_CHALLENGE, ...rest } = options;
    super(OUTCOMES.unauthorized.status, withDetail(detail, { ...rest, headers: { ...rest.headers, 'www-authenticate': challenge } }));
  }
}

/**
 * 403: the caller is known but may not do this.
 *
 * @example
 * throw new ForbiddenError();
 */
export class ForbiddenError extends /* @__PURE__ */ outcomeError('forbidden') {}

/**
 * 404: the target does not exist.
 *
 * @example
 * throw new NotFoundError('No user with this id');
 */
export class NotFoundError extends /* @__PURE__ */ outcomeError('notFound') {}

/**
 * 405: the path exists, but not with this method. Carries `Allow` with the methods that do.
 *
 * @example
 * throw new MethodNotAllowedError(['GET', 'HEAD', 'OPTIONS']);
 */
export class MethodNotAllowedError extends HttpError {
  constructor(allow: readonly string[] | string, options: HttpErrorOptions = {}) {
    const allowHeader = typeof allow === 'string' ? allow : allow.join(', ');
    super(OUTCOMES.methodNotAllowed.status, { ...options, headers: { ...options.headers, allow: allowHeader } });
  }
}

/**
 * 406: nothing the endpoint can produce matches `Accept`.
 *
 * @example
 * throw new NotAcceptableError('Available: application/json');
 */
export class NotAcceptableError extends /* @__PURE__ */ outcomeError('notAcceptable') {}

/**
 * 409: the request conflicts with the current state of the resource (a taken email, a concurrent change).
 *
 * @example
 * throw new ConflictError('An account with this email exists');
 */
export class ConflictError extends /* @__PURE__ */ outcomeError('conflict') {}

/**
 * 410: the resource existed and is gone for good.
 *
 * @example
 * throw new GoneError('This invitation was used');
 */
export class GoneError extends /* @__PURE__ */ outcomeError('gone') {}

/**
 * 412: a precondition of the request (`If-Match`, `If-Unmodified-Since`) does not hold.
 *
 * @example
 * throw new PreconditionFailedError('The order changed since you read it');
 */
export class PreconditionFailedError extends /* @__PURE__ */ outcomeError('preconditionFailed') {}

/**
 * 413: the body is larger than the limit.
 *
 * @example
 * throw new PayloadTooLargeError('The body is larger than 1048576 bytes');
 */
export class PayloadTooLargeError extends /* @__PURE__ */ outcomeError('payloadTooLarge') {}

/**
 * 415: the body's media type or charset is not accepted. Pass `accept-post` or `accept-patch` headers.
 *
 * @example
 * throw new UnsupportedMediaTypeError('Send application/json', { headers: { 'accept-post': 'application/json' } });
 */
export class UnsupportedMediaTypeError extends /* @__PURE__ */ outcomeError('unsupportedMediaType') {}

/**
 * 422: the request is well-formed but cannot be processed as it stands. Pass `errors` to point at
 * what is wrong.
 *
 * @example
 * throw new UnprocessableContentError('The coupon has expired', { errors: [{ in: 'body', pointer: '#/coupon', detail: 'has expired' }] });
 */
export class UnprocessableContentError extends /* @__PURE__ */ outcomeError('unprocessable') {}

/**
 * 428: a change needs a precondition (`If-Match`) and the request sent none.
 *
 * @example
 * throw new PreconditionRequiredError('Send If-Match with the ETag you read');
 */
export class PreconditionRequiredError extends /* @__PURE__ */ outcomeError('preconditionRequired') {}

/** Options of the errors that tell a client when to try again. */
export interface RetryOptions extends DetailOptions {
  /** `Retry-After`: seconds from now (a whole number of at least 0), or a date. */
  retryAfter?: number | Date;
}

/**
 * 429: too many requests. `retryAfter` sets `Retry-After`.
 *
 * @example
 * throw new TooManyRequestsError('Slow down', { retryAfter: 30 });
 */
export class TooManyRequestsError extends HttpError {
  constructor(detail?: string, options: RetryOptions = {}) {
    super(OUTCOMES.tooManyRequests.status, withRetryAfter(detail, options));
  }
}

/**
 * 503: the service cannot answer now (maintenance, an overloaded dependency). `retryAfter` sets
 * `Retry-After`; unlike a 500, it is an answer the server chose, and `detail` reaches the client.
 *
 * @example
 * throw new ServiceUnavailableError('Down for maintenance', { retryAfter: new Date('2030-01-01T00:00:00Z') });
 */
export class ServiceUnavailableError extends HttpError {
  constructor(detail?: string, options: RetryOptions = {}) {
    super(OUTCOMES.unavailable.status, { expose: true, ...withRetryAfter(detail, options) });
  }
}

function withRetryAfter(detail: string | undefined, options: RetryOptions): HttpErrorOptions {
  const { retryAfter, ...rest } = options;
  if (retryAfter === undefined) return withDetail(detail, rest);
  let value: string;
  if (retryAfter instanceof Date && !Number.isNaN(retryAfter.getTime())) value = retryAfter.toUTCString();
  else if (typeof retryAfter === 'number' && Number.isSafeInteger(retryAfter) && retryAfter >= 0) value = String(retryAfter);
  else throw new TypeError(`retryAfter must be a whole number of seconds of at least 0, or a valid Date; got ${String(retryAfter)}`);
  return withDetail(detail, { ...rest, headers: { ...rest.headers, 'retry-after': value } });
}

/**
 * 500: something failed on the server. Its detail is never sent unless `expose: true`.
 *
 * @example
 * throw new InternalServerError('database unreachable', { cause: error }); // the client sees only "Internal Server Error"
 */
export class InternalServerError extends /* @__PURE__ */ outcomeError('internalError') {}

function withDetail(detail: string | undefined, options: DetailOptions): HttpErrorOptions {
  if (detail === undefined) return options;
  // Not `{ ...options, detail }`: in V8 a spread followed by a new key is slower than a copy and an assignment.
  const withIt: HttpErrorOptions = Object.assign({}, options);
  withIt.detail = detail;
  return withIt;
}

/**
 * Builds an error without capturing a stack trace. The 4xx answers restcanon gives itself (routing,
 * validation, bodies) are ordinary outcomes, not faults: their stacks are never shown or reported,
 * and capturing one costs more than the rest of such an answer.
 *
 * @example
 * const NO_ROUTE = withoutStack(() => new NotFoundError('No resource matches this path'));
 */
export function withoutStack<T>(create: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return create();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * The answer for an item that does not exist, and for someone else's item: one error each, built
 * once. With `forbidden: 404` the second is answered exactly as the first, through the same path, so
 * neither the body nor the work done tells a client which ids exist.
 */
export const MISSING_ITEM: HttpError = /* @__PURE__ */ withoutStack(() => new NotFoundError());
export const FORBIDDEN_ITEM: HttpError = /* @__PURE__ */ withoutStack(() => new ForbiddenError());

