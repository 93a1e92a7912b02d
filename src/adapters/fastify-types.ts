/**
 * The types of restcanon/fastify: the parts of a Fastify request, reply, instance and error that it
 * reads and writes, and the options of its functions. They are structural, so that nothing is
 * imported from fastify, not even a type.
 */
import type { HostSource } from './host-facts.js';
import type { HeaderRecord } from '../core/contract.js';
import type { NodeRequest } from './node-types.js';
import type { FinishingResponse } from './unread-body.js';

/**
 * The parts of a Fastify request that restcanon reads.
 *
 * @example
 * const path = (request: FastifyRequestLike) => request.url;
 */
export interface FastifyRequestLike extends HostSource {
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
  /** Fastify's `header`: an array of `set-cookie` lines is added to those already set. */
  header(name: string, value: string | string[]): FastifyReplyLike;
  type(contentType: string): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

/**
 * A Fastify route handler. Its promise may resolve with the reply, which Fastify waits on until the response ends (a stream answer).
 *
 * @example
 * app.get('/users/:id', handler satisfies FastifyHandler);
 */
export type FastifyHandler = (request: FastifyRequestLike, reply: FastifyReplyLike) => void | Promise<unknown>;

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
  route(options: { method: string[]; url: string; handler: FastifyHandler; [option: string]: unknown }): unknown;
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
  /**
   * Fastify route options for one method of one template of the API (`config`, `onRequest` and the
   * other hooks, `logLevel`...), given the template with its `basePath` (without the plugin's prefix)
   * and the method: `({ path, method }) => path === '/login' ? { config: { rateLimit: { max: 5 } } } : {}`.
   * A GET's options are its HEAD's too; OPTIONS and the methods a template lacks (the API's 405) share
   * one route without any. `method`, `url`, `path` and `handler` are the plugin's: setting one throws.
   */
  routeOptions?: (route: FastifyRouteInfo) => Record<string, unknown> | undefined;
}

/**
 * What {@link FastifyOptions.routeOptions} is called with: a template of the API and one method it declares.
 *
 * @example
 * const limited = (route: FastifyRouteInfo) => route.method === 'POST';
 */
export interface FastifyRouteInfo {
  readonly path: string;
  readonly method: string;
}

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
