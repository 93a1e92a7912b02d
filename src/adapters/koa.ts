/** restcanon/koa: serve an API from Koa 2 or Koa 3 as a middleware. Its types are structural: nothing is imported from koa. */
import type { IncomingMessage } from 'node:http';
import type { ApiRequest, ApiResponse } from '../core/contract.js';
import type { Api } from '../core/api.js';
import { checkOptions } from '../core/options.js';
import { targetBelow } from '../core/request.js';
import { answersHostError } from './host-errors.js';
import { koaParsedBody, koaParserFailure, parserErrorOf, recordParserFailure, type KoaParsedRequest } from './koa-body.js';
import { coreTemplates, forgetRoute, routeKoa, type KoaRouterLike } from './host-routes.js';
export type { KoaRouterLike } from './host-routes.js';
import { koaMountPath, koaTarget, mountPathAbove, normalizePrefix, targetBelowMount } from './mount.js';
import { fromNodeRequest } from './node.js';
import { addHostFacts } from './host-facts.js';
import type { NodeResponse } from './node-types.js';
import { LOWER_CASE_HEADERS, PASS_ON } from './respond-options.js';
import { writeNodeResponse } from './wire.js';

/**
 * The parts of a Koa context that restcanon reads and writes, common to Koa 2 and 3.
 *
 * @example
 * const below = (ctx: KoaContext) => ctx.url !== ctx.originalUrl;
 */
export interface KoaContext {
  /** Node's request: its headers, and its stream, which the API reads unless a body parser did. */
  req: IncomingMessage;
  /** Node's response, which the API's answer is written to. */
  res: NodeResponse;
  /** The target below a koa-mount mount path (koa-mount sets it as it goes in). */
  url: string;
  /** The target as it was sent. */
  originalUrl: string;
  /** What a body parser (koa-bodyparser, @koa/bodyparser) made of the body, and the text it read. */
  request: KoaParsedRequest;
  /** Set to false once the answer is written, so that Koa does not write one of its own. */
  respond?: boolean | undefined;
  /** Set by koa-mount: the innermost mount path. */
  mountPath?: string | undefined;
  /** The client's address, after the app's `proxy` setting. */
  ip?: string | undefined;
  /** What the app's middleware keep for the request (a user, a logger, an id). */
  state?: { user?: unknown; log?: unknown; id?: unknown } | undefined;
}

/**
 * Koa's `next`: the rest of the middleware, as a promise.
 *
 * @example
 * const passOn = (ctx: KoaContext, next: KoaNext) => next();
 */
export type KoaNext = () => Promise<unknown>;

/**
 * A Koa middleware, as `app.use`, koa-mount and @koa/router take it.
 *
 * @example
 * app.use(toKoa(api) satisfies KoaMiddleware);
 */
export type KoaMiddleware = (ctx: KoaContext, next: KoaNext) => Promise<unknown> | undefined;

/**
 * Options of {@link toKoa}.
 *
 * @example
 * app.use(mount('/v1', toKoa(api, { fallthrough: false } satisfies KoaOptions)));
 */
export interface KoaOptions {
  /**
   * Whether a request for a path the API does not know goes on with `next()` (the default), or gets
   * the API's 404 problem, for an API that owns every path below its mount point.
   */
  fallthrough?: boolean;
  /**
   * An @koa/router router (`new Router({ sensitive, strict })`, without a `prefix`) to register each
   * template of the API on as a route of its own, so that `ctx._matchedRoute` names it; the
   * middleware then runs the router's routes, and the API's catch-all (unknown paths, 405s) behind.
   */
  router?: KoaRouterLike;
}

const KOA_OPTIONS = ['fallthrough', 'router'];

/**
 * Serves an API as a Koa 2 or Koa 3 middleware. A path the API does not know goes on to `next()`,
 * with its body unread; a known path with another method is the API's 405.
 *
 * Mounted with koa-mount (`app.use(mount('/v1', toKoa(api)))`), the API routes the target below the
 * mount path as it was sent, and builds its `Location` and page links on the mount path. @koa/router
 * takes nothing off the target: below one of its prefixes, give the API that prefix as its
 * `basePath`. A mount path that ends with the API's `basePath` is the base path written twice: the
 * API is served once, at `/api/v1/...`. With `router` (@koa/router), each template is a route of it.
 *
 * A body that a parser before it (koa-bodyparser, @koa/bodyparser) read is checked as the stream
 * would be: the API parses the text the parser read (`ctx.request.rawBody`), with its own limit,
 * depth and key checks, or takes `ctx.request.body` where no text was kept. A body such a parser
 * refuses is the parser's error, which Koa answers with its own text, unless the parser's error
 * option is {@link parserErrorsOf}: then the API answers it on its paths, after its own
 * authentication. Mounted before the parser, the API reads every body of its paths itself.
 *
 * The answer is written to Node's response (`ctx.respond = false`), byte for byte as
 * `toNodeListener` writes it. Through `ctx.body`, Koa would drop the headers of a 204 or 304 it
 * thinks belong to a body, answer a status without a body with its own text (or turn it into a 204),
 * and write a `Uint8Array` as JSON. Middleware that runs after `await next()` sees the status in
 * `ctx.status`, but cannot change the answer's headers or body any more.
 *
 * @example
 * app.use(toKoa(api));
 * app.use(mount('/v1', toKoa(api, { fallthrough: false })));
 */
