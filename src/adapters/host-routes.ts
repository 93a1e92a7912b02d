/**
 * The API's path templates as a host router's own routes (Express, @koa/router, Hono, Fastify): one
 * per template with the methods it has, written in the host's path syntax, and the check that the
 * core reads a request's path as the same template the host matched.
 */
import type { Api } from '../core/api.js';
import { parseTemplate } from '../core/path.js';
import { splitUrl } from '../core/request.js';
import { createRouter } from '../core/router.js';

/**
 * One path template of an API and the methods it declares, as an adapter registers it on a host's
 * router: `path` is the template as the API routes it, with its `basePath`.
 *
 * @example
 * const route: HostRoute = { path: '/users/:id', methods: ['GET', 'PUT', 'DELETE'] };
 */
export interface HostRoute {
  readonly path: string;
  readonly methods: readonly string[];
}

/**
 * Every template of an API with its methods, the more specific first where two could match one path
 * (`/users/me` before `/users/:id`): a host router that takes the first route it matches then picks
 * the template the core picks.
 *
 * @example
 * hostRoutes(api); // [{ path: '/users', methods: ['GET', 'POST'] }, { path: '/users/:id', methods: ['GET'] }]
 */
export function hostRoutes(api: Api): HostRoute[] {
  const byPath = new Map<string, string[]>();
  for (const route of api.routes) {
    const methods = byPath.get(route.path);
    if (methods === undefined) byPath.set(route.path, [route.method]);
    else methods.push(route.method);
  }
  const routes = [...byPath].map(([path, methods]) => ({ path, methods }));
  return routes.sort((a, b) => bySpecificity(a.path, b.path));
}

/** Static segments before params, segment by segment, as the core's router tries them. */
function bySpecificity(a: string, b: string): number {
  const left = parseTemplate(a);
  const right = parseTemplate(b);
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    const kinds = Number(left[index]!.kind === 'param') - Number(right[index]!.kind === 'param');
    if (kinds !== 0) return kinds;
  }
  return 0;
}

/**
 * A template in path-to-regexp's syntax, as Express 4 (0.1), Express 5 and @koa/router (8) read it:
 * each character of a static segment that is not a letter, digit, `_`, `~` or `-` is escaped with a
 * backslash, which both versions read as that character itself (`/a:b(c)` → `/a\:b\(c\)`). Undefined
 * for a param whose name path-to-regexp 0.1 cannot read (`:$id`): such a template stays with the
 * adapter's catch-all.
 *
 * @example
 * pathToRegexpPath('/users/:id'); // '/users/:id'
 * pathToRegexpPath('/files/report.json'); // '/files/report\\.json'
 */
export function pathToRegexpPath(template: string): string | undefined {
  let path = '';
  for (const segment of parseTemplate(template)) {
    if (segment.kind === 'param' && !/^\w+$/.test(segment.name)) return undefined;
    path += segment.kind === 'param' ? `/:${segment.name}` : `/${segment.value.replace(/[^\w~-]/g, '\\$&')}`;
  }
  return path === '' ? '/' : path;
}

/**
 * A template in Hono's syntax. Hono has no escape: a template whose static segments hold anything
 * but letters, digits, `_`, `~`, `-` and `.` (a `:`, `*`, `{`...) is undefined, and stays with the
 * adapter's catch-all, as does one with a param name such as `:$id`.
 *
 * @example
 * honoPath('/users/:id'); // '/users/:id'
 * honoPath('/a*b'); // undefined
 */
export function honoPath(template: string): string | undefined {
  for (const segment of parseTemplate(template)) {
    if (segment.kind === 'param' ? !/^\w+$/.test(segment.name) : !/^[\w~.-]+$/.test(segment.value)) return undefined;
  }
  return template.length > 1 && template.endsWith('/') ? template.slice(0, -1) : template;
}

/**
 * The template the core routes a target to, or undefined for none (or a target it cannot read). A
 * host router may match spellings the core does not (Express's case-insensitive routes, Hono's decoded
 * path): a route handler serves a request only when both name the same template.
 *
 * @example
 * const templateOf = coreTemplates(api);
 * templateOf('/users/7?x=1'); // '/users/:id'
 * templateOf('/USERS/7'); // undefined
 */
export function coreTemplates(api: Api): (target: string) => string | undefined {
  const router = createRouter<true>();
  for (const route of api.routes) router.add(route.method, route.path, true);
  return (target) => {
    try {
      return router.find(splitUrl(target).path)?.route.template;
    } catch {
      return undefined;
    }
  };
}

