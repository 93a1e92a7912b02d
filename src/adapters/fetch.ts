/**
 * restcanon/fetch: serve an API as a Fetch API handler, `(Request) => Promise<Response>`, for Bun,
 * Deno, Cloudflare Workers, Next.js route handlers and any other runtime that speaks Fetch (inside a
 * Hono app, restcanon/hono mounts it as a middleware).
 */
import type { ApiRequest, HeaderRecord } from '../core/contract.js';
import type { Api } from '../core/api.js';
import { targetBelow } from '../core/request.js';
import { answerFetch } from './fetch-answer.js';
import { onFetchClose } from './stream-out.js';
import { FetchBody } from './fetch-body.js';
import { addLazyAddress } from './host-facts.js';
import { LOWER_CASE_HEADERS } from './respond-options.js';

export { toFetchResponse } from './fetch-answer.js';

/**
 * Serves an API as a Fetch handler. The request body goes to the API as a stream, read with the
 * API's byte limit, and only if the endpoint takes a body. Route below a prefix with the API's
 * `basePath`: the handler routes on the whole path of `request.url`.
 *
 * The host owns the connection, so what becomes of a body the API answers without reading to its
 * end (a 401, 413 or 415, a deadline) is partly the host's. The adapter reads one it stopped reading
 * at most 64 MiB further, then cancels it, and cancels one it never began to read; an answer to a
 * declared `Content-Length` over 64 MiB, or to a chunked GET or HEAD (whose body no `Request`
 * exposes), says `Connection: close`. A host on `node:http` that passes Node's request and response
 * as the second argument (`{ incoming, outgoing }`, as @hono/node-server does) gets what
 * `toNodeListener` does instead: the body drained up to 64 MiB, or the connection closed after the
 * answer, never read. `ctx.ip` is the client's address where the host gives it: the socket's on
 * `node:http`, `server.requestIP(request)` on Bun, `info.remoteAddr` on Deno, read when first asked.
 *
 * @example
 * const handle = toFetch(api);
 * export default { fetch: handle };                   // Bun, Deno, Workers
 * Deno.serve(handle);                                 // Deno, or Bun.serve({ fetch: handle })
 * export { handle as GET, handle as POST };           // Next.js route handlers
 */
export function toFetch(api: Api): (request: Request, host?: unknown) => Promise<Response> {
  // A Fetch `Headers` gives its names in lower case, and fromFetchRequest copies them as they are.
  // Without `unmatched: 'pass'` every request gets a response, never undefined.
  return (request, host) => {
    const apiRequest = fromFetchRequest(request);
    // The host's objects: the Request, and what the runtime passed beside it (Node's request and response, Bun's server, ...).
    apiRequest.host = { request, env: host };
    if (isRuntimeHost(host)) addLazyAddress(apiRequest, new RuntimeAddress(request, host), undefined);
    return answerFetch(api, apiRequest, LOWER_CASE_HEADERS, host) as Promise<Response>;
  };
}

/** What Bun (its server) and Deno (the connection's info) pass beside the request. */
interface RuntimeHost {
  requestIP?: (request: Request) => { address?: unknown } | null | undefined;
  remoteAddr?: { hostname?: unknown } | null;
}

function isRuntimeHost(host: unknown): host is RuntimeHost {
  if (typeof host !== 'object' || host === null) return false;
  const { requestIP, remoteAddr } = host as RuntimeHost;
  return typeof requestIP === 'function' || (typeof remoteAddr === 'object' && remoteAddr !== null);
}

/** The client's address on Bun or Deno, as `addLazyAddress` reads a host's `ip`: only when asked. */
class RuntimeAddress {
  constructor(
    private readonly request: Request,
    private readonly runtime: RuntimeHost,
  ) {}

  get ip(): string | undefined {
    const { requestIP, remoteAddr } = this.runtime;
    // Bun's requestIP is a method of its server; a Unix socket's address on Deno has no hostname.
    const address = typeof requestIP === 'function' ? requestIP.call(this.runtime, this.request)?.address : remoteAddr?.hostname;
    return typeof address === 'string' ? address : undefined;
  }
}

/**
 * The `ApiRequest` of a Fetch `Request`: the path and query of its URL, its headers under lower-case
 * names, and its body as a raw stream.
 *
 * @example
 * const response = await api.handle(fromFetchRequest(request));
 */
export function fromFetchRequest(request: Request): ApiRequest {
  const headers: HeaderRecord = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // The Request constructor (and @hono/node-server) parsed and serialized the URL already, dot
  // segments resolved: the host in front of this handler reads the same URL.
  const apiRequest: ApiRequest = { method: request.method, url: targetBelow(request.url, '') ?? request.url, headers, onClose: onFetchClose };
  // `request.body` is touched only if the API reads the body, or answers without reading one the
  // request announced (to cancel it): on @hono/node-server, touching it makes a second Request.
  if (request.method !== 'GET' && request.method !== 'HEAD') apiRequest.body = new FetchBody(request);
  return apiRequest;
}