export function toKoa(api: Api, options: KoaOptions = {}): KoaMiddleware {
  checkOptions('toKoa()', options, KOA_OPTIONS);
  const respondOptions = (options.fallthrough ?? true) ? PASS_ON : LOWER_CASE_HEADERS;
  const basePath = api.basePath;
  const templateOf = options.router === undefined ? undefined : coreTemplates(api);
  const serve = (template?: string): KoaMiddleware => (ctx, next) => {
    const request = fromKoaContext(ctx, basePath);
    // The router matched a spelling the core reads as another path (case): the catch-all answers.
    if (template !== undefined && templateOf?.(request.url) !== template) return forgetRoute(ctx), next();
    const answer = api.respond(request, respondOptions);
    if (answer instanceof Promise) return answer.then((response) => sendOrNext(ctx, next, response));
    return sendOrNext(ctx, next, answer);
  };
  if (options.router === undefined) return serve();
  const [routes, catchAll] = [routeKoa('toKoa()', options.router, api, serve) as KoaMiddleware, serve()];
  return (ctx, next) => routes(ctx, () => catchAll(ctx, next) ?? Promise.resolve());
}

/**
 * Options of {@link parserErrorsOf}: where {@link toKoa} serves the API, as its middleware sees it.
 *
 * @example
 * const options: KoaParserErrorsOptions = { prefix: '/v1', fallthrough: false };
 */
export interface KoaParserErrorsOptions {
  /** The koa-mount mount path of the API (`'/v1'` for `mount('/v1', toKoa(api))`). */
  prefix?: string;
  /** What `toKoa` was given. */
  fallthrough?: boolean;
}

const PARSER_ERRORS_OPTIONS = ['prefix', 'fallthrough'];

/**
 * The error option of a Koa body parser in front of an API served with {@link toKoa}
 * (koa-bodyparser's `onerror`, @koa/bodyparser's `onError`). A body the parser refuses on a path the
 * API serves (malformed JSON, a `__proto__` key, a body over the parser's limit, a Content-Encoding
 * it cannot inflate) goes on to the API, which answers it as if it had read the body itself, after
 * its own authentication. Every other error, and every error on another path, is thrown on, as the
 * parser throws it without the option.
 *
 * @example
 * app.use(bodyParser({ onError: parserErrorsOf(api, { prefix: '/v1' }) }));
 * app.use(mount('/v1', toKoa(api)));
 */
export function parserErrorsOf(api: Api, options: KoaParserErrorsOptions = {}): (error: unknown, ctx: KoaContext) => void {
  checkOptions('parserErrorsOf()', options, PARSER_ERRORS_OPTIONS);
  const prefix = normalizePrefix(options.prefix ?? '');
  const fallthrough = options.fallthrough ?? true;
  return (error, ctx) => {
    const type = koaParserFailure(error);
    if (type === undefined) throw error;
    const below = targetBelow(ctx.url, prefix);
    if (below === undefined || !answersHostError(api, fallthrough, targetBelowMount(below, undefined, prefix, api.basePath))) throw error;
    recordParserFailure(ctx.req, error, type);
  };
}

/**
 * The API's response written to Node's response, or the next middleware for a path the API does not
 * know; a parser's failure kept for the API on a path it passes on goes on to Koa's error handling.
 */
function sendOrNext(ctx: KoaContext, next: KoaNext, response: ApiResponse | undefined): Promise<unknown> | undefined {
  if (response === undefined) {
    const failed = parserErrorOf(ctx.req);
    return failed === undefined ? next() : Promise.reject(failed.error);
  }
  ctx.respond = false;
  // writeNodeResponse answers its own failures (it closes the socket): nothing reaches Koa's error handling.
  writeNodeResponse(ctx.res, response, response.headers, ctx.req);
  return undefined;
}

/**
 * The `ApiRequest` of a Koa request: its target below koa-mount's mount path, the mount path as
 * `baseUrl` (as Express's is, with the API's `basePath`), the stream or the body a parser read, and
 * what Koa knows of it (`ctx.ip`, an id and a logger its middleware kept in `ctx.state`).
 */
function fromKoaContext(ctx: KoaContext, basePath: string): ApiRequest {
  const url = ctx.mountPath === undefined ? ctx.url : koaTarget(ctx.url);
  const mountPath = ctx.mountPath === undefined ? undefined : koaMountPath(ctx.originalUrl, url);
  const target = mountPath === undefined ? url : targetBelowMount(url, ctx.originalUrl, mountPath, basePath);
  // Koa's own context as the host's object; its address follows the app's `proxy` setting.
  const request = addHostFacts(fromNodeRequest(ctx.req, target), { ctx }, { id: ctx.state?.id, log: ctx.state?.log }, ctx.req.socket, ctx);
  if (mountPath !== undefined) request.baseUrl = mountPathAbove(mountPath, basePath);
  const parsed = koaParsedBody(ctx.req, ctx.request);
  if (parsed !== undefined) request.body = parsed;
  return request;
}
