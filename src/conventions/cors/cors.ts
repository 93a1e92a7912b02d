import type { ApiRequest, HeaderRecord, ResponseHeaders } from '../../core/contract.js';
import { HEADER_NAME, headerText, mergeVary, METHODS } from '../../core/http.js';
import { remember } from '../../core/memo.js';
import { checkOptions } from '../../core/options.js';
import { single } from '../../core/request.js';

/**
 * Cross-origin resource sharing (the Fetch standard's CORS protocol): the `cors` option checked once,
 * and the `Access-Control-*` headers of a preflight and of an actual response computed from it. A
 * grant is all or nothing and fails closed: an origin, method or header that is not allowed gets no
 * `Access-Control-*` header at all, and the browser refuses the request.
 */

/**
 * The `cors` option of `createApi`: which origins may call the API from a browser, and what they may
 * send and read.
 *
 * @example
 * const cors: CorsOptions = { origins: ['http://localhost:5173'], credentials: true, maxAge: 600 };
 */
export interface CorsOptions {
  /**
   * The origins allowed: a list of exact origins as a browser sends them (`'https://app.example.com'`,
   * `'http://localhost:5173'`); `'*'` for any origin (only without `credentials`); or a synchronous
   * function that allows an origin by returning `true` (anything else, or a throw, refuses it). The
   * origin `null` (sandboxed frames, `file:` pages) is allowed by a list only when listed as `'null'`,
   * and never with `credentials`.
   */
  origins: readonly string[] | '*' | ((origin: string, request: ApiRequest) => boolean);
  /**
   * The methods a page may use. Default: those the requested path serves (its `Allow`). `HEAD` comes
   * with `GET`. A request with another method gets no grant.
   */
  methods?: readonly string[];
  /** Request headers a page may send, besides the defaults (Accept, Authorization, Content-Type, If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since). */
  allowHeaders?: readonly string[];
  /** Response headers a page may read, besides the defaults (ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition). */
  exposeHeaders?: readonly string[];
  /** Whether a page may send cookies and HTTP authentication (`fetch(url, { credentials: 'include' })`). Default false. */
  credentials?: boolean;
  /** Seconds a browser may keep a preflight's answer (`Access-Control-Max-Age`). Default: not sent (the browser's own, 5 seconds). */
  maxAge?: number;
}

/**
 * The `cors` option checked, with its defaults and the header values it gives.
 *
 * @example
 * const policy = createCorsPolicy({ origins: ['http://localhost:5173'] });
 * policy.exposeHeaders; // 'ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition'
 */
export interface CorsPolicy {
  /** The allowed origins, `'*'`, or the application's check. */
  readonly origins: ReadonlySet<string> | '*' | ((origin: string, request: ApiRequest) => boolean);
  readonly credentials: boolean;
  /** The methods allowed; undefined: every method a path serves. */
  readonly methods: ReadonlySet<string> | undefined;
  /** Lower-case names of the request headers allowed. */
  readonly allowHeaders: ReadonlySet<string>;
  /** The `Access-Control-Expose-Headers` value. */
  readonly exposeHeaders: string;
  /** The `Access-Control-Max-Age` value, when set. */
  readonly maxAge: string | undefined;
  /** The methods allowed on a path, by its `Allow` value: a bounded memo. */
  readonly pathMethods: Map<string, AllowedMethods>;
}

/** The methods a preflight may ask for on one path, and the `Access-Control-Allow-Methods` value that lists them. */
interface AllowedMethods {
  names: ReadonlySet<string>;
  header: string;
}

/**
 * The request headers a page may send by default: those restcanon reads. `Accept` and `Content-Type`
 * are CORS-safelisted only for some values (`Content-Type: application/json` is not one).
 */
