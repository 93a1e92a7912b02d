/**
 * An `ApiResponse` written to Node's response, as the node, Express and Koa adapters send it: its
 * headers with `Content-Length` (`Set-Cookie` one line per cookie, after those the host set), its payload (none for HEAD and the statuses without a body, where the core
 * leaves it out) or its stream (written as the socket takes it, see stream-out.ts), and, before the answer goes out, the rest of a request body the API did not read
 * settled, with `Connection: close` when it is left unread.
 */
import type { ApiResponse, ResponseHeaders } from '../core/contract.js';
import type { NodeRequest, NodeResponse } from './node-types.js';
import { settleUnreadBody } from './unread-body.js';
import { closeStream } from '../core/byte-results.js';
import { writeNodeStream, type StreamingResponse } from './stream-out.js';

/**
 * Writes an `ApiResponse` to a Node response, with its `Content-Length`. The rest of a body the API
 * did not read (an early 401, 415 or 413) is drained up to 64 MiB, or, for a declared `Content-Length`
 * over that, left unread behind an answer that closes the connection (`res.req` is the request).
 *
 * @example
 * sendNodeResponse(res, await api.handle(fromNodeRequest(req)));
 */
export function sendNodeResponse(res: NodeResponse, response: ApiResponse): void {
  // Not `{ ...headers, 'content-length': n }`: in V8 a spread followed by a new key is slower than
  // a copy and an assignment.
  writeNodeResponse(res, response, response.payload === undefined ? response.headers : Object.assign({}, response.headers), res.req);
}

/**
 * {@link sendNodeResponse} with headers it may add `Content-Length` to. The listener passes the
 * response's own: the core builds every response it answers with a new headers object, and nobody
 * else sees that response. Before the answer goes out, the rest of the request's body is settled.
 *
 * @example
 * const response = await api.handle(fromNodeRequest(req));
 * writeNodeResponse(res, response, response.headers, req);
 */
export function writeNodeResponse(res: NodeResponse, response: ApiResponse, headers: ResponseHeaders, req: NodeRequest | undefined): void {
  const { stream } = response;
  try {
    if (res.headersSent || res.writableEnded || res.destroyed) {
      if (stream !== undefined) void closeStream(stream);
      return;
    }
    const { payload } = response;
    if (payload !== undefined) headers['content-length'] = String(byteLength(payload));
    // writeHead replaces a header the host set already; cookies (a session's, a CSRF token's) add up instead.
    const cookies = headers['set-cookie'];
    const earlier = cookies === undefined ? undefined : res.getHeader?.('set-cookie');
    if (earlier !== undefined) headers = Object.assign({}, headers, { 'set-cookie': [...(typeof earlier === 'object' ? earlier : [String(earlier)]), ...cookies!] });
    // A copy: without a payload, sendNodeResponse passes the caller's own headers.
    if (req !== undefined && settleUnreadBody(req, res)) headers = Object.assign({}, headers, CONNECTION_CLOSE);
    res.writeHead(response.status, headers);
    if (stream === undefined) res.end(payload);
    else {
      // Node holds the head back until the first write: a stream of events that waits for its
      // first one would keep an EventSource from opening.
      res.flushHeaders?.();
      void writeNodeStream(res as unknown as StreamingResponse, stream);
    }
  } catch {
    // What Node refuses to write must not become an uncaught exception (the listener's promise is
    // nobody's) nor a socket left open: the connection is closed instead.
    if (stream !== undefined) void closeStream(stream);
    res.destroy();
  }
}

/** An answer with this header ends the connection once it is written. */
const CONNECTION_CLOSE = { connection: 'close' } as const;

function byteLength(payload: string | Uint8Array): number {
  return typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
}
