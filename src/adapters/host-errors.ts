/**
 * The errors a host raises about a request before the API runs, which the API answers itself, as it
 * would have had it read the request: the failures of Express's body parsers, and the errors Fastify
 * raises about a body or a URL before any plugin runs. The API answers them on the paths it serves;
 * every other error, and every error on another path, stays the host's.
 */
import type { Api } from '../core/api.js';

/**
 * Whether the API answers a request the host failed: on a path it serves, or on any path below its
 * mount point when it does not fall through (`fallthrough: false`).
 *
 * @example
 * if (!answersHostError(api, true, '/unknown')) return next(error);
 */
export function answersHostError(api: Api, fallthrough: boolean, url: string): boolean {
  return !fallthrough || api.matches(url);
}

/**
 * The failures of body-parser (`express.json()`, `express.text()`, ...) that come from the request,
 * by their `type`. The API answers each as if it had read the body itself.
 */
const BODY_PARSER_FAILURES: ReadonlySet<string> = new Set([
  'entity.parse.failed',
  'parameters.too.many',
  'entity.too.large',
  'encoding.unsupported',
  'charset.unsupported',
  'request.aborted',
  'request.size.invalid',
  'entity.verify.failed',
]);

/**
 * The failure of a body parser that the API answers, by body-parser's `type`: `'content.decoding'`
 * for a compressed body that does not inflate, undefined for any other error (the host's to handle).
 *
 * @example
 * bodyParserFailure({ type: 'entity.parse.failed', status: 400, body: '{' }); // 'entity.parse.failed'
 * bodyParserFailure(new Error('database down')); // undefined
 */
export function bodyParserFailure(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, code, status } = error as { type?: unknown; code?: unknown; status?: unknown };
  if (typeof type === 'string') return BODY_PARSER_FAILURES.has(type) ? type : undefined;
  // A compressed body that does not inflate: body-parser passes zlib's error on as a 400 with no type.
  return status === 400 && isInflateError(code) ? 'content.decoding' : undefined;
}

/**
 * Whether an error's code is one of zlib's (`Z_DATA_ERROR`, `Z_BUF_ERROR`) or Brotli's
 * (`ERR__ERROR_FORMAT_PADDING_1`): a compressed body that does not inflate.
 *
 * @example
 * isInflateError('Z_DATA_ERROR'); // true
 */
export function isInflateError(code: unknown): boolean {
  return typeof code === 'string' && ZLIB_CODE.test(code);
}

const ZLIB_CODE = /^(?:Z_|ERR__ERROR_FORMAT|ERR_BROTLI)/;

/** Errors Fastify raises about a request's body before any parser runs. */
const FASTIFY_BODY_ERRORS: ReadonlySet<string> = new Set(['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE']);

/**
 * Whether a Fastify error is about the request's body, raised before any parser runs: a Content-Type
 * Fastify cannot parse, a QUERY without one. The API decides about the body instead.
 *
 * @example
 * fastifyBodyError('FST_ERR_CTP_INVALID_MEDIA_TYPE'); // true
 */
export function fastifyBodyError(code: string | undefined): boolean {
  return code !== undefined && FASTIFY_BODY_ERRORS.has(code);
}

/** Errors Fastify raises about a URL before routing it. */
const FASTIFY_URL_ERRORS: ReadonlySet<string> = new Set(['FST_ERR_BAD_URL', 'FST_ERR_MAX_PARAM_LENGTH']);

/**
 * Whether a Fastify error is about the request's URL, raised before routing it (a malformed
 * percent-escape, a param over `maxParamLength`): no plugin sees the request, so `frameworkErrors`
 * has to hand it to the API.
 *
 * @example
 * fastifyUrlError('FST_ERR_BAD_URL'); // true
 */
export function fastifyUrlError(code: string | undefined): boolean {
  return code !== undefined && FASTIFY_URL_ERRORS.has(code);
}
