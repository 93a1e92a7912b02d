/**
 * restcanon/express: serve an API, or one endpoint, from Express 4 or Express 5. The types are
 * structural (Express 4 and 5 type their requests differently), so nothing is imported from express.
 */
import type { ApiRequest, ApiResponse } from '../core/contract.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint } from '../core/endpoint.js';
import { CACHE_HEADERS, dateSeconds, evaluate } from '../conventions/conditional/conditions.js';
import { PayloadTooLargeError } from '../core/errors.js';
import { checkOptions } from '../core/options.js';
import { parseTarget, targetBelow } from '../core/request.js';
import type { Api, EndpointHandlerOptions, RespondOptions } from '../core/api.js';
import { createEndpointHandler } from '../preset.js';
import { fromNodeRequest, readNodeBody, sendNodeResponse } from './node.js';

/**
 * The parts of an Express request that restcanon reads, common to Express 4 and 5.
 *
 * @example
 * const isParsed = (req: ExpressRequest) => req._body === true;
 */
export interface ExpressRequest extends IncomingMessage {
  /** What a body parser such as `express.json()` made of the body. */
  body?: unknown;
  /** Set by Express 4's body parsers once they have read the body. */
  _body?: boolean;
  /** The mount path Express took off `req.url` (`/v1` for `app.use('/v1', ...)`). */
  baseUrl?: string;
  /** The target as it was sent, before any mount path was taken off it. */
  originalUrl?: string;
  /** Path params from the Express route (Express 5 gives a wildcard as an array of segments). */
  params?: Record<string, string | string[] | undefined>;
}

/**
 * Express's `next`: no argument goes on to the next handler, an error goes to the error handlers.
 *
 * @example
 * const next: ExpressNext = (error) => console.error(error);
 */
export type ExpressNext = (error?: unknown) => void;

/**
 * An Express middleware or route handler.
 *
 * @example
 * app.use(middleware satisfies ExpressMiddleware);
 */
