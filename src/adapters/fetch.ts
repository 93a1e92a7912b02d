/**
 * restcanon/fetch: serve an API as a Fetch API handler, `(Request) => Promise<Response>`, for Hono,
 * Bun, Deno, Cloudflare Workers, Next.js route handlers and any other runtime that speaks Fetch.
 */
import type { ApiRequest, ApiResponse, HeaderRecord } from '../core/contract.js';
import { DRAIN_LIMIT } from '../core/body.js';
import type { Api, RespondOptions } from '../core/api.js';
import { targetBelow } from '../core/request.js';

/** A Fetch `Headers` gives its names in lower case, and fromFetchRequest copies them as they are. */
const LOWER_CASE_HEADERS = { lowerCaseHeaders: true } as const satisfies RespondOptions;

/**
 * Serves an API as a Fetch handler. The request body goes to the API as a stream, read with the
 * API's byte limit, and only if the endpoint takes a body. Route below a prefix with the API's
 * `basePath`: the handler routes on the whole path of `request.url`.
 *
 * @example
 * const handle = toFetch(api);
 * export default { fetch: handle };                   // Bun, Deno, Workers
 * app.all('/api/*', (c) => handle(c.req.raw));        // Hono, with createApi({ basePath: '/api' })
 * export { handle as GET, handle as POST };           // Next.js route handlers
 */
export function toFetch(api: Api): (request: Request) => Promise<Response> {
  return async (request) => {
    const answer = api.respond(fromFetchRequest(request), LOWER_CASE_HEADERS);
    // Awaited only when it is a promise: awaiting a response that is already there costs a tick.
    return toFetchResponse(answer instanceof Promise ? await answer : answer);
  };
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
  // `request.body` is read only if the API reads the body: on @hono/node-server, touching it starts
  // the socket's stream, which then stalls the connection if the API answers without reading (401, 413).
  if (request.method !== 'GET' && request.method !== 'HEAD') apiRequest.body = { [Symbol.asyncIterator]: () => readFetchBody(request.body) };
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

/**
 * Chunks of a body stream. A reader that stops early (413) does not cancel the stream at once: on
 * runtimes that bridge it to a socket (such as @hono/node-server) a cancel resets the connection
 * before the answer is sent, and a stream left half-read stalls the connection. The rest is read and
 * dropped, up to a bound past which the stream is cancelled after all.
 */
async function* readFetchBody(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (body === null) return;
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      yield chunk.value;
    }
    done = true;
  } finally {
    if (done) reader.releaseLock();
    else void discard(reader);
  }
}

async function discard(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let drained = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      drained += chunk.value.byteLength;
      if (drained > DRAIN_LIMIT) return await reader.cancel();
    }
  } catch {
    // The client went away; there is nothing left to drain.
  }
}
