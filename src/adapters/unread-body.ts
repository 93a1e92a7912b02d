/**
 * The rest of a request body on `node:http` that the API answered without reading to its end, for the
 * adapters that write to Node's response (node, Express) and the one that writes through Fastify's.
 * Left alone, Node reads and drops all of it once the answer is sent, however much the client sends.
 */
import type { HeaderRecord } from '../core/contract.js';
import { DRAIN_LIMIT, unreadBodyFate } from '../core/body.js';

/**
 * The parts of a Node request (`IncomingMessage`, `Http2ServerRequest`) that settling its body uses.
 *
 * @example
 * const settle = (req: UnreadBody, res: FinishingResponse) => settleUnreadBody(req, res);
 */
export interface UnreadBody {
  readonly headers: HeaderRecord;
  /** Whether the whole body has arrived. */
  readonly complete: boolean;
  /** 2 for HTTP/2, whose connection one request cannot close: its body is drained instead. */
  readonly httpVersionMajor?: number | undefined;
  /** The connection, which Node ends once an answer that says `Connection: close` is written. */
  readonly socket?: ClosingSocket | null | undefined;
  on(event: 'data', listener: (chunk: { length: number }) => void): unknown;
  off(event: 'data', listener: (chunk: { length: number }) => void): unknown;
  destroy(): unknown;
}

/**
 * The parts of a `net.Socket` that closing it after an answer uses.
 *
 * @example
 * const close = (socket: ClosingSocket) => socket.destroy();
 */
export interface ClosingSocket {
  readonly destroyed: boolean;
  /** The client's address, where the connection knows it. */
  readonly remoteAddress?: string | undefined;
  destroy(): unknown;
  off(event: 'finish', listener: () => unknown): unknown;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * The parts of a Node response (`ServerResponse`, Fastify's `reply.raw`) that settling a body uses.
 *
 * @example
 * const written = (res: FinishingResponse) => res.once?.('finish', () => {});
 */
export interface FinishingResponse {
  once?(event: 'finish', listener: () => void): unknown;
}

/** Requests whose body is being drained, so that the reading that stopped and the answer do not both drain it. */
const DRAINING = new WeakSet<UnreadBody>();

/**
 * How long a connection stays half-closed after an answer that closes it: long enough for a client
 * that is still sending to read the answer and stop, where closing at once would reset the connection
 * and could drop the answer before the client reads it.
 */
const LINGER_MS = 500;

/**
 * Settles the rest of a body before the answer is written, as {@link unreadBodyFate} says. A body to
 * drain is read and dropped up to `DRAIN_LIMIT`. For a declared `Content-Length` over that bound it
 * returns true: the answer must say `Connection: close`. Node then ends the connection once the answer
 * is written and, instead of destroying it at once, it stays half-closed (what still comes is read and
 * dropped, within the same bound) until the client closes it or a moment has passed. A body that has
 * arrived, or that nobody announced, is left as it is.
 *
 * @example
 * if (settleUnreadBody(req, res)) headers.connection = 'close';
 */
export function settleUnreadBody(req: UnreadBody, res: FinishingResponse | undefined): boolean {
  if (req.complete) return false;
  const fate = unreadBodyFate(req.headers);
  if (fate === 'none' || DRAINING.has(req)) return false;
  drainBody(req);
  if (fate === 'drain' || (req.httpVersionMajor ?? 1) >= 2) return false;
  const socket = req.socket;
  if (res?.once !== undefined && socket !== null && socket !== undefined) res.once('finish', () => linger(socket));
  return true;
}

/**
 * Keeps a socket that Node is closing open a moment longer. Node's `destroySoon`, called as the answer
 * finishes, ends the socket and destroys it once the end is flushed; destroying a socket with unread
 * bytes resets the connection. Without that listener the socket is only ended (half-closed): the
 * client gets the answer and the end, the drain goes on reading, and the socket is destroyed when the
 * client closes its side, the drain reaches its bound, or `LINGER_MS` have passed.
 */
function linger(socket: ClosingSocket): void {
  if (socket.destroyed) return;
  socket.off('finish', socket.destroy);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * Reads and drops the rest of a body. Destroying the request instead would reset the socket, and the
 * client could lose the answer; past `DRAIN_LIMIT`, though, a client that keeps sending is cut off.
 *
 * @example
 * drainBody(req); // after a 413 on a chunked body
 */
export function drainBody(req: UnreadBody): void {
  if (DRAINING.has(req)) return;
  DRAINING.add(req);
  let drained = 0;
  const onData = (chunk: { length: number }): void => {
    drained += chunk.length;
    if (drained <= DRAIN_LIMIT) return;
    req.off('data', onData);
    req.destroy();
  };
  req.on('data', onData);
}