const DEFAULT_ALLOW_HEADERS = ['accept', 'authorization', 'content-type', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since'];

/**
 * The response headers a page may read by default: those restcanon sets that are not CORS-safelisted
 * (`Content-Type`, `Content-Length`, `Last-Modified`, `Cache-Control`, `Expires`, `Pragma` and
 * `Content-Language` always are).
 */
const DEFAULT_EXPOSE_HEADERS = ['ETag', 'Location', 'Link', 'Retry-After', 'WWW-Authenticate', 'Allow', 'Accept-Post', 'Accept-Patch', 'Content-Disposition'];

const CORS_OPTIONS = ['origins', 'methods', 'allowHeaders', 'exposeHeaders', 'credentials', 'maxAge'];

/**
 * An `Origin` value worth asking the application's function about: `null`, or an origin as a browser
 * serializes it (a scheme and a host in lower case, an optional port), so that a check such as
 * `origin.startsWith('https://app.example.com')` never sees `https://app.example.com@evil.example`.
 */
const ORIGIN_VALUE = /^(?:null|[a-z][-+.0-9a-z]*:\/\/(?:[-.0-9_a-z]+|\[[.0-9:a-f]+\])(?::\d+)?)$/;

/** The `Vary` of a preflight: its answer depends on all three. */
export const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

/**
 * Checks the `cors` option of `createApi` and gives it with its defaults. A mistake throws a
 * `TypeError` that says what to write instead.
 *
 * @example
 * createCorsPolicy({ origins: '*', credentials: true });
 * // TypeError: createApi: "cors" cannot allow origins: '*' with credentials: true ...
 */
export function createCorsPolicy(options: CorsOptions, exposedByModules: readonly string[] = []): CorsPolicy {
  checkOptions('createApi(): "cors"', options, CORS_OPTIONS);
  const credentials = options.credentials ?? false;
  if (typeof credentials !== 'boolean') throw new TypeError(`createApi: "cors.credentials" must be true or false, got ${describe(credentials)}`);
  return {
    origins: checkOrigins(options.origins, credentials),
    credentials,
    methods: checkMethods(options.methods),
    allowHeaders: new Set([...DEFAULT_ALLOW_HEADERS, ...checkHeaderNames('allowHeaders', options.allowHeaders).map((name) => name.toLowerCase())]),
    // What the API's modules add (RateLimit of a rate limit) is readable as restcanon's own headers are.
    exposeHeaders: withoutRepeats([...DEFAULT_EXPOSE_HEADERS, ...exposedByModules, ...checkHeaderNames('exposeHeaders', options.exposeHeaders)]).join(', '),
    maxAge: checkMaxAge(options.maxAge),
    pathMethods: new Map(),
  };
}

function checkOrigins(origins: unknown, credentials: boolean): CorsPolicy['origins'] {
  const examples = "a list such as ['https://app.example.com'], '*' for any origin, or a function (origin, request) => boolean";
  if (origins === '*') {
    if (credentials) {
      throw new TypeError(
        "createApi: \"cors\" cannot allow origins: '*' with credentials: true (browsers refuse a wildcard with credentials): list the origins, such as ['https://app.example.com'], or give a function (origin, request) => boolean",
      );
    }
    return '*';
  }
  if (typeof origins === 'function') return origins as (origin: string, request: ApiRequest) => boolean;
  if (typeof origins === 'string') throw new TypeError(`createApi: "cors.origins" must be a list, '*' or a function; write origins: [${JSON.stringify(origins)}]`);
  if (!Array.isArray(origins)) throw new TypeError(`createApi: "cors" needs "origins": ${examples}; got ${describe(origins)}`);
  if (origins.length === 0) throw new TypeError('createApi: "cors.origins" lists no origin; list at least one, or leave "cors" out to allow no cross-origin request');
  // Any page can send `Origin: null` from a sandboxed frame: with credentials, it would read the API as its user.
  if (credentials && origins.includes('null')) {
    throw new TypeError("createApi: \"cors\" cannot allow the origin 'null' with credentials: true: any page can send it, from a sandboxed frame");
  }
  return new Set(origins.map(checkOrigin));
}

/** An origin of the list, written exactly as a browser sends it in `Origin`, so that comparing strings is enough. */
function checkOrigin(value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`createApi: "cors.origins" lists ${describe(value)}; list each origin as a string, such as 'https://app.example.com'`);
  if (value === 'null') return value;
  if (value === '*') throw new TypeError("createApi: \"cors.origins\" lists '*'; write origins: '*' (not in a list) to allow any origin");
  if (value.includes('*')) {
    throw new TypeError(
      `createApi: "cors.origins" lists the pattern ${JSON.stringify(value)}, but a list holds exact origins; give a function instead, such as (origin) => /^https:\\/\\/[a-z0-9-]+\\.example\\.com$/.test(origin)`,
    );
  }
  let origin: string | undefined;
  try {
    const url = new URL(value);
    if (url.host !== '') origin = `${url.protocol}//${url.host}`;
  } catch {
    origin = undefined;
  }
  if (origin === value) return value;
  const fix = origin !== undefined ? `write ${JSON.stringify(origin)}` : value.includes('://') ? "such as 'https://app.example.com'" : `add its scheme: ${JSON.stringify(`https://${value}`)} or ${JSON.stringify(`http://${value}`)}`;
  throw new TypeError(
    `createApi: "cors.origins" lists ${JSON.stringify(value)}, which is not an origin as a browser sends it (a scheme, a host in lower case and a port other than the default, with no path, not even a trailing slash); ${fix}`,
  );
}

