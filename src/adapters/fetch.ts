/**
 * restcanon/fetch: serve an API as a Fetch API handler, `(Request) => Promise<Response>`, for Hono,
 * Bun, Deno, Cloudflare Workers, Next.js route handlers and any other runtime that speaks Fetch.
 */
import type { ApiRequest, ApiResponse, HeaderRecord } from '../core/contract.js';
import type { Api } from '../core/api.js';
import { targetBelow } from '../core/request.js';
import { FetchBody, settleFetchBody } from './fetch-body.js';
import { LOWER_CASE_HEADERS } from './respond-options.js';
import { settleUnreadBody, type FinishingResponse, type UnreadBody } from './unread-body.js';

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
 * answer, never read.
 *
 * @example
 * const handle = toFetch(api);
 * export default { fetch: handle };                   // Bun, Deno, Workers
 * app.all('/api/*', (c) => handle(c.req.raw, c.env)); // Hono, with createApi({ basePath: '/api' })
 * export { handle as GET, handle as POST };           // Next.js route handlers
 */
export function toFetch(api: Api): (request: Request, host?: unknown) => Promise<Response> {
  return async (request, host) => {
    const apiRequest = fromFetchRequest(request);
    // The host's objects: the Request, and what the runtime passed beside it (Node's request and response, Bun's server, ...).
    apiRequest.host = { request, env: host };
    if (isNodeHost(host)) apiRequest.ip = host.incoming.socket?.remoteAddress;
    // A Fetch `Headers` gives its names in lower case, and fromFetchRequest copies them as they are.
    const answer = api.respond(apiRequest, LOWER_CASE_HEADERS);
    // Awaited only when it is a promise: awaiting a response that is already there costs a tick.
    const response = answer instanceof Promise ? await answer : answer;
    const closes = isNodeHost(host) ? settleUnreadBody(host.incoming, host.outgoing) : settleFetchBody(apiRequest.headers ?? {}, apiRequest.body);
    return toFetchResponse(closes ? { ...response, headers: { ...response.headers, connection: 'close' } } : response);
  };
}

/** What a host on `node:http` passes beside the request: Node's request and response. */
interface NodeHost {
  incoming: UnreadBody;
  outgoing: FinishingResponse;
}

/**
 * Whether a handler's second argument holds Node's request and response. Other hosts pass other
 * things there (Bun its server, Deno the connection's info, Workers their bindings).
 */
function isNodeHost(host: unknown): host is NodeHost {
  if (typeof host !== 'object' || host === null) return false;
  const { incoming, outgoing } = host as { incoming?: Partial<UnreadBody> | null; outgoing?: FinishingResponse | null };
  return typeof incoming?.on === 'function' && typeof incoming.complete === 'boolean' && typeof incoming.headers === 'object' && typeof outgoing?.once === 'function';
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
  const apiRequest: ApiRequest = { method: request.method, url: targetBelow(request.url, '') ?? request.url, headers };
  // `request.body` is touched only if the API reads the body, or answers without reading one the
  // request announced (to cancel it): on @hono/node-server, touching it makes a second Request.
  if (request.method !== 'GET' && request.method !== 'HEAD') apiRequest.body = new FetchBody(request);
  return apiRequest;
}

/**
 * A Fetch `Response` from an `ApiResponse`: no body for HEAD and for the statuses that have none.
 *
 * @example
 * return toFetchResponse(await api.handle(fromFetchRequest(request)));
 */
export function toFetchResponse(response: ApiResponse): Response {
  return new Response(bodyOf(response.payload), { status: response.status, headers: response.headers });
}

function bodyOf(payload: string | Uint8Array | undefined): BodyInit | null {
  if (payload === undefined || typeof payload === 'string') return payload ?? null;
  const { buffer } = payload;
  // A view of a SharedArrayBuffer is no valid body; it is copied.
  return buffer instanceof ArrayBuffer ? new Uint8Array(buffer, payload.byteOffset, payload.byteLength) : payload.slice();
}
