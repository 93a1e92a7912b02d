import type { EventsOptions } from '../../core/endpoint.js';
import { parseMediaType } from '../../core/media-type.js';

/** An endpoint's `events`, checked when it is defined; the `events` module reads what it records. */

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
