/**
 * Server-sent events as an answer: an endpoint whose negotiated type is `text/event-stream` and
 * whose handler returns an async iterable of events (or strings) answers 200 with the events
 * encoded as they come, keep-alive comments while the source is idle, and its headers sent at once,
 * before the first event: an `EventSource` opens on the headers, and a source may wait long for
 * its first event. An error of the source, before its first event too, ends the stream (reported),
 * since the answer has started.
 */
import type { ApiResponse } from './contract.js';
import { Chunks } from './byte-results.js';
import { encodeEvents, type ServerSentEvent } from './events.js';
import { parseMediaType } from './media-type.js';
import type { Serializer } from '../formats/formats.js';

/** The keep-alive interval when the endpoint gives none: below the idle timeouts of common proxies (60 s and more). */
export const DEFAULT_KEEP_ALIVE = 15_000;

/**
 * Whether a negotiated format is `text/event-stream`.
 *
 * @example
 * isEventStream(exchange.format); // true for produces: ['text/event-stream']
 */
export function isEventStream(format: Serializer): boolean {
  return parseMediaType(format.type)?.essence === 'text/event-stream';
}

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

/**
 * An endpoint's `events`: options of the server-sent events it sends.
 *
 * @example
 * const events: EventsOptions = { keepAlive: 30_000 };
 */
export interface EventsOptions {
  /** Milliseconds of silence after which a comment goes out, so that proxies keep the connection; 15 000 when left out, 0 for none. */
  readonly keepAlive?: number | undefined;
}

/**
 * Checks an endpoint's `events` where it is declared: `{ keepAlive }` with a whole number of
 * milliseconds, on an endpoint whose `produces` lists `text/event-stream`.
 *
 * @example
 * checkEvents({ keepAlive: 30_000 }, ['text/event-stream'], 'endpoint(GET /feed)'); // { keepAlive: 30000 }
 */
export function checkEvents(events: unknown, produces: readonly string[] | undefined, where: string): EventsOptions | undefined {
  if (events === undefined) return undefined;
  if (typeof events !== 'object' || events === null || Object.keys(events).some((key) => key !== 'keepAlive')) {
    throw new TypeError(`${where}: "events" takes { keepAlive }, the milliseconds between keep-alive comments, such as { keepAlive: 15_000 }`);
  }
  const { keepAlive } = events as { keepAlive?: unknown };
  if (keepAlive !== undefined && (!Number.isSafeInteger(keepAlive) || (keepAlive as number) < 0)) {
    throw new TypeError(`${where}: "events.keepAlive" must be a whole number of milliseconds (0 for none), got ${String(keepAlive)}`);
  }
  if (!produces?.some((type) => parseMediaType(type)?.essence === 'text/event-stream')) {
    throw new TypeError(`${where}: "events" sets how server-sent events go out, and the endpoint sends none; add 'text/event-stream' to its "produces"`);
  }
  return Object.freeze({ keepAlive: keepAlive as number | undefined });
}
