/**
 * restcanon/fastify: serve an API, or one endpoint, from Fastify 5. The types (fastify-types.ts)
 * are structural, so nothing is imported from fastify, not even a type.
 */
import type { ApiRequest, ApiResponse } from '../core/contract.js';
import type { Endpoint } from '../core/endpoint.js';
import type { Api, EndpointHandlerOptions } from '../core/api.js';
import { createEndpointHandler } from '../preset.js';
import { METHODS } from '../core/http.js';
import { checkOptions } from '../core/options.js';
import { targetBelow } from '../core/request.js';
import type { FastifyErrorLike, FastifyHandler, FastifyOptions, FastifyPlugin, FastifyReplyLike, FastifyRequestLike, FrameworkErrorsHandler, FrameworkErrorsOptions } from './fastify-types.js';
import { answersHostError, fastifyBodyError, fastifyUrlError } from './host-errors.js';
import { fastifyPath, fastifyRoutes, hostRoutes } from './host-routes.js';
import { checkPrefix, normalizePrefix, targetBelowPrefix } from './mount.js';
import { fromNodeRequest, readNodeBody } from './node.js';
import { addHostFacts, addHostFactsNow } from './host-facts.js';
import { bodyFollows } from './arrived-body.js';
import type { NodeRequest } from './node-types.js';
import { ANY_HEADERS, LOWER_CASE_HEADERS } from './respond-options.js';
import { settleUnreadBody } from './unread-body.js';
import { sendFastifyStream } from './fastify-stream.js';

export type {
  FastifyErrorLike,
  FastifyHandler,
  FastifyInstanceLike,
  FastifyOptions,
  FastifyPlugin,
  FastifyReplyLike,
  FastifyRequestLike,
  FastifyRouteInfo,
  FrameworkErrorsHandler,
  FrameworkErrorsOptions,
} from './fastify-types.js';

const FASTIFY_OPTIONS = ['fallthrough', 'routeOptions'];

/**
 * A Fastify 5 plugin that registers every path of an API as a real Fastify route (so `inject`, hooks
 * and logging work), for every method: the API answers another method with 405 and `Allow`, and HEAD
 * and OPTIONS itself. Inside the plugin, Fastify's body parsers give way to one that hands the raw
 * stream to the API, so 400, 413 and 415 come from the API, with its body limit. Fastify refuses a
 * few malformed URLs before any plugin runs: pass {@link frameworkErrorsOf} to `Fastify()` for the
 * API to answer those too.
 *
 * The API routes the path as the client sent it, below the prefix. Fastify also routes spellings of
 * a path that differ from a route's (find-my-way decodes `%76%31` into `v1`; `caseSensitive: false`
 * folds case): one that is not below the prefix as sent gets the API's 404. With `fallthrough:
 * false`, each path is also registered with a trailing slash (unless the router ignores trailing
 * slashes), so a path the API serves always comes through a Fastify route that hooks can read.
 *
 * With `routeOptions`, each method of a template gets a route of its own with the Fastify route
 * options the function returns for it (`config`, route-level hooks): per-route plugins such as
 * @fastify/rate-limit work on the API's routes. Whatever route a request reaches, the API answers
 * for the path as it was sent.
 *
 * A prefix that ends with the API's `basePath` (`{ prefix: '/api/v1' }` with `basePath: '/api/v1'`)
 * would serve every path at `/api/v1/api/v1/...`: the plugin refuses it when it is registered, with
 * an error that says which of the two to drop.
 *
 * @example
 * const app = Fastify({ frameworkErrors: frameworkErrorsOf(api, { prefix: '/v1' }) });
 * await app.register(toFastify(api), { prefix: '/v1' });
 */
