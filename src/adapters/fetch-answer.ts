/**
 * The API's answer to a Fetch request as a Fetch `Response`, for the adapters whose host speaks Fetch
 * (restcanon/fetch, restcanon/hono): the rest of a body the API left unread settled first, on
 * `node:http` through Node's own request and response when the host passes them.
 */
import type { ApiRequest, ApiResponse, ResponseHeaders } from '../core/contract.js';
import type { Api, RespondOptions } from '../core/api.js';
import { settleFetchBody } from './fetch-body.js';
import { addLazyAddress } from './host-facts.js';
import { fetchStreamOf } from './stream-out.js';
import { settleUnreadBody, type FinishingResponse, type UnreadBody } from './unread-body.js';

/**
 * The API's `Response` to the `ApiRequest` of a Fetch request (`fromFetchRequest`), or undefined for
 * a path it passes on (`unmatched: 'pass'`), whose body is left as it is for the host's next handler.
 * `host` is what the host passes beside the request: Node's request and response on
 * @hono/node-server, anything else elsewhere.
 *
 * @example
 * const response = await answerFetch(api, fromFetchRequest(request), PASS_ON, env);
 * if (response === undefined) await next();
 */
export async function answerFetch(api: Api, request: ApiRequest, options: RespondOptions, host: unknown): Promise<Response | undefined> {
  // On node:http, the client's address is the socket's, read when first asked.
  // Asked in this order so that an address another host gives lazily (Bun's, Deno's) is not read here.
  if (isNodeHost(host) && request.ip === undefined) addLazyAddress(request, undefined, host.incoming.socket);
  const answer = api.respond(request, options);
  // Awaited only when it is a promise: awaiting a response that is already there costs a tick.
  const response = answer instanceof Promise ? await answer : answer;
  if (response === undefined) return undefined;
  const closes = isNodeHost(host) ? settleUnreadBody(host.incoming, host.outgoing) : settleFetchBody(request.headers ?? {}, request.body);
  return toFetchResponse(closes ? { ...response, headers: { ...response.headers, connection: 'close' } } : response);
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
 * A Fetch `Response` from an `ApiResponse`: no body for HEAD and for the statuses that have none; a
 * stream answer's body pulled from its source as the host reads it (see stream-out.ts).
 *
 * @example
 * return toFetchResponse(await api.handle(fromFetchRequest(request)));
 */
export function toFetchResponse(response: ApiResponse): Response {
  const { stream } = response;
  return new Response(stream === undefined ? bodyOf(response.payload) : fetchStreamOf(stream), { status: response.status, headers: fetchHeaders(response.headers) });
}

/**
 * An answer's headers as a Fetch `Headers`: each line of `Set-Cookie` appended, so that
 * `getSetCookie()` gives them one by one, where a record would join them into one value.
 *
 * @example
 * fetchHeaders({ 'set-cookie': ['a=1', 'b=2'] }).getSetCookie(); // ['a=1', 'b=2']
 */
export function fetchHeaders(headers: ResponseHeaders): HeadersInit {
  const cookies = headers['set-cookie'];
  // Without `set-cookie`, every value is one string.
  if (cookies === undefined) return headers as Record<string, string>;
  const fetched = new Headers();
  for (const name in headers) if (name !== 'set-cookie') fetched.set(name, headers[name] as string);
  for (const line of cookies) fetched.append('set-cookie', line);
  return fetched;
}

function bodyOf(payload: string | Uint8Array | undefined): BodyInit | null {
  if (payload === undefined || typeof payload === 'string') return payload ?? null;
  const { buffer } = payload;
  // A view of a SharedArrayBuffer is no valid body; it is copied.
  return buffer instanceof ArrayBuffer ? new Uint8Array(buffer, payload.byteOffset, payload.byteLength) : payload.slice();
}
