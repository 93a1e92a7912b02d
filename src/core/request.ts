
/**
 * Reading the parts of a request target and its headers, the same way for every adapter.
 */

import type { ApiRequest, HeaderRecord, QueryRecord } from './contract.js';
import { ERROR_CODES } from './error-codes.js';
import { BadRequestError } from './errors.js';

/** The headers of a request that came without any. */
export const EMPTY_HEADERS: HeaderRecord = Object.freeze({}) as HeaderRecord;

/**
 * The constructor of query records. Its prototype is empty, frozen and has no prototype itself, so a
 * record inherits nothing (`query.toString` is undefined, `__proto__` is an ordinary key), as with
 * `Object.create(null)`; but V8 keeps these as ordinary fast objects rather than hash tables, and one
 * takes about an eighth of the memory (fast-querystring uses the same pattern).
 */
const QueryRecordObject = function QueryRecordObject() {} as unknown as new () => QueryRecord;
QueryRecordObject.prototype = Object.freeze(Object.create(null) as object);

/**
 * An empty query record: no keys, and none inherited.
 *
 * @example
 * const query = emptyQuery(); // 'toString' in query === false
 */
export function emptyQuery(): QueryRecord {
  return new QueryRecordObject();
}

/**
 * The parts of a request target that the API reads. Neither is percent-decoded: the router compares
 * the path as it was sent.
 *
 * @example
 * const target: RequestTarget = { path: '/users/7', search: 'expand=orders' };
 */
export interface RequestTarget {
  /** `/users/7`; `/` for an absolute-form target without a path; `''` for a target that names no path (`*`, `host:port`). */
  readonly path: string;
  /** The query without its `?`, `''` for none. */
  readonly search: string;
}

const SLASH = 0x2f;
/** {@link pathStart} of a target that is none of the four forms. */
const MALFORMED = -1;
/** {@link pathStart} of a target in asterisk-form or authority-form, which names no path (RFC 9112 §3.3). */
const NO_PATH = -2;
const PATHLESS: RequestTarget = Object.freeze({ path: '', search: '' });

/**
 * Reads a request target in the four forms of RFC 9112 §3.2: origin-form (`/users/7?x=1`),
 * absolute-form (`http://host/users/7?x=1`, the scheme `http` or `https` in any case), asterisk-form
 * (`*`) and authority-form (`host:443`); the last two name no path. Undefined for anything else, and
 * for what hosts would read differently from this parser: a path that holds a backslash (WHATWG URL
 * parsers read it as `/`), and an absolute-form target whose authority is not a plain host and port
 * (a userinfo, an empty host, a character other than a letter, a digit, `-`, `.` or `_`, or a port
 * that is not digits, which Node's `url.parse`, and so Express, ends the host at). The authority
 * ends at the first `/`, `?` or `#` (RFC 3986 §3.2), so `http://x?/admin` is the path `/` with the
 * query `/admin`. A fragment, which no request target may hold, ends the path and the query, as every
 * host reads it.
 *
 * @example
 * parseTarget('https://shop.test/users/7?expand=orders'); // { path: '/users/7', search: 'expand=orders' }
 * parseTarget('http://shop.test?/users/7'); // { path: '/', search: '/users/7' }
 * parseTarget('ftp://shop.test/users/7'); // undefined
 */
export function parseTarget(target: string): RequestTarget | undefined {
  const start = pathStart(target);
  if (start < 0) return start === NO_PATH ? PATHLESS : undefined;
  const question = target.indexOf('?', start);
  const hash = target.indexOf('#', start);
  const query = question !== -1 && (hash === -1 || question < hash) ? question : -1;
  const end = query !== -1 ? query : hash !== -1 ? hash : target.length;
  const backslash = target.indexOf('\\', start);
  if (backslash !== -1 && backslash < end) return undefined;
  const path = start === end ? '/' : start === 0 && end === target.length ? target : target.slice(start, end);
  if (query === -1) return { path, search: '' };
  return { path, search: target.slice(query + 1, hash > query ? hash : target.length) };
}

/**
 * {@link parseTarget}, with a 400 for a malformed target: what the API routes by.
 *
 * @example
 * splitUrl('/users/7?expand=orders'); // { path: '/users/7', search: 'expand=orders' }
 * splitUrl('/users\\7'); // throws BadRequestError (RC_MALFORMED_URL)
 */
export function splitUrl(url: string): RequestTarget {
  const target = parseTarget(url);
  if (target === undefined) throw new BadRequestError('The request target is neither a path nor an http(s) URL with a plain host, or its path holds a backslash', { code: ERROR_CODES.MALFORMED_URL });
  return target;
}

