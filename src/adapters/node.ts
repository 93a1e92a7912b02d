/**
 * restcanon/node: serve an API from `node:http`, `node:https` or the `node:http2` compatibility API.
 * It only translates: the request into an `ApiRequest`, the `ApiResponse` back onto the wire.
 */
import type { ApiRequest } from '../core/contract.js';
import type { Endpoint } from '../core/endpoint.js';
import { checkOptions } from '../core/options.js';
import type { Api, EndpointHandlerOptions } from '../core/api.js';
import { createEndpointHandler } from '../preset.js';
import type { NodeRequest, NodeResponse } from './node-types.js';
import { withRepeatedHeaders } from './repeated-headers.js';
import { LOWER_CASE_HEADERS } from './respond-options.js';
import { socketAddress } from './host-facts.js';
import { bodyFollows, readArrivedBody } from './arrived-body.js';
import { sendNodeResponse, writeNodeResponse } from './wire.js';
import { onNodeClose } from './stream-out.js';

export type { NodeRequest, NodeResponse } from './node-types.js';
export { sendNodeResponse } from './wire.js';
export { readNodeBody } from './node-body.js';

/**
 * Options of {@link toNodeListener}.
 *
 * @example
 * const options: NodeListenerOptions = { fallback: (req, res) => res.writeHead(404, {}).end() };
 */
export interface NodeListenerOptions<Req extends NodeRequest = NodeRequest, Res extends NodeResponse = NodeResponse> {
  /** Serves requests for paths the API does not know. Without it they get the API's 404 problem. */
  fallback?: (req: Req, res: Res) => unknown;
}

const NODE_LISTENER_OPTIONS = ['fallback'];

/**
 * Turns an API into a request listener for `http.createServer`, `https.createServer` or
 * `http2.createServer` (compatibility API). A request never crashes the server: an aborted or
 * malformed one gets an answer or a closed socket. A body the API answers without reading to its end
 * (a 401, 413 or 415, a deadline, a GET) is drained up to 64 MiB, then the connection is closed, so
 * that the client sees the answer; a declared `Content-Length` over 64 MiB is not read at all: its
 * answer says `Connection: close`, and the connection ends after it.
 *
 * The listener returns a promise that settles once the response is written when the API has to
 * wait (an async handler, a body to read), and nothing when it answered at once. Node ignores what a
 * listener returns, but its `emit` does more work for a listener that returns a value.
 *
 * @example
 * http.createServer(toNodeListener(api)).listen(3000);
 * http.createServer(toNodeListener(api, { fallback: (req, res) => serveStatic(req, res) }));
 */
export function toNodeListener<Req extends NodeRequest = NodeRequest, Res extends NodeResponse = NodeResponse>(
  api: Api,
  options: NodeListenerOptions<Req, Res> = {},
): (req: Req, res: Res) => Promise<void> | undefined {
  checkOptions('toNodeListener()', options, NODE_LISTENER_OPTIONS);
  const fallback = options.fallback;
  if (fallback === undefined) {
    // No async function around it: a request whose every step was synchronous is written out in the
    // same tick, without a promise. The answer never rejects, and writeNodeResponse answers its own failures.
    const answer = (req: Req, res: Res, request: ApiRequest): Promise<void> | undefined => {
      const answered = api.respond(request, LOWER_CASE_HEADERS);
      if (answered instanceof Promise) return answered.then((response) => writeNodeResponse(res, response, response.headers, req));
      writeNodeResponse(res, answered, answered.headers, req);
      return undefined;
    };
    return (req, res) => {
      const request = fromNodeRequest(req, req.url, res);
      // Node's parser pushes a body that came with the headers only after this listener returns: once
      // it has, a body-reading endpoint takes it whole and answers without waiting again.
      if (bodyFollows(req)) return Promise.resolve(request).then((arrived) => answer(req, res, arrived));
      return answer(req, res, request);
    };
  }
  return async (req, res) => {
    try {
      const response = await api.dispatch(fromNodeRequest(req, req.url, res));
      if (response === undefined) await fallback(req, res);
      else sendNodeResponse(res, response);
    } catch {
      // A fallback or the socket may fail. Either way the socket must not hang.
      res.destroy();
    }
  };
}

/**
 * Runs one endpoint as a `node:http` handler, with params that your own router matched.
 *
 * @example
 * const readUserHandler = nodeHandler(readUser);
 * http.createServer((req, res) => {
 *   const match = /^\/users\/([^/]+)$/.exec(req.url ?? '');
 *   if (match) void readUserHandler(req, res, { id: decodeURIComponent(match[1]) });
 * });
 */
export function nodeHandler(endpoint: Endpoint, options: EndpointHandlerOptions = {}): (req: NodeRequest, res: NodeResponse, params?: Record<string, string>) => Promise<void> {
  const handle = createEndpointHandler(endpoint, options);
  return async (req, res, params = {}) => {
    try {
      sendNodeResponse(res, await handle(fromNodeRequest(req, req.url, res), params));
    } catch {
      res.destroy();
    }
  };
}

/**
 * The `ApiRequest` of a Node request. The body is passed raw, as a stream the core reads with its
 * byte limit (a body that has already arrived whole is taken in one read); `url` replaces `req.url` (a framework mounted at a prefix passes the rest of the path).
 * A repeated `Authorization` or `Content-Type`, which `req.headers` keeps only once, is passed as the
 * array of every value, so that the core sees the request as it was sent.
 *
 * @example
 * const response = await api.handle(fromNodeRequest(req));
 */
export function fromNodeRequest(req: NodeRequest, url: string = req.url ?? '/', res?: NodeResponse): ApiRequest {
  const method = req.method ?? 'GET';
  const given = req.headers;
  const headers = given.authorization === undefined && given['content-type'] === undefined ? given : withRepeatedHeaders(given, req.rawHeaders);
  // HTTP/2 frames a body without Content-Length or Transfer-Encoding, so every request gets one; it
  // is read only if the endpoint takes a body, and an empty one reads as none.
  const body = readArrivedBody(req);
  if (res === undefined) return { method, url, headers, body, onClose: onNodeClose };
  // The host's objects and the socket's address in the literal itself: no property added afterwards.
  return { method, url, headers, body, onClose: onNodeClose, host: { req, res }, ip: socketAddress(req.socket) };
}
