/**
 * Where a host mounts an API: Express's mount path (`app.use('/v1', ...)`, `req.baseUrl`) or
 * Fastify's prefix (`register(plugin, { prefix: '/v1' })`), the API's own `basePath`, and the target
 * the API routes below them, the path as the client sent it.
 */
import { parseTarget, targetBelow, withoutTrailingSlashes } from '../core/request.js';

/**
 * Whether a mount path or prefix ends with the API's `basePath`: the base path written in both
 * places, which would put it twice in front of every path.
 *
 * @example
 * endsWithBasePath('/api/v1', '/v1'); // true
 * endsWithBasePath('/api', '/'); // false
 */
export function endsWithBasePath(mountPath: string, basePath: string): boolean {
  return basePath !== '/' && mountPath.endsWith(basePath);
}

/**
 * The target the API routes for a request Express passed on below a mount path (`req.url` below
 * `req.baseUrl`). A mount path that ends with the API's `basePath` is the base path written twice:
 * the base path moves from the mount path to the target, so that the API routes it once (see
 * {@link mountPathAbove} for the mount path that is left).
 *
 * @example
 * targetBelowMount('/users', '/api/v1/users', '/api/v1', '/v1'); // '/v1/users'
 * targetBelowMount('/admin', '/v1//admin', '/v1', '/'); // '//admin'
 */
export function targetBelowMount(url: string, originalUrl: string | undefined, mountPath: string | undefined, basePath: string): string {
  const below = urlBelowMount(url, originalUrl);
  return mountPath !== undefined && endsWithBasePath(mountPath, basePath) ? withBasePath(below, basePath) : below;
}

/**
 * The mount path the API builds its URLs on (`ApiRequest.baseUrl`): Express's mount path, without the
 * API's `basePath` when it ends with it (the target has it then, see {@link targetBelowMount}).
 *
 * @example
 * mountPathAbove('/api/v1', '/v1'); // '/api'
 */
export function mountPathAbove(mountPath: string | undefined, basePath: string): string | undefined {
  return mountPath !== undefined && endsWithBasePath(mountPath, basePath) ? mountPath.slice(0, mountPath.length - basePath.length) : mountPath;
}

/**
 * `req.url`, with the slash put back that Express 4 takes along with a mount path when an empty
 * segment follows it: `/v1//admin/stats` reaches `app.use('/v1', ...)` as `/admin/stats`, which a
 * guard on `/v1/admin` never saw. The API gets `//admin/stats`, as it was sent, and routes nothing.
 */
function urlBelowMount(url: string, original: string | undefined): string {
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

/**
 * A Fastify prefix as Fastify keeps it: a leading `/`, no trailing one, and `''` for none.
 *
 * @example
 * normalizePrefix('v1/'); // '/v1'
 */
export function normalizePrefix(prefix: string): string {
  const trimmed = withoutTrailingSlashes(prefix);
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * Throws when a Fastify plugin's prefix ends with the API's base path: both would come in front of
 * every path, and a request for the URL that was meant would find nothing. Fastify has no mount path
 * to take the base path off again, as Express's `req.baseUrl` is.
 *
 * @example
 * checkPrefix('/api/v1', '/v1'); // throws: drop one of them
 */
export function checkPrefix(prefix: string, basePath: string): void {
  if (!endsWithBasePath(prefix, basePath)) return;
  const rest = prefix.slice(0, prefix.length - basePath.length);
  const shorter = rest === '' ? 'register(toFastify(api)) without a prefix' : `register(toFastify(api), { prefix: '${rest}' })`;
  throw new TypeError(
    `toFastify(): the prefix '${prefix}' ends with the API's basePath '${basePath}', so every path would be served at ${prefix}${basePath}/...; drop one of them: ${shorter}, or createApi() without basePath: '${basePath}'`,
  );
}

/**
 * The target the API routes for a request Fastify routed below a plugin's prefix. One whose path, as
 * sent, is not below the prefix (`/%76%31/users` below `/v1`, which find-my-way decodes, or
 * `/V1/users` with `caseSensitive: false`) gets the asterisk-form, which names no path of the API, so
 * that the API answers its 404.
 *
 * @example
 * targetBelowPrefix('/v1/users?page=2', '/v1'); // '/users?page=2'
 * targetBelowPrefix('/%76%31/users', '/v1'); // '*'
 */
export function targetBelowPrefix(url: string, prefix: string): string {
  return targetBelow(url, prefix) ?? ELSEWHERE;
}

/** A target that names no path. */
const ELSEWHERE = '*';

/**
 * The target koa-mount left on a Koa request, with the slash put back that a mount path ending in
 * `/` takes along (`mount('/v1/', ...)` leaves `users?page=2` of `/v1/users?page=2`).
 *
 * @example
 * koaTarget('users?page=2'); // '/users?page=2'
 */
export function koaTarget(url: string): string {
  return url.startsWith('/') || parseTarget(url) !== undefined ? url : `/${url}`;
}

/**
 * The mount path koa-mount took off a Koa request's URL: the front of the path as sent
 * (`ctx.originalUrl`) that the path it left (`ctx.url`) does not have. koa-mount compares and cuts
 * the raw target as a string, so what is left is the end of what was sent; the mount path itself is
 * left as `/`. Undefined when nothing was taken off, or when the URL was rewritten rather than cut.
 *
 * @example
 * koaMountPath('/v1/users?page=2', '/users?page=2'); // '/v1'
 * koaMountPath('/v1', '/'); // '/v1'
 */
export function koaMountPath(originalUrl: string, url: string): string | undefined {
  if (originalUrl === url) return undefined;
  const sent = parseTarget(originalUrl)?.path;
  const left = parseTarget(url)?.path;
  if (sent === undefined || left === undefined || sent === left) return undefined;
  if (sent.endsWith(left)) return sent.slice(0, sent.length - left.length) || undefined;
  return left === '/' ? sent : undefined;
}

/**
 * The prefix a Hono route mounts an API at, as the request's target was sent: the route's path before
 * its final `/*` (`/v1/*` → `/v1`, `*` and a route without a wildcard → `''`), each `:param` segment
 * standing for the segment sent in its place (`/:tenant/*` → `/acme`). Undefined when the path as
 * sent is not below it: Hono routes the decoded path, so `/%76%31/users` reaches `/v1/*`, where the
 * API must not take `/%76%31` for `/v1`.
 *
 * @example
 * routePrefix('/v1/*', 'http://host/v1/users'); // '/v1'
 * routePrefix('/:tenant/*', 'http://host/acme/users'); // '/acme'
 * routePrefix('/v1/*', 'http://host/%76%31/users'); // undefined
 */
export function routePrefix(routePath: string, target: string): string | undefined {
  if (!routePath.endsWith('/*') || routePath === '/*') return '';
  const pattern = routePath.slice(0, -2).split('/');
  const path = parseTarget(target)?.path;
  // A target the API cannot parse is its to answer (a 400), below no prefix.
  if (path === undefined) return '';
  const sent = path.split('/', pattern.length);
  if (sent.length < pattern.length) return undefined;
  for (let index = 1; index < pattern.length; index++) {
    const segment = pattern[index]!;
    if (segment.startsWith(':') ? sent[index] === '' : segment !== sent[index]) return undefined;
  }
  return sent.join('/');
}