export function toFastify(api: Api, options: FastifyOptions = {}): FastifyPlugin {
  checkOptions('toFastify()', options, FASTIFY_OPTIONS);
  const fallthrough = options.fallthrough ?? true;
  if (options.routeOptions !== undefined && typeof options.routeOptions !== 'function') throw new TypeError('toFastify(): `routeOptions` must be a function of { path, method } that returns route options');
  const plugin: FastifyPlugin = async (instance) => {
    const prefix = instance.prefix;
    const below = normalizePrefix(prefix);
    checkPrefix(below, api.basePath);
    const answer: FastifyHandler = (request, reply) => respondThrough(api, request, reply, targetBelowPrefix(request.url, below), prefix);
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    // Fastify refuses a Content-Type it cannot parse, and a QUERY without one, before any parser
    // runs; the API decides instead.
    instance.setErrorHandler((error, request, reply) => {
      if (!fastifyBodyError(error.code)) throw error;
      return answer(request, reply);
    });
    // The API serves `/admin/stats/` as `/admin/stats`. Without routes of their own such paths would
    // reach the not-found handler, where a guard on `routeOptions.url` sees no route at all.
    const config = instance.initialConfig;
    const slashed = !fallthrough && config?.ignoreTrailingSlash !== true && config?.routerOptions?.ignoreTrailingSlash !== true;
    // Every method the server routes, so that the API, not Fastify, answers TRACE or QUERY with its 405.
    const supported = instance.supportedMethods ?? METHODS;
    for (const route of hostRoutes(api)) {
      const url = fastifyPath(route.path);
      for (const { methods, options: routeOptions } of fastifyRoutes(route, supported, options.routeOptions, 'toFastify()')) {
        instance.route({ ...routeOptions, method: methods, url, handler: answer });
        // find-my-way reads a `*` as a wildcard to the end of the path, which takes a trailing slash already.
        if (slashed && route.path !== '/' && !url.includes('*')) instance.route({ ...routeOptions, method: methods, url: `${url}/`, handler: answer });
      }
    }
    if (!fallthrough) instance.setNotFoundHandler(answer);
  };
  Object.defineProperty(plugin, Symbol.for('fastify.display-name'), { value: 'restcanon' });
  return plugin;
}

const FRAMEWORK_ERRORS_OPTIONS = ['prefix', 'fallthrough', 'fallback'];

/**
 * Fastify's `frameworkErrors` option for a server that serves an API with {@link toFastify}. Fastify
 * refuses a URL with a malformed percent-escape (`/users/%E0%A4%A`) or with a param longer than
 * `maxParamLength` before any plugin runs, so the plugin never sees it; with this option, such a
 * request on a path the API serves gets the API's answer, after its own authentication, like on
 * every other adapter. Every other error, and every other path, gets Fastify's own answer or the
 * `fallback`'s. Pass the plugin's `prefix` and `fallthrough` here too.
 *
 * @example
 * const app = Fastify({ frameworkErrors: frameworkErrorsOf(api, { prefix: '/v1' }) });
 * await app.register(toFastify(api), { prefix: '/v1' });
 */
export function frameworkErrorsOf(api: Api, options: FrameworkErrorsOptions = {}): FrameworkErrorsHandler {
  checkOptions('frameworkErrorsOf()', options, FRAMEWORK_ERRORS_OPTIONS);
  const prefix = normalizePrefix(options.prefix ?? '');
  const fallthrough = options.fallthrough ?? true;
  const fallback = options.fallback ?? sendFrameworkError;
  return (error, request, reply) => {
    const url = fastifyUrlError(error.code) ? targetBelow(request.url, prefix) : undefined;
    if (url === undefined || !answersHostError(api, fallthrough, url)) return fallback(error, request, reply);
    void respondThrough(api, request, reply, url, prefix);
  };
}

/**
 * The API's answer to a Fastify request for `url` (the target below the plugin's prefix), sent
 * through the reply. A response that is already there is sent at once, from a synchronous handler,
 * which Fastify does not wait on.
 */