export type ExpressMiddleware = (req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;

/**
 * An Express error middleware: Express tells it from other middleware by its four parameters.
 *
 * @example
 * app.use(((error, req, res, next) => next(error)) satisfies ExpressErrorMiddleware);
 */
export type ExpressErrorMiddleware = (error: unknown, req: ExpressRequest, res: ServerResponse, next: ExpressNext) => void;

/**
 * What {@link toExpress} gives `app.use`: the API's middleware, then the error middleware that
 * answers for the API when a body parser before it failed. Express 4 and 5 flatten the array.
 *
 * @example
 * const [middleware, onParserError]: ExpressMount = toExpress(api);
 */
export type ExpressMount = [middleware: ExpressMiddleware, onParserError: ExpressErrorMiddleware];

/**
 * Options of {@link toExpress}.
 *
 * @example
 * app.use('/v1', toExpress(api, { fallthrough: false } satisfies ExpressOptions));
 */
export interface ExpressOptions {
  /**
   * Whether a request for a path the API does not know goes on with `next()` (the default), or gets
   * the API's 404 problem, for an API that owns every path below its mount point.
   */
  fallthrough?: boolean;
}

/** Node gives header names in lower case. */
const ANSWER = { lowerCaseHeaders: true } as const satisfies RespondOptions;
const PASS_ON = { unmatched: 'pass', lowerCaseHeaders: true } as const satisfies RespondOptions;

const EXPRESS_OPTIONS = ['fallthrough'];

/**
 * Serves an API as Express 4 or 5 middleware, mountable at a prefix. It routes on `req.url`, which
 * Express makes relative to the mount point, and leaves `req.originalUrl` alone. A path the API does
 * not know goes on to the next handler, with its body unread; a known path with another method is
 * the API's 405. A body that a parser such as `express.json()` already read is used as parsed (its
 * bytes were counted by that parser's limit, not the API's, unless it came with a `Content-Length`);
 * otherwise the raw stream is read with the API's limit.
 *
 * The API routes the path as the client sent it, below the mount path: where Express 4 takes the
 * slash after a mount path along with it (`/v1//admin` reaches `app.use('/v1', ...)` as `/admin`),
 * the API gets the slash back and serves no route, as a guard on `/v1/admin` never saw the request.
 *
 * Mounted at a path that ends with the API's `basePath` (`app.use('/api/v1', toExpress(api))` with
 * `basePath: '/api/v1'`), the API is served once, at `/api/v1/...`: the base path written in both
 * places means one prefix, not `/api/v1/api/v1/...`.
 *
 * It returns two middleware for `app.use`, which Express runs in order. The second handles the
 * errors of a body parser mounted before the API (malformed JSON, a body over the parser's limit,
 * an unsupported charset or encoding) for the paths the API serves: the API answers them, after its
 * own authentication and header checks, with its problem details rather than Express's HTML error
 * page. Other errors, and errors on other paths, go on to the host's error handlers. A body parser
 * reads a whole body before it hands an error on, so an API mounted before global parsers answers
 * a huge `Content-Length` at once, where one behind them answers only when the body has arrived.
 *
 * @example
 * app.use(express.json());
 * app.use('/v1', toExpress(api));
 */
export function toExpress(api: Api, options: ExpressOptions = {}): ExpressMount {
  checkOptions('toExpress()', options, EXPRESS_OPTIONS);
  const fallthrough = options.fallthrough ?? true;
  const basePath = api.basePath;
  const middleware: ExpressMiddleware = (req, res, next) => {
    const answer = api.respond(fromExpressRequest(req, basePath), fallthrough ? PASS_ON : ANSWER);
    if (answer instanceof Promise) answer.then((response) => sendOrNext(req, res, next, response), next);
    else sendOrNext(req, res, next, answer);
  };
  const onParserError: ExpressErrorMiddleware = (error, req, res, next) => {
    const type = bodyParserFailure(error);
    if (type === undefined) return next(error);
    const request = fromExpressRequest(req, basePath);
    if (fallthrough && !api.matches(request.url)) return next(error);
    request.body = bodyAfter(req, type, (error as { body?: unknown }).body);
    const answer = api.respond(request, ANSWER);
    if (answer instanceof Promise) answer.then((response) => sendOrNext(req, res, next, response), next);
    else sendOrNext(req, res, next, answer);
  };
  return [middleware, onParserError];
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

/** Failures whose error keeps the body's text, which the API then parses itself. */
const TEXT_KEPT: ReadonlySet<string> = new Set(['entity.parse.failed', 'parameters.too.many']);

function bodyParserFailure(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, code, status } = error as { type?: unknown; code?: unknown; status?: unknown };
  if (typeof type === 'string') return BODY_PARSER_FAILURES.has(type) ? type : undefined;
  // A compressed body that does not inflate: body-parser passes zlib's error on as a 400 with no type.
  return status === 400 && typeof code === 'string' && ZLIB_CODE.test(code) ? 'content.decoding' : undefined;
}

/** The codes of zlib's errors (`Z_DATA_ERROR`, `Z_BUF_ERROR`) and of Brotli's (`ERR__ERROR_FORMAT_PADDING_1`). */
const ZLIB_CODE = /^(?:Z_|ERR__ERROR_FORMAT|ERR_BROTLI)/;

/**
 * The body the API reads after a parser failed: the text the parser could not parse; the stream
 * itself when the parser refused the request before reading it (charset, encoding); otherwise a body
 * whose reading fails, as the parser's reading did. A body a `verify` function refused is never
 * handed on as readable.
 */
function bodyAfter(req: ExpressRequest, type: string, text: unknown): unknown {
  if (TEXT_KEPT.has(type) && typeof text === 'string') return text;
  if (!req.readableDidRead && !req.readableEnded) return readNodeBody(req);
  return new UnreadableBody(type === 'entity.too.large');
}

/** A body the host's parser failed to read: reading it throws as that reading did. */
class UnreadableBody implements AsyncIterable<Uint8Array> {
  constructor(private readonly tooLarge: boolean) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const failure = this.tooLarge ? new PayloadTooLargeError('The body is larger than the server accepts') : new Error('The host could not read the body');
    return { next: () => Promise.reject(failure) };
  }
}

/**
 * Runs one endpoint as an Express route handler, with `req.params` from the Express route.
 *
 * @example
 * app.get('/users/:id', expressHandler(readUser));
 */
export function expressHandler(endpoint: Endpoint, options: EndpointHandlerOptions = {}): ExpressMiddleware {
  const handle = createEndpointHandler(endpoint, options);
  return (req, res, next) => {
    handle(fromExpressRequest(req), paramsOf(req)).then((response) => sendOrNext(req, res, next, response), next);
  };
}

/**
 * The API's response, or the next middleware for a path the API does not know. A failure to send it
 * (the app's own `etag fn` throws, say) goes to the app's error handlers, as a middleware's would:
 * after an answer that had to wait, it would otherwise be a rejection nobody handles.
 */
function sendOrNext(req: ExpressRequest, res: ServerResponse, next: ExpressNext, response: ApiResponse | undefined): void {
  if (response === undefined) return next();
  try {
    sendExpressResponse(req, res, response);
  } catch (error) {
    next(error);
  }
}

/** The app's `etag fn` setting, as Express compiles it from `app.set('etag', ...)` (`false` leaves it out). */
type ExpressEtag = (body: string | Uint8Array, encoding?: string) => string | undefined;

