/**
 * restcanon/fastify: serve an API, or one endpoint, from Fastify 5. The types are structural, so
 * nothing is imported from fastify, not even a type.
 */
import type { ApiRequest, ApiResponse, HeaderRecord } from '../core/contract.js';
import type { Endpoint } from '../core/endpoint.js';
import type { Api, EndpointHandlerOptions, RespondOptions } from '../core/api.js';
import { createEndpointHandler } from '../preset.js';
import { METHODS } from '../core/http.js';
import { checkOptions } from '../core/options.js';
import { targetBelow, withoutTrailingSlashes } from '../core/request.js';
import { fromNodeRequest, readNodeBody, type NodeRequest } from './node.js';
import { settleUnreadBody, type FinishingResponse } from './unread-body.js';

/**
 * The parts of a Fastify request that restcanon reads.
 *
 * @example
 * const path = (request: FastifyRequestLike) => request.url;
 */
export interface FastifyRequestLike {
  method: string;
  url: string;
  headers: HeaderRecord;
  body?: unknown;
  params?: unknown;
  raw: NodeRequest;
}

/**
 * The parts of a Fastify reply that restcanon writes.
 *
 * @example
 * const empty = (reply: FastifyReplyLike) => reply.code(204).send();
 */
export interface FastifyReplyLike {
  /** Node's response, whose `finish` tells when an answer that closes the connection is written. */
  readonly raw?: FinishingResponse | undefined;
  code(status: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  type(contentType: string): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

/**
 * A Fastify route handler.
 *
 * @example
 * app.get('/users/:id', handler satisfies FastifyHandler);
 */
export type FastifyHandler = (request: FastifyRequestLike, reply: FastifyReplyLike) => void | Promise<void>;

/**
 * The parts of a Fastify instance that the plugin uses.
 *
 * @example
 * const plugin = async (instance: FastifyInstanceLike) => { instance.route({ ... }); };
 */
export interface FastifyInstanceLike {
  readonly prefix: string;
  /** Every method the server routes (TRACE and QUERY besides the seven of the API, and any added with `addHttpMethod`). */
  readonly supportedMethods?: readonly string[];
  /** The options the server was built with: whether its router ignores a trailing slash. */
  readonly initialConfig?: { readonly ignoreTrailingSlash?: boolean; readonly routerOptions?: { readonly ignoreTrailingSlash?: boolean } };
  removeAllContentTypeParsers(): unknown;
  addContentTypeParser(type: string, parser: (request: FastifyRequestLike, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void): unknown;
  route(options: { method: string[]; url: string; handler: FastifyHandler }): unknown;
  setNotFoundHandler(handler: FastifyHandler): unknown;
  setErrorHandler(handler: (error: { code?: string }, request: FastifyRequestLike, reply: FastifyReplyLike) => unknown): unknown;
}

/**
 * A Fastify plugin, as `fastify.register` takes it.
 *
 * @example
 * await app.register(plugin satisfies FastifyPlugin);
 */
export type FastifyPlugin = (instance: FastifyInstanceLike, options: object) => Promise<void>;

/**
 * Options of {@link toFastify}.
 *
 * @example
 * await app.register(toFastify(api, { fallthrough: false } satisfies FastifyOptions), { prefix: '/v1' });
 */
export interface FastifyOptions {
  /**
   * Whether a request for a path the API does not know gets the host's 404 (the default), or the
   * API's 404 problem: the plugin then sets the not-found handler for its prefix, which without a
   * prefix is the whole application's.
   */
  fallthrough?: boolean;
}

const FASTIFY_OPTIONS = ['fallthrough'];

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
  const plugin: FastifyPlugin = async (instance) => {
    const prefix = instance.prefix;
    const below = normalizePrefix(prefix);
    checkPrefix(below, api.basePath);
    const answer: FastifyHandler = (request, reply) => respondThrough(api, request, reply, targetBelow(request.url, below) ?? ELSEWHERE, prefix);
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    // Fastify refuses a Content-Type it cannot parse, and a QUERY without one, before any parser
    // runs; the API decides instead.
    instance.setErrorHandler((error, request, reply) => {
      if (error.code === undefined || !API_DECIDES.has(error.code)) throw error;
      return answer(request, reply);
    });
    // The API serves `/admin/stats/` as `/admin/stats`. Without routes of their own such paths would
    // reach the not-found handler, where a guard on `routeOptions.url` sees no route at all.
    const config = instance.initialConfig;
    const slashed = !fallthrough && config?.ignoreTrailingSlash !== true && config?.routerOptions?.ignoreTrailingSlash !== true;
    for (const path of new Set(api.routes.map((route) => route.path))) {
      // Every method the server routes, so that the API, not Fastify, answers TRACE or QUERY with its 405.
      const method = [...(instance.supportedMethods ?? METHODS)];
      instance.route({ method, url: toFastifyPath(path), handler: answer });
      if (slashed && path !== '/') instance.route({ method, url: `${toFastifyPath(path)}/`, handler: answer });
    }
    if (!fallthrough) instance.setNotFoundHandler(answer);
  };
  Object.defineProperty(plugin, Symbol.for('fastify.display-name'), { value: 'restcanon' });
  return plugin;
}

/**
 * Throws when the plugin's prefix ends with the API's base path: both would come in front of every
 * path, and a request for the URL that was meant would find nothing.
 */
function checkPrefix(prefix: string, basePath: string): void {
  if (basePath === '/' || !prefix.endsWith(basePath)) return;
  const rest = prefix.slice(0, prefix.length - basePath.length);
  const shorter = rest === '' ? 'register(toFastify(api)) without a prefix' : `register(toFastify(api), { prefix: '${rest}' })`;
  throw new TypeError(
    `toFastify(): the prefix '${prefix}' ends with the API's basePath '${basePath}', so every path would be served at ${prefix}${basePath}/...; drop one of them: ${shorter}, or createApi() without basePath: '${basePath}'`,
  );
}

/** Node's own header names are lower case; headers a hook set on the request (`request.headers = ...`) may not be. */
const LOWER_CASE_HEADERS = { lowerCaseHeaders: true } as const satisfies RespondOptions;
const ANY_HEADERS = {} as const satisfies RespondOptions;

/** Errors Fastify raises about a request's body before any parser runs, which the API answers itself. */
const API_DECIDES: ReadonlySet<string> = new Set(['FST_ERR_CTP_INVALID_MEDIA_TYPE', 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE']);

/**
 * The parts of an error that Fastify hands its `frameworkErrors` option.
 *
 * @example
 * const isBadUrl = (error: FastifyErrorLike) => error.code === 'FST_ERR_BAD_URL';
 */
export interface FastifyErrorLike {
  code?: string;
  message: string;
}

/**
 * A function for Fastify's `frameworkErrors` option: it answers the errors Fastify raises before any
 * route or plugin runs.
 *
 * @example
 * Fastify({ frameworkErrors: ((error, request, reply) => reply.send(error)) satisfies FrameworkErrorsHandler });
 */
export type FrameworkErrorsHandler = (error: FastifyErrorLike, request: FastifyRequestLike, reply: FastifyReplyLike) => void;

/**
 * Options of {@link frameworkErrorsOf}.
 *
 * @example
 * Fastify({ frameworkErrors: frameworkErrorsOf(api, { prefix: '/v1' } satisfies FrameworkErrorsOptions) });
 */
export interface FrameworkErrorsOptions {
  /** The prefix the plugin is registered with (`app.register(toFastify(api), { prefix: '/v1' })`). */
  prefix?: string;
  /** As for {@link toFastify}: `false` when the API answers every path below the prefix, not only its own. */
  fallthrough?: boolean;
  /** Answers the errors the API does not. Without it they get Fastify's own answer (`reply.send(error)`). */
  fallback?: FrameworkErrorsHandler;
}

const FRAMEWORK_ERRORS_OPTIONS = ['prefix', 'fallthrough', 'fallback'];

/** Errors Fastify raises about a URL before routing it (a malformed percent-escape, a param over `maxParamLength`), which the API answers itself. */
const URL_ERRORS: ReadonlySet<string> = new Set(['FST_ERR_BAD_URL', 'FST_ERR_MAX_PARAM_LENGTH']);

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
    const url = error.code !== undefined && URL_ERRORS.has(error.code) ? targetBelow(request.url, prefix) : undefined;
    if (url === undefined || (fallthrough && !api.matches(url))) return fallback(error, request, reply);
    void respondThrough(api, request, reply, url, prefix);
  };
}

/**
 * The API's answer to a Fastify request for `url` (the target below the plugin's prefix), sent
 * through the reply. A response that is already there is sent at once, from a synchronous handler,
 * which Fastify does not wait on.
 */
function respondThrough(api: Api, request: FastifyRequestLike, reply: FastifyReplyLike, url: string, prefix: string): Promise<void> | undefined {
  const apiRequest = fromFastifyRequest(request, url, prefix);
  const response = api.respond(apiRequest, apiRequest.headers === request.raw.headers ? LOWER_CASE_HEADERS : ANY_HEADERS);
  if (response instanceof Promise) return response.then((settled) => sendFastifyReply(reply, settled, request.raw));
  sendFastifyReply(reply, response, request.raw);
  return undefined;
}

/** Fastify's answer to an error of its own, as its documentation has `frameworkErrors` give it. */
function sendFrameworkError(error: FastifyErrorLike, _request: FastifyRequestLike, reply: FastifyReplyLike): void {
  reply.send(error);
}

/** A prefix as Fastify keeps it: a leading `/`, no trailing one, and `''` for none. */
function normalizePrefix(prefix: string): string {
  const trimmed = withoutTrailingSlashes(prefix);
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
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
  return async (request, reply) => {
    sendFastifyReply(reply, await handle(fromFastifyRequest(request, request.url), (request.params ?? {}) as Record<string, string>), request.raw);
  };
}

/**
 * What the API gets for a request that Fastify routed below the plugin's prefix but whose path, as
 * sent, is not (`/%76%31/users` below `/v1`, or `/V1/users` with `caseSensitive: false`): the
 * asterisk-form, which names no path of the API, so that the API answers its 404.
 */
const ELSEWHERE = '*';

function fromFastifyRequest(request: FastifyRequestLike, url: string, baseUrl?: string): ApiRequest {
  const raw = request.raw;
  // The stream and Node's headers (with a repeated Authorization kept), as the node adapter gives them.
  const apiRequest = fromNodeRequest(raw, url);
  const headers = request.headers;
  if (headers !== raw.headers) apiRequest.headers = headers;
  // Without a body Fastify ran no parser (a GET, say): the API still gets the stream, read only if the endpoint takes a body.
  const body = request.body;
  if (body !== undefined && body !== null && body !== raw) apiRequest.body = isStream(body) ? readNodeBody(body) : body;
  if (baseUrl !== undefined) apiRequest.baseUrl = baseUrl;
  return apiRequest;
}

/**
 * Sends through Fastify's reply, so onSend hooks and logging see it. The handler resolves to nothing
 * rather than to the reply: a returned reply is a thenable that Fastify waits on until the response
 * finishes, which holds every request's objects longer and costs a promise job per request. The rest
 * of a body the API did not read is settled as on `node:http`: Fastify leaves it to Node, which would
 * read all of it once the answer is sent.
 */
function sendFastifyReply(reply: FastifyReplyLike, response: ApiResponse, raw: NodeRequest): void {
  reply.code(response.status);
  const headers = response.headers;
  // The core's header names are lower-case: `type` stores the Content-Type as it is, where `header`
  // (and `headers`, which lists the keys and calls it per name) would lower-case the name again.
  for (const name in headers) {
    if (name === 'content-type') reply.type(headers[name]!);
    else reply.header(name, headers[name]!);
  }
  if (settleUnreadBody(raw, reply.raw)) reply.header('connection', 'close');
  reply.send(response.payload);
}

function isStream(body: unknown): body is NodeRequest {
  return typeof body === 'object' && body !== null && typeof (body as { iterator?: unknown }).iterator === 'function';
}

/** A restcanon template as a Fastify path: `:` inside a static segment is escaped as `::`. */
function toFastifyPath(template: string): string {
  return template
    .split('/')
    .map((segment) => (segment.startsWith(':') ? segment : segment.replaceAll(':', '::')))
    .join('/');
}