/**
 * What restcanon uses of an Express 4 or 5 Router (`express.Router()`): `route(path)` and a method
 * per HTTP method on it, and `use` for the catch-all after the routes.
 *
 * @example
 * const router: ExpressRouterLike = express.Router({ caseSensitive: true });
 */
export interface ExpressRouterLike {
  route(path: string): object;
  use: (...handlers: never[]) => unknown;
}

/**
 * Registers each template of an API on an Express router, for the methods it declares and OPTIONS
 * (Express runs a GET route for HEAD), then `catchAll` for every other request: a path no template
 * matches, a method a template lacks (the API's 405), a template that path-to-regexp cannot spell.
 * Express decodes a route's params as it matches, and hands a malformed percent-escape on as an
 * error: `catchAll` gets that request too, so that the API answers it as it does without routes.
 * Returns the router; throws, naming `where`, for something that is no Express router.
 *
 * @example
 * app.use('/v1', routeExpress('toExpress()', express.Router(), api, handlerOf, catchAll));
 */
export function routeExpress<Router extends ExpressRouterLike, Req, Res>(
  where: string,
  router: Router,
  api: Api,
  handlerOf: (template: string) => NextHandler<Req, Res>,
  catchAll: NextHandler<Req, Res>,
): Router {
  if (typeof router?.route !== 'function' || typeof router.use !== 'function') throw new TypeError(`${where}: \`router\` must be an Express router, such as express.Router({ caseSensitive: true })`);
  for (const route of hostRoutes(api)) {
    const path = pathToRegexpPath(route.path);
    if (path === undefined) continue;
    const hostRoute = router.route(path) as Record<string, unknown>;
    const handler = handlerOf(route.path);
    for (const method of new Set([...route.methods, 'OPTIONS'])) {
      const add = hostRoute[method.toLowerCase()];
      if (typeof add === 'function') add.call(hostRoute, handler);
    }
  }
  const undecodable = (error: unknown, req: Req, res: Res, next: (error?: unknown) => void): void => {
    if (error instanceof URIError && (error as { status?: unknown }).status === 400) catchAll(req, res, next);
    else next(error);
  };
  (router as unknown as { use(...handlers: unknown[]): unknown }).use(catchAll, undecodable);
  return router;
}

/**
 * An Express middleware, in the types of the adapter that passes it.
 *
 * @example
 * const passOn: NextHandler<unknown, unknown> = (_req, _res, next) => next();
 */
export type NextHandler<Req, Res> = (req: Req, res: Res, next: (error?: unknown) => void) => void;

/**
 * A template in find-my-way's syntax (Fastify): `:` inside a static segment is escaped as `::`.
 *
 * @example
 * fastifyPath('/files/a:b/:id'); // '/files/a::b/:id'
 */
export function fastifyPath(template: string): string {
  return template
    .split('/')
    .map((segment) => (segment.startsWith(':') ? segment : segment.replaceAll(':', '::')))
    .join('/');
}

/**
 * The Fastify routes of one template: without `optionsOf`, one route for every method the server
 * routes; with it, a route per method the template declares with that method's options (a GET's
 * route serves HEAD too, unless HEAD is declared), and one more without options for the rest:
 * OPTIONS and the methods the template lacks, which the API answers with its 405.
 *
 * @example
 * fastifyRoutes({ path: '/users', methods: ['GET'] }, ['GET', 'HEAD', 'POST', 'OPTIONS'], () => ({ config: {} }), 'toFastify()');
 * // [{ methods: ['GET', 'HEAD'], options: { config: {} } }, { methods: ['POST', 'OPTIONS'], options: {} }]
 */
export function fastifyRoutes(
  route: HostRoute,
  supported: readonly string[],
  optionsOf: ((route: { path: string; method: string }) => Record<string, unknown> | undefined) | undefined,
  where: string,
): { methods: string[]; options: Record<string, unknown> }[] {
  if (optionsOf === undefined) return [{ methods: [...supported], options: {} }];
  const rest = new Set(supported);
  const routes = [];
  for (const method of route.methods) {
    const methods = method === 'GET' && !route.methods.includes('HEAD') && rest.has('HEAD') ? ['GET', 'HEAD'] : [method];
    for (const taken of methods) rest.delete(taken);
    routes.push({ methods, options: checkedRouteOptions(optionsOf({ path: route.path, method }), `${method} ${route.path}`, where) });
  }
  if (rest.size > 0) routes.push({ methods: [...rest], options: {} });
  return routes;
}

/** Route options that leave the route's method, path and handler to the adapter. */
const ADAPTER_ROUTE_OPTIONS = ['method', 'url', 'path', 'handler'];

