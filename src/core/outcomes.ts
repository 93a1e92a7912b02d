import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/**
 * The outcome table: every way a request can end, as data, each in one row. The status policy takes
 * its default statuses from here, the error classes their statuses, problem bodies their default
 * codes, the engine what a success with no result means, and the OpenAPI document what each answer
 * means ({@link MEANINGS}). A problem's `title` is the reason phrase of the status the policy chose.
 */

/** One row of {@link OUTCOMES}. */
export interface OutcomeRow {
  /** The default status; a policy may choose another of the same kind (2xx for a success, 4xx or 5xx for an error). */
  readonly status: number;
  /** The stable code of its problem body; only errors have one. */
  readonly code?: ErrorCode;
  /** The operation acts on one item: a result of `undefined` or `null` (`false` for remove) is a missing item. */
  readonly item?: boolean;
  /** A result of `undefined` (`true` for remove) answers the `empty` outcome: done, nothing to send. */
  readonly mayBeEmpty?: boolean;
  /**
   * An error that must not tell a client it happened: moved by the policy to another status, it is
   * answered exactly as that status's own error (`forbidden: 404` looks like a missing item). Any
   * other error keeps its code, detail and `errors` under a new status (`badRequest: 422`).
   */
  readonly conceals?: boolean;
}

/**
 * Every outcome: first the successes (the operations, then `options` and `empty`), then the errors.
 *
 * @example
 * OUTCOMES.create.status; // 201
 * OUTCOMES.notFound.code; // 'RC_NOT_FOUND'
 */
export const OUTCOMES = {
  list: { status: 200 },
  read: { status: 200, item: true },
  create: { status: 201 },
  submit: { status: 200, mayBeEmpty: true },
  replace: { status: 200, item: true },
  update: { status: 200, item: true },
  remove: { status: 200, item: true, mayBeEmpty: true },
  accepted: { status: 202 },
  options: { status: 204 },
  empty: { status: 204 },
  notModified: { status: 304 },
  badRequest: { status: 400, code: ERROR_CODES.BAD_REQUEST },
  unauthorized: { status: 401, code: ERROR_CODES.UNAUTHORIZED, conceals: true },
  forbidden: { status: 403, code: ERROR_CODES.FORBIDDEN, conceals: true },
  notFound: { status: 404, code: ERROR_CODES.NOT_FOUND },
  methodNotAllowed: { status: 405, code: ERROR_CODES.METHOD_NOT_ALLOWED },
  notAcceptable: { status: 406, code: ERROR_CODES.NOT_ACCEPTABLE },
  conflict: { status: 409, code: ERROR_CODES.CONFLICT },
  gone: { status: 410, code: ERROR_CODES.GONE },
  preconditionFailed: { status: 412, code: ERROR_CODES.PRECONDITION_FAILED },
  payloadTooLarge: { status: 413, code: ERROR_CODES.PAYLOAD_TOO_LARGE },
  unsupportedMediaType: { status: 415, code: ERROR_CODES.UNSUPPORTED_MEDIA_TYPE },
  unprocessable: { status: 422, code: ERROR_CODES.UNPROCESSABLE },
  preconditionRequired: { status: 428, code: ERROR_CODES.PRECONDITION_REQUIRED },
  tooManyRequests: { status: 429, code: ERROR_CODES.TOO_MANY_REQUESTS },
  internalError: { status: 500, code: ERROR_CODES.INTERNAL },
  unavailable: { status: 503, code: ERROR_CODES.UNAVAILABLE },
  timeout: { status: 503, code: ERROR_CODES.TIMEOUT },
} as const satisfies Readonly<Record<string, OutcomeRow>>;

/**
 * What each outcome means, as the OpenAPI document describes its answers: beside the table rather
 * than in its rows, so that the engine, which never reads them, does not carry them. The type makes
 * a new outcome without a meaning a compile error.
 *
 * @example
 * MEANINGS.notFound; // 'no such item, or no such parent item'
 */
