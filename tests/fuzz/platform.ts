/**
 * Where the platform, not the adapter, decides: requests Node's HTTP parser refuses, requests a
 * framework answers itself in its own format before any plugin or middleware runs, and targets a
 * framework rewrites before the adapter sees them. The fuzz properties exclude exactly these from
 * the cross-adapter comparison, each case named here with its reason; nothing is excluded silently.
 */
import http from 'node:http';
import type { FuzzRequest } from './arbitraries.js';
import type { AdapterName } from './servers.js';

/** The origin of an absolute-form target (`http://host:80`). */
const ORIGIN = /^https?:\/\/[^/?#]*/i;

/**
 * Why Node's own HTTP parser answers this request (with a bare 400 and a closed connection) before
 * any listener runs, or undefined. Those requests never reach an adapter, so there is nothing to
 * compare; the property checks instead that the API saw nothing and the server goes on serving.
 */
export function nodeRefuses(request: FuzzRequest): string | undefined {
  // llhttp knows a fixed list of methods, in upper case only.
  if (!http.METHODS.includes(request.method)) return `Node's parser does not know the method ${request.method}`;
  return undefined;
}

/** Methods the Fastify plugin registers routes for; any other method is Fastify's not-found case. */
const FASTIFY_ROUTED = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** find-my-way's default `maxParamLength`. */
const FASTIFY_MAX_PARAM_LENGTH = 100;
/** Where the fuzz API's templates have a param: after these static prefixes. */
const PARAM_PREFIXES = [['users'], ['incidents'], ['users', null, 'orders']];

/**
 * The status a framework answers this request with itself, in its own format, before the adapter
 * can run, and why; or undefined. These differences are the framework's, not the adapter's, and no
 * adapter can change them: they are excluded from the comparison, and only the status is checked.
 */
export function frameworkAnswers(adapter: AdapterName, request: FuzzRequest, prefix = ''): { status: number; reason: string } | undefined {
  const path = pathPart(request.target);
  if (adapter === 'fastify') {
    // find-my-way decodes the path with decodeURI and answers FST_ERR_BAD_URL (400, Fastify's JSON)
    // when that throws, before any route or plugin runs, for any method (its not-found router too).
    // Only the server-level `frameworkErrors` option of Fastify() could change this, not a plugin.
    const decoded = decodedUri(path.replaceAll('%25', '%2525'));
    if (decoded === undefined) return { status: 400, reason: 'find-my-way refuses a malformed percent-escape in the path (FST_ERR_BAD_URL)' };
    // The same for an absolute-form target with a fragment: find-my-way will not guess where its path ends.
    if (ORIGIN.test(request.target) && request.target.includes('#')) return { status: 400, reason: 'find-my-way refuses a fragment in an absolute-form target (FST_ERR_BAD_URL)' };
    // On a routed method, a segment longer than `maxParamLength` where a template has a param makes
    // find-my-way answer FST_ERR_MAX_PARAM_LENGTH (414) once nothing matches: a server-level option.
    const relative = decoded.startsWith(`${prefix}/`) ? decoded.slice(prefix.length) : decoded;
    const segments = FASTIFY_ROUTED.has(request.method) ? relative.split('/').slice(1) : [];
    const tooLong = PARAM_PREFIXES.some((before) => before.every((part, index) => part === null || segments[index] === part) && (segments[before.length]?.length ?? 0) > FASTIFY_MAX_PARAM_LENGTH);
    if (tooLong) return { status: 414, reason: 'find-my-way refuses a param longer than maxParamLength (FST_ERR_MAX_PARAM_LENGTH)' };
  }
  if (adapter === 'fetch') {
    // @hono/node-server builds the Request's URL before the handler runs: a backslash in the path is
    // its own 400 with an empty body,
    if (path.includes('\\')) return { status: 400, reason: '@hono/node-server refuses a backslash in the path' };
    // and so is a target that is neither a path nor an absolute URL with a lower-case http(s) scheme.
    if (!request.target.startsWith('/') && !request.target.startsWith('http://') && !request.target.startsWith('https://')) {
      return { status: 400, reason: '@hono/node-server refuses a target that is not a path' };
    }
  }
  return undefined;
}

/**
 * The request an adapter gets when the platform rewrites the target before the adapter runs, or
 * undefined. The answer must then be the API's answer to the rewritten request.
 */
export function platformRewrites(adapter: AdapterName, request: FuzzRequest): FuzzRequest | undefined {
  // @hono/node-server builds a WHATWG URL for the Request, and that parser resolves dot segments
  // (`/users/1/..`, also spelled `%2e`). The fetch handler only ever sees the resolved path.
  if (adapter !== 'fetch' || !/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(pathPart(request.target))) return undefined;
  // As @hono/node-server builds it: the origin then the target, never the target as a relative reference.
  const url = new URL(request.target.startsWith('/') ? `http://example.test${request.target}` : request.target);
  return { ...request, target: url.pathname + url.search };
}

/** The target below a prefix (`/users` → `/v1/users`), or undefined for one without a path (`*`). */
export function prefixTarget(target: string, prefix: string): string | undefined {
  if (target.startsWith('/')) return prefix + target;
  const origin = ORIGIN.exec(target)?.[0];
  return origin === undefined ? undefined : origin + prefix + target.slice(origin.length);
}

/**
 * The target as seen below its prefix (`/v1/users` → `/users`, `/v1?x` → `/?x`), as Express and the
 * Fastify plugin pass it to the API; the target itself when it is not below the prefix.
 */
export function unprefixTarget(target: string, prefix: string): string {
  if (prefix === '') return target;
  const origin = ORIGIN.exec(target)?.[0] ?? '';
  const rest = target.slice(origin.length);
  if (!rest.startsWith(prefix) || !/^([/?#]|$)/.test(rest.slice(prefix.length))) return target;
  const below = rest.slice(prefix.length);
  return origin + (below.startsWith('/') ? below : `/${below}`);
}

/** The path of a request-target: no origin, query or fragment. */
function pathPart(target: string): string {
  return target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/, 1)[0]!;
}

function decodedUri(text: string): string | undefined {
  try {
    return decodeURI(text);
  } catch {
    return undefined;
  }
}
