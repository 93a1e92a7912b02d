/**
 * restcanon/express: serve an API, or one endpoint, from Express 4 or Express 5. The types are
 * structural (Express 4 and 5 type their requests differently), so nothing is imported from express.
 */
import type { ApiRequest, ApiResponse } from '../core/contract.js';
import type { ServerResponse } from 'node:http';
import type { Endpoint } from '../core/endpoint.js';
import { isValidatable, notModifiedAnswer } from './not-modified.js';
import { checkOptions } from '../core/options.js';
import type { Api, EndpointHandlerOptions, RespondOptions } from '../core/api.js';
import { createEndpointHandler } from '../preset.js';
import { bodyAfterFailure, parsedByHost } from './host-body.js';
import { answersHostError, bodyParserFailure } from './host-errors.js';
import { coreTemplates, routeExpress, type ExpressRouterLike } from './host-routes.js';
import { mountPathAbove, targetBelowMount } from './mount.js';
import { fromNodeRequest } from './node.js';
import { addHostFacts } from './host-facts.js';
import { LOWER_CASE_HEADERS, PASS_ON } from './respond-options.js';
import { sendNodeResponse } from './wire.js';
import type { ExpressErrorMiddleware, ExpressMiddleware, ExpressNext, ExpressRequest } from './express-types.js';

export type { ExpressErrorMiddleware, ExpressMiddleware, ExpressNext, ExpressRequest } from './express-types.js';
export type { ExpressRouterLike } from './host-routes.js';

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
  /**
   * An Express router (`express.Router({ caseSensitive, strict })`) to register each template of the
   * API on as a route of its own, so that `req.route.path` names it. The router is then the mount's
   * first middleware, with the API's catch-all (unknown paths, 405s) behind the routes.
   */
  router?: ExpressRouterLike;
}

const EXPRESS_OPTIONS = ['fallthrough', 'router'];

/**
 * Serves an API as Express 4 or 5 middleware, mountable at a prefix. It routes on `req.url`, which
 * Express makes relative to the mount point, and leaves `req.originalUrl` alone. A path the API does
 * not know goes on to the next handler, with its body unread; a known path with another method is
 * the API's 405. A body that a parser such as `express.json()` already read is used as parsed (its
 * bytes were counted by that parser's limit, not the API's, unless it came with a `Content-Length`);
 * otherwise the raw stream is read with the API's limit. With a `router`, each template is a route
 * of the router (see {@link ExpressOptions.router}); a request is served only where the core reads
 * its path as the template Express matched.
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
  const respondOptions = fallthrough ? PASS_ON : LOWER_CASE_HEADERS;
  const templateOf = options.router === undefined ? undefined : coreTemplates(api);
  const serve = (template?: string): ExpressMiddleware => (req, res, next) => {
    const request = fromExpressRequest(req, res, basePath);
    // Express matched a spelling the core reads as another path (a case-insensitive route, a slash
    // Express 4 took off below a mount path): the catch-all behind the routes answers as the core does.
    if (template !== undefined && templateOf?.(request.url) !== template) return void ((req.route = undefined), next());
    respondThrough(api, request, respondOptions, req, res, next);
  };
  const onParserError: ExpressErrorMiddleware = (error, req, res, next) => {
    const type = bodyParserFailure(error);
    if (type === undefined) return next(error);
    const request = fromExpressRequest(req, res, basePath);
    if (!answersHostError(api, fallthrough, request.url)) return next(error);
    request.body = bodyAfterFailure(req, type, (error as { body?: unknown }).body);
    respondThrough(api, request, LOWER_CASE_HEADERS, req, res, next);
  };
  if (options.router === undefined) return [serve(), onParserError];
  return [routeExpress('toExpress()', options.router, api, serve, serve()) as unknown as ExpressMiddleware, onParserError];
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
    handle(fromExpressRequest(req, res), paramsOf(req)).then((response) => sendOrNext(req, res, next, response), next);
  };
}

/** The API's answer to an Express request, sent once it is there: a rejection goes to the app's error handlers. */
function respondThrough(api: Api, request: ApiRequest, options: RespondOptions, req: ExpressRequest, res: ServerResponse, next: ExpressNext): void {
  const answer = api.respond(request, options);
  if (answer instanceof Promise) answer.then((response) => sendOrNext(req, res, next, response), next);
  else sendOrNext(req, res, next, answer);
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
  if (!isValidatable(req.method, response)) return sendNodeResponse(res, response);
  const etagOf = (req as { app?: { get?: (name: string) => unknown } }).app?.get?.('etag fn') as ExpressEtag | undefined;
  const etag = response.headers.etag === undefined && typeof etagOf === 'function' ? etagOf(response.payload, 'utf8') : undefined;
  if (etag !== undefined) response.headers.etag = etag;
  sendNodeResponse(res, notModifiedAnswer(req.headers, response) ?? response);
}

/**
 * The `ApiRequest` of an Express request: its target below the mount path, the mount path as
 * `baseUrl` (as {@link targetBelowMount} and {@link mountPathAbove} say), the stream or the body a
 * parser read from it, and what Express knows of it (`req.ip`, pino-http's `req.id` and `req.log`).
 */
function fromExpressRequest(req: ExpressRequest, res: ServerResponse, basePath = '/'): ApiRequest {
  const request = addHostFacts(fromNodeRequest(req, targetBelowMount(req.url ?? '/', req.originalUrl, req.baseUrl, basePath)), { req, res }, req, req.socket);
  request.baseUrl = mountPathAbove(req.baseUrl, basePath);
  if (parsedByHost(req)) request.body = req.body;
  return request;
}

function paramsOf(req: ExpressRequest): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.params ?? {})) if (value !== undefined) params[name] = Array.isArray(value) ? value.join('/') : value;
  return params;
}
