/**
 * What goes in and out of an API, as adapters and tests see it: the request, the response and what
 * `onError` learns. It imports nothing, so every part of restcanon can use it.
 */

/** Request headers, lower-cased names. */
export type HeaderRecord = Record<string, string | string[] | undefined>;

/** Parsed query string: a repeated key gives an array. */
export type QueryRecord = Record<string, string | string[]>;

/**
 * A request as the core sees it, from an adapter or from a test. A `body` that is a string, bytes or
 * an async iterable of chunks is raw and parsed by its `Content-Type`; any other value is taken as
 * already parsed by a framework (and still checked).
 *
 * @example
 * const request: ApiRequest = { method: 'POST', url: '/users', headers: { 'content-type': 'application/json' }, body: '{"name":"Ada"}' };
 */
export interface ApiRequest {
  method: string;
  /** A path with an optional query string, or an absolute URL. */
  url: string;
  headers?: HeaderRecord | undefined;
  body?: unknown;
  /**
   * The prefix a host router already took off `url` (Express's `req.baseUrl`, a Fastify prefix), so
   * that URLs the API builds, such as `Location`, point where the client can reach them.
   */
  baseUrl?: string | undefined;
  /**
   * The host's own objects for this request, as its adapter gives them: `{ req, res }` from
   * Express, `{ request, reply }` from Fastify, `{ incoming, outgoing }` from node:http, `{ request }`
   * from Fetch. Undefined in memory (`api.handle`).
   */
  host?: unknown;
  /** The client's address as the host reads it, after its trust-proxy rule (Express's `req.ip`, Fastify's `request.ip`). */
  ip?: string | undefined;
  /** The host's id of the request (Fastify's `request.id`): the request's id, on `ctx.id` and in its problems. */
  id?: string | undefined;
  /** The host's logger for this request (Fastify's `request.log`, pino-http's `req.log`): `ctx.log`, and where restcanon reports. */
  log?: Logger | undefined;
  /**
   * How the core learns that the client went away before its answer was complete: called as a
   * method of the request, at most once and only when a handler reads `ctx.signal`, with a listener
   * to call then. An adapter gives one shared function that finds the connection through `host`, so
   * that a request pays nothing for it until it is called. Absent in memory: only the deadline
   * aborts `ctx.signal` there.
   */
  onClose?: ((this: ApiRequest, listener: () => void) => void) | undefined;
}

/**
 * A logger as restcanon uses one: pino's call shape, an object of fields then a message. pino,
 * Fastify's `request.log` and pino-http's `req.log` are such loggers.
 *
 * @example
 * const logger: Logger = { error: (fields, message) => console.error(message, fields), warn: () => {}, info: () => {}, debug: () => {} };
 */
export interface Logger {
  error(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  debug(fields: object, message?: string): void;
}

/**
 * The headers of an answer, lower-cased names: one string each, but `set-cookie`, the list of its
 * lines, which cannot be joined into one (RFC 6265 section 3; a cookie's `Expires` has a comma).
 *
 * @example
 * const headers: ResponseHeaders = { link: '</users?page=2>; rel="next", </users?page=9>; rel="last"', 'set-cookie': ['a=1', 'b=2'] };
 */
export interface ResponseHeaders {
  /** `set-cookie` holds a list of lines; every other header one string. */
  [name: string]: string | string[];
}

/**
 * What the core answers: the status, the headers (lower-cased names; `set-cookie` the list of its lines), the body as a value (a result
 * or a problem object, for tests to read) and the payload as it goes on the wire (for adapters).
 * A stream answer (a `Readable`, a `ReadableStream`, an async iterable or a `Blob` of an endpoint
 * that `produces` its type) has `stream` instead of a payload: its chunks, its first already read.
 * Whoever iterates it writes every chunk, stops with `return()` when the client goes away, and ends
 * the connection abruptly when it throws (the core has reported the error by then). A test reads it
 * with `for await`.
 *
 * @example
 * const response = await api.handle({ method: 'GET', url: '/users/7' });
 * response.status; // 404
 * response.body; // { type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND', ... }
 * const download = await api.handle({ method: 'GET', url: '/reports/7.csv' });
 * for await (const chunk of download.stream!) chunks.push(chunk);
 */
export interface ApiResponse {
  status: number;
  headers: ResponseHeaders;
  body: unknown;
  payload: string | Uint8Array | undefined;
  /** The body of a stream answer, chunk by chunk (payload and body undefined then); absent otherwise. */
  stream?: AsyncIterable<Uint8Array> | undefined;
}

/**
 * What an API answers a request with: the response, its promise when a step had to wait, or nothing
 * for a path the API does not know (when asked to pass those on).
 *
 * @example
 * const answer: Answer = api.respond(request, { unmatched: 'pass' });
 */
export type Answer = ApiResponse | undefined | Promise<ApiResponse | undefined>;

/** What `onError` learns besides the error: the id sent to the client in `instance`, and the request. */
export interface ErrorInfo {
  requestId: string;
  status: number;
  request: ApiRequest;
}
