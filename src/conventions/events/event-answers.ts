/**
 * Server-sent events as an answer: an endpoint whose negotiated type is `text/event-stream` and
 * whose handler returns an async iterable of events (or strings) answers 200 with the events
 * encoded as they come, keep-alive comments while the source is idle, and its headers sent at once,
 * before the first event: an `EventSource` opens on the headers, and a source may wait long for
 * its first event. An error of the source, before its first event too, ends the stream (reported),
 * since the answer has started.
 */
import type { ApiResponse } from '../../core/contract.js';
import { Chunks } from '../../core/byte-results.js';
import { encodeEvents, type ServerSentEvent } from '../../core/events.js';

/** The keep-alive interval when the endpoint gives none: below the idle timeouts of common proxies (60 s and more). */
export const DEFAULT_KEEP_ALIVE = 15_000;

/**
 * Whether a result is a source of events: an async iterable that is no stream of bytes (a Node
 * `Readable` or a web `ReadableStream` goes out as the bytes it holds, already encoded).
 *
 * @example
 * isEventSource((async function* () { yield 'hi'; })()); // true
 */
export function isEventSource(result: unknown): result is AsyncIterable<ServerSentEvent | string> {
  if (typeof result !== 'object' || result === null) return false;
  const source = result as { getReader?: unknown; pipe?: unknown; [Symbol.asyncIterator]?: unknown };
  return typeof source[Symbol.asyncIterator] === 'function' && typeof source.getReader !== 'function' && typeof source.pipe !== 'function';
}

/**
 * The 200 of a source of events: `text/event-stream; charset=utf-8`, `Cache-Control: no-cache`,
 * no `Content-Length`, and the encoded events as a stream that starts at once.
 *
 * @example
 * return eventAnswer(200, headers, source, 15_000);
 */
export function eventAnswer(status: number, headers: Record<string, string>, source: AsyncIterable<ServerSentEvent | string>, keepAlive: number): ApiResponse {
  headers['content-type'] = 'text/event-stream; charset=utf-8';
  headers['cache-control'] = 'no-cache';
  const frames = encodeEvents(source, { keepAlive });
  return { status, headers, body: undefined, payload: undefined, stream: new Chunks(() => frames[Symbol.asyncIterator](), undefined, true) };
}