function checkMethods(methods: unknown): ReadonlySet<string> | undefined {
  if (methods === undefined) return undefined;
  if (!Array.isArray(methods) || methods.length === 0) {
    throw new TypeError(`createApi: "cors.methods" must be a list of methods, such as ['GET', 'POST'], or left out to allow the methods each path serves; got ${describe(methods)}`);
  }
  const names = new Set<string>();
  for (const method of methods as unknown[]) {
    if (typeof method !== 'string' || !(METHODS as readonly string[]).includes(method)) {
      const upper = typeof method === 'string' ? method.toUpperCase() : '';
      const fix = (METHODS as readonly string[]).includes(upper) ? `write ${JSON.stringify(upper)} (methods are case-sensitive)` : `the methods are ${METHODS.join(', ')}`;
      throw new TypeError(`createApi: "cors.methods" lists ${describe(method)}; ${fix}`);
    }
    names.add(method);
  }
  if (names.has('GET')) names.add('HEAD');
  return names;
}

function checkHeaderNames(option: string, names: unknown): string[] {
  if (names === undefined) return [];
  if (!Array.isArray(names)) throw new TypeError(`createApi: "cors.${option}" must be a list of header names, such as ['X-Request-Id']; got ${describe(names)}`);
  for (const name of names as unknown[]) {
    if (name === '*') throw new TypeError(`createApi: "cors.${option}" lists '*'; list the header names, such as ['X-Request-Id'] (a wildcard does not cover Authorization, and browsers ignore it with credentials)`);
    if (typeof name !== 'string' || !HEADER_NAME.test(name)) {
      throw new TypeError(`createApi: "cors.${option}" lists ${describe(name)}, which is not a header name; write the name alone, such as 'X-Request-Id', without a colon, a value or spaces`);
    }
  }
  return names as string[];
}

function checkMaxAge(maxAge: unknown): string | undefined {
  if (maxAge === undefined) return undefined;
  if (typeof maxAge !== 'number' || !Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new TypeError(`createApi: "cors.maxAge" must be a whole number of seconds of at least 0, such as 600; got ${describe(maxAge)}`);
  }
  return String(maxAge);
}

/** Header names once each, whatever their case, in the order first given. */
function withoutRepeats(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.filter((name) => {
    const lower = name.toLowerCase();
    if (seen.has(lower)) return false;
    seen.add(lower);
    return true;
  });
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a list';
  return value === null ? 'null' : typeof value === 'object' ? 'an object' : String(value);
}

/**
 * The `Access-Control-Allow-Origin` value for a request's `Origin`: the origin itself, `*` for
 * `origins: '*'`, or undefined for an origin that is not allowed. Several `Origin` headers are never
 * allowed. A function is asked only about a value shaped like an origin, and allows it by returning
 * `true`; what it throws is thrown on, for the caller to report (the origin is then not allowed).
 *
 * @example
 * allowedOrigin(createCorsPolicy({ origins: ['http://localhost:5173'] }), 'http://localhost:5173', request); // 'http://localhost:5173'
 */
