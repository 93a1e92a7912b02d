/**
 * The 304 of an answer that a host gave validators of its own after the API answered (Express's
 * `etag` setting gives a successful GET an `ETag`, as its `res.send` does on every other route):
 * which answers a cache can validate, and the 304 when the request's copy is current.
 */
import type { ApiResponse, HeaderRecord, ResponseHeaders } from '../core/contract.js';
import { headerText } from '../core/http.js';
import { CACHE_HEADERS, dateSeconds, evaluate } from '../conventions/conditional/conditions.js';

/**
 * A successful answer to a GET, with a body: one a cache keeps and validates.
 *
 * @example
 * const etagOf = (answer: ValidatableAnswer) => weakTag(answer.payload);
 */
export type ValidatableAnswer = ApiResponse & { payload: string | Uint8Array };

/**
 * Whether an answer is a successful GET with a body, which a host may give validators of its own. A
 * 206 is not: its body is a part, and its validators must be those of the whole (RFC 9110 §15.3.7),
 * which a tag of the part is not.
 *
 * @example
 * if (isValidatable(req.method, response)) response.headers.etag ??= etagOf(response.payload);
 */
export function isValidatable(method: string | undefined, response: ApiResponse): response is ValidatableAnswer {
  return method === 'GET' && response.status >= 200 && response.status < 300 && response.status !== PARTIAL_CONTENT && response.payload !== undefined;
}

const PARTIAL_CONTENT = 206;

/**
 * The 304 that a GET gets instead of an answer whose validators (`ETag`, `Last-Modified`) say the
 * request's copy is current (RFC 9110 section 13.2.2, steps 3 and 4: `If-None-Match`, else
 * `If-Modified-Since`), or undefined when it is not. The 304 keeps what RFC 9110 section 15.4.5 asks
 * of it, and the CORS grant, without which a page cannot read it.
 *
 * @example
 * sendNodeResponse(res, notModifiedAnswer(req.headers, response) ?? response);
 */
export function notModifiedAnswer(headers: HeaderRecord, response: ValidatableAnswer): ApiResponse | undefined {
  if (!isFresh(headers, response)) return undefined;
  const kept: ResponseHeaders = {};
  // Set-Cookie too: a cookie is no part of the representation, and a 304 must not lose it.
  for (const [name, value] of Object.entries(response.headers)) if (name === 'etag' || name === 'set-cookie' || CACHE_HEADERS.includes(name) || name.startsWith('access-control-')) kept[name] = value;
  if (kept.etag === undefined && response.headers['last-modified'] !== undefined) kept['last-modified'] = response.headers['last-modified'];
  return { status: 304, headers: kept, body: undefined, payload: undefined };
}

/** Whether a GET's copy is current, as the answer's validators say. */
function isFresh(headers: HeaderRecord, response: ApiResponse): boolean {
  const etag = headerText(response.headers.etag);
  const lastModified = headerText(response.headers['last-modified']);
  if (etag === undefined && lastModified === undefined) return false;
  const current = { etag, lastModified, seconds: dateSeconds(lastModified) };
  // If-Match and If-Unmodified-Since are left out: they ask for a 412, which is the API's to answer.
  const conditions = { 'if-none-match': headers['if-none-match'], 'if-modified-since': headers['if-modified-since'] };
  return evaluate('GET', conditions, current) === 'notModified';
}