function respondThrough(api: Api, request: FastifyRequestLike, reply: FastifyReplyLike, url: string, prefix: string): Promise<unknown> | undefined {
  const apiRequest = fromFastifyRequest(request, reply, url, prefix);
  const options = apiRequest.headers === request.raw.headers ? LOWER_CASE_HEADERS : ANY_HEADERS;
  // Fastify runs the handler in the turn of the headers, as Node runs a listener: a body on its way is taken whole a turn later.
  const response = request.body === request.raw && bodyFollows(request.raw) ? Promise.resolve(apiRequest).then((arrived) => api.respond(arrived, options)) : api.respond(apiRequest, options);
  return response instanceof Promise ? response.then((settled) => sendFastifyReply(reply, settled, request.raw)) : void sendFastifyReply(reply, response, request.raw);
}

/** Fastify's answer to an error of its own, as its documentation has `frameworkErrors` give it. */
function sendFrameworkError(error: FastifyErrorLike, _request: FastifyRequestLike, reply: FastifyReplyLike): void {
  reply.send(error);
}

/**
 * Runs one endpoint as a Fastify route handler, with `request.params` from the Fastify route. The
 * body is what Fastify's parsers made of it (Fastify answers a body they reject).
 *
 * @example
 * app.get('/users/:id', fastifyHandler(readUser));
 */
export function fastifyHandler(endpoint: Endpoint, options: EndpointHandlerOptions = {}): FastifyHandler {
  const handle = createEndpointHandler(endpoint, options);
  return async (request, reply) => sendFastifyReply(reply, await handle(fromFastifyRequest(request, reply, request.url), (request.params ?? {}) as Record<string, string>), request.raw);
}

function fromFastifyRequest(request: FastifyRequestLike, reply: FastifyReplyLike, url: string, baseUrl?: string): ApiRequest {
  const raw = request.raw;
  // As the node adapter gives it; Fastify's id, logger and ip: without X-Forwarded-For, proxy-addr's is the socket's, read at once.
  const apiRequest = (raw.headers['x-forwarded-for'] === undefined ? addHostFactsNow : addHostFacts)(fromNodeRequest(raw, url), { request, reply }, request, raw.socket);
  const headers = request.headers;
  if (headers !== raw.headers) apiRequest.headers = headers;
  // No body (a GET) or our parser's, which passes the stream: the API reads the stream as fromNodeRequest gives it, if at all.
  const body = request.body;
  if (body !== raw && body !== undefined && body !== null) apiRequest.body = isStream(body) ? readNodeBody(body) : body;
  if (baseUrl !== undefined) apiRequest.baseUrl = baseUrl;
  return apiRequest;
}

/**
 * Sends through Fastify's reply, so onSend hooks and logging see it. The handler resolves to nothing
 * rather than to the reply (a thenable Fastify waits on until the response finishes, which costs a
 * promise job per request), but for a stream answer whose head is not out yet (see fastify-stream.ts):
 * resolved with nothing then, Fastify would answer again, empty. The rest of a body the API did not read is settled as
 * on `node:http`: Fastify leaves it to Node, which would read all of it once the answer is sent.
 */
function sendFastifyReply(reply: FastifyReplyLike, response: ApiResponse, raw: NodeRequest): FastifyReplyLike | Promise<FastifyReplyLike | undefined> | undefined {
  reply.code(response.status);
  const headers = response.headers;
  // The core's header names are lower-case: `type` stores the Content-Type as it is, where `header`
  // (and `headers`, which lists the keys and calls it per name) would lower-case the name again.
  for (const name in headers) {
    if (name === 'content-type') reply.type(headers[name] as string);
    else reply.header(name, headers[name]!);
  }
  if (settleUnreadBody(raw, reply.raw)) reply.header('connection', 'close');
  const { stream } = response;
  if (stream === undefined) {
    reply.send(response.payload);
    return undefined;
  }
  return sendFastifyStream(reply, stream);
}

function isStream(body: unknown): body is NodeRequest {
  return typeof body === 'object' && body !== null && typeof (body as { iterator?: unknown }).iterator === 'function';
}