/**
 * Sends an answer as Express's `res.send` would: a successful GET without an `ETag` of the API's
 * gets one from the app's `etag` setting (weak by default), and a request whose `If-None-Match` or
 * `If-Modified-Since` says its copy is current gets a 304, so routes served by the API keep what
 * every other Express route gives.
 */
function sendExpressResponse(req: ExpressRequest, res: ServerResponse, response: ApiResponse): void {
  if (req.method === 'GET' && response.status >= 200 && response.status < 300 && response.payload !== undefined) {
    const etagOf = (req as { app?: { get?: (name: string) => unknown } }).app?.get?.('etag fn') as ExpressEtag | undefined;
    if (response.headers.etag === undefined && typeof etagOf === 'function') {
      const etag = etagOf(response.payload, 'utf8');
      if (etag !== undefined) response.headers.etag = etag;
    }
    if (isFresh(req, response)) {
      // What RFC 9110 section 15.4.5 asks of a 304, and the CORS grant, without which a page cannot read it.
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) if (name === 'etag' || CACHE_HEADERS.includes(name) || name.startsWith('access-control-')) headers[name] = value;
      if (headers.etag === undefined && response.headers['last-modified'] !== undefined) headers['last-modified'] = response.headers['last-modified'];
      return sendNodeResponse(res, { status: 304, headers, body: undefined, payload: undefined });
    }
  }
  sendNodeResponse(res, response);
}

/** Whether a GET's copy is current (RFC 9110 section 13.2.2, steps 3 and 4), as the answer's validators say. */
function isFresh(req: ExpressRequest, response: ApiResponse): boolean {
  const { etag, 'last-modified': lastModified } = response.headers;
  if (etag === undefined && lastModified === undefined) return false;
  const current = { etag, lastModified, seconds: dateSeconds(lastModified) };
  const conditions = { 'if-none-match': req.headers['if-none-match'], 'if-modified-since': req.headers['if-modified-since'] };
  return evaluate('GET', conditions, current) === 'notModified';
}

/**
 * The `ApiRequest` of an Express request: its target below the mount path, and the mount path as
 * `baseUrl`. With a `basePath`, a mount path that ends with it is the base path written twice: the
 * base path moves from the mount path to the target, so that the API routes it once.
 */
function fromExpressRequest(req: ExpressRequest, basePath = '/'): ApiRequest {
  const url = urlBelowMount(req);
  const baseUrl = req.baseUrl;
  const twice = basePath !== '/' && baseUrl !== undefined && baseUrl.endsWith(basePath);
  const request = fromNodeRequest(req, twice ? withBasePath(url, basePath) : url);
  request.baseUrl = twice ? baseUrl.slice(0, baseUrl.length - basePath.length) : baseUrl;
  // Express 4's parsers mark `_body`, Express 5's leave the stream ended: the stream is spent, so the
  // parsed body stands in for it. A request that carried no body keeps none, whatever a parser made of it.
  if ((req._body === true || req.readableEnded) && hasBody(req.headers)) request.body = req.body;
  return request;
}

/**
 * `req.url`, with the slash put back that Express 4 takes along with a mount path when an empty
 * segment follows it: `/v1//admin/stats` reaches `app.use('/v1', ...)` as `/admin/stats`, which a
 * guard on `/v1/admin` never saw. The API gets `//admin/stats`, as it was sent, and routes nothing.
 */
function urlBelowMount(req: ExpressRequest): string {
  const url = req.url ?? '/';
  const original = req.originalUrl;
  if (original === undefined || original === url || !original.includes('//')) return url;
  const sent = parseTarget(original)?.path;
  const path = parseTarget(url)?.path;
  if (sent === undefined || path === undefined || !sent.includes('//') || path.includes('//') || !path.startsWith('/')) return url;
  return `/${targetBelow(url, '')!}`;
}

/**
 * A target with the base path in front of its path: `/users?page=2` → `/api/users?page=2`, `/` →
 * `/api`. An absolute-form target loses its origin; a target without a path is left as it is.
 */
function withBasePath(url: string, basePath: string): string {
  const target = parseTarget(url);
  if (target === undefined || target.path === '') return url;
  // The root below the mount is the base path itself, without a trailing slash.
  const path = target.path === '/' ? basePath : basePath + target.path;
  return target.search === '' ? path : `${path}?${target.search}`;
}

/** Whether the request's framing announces a body (RFC 9112 §6.3): chunked, or a length above 0. */
function hasBody(headers: IncomingMessage['headers']): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

function paramsOf(req: ExpressRequest): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.params ?? {})) {
    if (value !== undefined) params[name] = Array.isArray(value) ? value.join('/') : value;
  }
  return params;
}
