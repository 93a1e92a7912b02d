/**
 * Cookies: a `Set-Cookie` line a handler sends (`ctx.cookie`), held to RFC 6265's grammar so that
 * no value can add an attribute or a header, and the `Cookie` header a request carries, parsed once
 * when a handler reads `ctx.cookies`, as the `cookie` package (jshttp's, which Express and
 * @fastify/cookie use) parses it: tests/adapters/cookies.test.ts holds the two to the same answers.
 * That package is CommonJS, which bundlers cannot trim: every API would carry all of it.
 */
import type { HeaderRecord } from './contract.js';
import { HEADER_NAME } from './http.js';
import { checkOptions } from './options.js';

/**
 * The attributes of a cookie `ctx.cookie` sends. Left out, a cookie is `Path=/; HttpOnly; Secure;
 * SameSite=Lax`: pass `httpOnly: false` for one that the page's scripts read, `secure: false` for
 * one sent over plain HTTP (browsers keep a `Secure` cookie from `http://localhost`).
 *
 * @example
 * const options: CookieOptions = { maxAge: 3600, sameSite: 'strict' };
 */
export interface CookieOptions {
  /** Seconds until the cookie expires (`Max-Age`); 0 or less deletes it. */
  maxAge?: number | undefined;
  expires?: Date | undefined;
  domain?: string | undefined;
  /** `/` when left out. */
  path?: string | undefined;
  /** True when left out. */
  httpOnly?: boolean | undefined;
  /** True when left out. */
  secure?: boolean | undefined;
  /** `'lax'` when left out; `'none'` needs `secure`. */
  sameSite?: 'strict' | 'lax' | 'none' | undefined;
  /** CHIPS: a cookie kept per top-level site; needs `secure`. */
  partitioned?: boolean | undefined;
  priority?: 'low' | 'medium' | 'high' | undefined;
}

const OPTIONS = ['maxAge', 'expires', 'domain', 'path', 'httpOnly', 'secure', 'sameSite', 'partitioned', 'priority'];

const SAME_SITE: ReadonlySet<unknown> = new Set(['strict', 'lax', 'none']);
const PRIORITY: ReadonlySet<unknown> = new Set(['low', 'medium', 'high']);

/**
 * RFC 6265 section 4.1.1: `cookie-value = *cookie-octet / ( DQUOTE *cookie-octet DQUOTE )`, where a
 * cookie-octet is any visible ASCII character but `"`, `,`, `;` and `\`.
 */
