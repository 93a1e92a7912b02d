/**
 * restcanon/hono: serve an API inside a Hono app as a middleware, on any runtime Hono runs on. The
 * request and the answer go through the Fetch adapter's translation; the types are structural, and
 * the route the middleware runs on is read with Hono's own `routePath` (hono/route).
 */
import { routePath } from 'hono/route';
import type { ApiRequest } from '../core/contract.js';
import type { Api } from '../core/api.js';
import { checkOptions } from '../core/options.js';
import { answerFetch } from './fetch-answer.js';
import { USED_BODY } from './fetch-body.js';
import { fromFetchRequest } from './fetch.js';
import { coreTemplates, mountRoute, routeHono } from './host-routes.js';
import { mountPathAbove, routePrefix, targetBelowMount, targetBelowPrefix } from './mount.js';
import { LOWER_CASE_HEADERS, PASS_ON } from './respond-options.js';

/**
 * The parts of a Hono context that restcanon reads.
 *
 * @example
 * const sent = (c: HonoContext) => c.req.raw.url;
 */
export interface HonoContext {
  req: {
    /** The Fetch request. */
    raw: Request;
    /** The body's text, from Hono's cache when a validator read it already (`c.req.json()`, `c.req.valid`). */
    text(): Promise<string>;
  };
  /** What the runtime passed beside the request: Node's request and response on @hono/node-server. */
  env?: unknown;
}

/**
 * Hono's `next`: the rest of the middleware and the route's handler.
 *
 * @example
 * const passOn = (c: HonoContext, next: HonoNext) => next();
 */
export type HonoNext = () => Promise<void>;

/**
 * A Hono middleware, as `app.use`, `app.all` and `app.route` take it.
 *
 * @example
 * app.use('/api/*', toHono(api) satisfies HonoMiddleware);
 */
export type HonoMiddleware = (c: HonoContext, next: HonoNext) => Promise<Response | undefined>;

/**
 * Options of {@link toHono}.
 *
 * @example
 * app.use('/v1/*', toHono(api, { fallthrough: false } satisfies HonoOptions));
 */
export interface HonoOptions {
  /**
   * Whether a request for a path the API does not know goes on with `next()` (the default), or gets
   * the API's 404 problem, for an API that owns every path below its mount point.
   */
  fallthrough?: boolean;
  /**
   * A Hono app (`new Hono()`) to register each template of the API on as a route of its own, so that
   * `c.req.routePath` names it, with the API's catch-all (unknown paths, 405s) behind the routes:
   * mount the app with `app.route('/v1', router)` once `toHono` has filled it.
   */
  router?: HonoRouterLike;
}

/**
 * What restcanon uses of a Hono app to register routes on: `on` and `use`.
 *
 * @example
 * const router: HonoRouterLike = new Hono();
 */
export interface HonoRouterLike {
  on(method: string[], path: string, handler: HonoMiddleware): unknown;
  use(path: string, handler: HonoMiddleware): unknown;
}

const HONO_OPTIONS = ['fallthrough', 'router'];

/**
 * Serves an API as a Hono middleware: `app.use('/v1/*', toHono(api))`, or `sub.use(toHono(api))`
 * with `app.route('/v1', sub)`. A path the API does not know goes on to `next()`, with its body
 * unread; a known path with another method is the API's 405.
 *
 * The route's path before its final `/*` is the mount path: the API routes the target below it as
 * it was sent, and builds its `Location` and page links on it (`/v1/users/3`). Hono routes the
 * decoded path, so `/%76%31/users` reaches a `/v1/*` route too: its path as sent is not below `/v1`,
 * and the API does not serve it. A mount path that ends with the API's `basePath` is the base path
 * written twice: the API is served once. `app.use(toHono(api))` mounts it at the root.
 *
 * With `router` (a Hono app), each template of the API is a route of that app and the catch-all a
 * middleware behind them (`c.req.routePath` names the template); a route serves a request only where
 * the API reads its path as sent as the same template.
 *
 * The body is read as `toFetch` reads it, with the API's limit; one a validator before the API read
 * already (`c.req.json()`) is taken from Hono's cache as text and checked by the API as the stream
 * would be. On @hono/node-server the rest of a body the API left unread is settled as on `node:http`.
 *
 * @example
 * const app = new Hono();
 * app.use('/v1/*', toHono(api));
 * app.get('/', (c) => c.text('home'));
 * serve({ fetch: app.fetch, port: 3000 });
 */
export function toHono(api: Api, options: HonoOptions = {}): HonoMiddleware {
  checkOptions('toHono()', options, HONO_OPTIONS);
  const respondOptions = (options.fallthrough ?? true) ? PASS_ON : LOWER_CASE_HEADERS;
  const basePath = api.basePath;
  const templateOf = options.router === undefined ? undefined : coreTemplates(api);
  const serve = (template?: string, hostPath?: string): HonoMiddleware => async (c, next) => {
    const request = fromHonoContext(c, basePath, hostPath);
    // Hono matched a spelling the core reads as another path (Hono routes the decoded path): the
    // catch-all behind the routes answers as the core does.
    if (template !== undefined && templateOf?.(request.url) !== template) return void (await next());
    // Hono's context as the host's object: c.var, c.env and the Request.
    request.host = { c };
    if (c.req.raw.bodyUsed && request.body !== undefined) request.body = await textOf(c);
    const response = await answerFetch(api, request, respondOptions, c.env);
    if (response !== undefined) return response;
    await next();
    return undefined;
  };
  if (options.router !== undefined) routeHono('toHono()', options.router, api, serve);
  return serve();
}

/**
 * The `ApiRequest` of a Hono request: the Fetch adapter's, with the target below the route's mount
 * path (a target not below it as sent names no path: `*`) and the mount path as `baseUrl`.
 */
function fromHonoContext(c: HonoContext, basePath: string, hostPath?: string): ApiRequest {
  const raw = c.req.raw;
  const request = fromFetchRequest(raw);
  // routePath types its context as Hono's own Context, of which HonoContext is a part.
  const prefix = routePrefix(mountRoute(routePath(c as Parameters<typeof routePath>[0]), hostPath), raw.url);
  if (prefix === '') return request;
  request.url = prefix === undefined ? ELSEWHERE : targetBelowMount(targetBelowPrefix(raw.url, prefix), undefined, prefix, basePath);
  if (prefix !== undefined) request.baseUrl = mountPathAbove(prefix, basePath);
  return request;
}

/** A target that names no path: the API serves nothing there. */
const ELSEWHERE = '*';

/** The text of a body Hono read already, from its cache; a body used up some other way cannot be read. */
async function textOf(c: HonoContext): Promise<unknown> {
  try {
    return await c.req.text();
  } catch {
    return USED_BODY;
  }
}