/**
 * A target as an origin-form target below a path prefix (no trailing slash, `''` for none): the
 * prefix is taken off the front of its path, segment for segment and byte for byte, and its origin
 * and fragment are dropped (`http://host/v1/users?x=1` below `/v1` is `/users?x=1`, `/v1` is `/`).
 * Undefined when the path is not below the prefix. A target that names no path, or is none of the
 * forms of {@link parseTarget}, is returned as it is, for the API to answer.
 *
 * @example
 * targetBelow('/v1/users?page=2', '/v1'); // '/users?page=2'
 * targetBelow('/%76%31/users', '/v1'); // undefined
 */
export function targetBelow(target: string, prefix: string): string | undefined {
  const start = pathStart(target);
  if (start < 0) return target;
  const from = start + prefix.length;
  if (prefix !== '') {
    const end = pathEnd(target, start);
    if (from > end || !target.startsWith(prefix, start) || (from !== end && target.charCodeAt(from) !== SLASH)) return undefined;
  }
  const hash = target.indexOf('#', from);
  if (from === 0 && hash === -1) return target;
  const rest = target.slice(from, hash === -1 ? target.length : hash);
  return rest.charCodeAt(0) === SLASH ? rest : `/${rest}`;
}

/**
 * The origin of an absolute-form target: `http` or `https` in any case, then a host of letters,
 * digits, `-`, `.` and `_` or an IP literal, and a port of digits, up to the first `/`, `?` or `#`
 * or the end. Anything else before that (a userinfo's `@`, a `;`, a `%`) is refused rather than
 * read in one of the ways hosts differ on.
 */
const ORIGIN = /^https?:\/\/(?:[\w.-]+|\[[\da-f:.]+\])(?::\d*)?(?=[/?#]|$)/i;
/** An authority-form target (RFC 9112 §3.2.3): a host and a port, nothing else. */
const AUTHORITY = /^(?:[\w.-]+|\[[\da-f:.]+\]):\d*$/i;

/** Where the path of a target starts; {@link NO_PATH} or {@link MALFORMED} for a target without one. */
function pathStart(target: string): number {
  if (target.charCodeAt(0) === SLASH) return 0;
  if (target === '*' || AUTHORITY.test(target)) return NO_PATH;
  const origin = ORIGIN.exec(target);
  return origin === null ? MALFORMED : origin[0].length;
}

/** Where the path of a target that starts at `start` ends: at its `?`, its `#`, or the end of the target. */
function pathEnd(target: string, start: number): number {
  const question = target.indexOf('?', start);
  const hash = target.indexOf('#', start);
  if (question === -1) return hash === -1 ? target.length : hash;
  return hash === -1 || question < hash ? question : hash;
}

/**
 * Parses a query string into a record that inherits nothing (see {@link emptyQuery}); a repeated key gives an array.
 *
 * @example
 * parseQuery('tag=a&tag=b&page=2'); // { tag: ['a', 'b'], page: '2' }
 */
export function parseQuery(search: string): QueryRecord {
  const query = emptyQuery();
  // URLSearchParams drops one leading "?" from its argument; the query of `/users??x=1` is `?x=1`.
  for (const [key, value] of new URLSearchParams(`?${search}`)) {
    const existing = query[key];
    if (existing === undefined) query[key] = value;
    else if (typeof existing === 'string') query[key] = [existing, value];
    else existing.push(value);
  }
  return query;
}

/**
 * Headers with lower-cased names; the same object when they already are (as `node:http` gives them).
 *
 * @example
 * normalizeHeaders({ Accept: 'application/json' }); // { accept: 'application/json' }
 */
export function normalizeHeaders(headers: HeaderRecord | undefined): HeaderRecord {
  if (headers === undefined) return EMPTY_HEADERS;
  for (const name in headers) {
    if (name !== name.toLowerCase()) {
      const lowered: HeaderRecord = {};
      for (const [key, value] of Object.entries(headers)) lowered[key.toLowerCase()] = value;
      return lowered;
    }
  }
  return headers;
}

/**
 * One header value: repeated values joined with a comma, as RFC 9110 §5.3 allows.
 *
 * @example
 * single(['a', 'b']); // 'a, b'
 */
export function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A path without the slashes at its end (`/` and `//` become `''`). Written as a loop: `/\/+$/`
 * takes quadratic time on a long run of slashes followed by anything else.
 *
 * @example
 * withoutTrailingSlashes('/api//'); // '/api'
 */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  return end === path.length ? path : path.slice(0, end);
}

/**
 * The request with lower-case header names, for every step and for `authenticate` alike: the same
 * object when they already are, a copy with lowered names when not (a request built by hand).
 *
 * @example
 * withLowerCaseHeaders({ method: 'GET', url: '/', headers: { Accept: 'text/plain' } }).headers; // { accept: 'text/plain' }
 */
export function withLowerCaseHeaders(request: ApiRequest): ApiRequest {
  const headers = request.headers === undefined ? undefined : normalizeHeaders(request.headers);
  return headers === request.headers ? request : { ...request, headers };
}