const COOKIE_VALUE = /^("?)[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*\1$/;

/** RFC 6265 section 6.1: browsers keep a cookie's name and value up to this many bytes and drop a longer one. */
const MAX_COOKIE_SIZE = 4096;

/**
 * The `Set-Cookie` line of a cookie, or a `TypeError` naming what is wrong: a name that is no token,
 * a value outside RFC 6265's cookie-octets (`;`, a space, CR or LF, a comma, text beyond ASCII; encode
 * such text first, with `encodeURIComponent`), a name and value over 4096 bytes, an attribute that
 * is no such value (a `Domain` that is no host name, a `Path` with `;` or not starting with `/`, a
 * `Max-Age` that is no whole number, an invalid `Expires`), or one a browser would drop the cookie for (`SameSite=None`, `Partitioned`
 * or a `__Secure-` or `__Host-` name without `Secure`; a `__Host-` one with a `Domain` or another path).
 *
 * @example
 * setCookieLine('ctx.cookie', 'theme', 'dark', { maxAge: 3600 });
 * // 'theme=dark; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax'
 */
export function setCookieLine(where: string, name: string, value: string, options: CookieOptions = {}): string {
  checkOptions(where, options, OPTIONS);
  if (typeof name !== 'string' || !HEADER_NAME.test(name)) throw new TypeError(`${where}: ${JSON.stringify(String(name))} is no cookie name; a name is an HTTP token (RFC 6265 section 4.1.1)`);
  const refuse = (mistake: string) => new TypeError(`${where}: cookie "${name}": ${mistake}`);
  if (typeof value !== 'string' || !COOKIE_VALUE.test(value)) {
    throw refuse("the value must be RFC 6265's cookie-octets (no space, '\"', ',', ';', '\\', control character or text beyond ASCII); encode other text first, with encodeURIComponent");
  }
  if (name.length + value.length > MAX_COOKIE_SIZE) throw refuse(`browsers drop a name and value over ${MAX_COOKIE_SIZE} bytes (RFC 6265 section 6.1)`);
  const { maxAge, expires, domain, path = '/', httpOnly = true, secure = true, sameSite = 'lax', partitioned = false, priority } = options;
  // Past 2^53 a number is written as `1e+21`, which is no Max-Age.
  if (maxAge !== undefined && !Number.isSafeInteger(maxAge)) throw refuse('maxAge must be a whole number of seconds');
  if (expires !== undefined && !(expires instanceof Date && Number.isFinite(expires.getTime()))) throw refuse('expires must be a valid Date');
  if (domain !== undefined && !DOMAIN.test(domain)) throw refuse('domain must be a host name (RFC 1034), such as "app.example"');
  if (!PATH.test(path)) throw refuse('path must start with "/" and hold no ";" or control character');
  if (!SAME_SITE.has(sameSite)) throw refuse("sameSite must be 'strict', 'lax' or 'none'");
  if (priority !== undefined && !PRIORITY.has(priority)) throw refuse("priority must be 'low', 'medium' or 'high'");
  if (!secure && (sameSite === 'none' || partitioned || name.startsWith('__Secure-') || name.startsWith('__Host-'))) {
    throw refuse('browsers drop it without Secure (SameSite=None, Partitioned, the __Secure- and __Host- prefixes need it); leave "secure" out');
  }
  if (name.startsWith('__Host-') && (domain !== undefined || path !== '/')) throw refuse('a __Host- cookie has no Domain and the path "/"; leave "domain" and "path" out');
  // The order of the `cookie` package's serialize, which users of Express's res.cookie know.
  let line = `${name}=${value}`;
  if (maxAge !== undefined) line += `; Max-Age=${maxAge}`;
  if (domain !== undefined) line += `; Domain=${domain}`;
  line += `; Path=${path}`;
  if (expires !== undefined) line += `; Expires=${expires.toUTCString()}`;
  if (httpOnly) line += '; HttpOnly';
  if (secure) line += '; Secure';
  if (partitioned) line += '; Partitioned';
  if (priority !== undefined) line += `; Priority=${ATTRIBUTE_CASE[priority]}`;
  return `${line}; SameSite=${ATTRIBUTE_CASE[sameSite]}`;
}

const ATTRIBUTE_CASE: Readonly<Record<string, string>> = { low: 'Low', medium: 'Medium', high: 'High', strict: 'Strict', lax: 'Lax', none: 'None' };

/** RFC 1034 section 3.5 as RFC 1123 section 2.1 relaxes it, with the leading dot browsers ignore (RFC 6265 section 5.2.3). */
const DOMAIN = /^\.?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** RFC 6265 section 4.1.1: `path-value = <any CHAR except CTLs or ";">`; one not starting with "/" a browser replaces (section 5.2.4). */
const PATH = /^\/[\x20-\x3A\x3C-\x7E]*$/;

/** The cookies of a request with no `Cookie` header: one frozen object. */
const NO_COOKIES: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The cookies of a request's `Cookie` header, by name, frozen. A name sent twice keeps its first
 * value, as the `cookie` package parses (a browser sends the cookie of the longer path first); a
 * percent-encoded value is decoded, one that cannot be is kept as sent. Several `Cookie` headers
 * (HTTP/2 sends one per cookie) are read as one. The header's size is the host's limit on headers.
 *
 * @example
 * cookiesOf({ cookie: 'theme=dark; lang=en; theme=light' }); // { theme: 'dark', lang: 'en' }
 */
export function cookiesOf(headers: HeaderRecord | undefined): Readonly<Record<string, string>> {
  const header = headers?.cookie;
  if (header === undefined) return NO_COOKIES;
  const text = typeof header === 'string' ? header : header.join('; ');
  // A name of one character and its "=" at least.
  return text.length < 2 ? NO_COOKIES : Object.freeze(parseCookies(text));
}

/**
 * The pairs of a `Cookie` header: each `;`-separated part with an `=` is a name and a value, both
 * trimmed of spaces and tabs; a part without one is skipped. One pass: the `=` found is kept until
 * the parts before it are passed, so that many parts without one cost no scan each.
 */
function parseCookies(text: string): Record<string, string> {
  // No prototype: a cookie named `__proto__` or `constructor` is a cookie like any other.
  const cookies = Object.create(null) as Record<string, string>;
  const { length } = text;
  let equals = -1;
  for (let start = 0; start < length; ) {
    if (equals < start) {
      equals = text.indexOf('=', start);
      if (equals === -1) break;
    }
    let end = text.indexOf(';', start);
    if (end === -1) end = length;
    if (equals < end) {
      const name = trimmed(text, start, equals);
      cookies[name] ??= decoded(trimmed(text, equals + 1, end));
    }
    start = end + 1;
  }
  return cookies;
}

function trimmed(text: string, start: number, end: number): string {
  while (start < end && isBlank(text.charCodeAt(start))) start++;
  while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/** A percent-encoded value decoded; one that is no valid encoding is kept as sent. */
function decoded(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