function checkedRouteOptions(options: unknown, route: string, where: string): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw new TypeError(`${where}: routeOptions for ${route} must return an object of route options or undefined`);
  const taken = ADAPTER_ROUTE_OPTIONS.find((name) => name in options);
  if (taken !== undefined) throw new TypeError(`${where}: routeOptions for ${route} sets \`${taken}\`, which the adapter sets to the API's own; return hooks and config only`);
  return options as Record<string, unknown>;
}

/**
 * Registers each template of an API that Hono can spell on a Hono app, for the methods it declares
 * and OPTIONS (Hono runs a GET route for HEAD), then `handlerOf()` on every path for the rest.
 *
 * @example
 * routeHono('toHono()', new Hono(), api, handlerOf);
 */
export function routeHono<Handler>(where: string, router: { on(method: string[], path: string, handler: Handler): unknown; use(path: string, handler: Handler): unknown }, api: Api, handlerOf: (template?: string, hostPath?: string) => Handler): void {
  if (typeof router?.on !== 'function' || typeof router.use !== 'function') throw new TypeError(`${where}: \`router\` must be a Hono app, such as new Hono()`);
  for (const route of hostRoutes(api)) {
    const path = honoPath(route.path);
    if (path !== undefined) router.on([...new Set([...route.methods, 'OPTIONS'])], path, handlerOf(route.path, path));
  }
  router.use('*', handlerOf());
}

/**
 * The path of the route a Hono handler runs on, as the API's catch-all would be mounted there: the
 * route's path with the template's host path taken off its end, and `/*` after it
 * (`/v1/users/:id` of `/users/:id` → `/v1/*`). Without a host path, the route's path as it is.
 *
 * @example
 * mountRoute('/v1/users/:id', '/users/:id'); // '/v1/*'
 * mountRoute('/v1/*', undefined); // '/v1/*'
 */
export function mountRoute(routePath: string, hostPath: string | undefined): string {
  if (hostPath === undefined) return routePath;
  const mount = hostPath === '/' ? routePath.replace(/\/$/, '') : routePath.endsWith(hostPath) ? routePath.slice(0, -hostPath.length) : undefined;
  // A route path that does not end with the template's is no mount of it: nothing is below it.
  return mount === undefined ? '/\0/*' : `${mount}/*`;
}

/**
 * What restcanon uses of an @koa/router router: a method per HTTP method, its options (a `prefix`
 * is refused), and `routes()`.
 *
 * @example
 * const router: KoaRouterLike = new Router({ sensitive: true });
 */
export interface KoaRouterLike {
  readonly opts?: { readonly prefix?: string };
  routes(): unknown;
}

/**
 * Registers each template of an API on an @koa/router router, for the methods it declares and
 * OPTIONS (@koa/router adds HEAD to a GET route), and returns the router's middleware. A router with
 * a `prefix` matches paths the API, which routes `ctx.url`, would read with the prefix: it throws.
 *
 * @example
 * const routes = routeKoa('toKoa()', new Router(), api, handlerOf);
 */
export function routeKoa<Handler>(where: string, router: KoaRouterLike, api: Api, handlerOf: (template: string) => Handler): unknown {
  if (typeof router?.routes !== 'function') throw new TypeError(`${where}: \`router\` must be an @koa/router router, such as new Router()`);
  const prefix = router.opts?.prefix;
  if (prefix !== undefined && prefix !== '') {
    throw new TypeError(`${where}: the router has the prefix '${prefix}', which the API would not see; use a router without a prefix, and mount('${prefix}', toKoa(api, { router })) with koa-mount or createApi({ basePath: '${prefix}' })`);
  }
  const methods = router as unknown as Record<string, unknown>;
  for (const route of hostRoutes(api)) {
    const path = pathToRegexpPath(route.path);
    if (path === undefined) continue;
    const handler = handlerOf(route.path);
    for (const method of new Set([...route.methods, 'OPTIONS'])) {
      const add = methods[method.toLowerCase()];
      if (typeof add === 'function') add.call(router, path, handler);
    }
  }
  return router.routes();
}

/**
 * Takes off a Koa context what @koa/router wrote of the route it matched, for a request the core
 * reads as another path: logging and metrics behind it then see no template, as for any path the
 * router does not know.
 *
 * @example
 * forgetRoute(ctx);
 */
export function forgetRoute(ctx: object): void {
  const routed = ctx as { _matchedRoute?: unknown; routerPath?: unknown };
  routed._matchedRoute = undefined;
  routed.routerPath = undefined;
}