export function allowedOrigin(policy: CorsPolicy, origin: string | string[], request: ApiRequest): string | undefined {
  if (typeof origin !== 'string') return undefined;
  const { origins } = policy;
  if (origins === '*') return '*';
  if (typeof origins === 'function') return ORIGIN_VALUE.test(origin) && origins(origin, request) === true ? origin : undefined;
  return origins.has(origin) ? origin : undefined;
}

/**
 * Whether a request is a CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`.
 *
 * @example
 * isPreflight('OPTIONS', { origin: 'http://localhost:5173', 'access-control-request-method': 'PUT' }); // true
 */
export function isPreflight(method: string, headers: HeaderRecord): boolean {
  return method === 'OPTIONS' && headers.origin !== undefined && headers['access-control-request-method'] !== undefined;
}

/**
 * The `Access-Control-*` headers of a preflight from an allowed origin to a path whose `Allow` value
 * is `allow`; undefined, no grant at all, when the requested method is not allowed there or one of
 * the requested headers is not allowed.
 *
 * @example
 * preflightHeaders(policy, 'http://localhost:5173', 'GET, HEAD, PUT, OPTIONS', 'PUT', 'content-type');
 * // { 'access-control-allow-origin': 'http://localhost:5173', 'access-control-allow-methods': 'GET, HEAD, PUT, OPTIONS', 'access-control-allow-headers': 'content-type' }
 */
export function preflightHeaders(policy: CorsPolicy, allowOrigin: string, allow: string, requestedMethod: string | string[] | undefined, requestedHeaders: string | string[] | undefined): Record<string, string> | undefined {
  const methods = remember(policy.pathMethods, allow, methodsOn, policy.methods);
  if (typeof requestedMethod !== 'string' || !methods.names.has(requestedMethod)) return undefined;
  const headers: Record<string, string> = { 'access-control-allow-origin': allowOrigin, 'access-control-allow-methods': methods.header };
  const requested = single(requestedHeaders);
  if (typeof requested === 'string') {
    const names: string[] = [];
    for (const part of requested.split(',')) {
      const name = part.trim().toLowerCase();
      if (name === '') continue;
      if (!policy.allowHeaders.has(name)) return undefined;
      names.push(name);
    }
    if (names.length > 0) headers['access-control-allow-headers'] = names.join(', ');
  }
  if (policy.maxAge !== undefined) headers['access-control-max-age'] = policy.maxAge;
  if (policy.credentials) headers['access-control-allow-credentials'] = 'true';
  return headers;
}

/** The methods a preflight may ask for on a path: those it serves, and of those only the allowed ones when `methods` is set. */
function methodsOn(allow: string, allowed: ReadonlySet<string> | undefined): AllowedMethods {
  const served = allow.split(', ');
  const names = allowed === undefined ? served : served.filter((method) => allowed.has(method));
  return { names: new Set(names), header: names.join(', ') };
}

/**
 * The `Access-Control-*` headers of an actual response (a success or an error) to a request from an
 * allowed origin; undefined when its method is not one of `methods`.
 *
 * @example
 * responseHeaders(policy, 'http://localhost:5173', 'GET');
 * // { 'access-control-allow-origin': 'http://localhost:5173', 'access-control-expose-headers': 'ETag, Location, ...' }
 */
export function responseHeaders(policy: CorsPolicy, allowOrigin: string, method: string): Record<string, string> | undefined {
  if (policy.methods !== undefined && !policy.methods.has(method)) return undefined;
  const headers: Record<string, string> = { 'access-control-allow-origin': allowOrigin, 'access-control-expose-headers': policy.exposeHeaders };
  if (policy.credentials) headers['access-control-allow-credentials'] = 'true';
  return headers;
}

/**
 * Writes a grant into a response's headers, or none: every `Access-Control-*` header already there
 * (a handler's `ctx.set`) is dropped first, so that only the policy grants. `Vary` gets `names`,
 * after what it already lists.
 *
 * @example
 * applyCors(response.headers, responseHeaders(policy, origin, 'GET'), 'Origin');
 */
export function applyCors(target: ResponseHeaders, grant: Record<string, string> | undefined, varyNames: string): void {
  for (const name in target) if (name.startsWith('access-control-')) delete target[name];
  if (grant !== undefined) Object.assign(target, grant);
  target.vary = mergeVary(headerText(target.vary), varyNames);
}
