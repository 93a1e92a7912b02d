
/**
 * Reading the parts of a request target and its headers, the same way for every adapter.
 */

/** The headers of a request that came without any. */
import type { HeaderRecord, QueryRecord } from './contract.js';
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
 * The path and the query string of a request target, which may be a path or an absolute URL.
 *
 * @example
 * splitUrl('https://shop.test/users/7?expand=orders'); // { path: '/users/7', search: 'expand=orders' }
 */
export function splitUrl(url: string): { path: string; search: string } {
  let start = 0;
  if (url.charCodeAt(0) !== 47) {
    const scheme = url.indexOf('://');
    if (scheme !== -1) {
      const slash = url.indexOf('/', scheme + 3);
      if (slash === -1) return { path: '/', search: '' };
      start = slash;
    }
  }
  const hash = url.indexOf('#', start);
  // A `?` after the `#` belongs to the fragment (`/health#x?y` is `/health`), as in a WHATWG URL.
  const question = url.indexOf('?', start);
  const query = question !== -1 && (hash === -1 || question < hash) ? question : -1;
  const end = query !== -1 ? query : hash !== -1 ? hash : url.length;
  const path = start === 0 && end === url.length ? url : url.slice(start, end);
  if (query === -1) return { path, search: '' };
  return { path, search: url.slice(query + 1, hash > query ? hash : url.length) };
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