export const MEANINGS: Readonly<Record<Outcome, string>> = {
  list: 'the items',
  read: 'the item',
  create: 'the new item; Location is its URL',
  submit: 'the result of the action',
  replace: 'the item as replaced',
  update: 'the item as updated',
  remove: 'the removed item',
  accepted: 'accepted; the work goes on after this answer',
  options: 'Allow lists the methods of this path',
  empty: 'done, nothing to send',
  notModified: 'the copy the client holds is current',
  badRequest: 'the request is invalid: a malformed body, URL or credentials, or input that fails its schema (`errors` lists every issue)',
  unauthorized: 'no credentials, or credentials that were not accepted',
  forbidden: 'the caller may not do this, or the item is not theirs',
  notFound: 'no such item, or no such parent item',
  methodNotAllowed: 'the path does not take this method; Allow lists those it takes',
  notAcceptable: 'no response format matches `Accept`',
  conflict: 'the request conflicts with the current state of the resource',
  gone: 'the resource is gone for good',
  preconditionFailed: 'a precondition of the request does not hold',
  payloadTooLarge: 'the body is larger than the limit',
  unsupportedMediaType: 'the media type, charset or content coding of the body is not accepted',
  unprocessable: 'the request is well-formed but cannot be processed as it stands',
  preconditionRequired: 'a change needs a precondition, such as If-Match',
  tooManyRequests: 'too many requests; Retry-After says when to try again',
  internalError: 'a fault on the server; `instance` identifies it in the server log',
  unavailable: 'the service cannot answer now; Retry-After says when to try again',
  timeout: 'the request took longer than the server allows',
};

/**
 * An operation that succeeded, or a way a request failed: the keys of the outcome table and of the
 * status policy. `empty` is a `submit` (or custom endpoint) whose handler returned nothing.
 *
 * @example
 * const outcome: Outcome = 'create';
 */
export type Outcome = keyof typeof OUTCOMES;

/** The outcomes that fail: those with a code. */
export type ErrorOutcome = { [K in Outcome]: (typeof OUTCOMES)[K] extends { code: string } ? K : never }[Outcome];

/** The outcomes that succeed. */
export type SuccessOutcome = Exclude<Outcome, ErrorOutcome>;

const ALL = Object.keys(OUTCOMES) as Outcome[];

/** Outcomes that succeed: 2xx, and `notModified` (always 304). */
export const SUCCESS_OUTCOMES: readonly SuccessOutcome[] = Object.freeze(ALL.filter((outcome): outcome is SuccessOutcome => !isError(outcome)));

/** Outcomes that fail. Their statuses must be 4xx or 5xx. */
export const ERROR_OUTCOMES: readonly ErrorOutcome[] = Object.freeze(ALL.filter(isError));

function isError(outcome: Outcome): outcome is ErrorOutcome {
  return 'code' in OUTCOMES[outcome];
}

/**
 * The default status of every outcome: 201 for a create, 200 for every other success, 204 for
 * OPTIONS and an empty answer, and the RFC 9110 status of each error.
 */
export const DEFAULT_STATUSES: Readonly<Record<Outcome, number>> = Object.freeze(Object.fromEntries(ALL.map((outcome) => [outcome, OUTCOMES[outcome].status])) as Record<Outcome, number>);

/** The error outcome of each default status, the first row's where two share one (503: `unavailable`). */
export const ERROR_BY_STATUS: ReadonlyMap<number, ErrorOutcome> = new Map([...ERROR_OUTCOMES].reverse().map((outcome) => [OUTCOMES[outcome].status, outcome] as const));

const ERROR_BY_CODE: ReadonlyMap<string, ErrorOutcome> = new Map(ERROR_OUTCOMES.map((outcome) => [OUTCOMES[outcome].code, outcome] as const));

/**
 * The outcome of an error: by its code where it is an outcome's own (`RC_TIMEOUT` is `timeout`, not
 * the `unavailable` that shares its 503), else by its status; undefined for a status no outcome has.
 *
 * @example
 * outcomeOfError({ status: 400, code: 'RC_INVALID_INPUT' }); // 'badRequest'
 */
export function outcomeOfError(error: { readonly status: number; readonly code: string }): ErrorOutcome | undefined {
  return ERROR_BY_CODE.get(error.code) ?? ERROR_BY_STATUS.get(error.status);
}

/**
 * The stable code of an error status: the code of its outcome, or `RC_HTTP_<status>` for a status no
 * outcome has.
 *
 * @example
 * codeOfStatus(404); // 'RC_NOT_FOUND'
 * codeOfStatus(418); // 'RC_HTTP_418'
 */
export function codeOfStatus(status: number): ErrorCode {
  const outcome = ERROR_BY_STATUS.get(status);
  return outcome === undefined ? `RC_HTTP_${status}` : OUTCOMES[outcome].code;
}
