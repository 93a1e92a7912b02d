import type { BodyWriter } from '../../core/exchange.js';
import { parseMediaType } from '../../core/media-type.js';
import type { Convention, EndpointParts } from '../../core/seam.js';
import { DEFAULT_KEEP_ALIVE, eventAnswer, isEventSource } from './event-answers.js';

/**
 * Server-sent events as a convention: the writer of `text/event-stream`, which the engine alone
 * does not write (an endpoint that produces it on an API without this convention is refused when
 * the API is built).
 */

const EVENT_STREAM = 'text/event-stream';

/**
 * The `events` convention: an endpoint with `text/event-stream` in `produces` whose handler returns
 * an async iterable of events `{ data, event?, id?, retry? }` or strings answers 200 with them
 * encoded as they come (`Content-Type: text/event-stream; charset=utf-8`, `Cache-Control:
 * no-cache`, its headers sent before the first event), and a keep-alive comment after the
 * endpoint's `events.keepAlive` milliseconds of silence (15 000 when left out). A result that is no
 * source of events (bytes, a string, a stream of bytes) goes out as it is. `ctx.lastEventId` is the
 * engine's: it reads `Last-Event-ID` with or without this convention. `createApi` from `restcanon`
 * has it; from `restcanon/engine`, give it in `use`.
 *
 * @example
 * const api = createApi({
 *   use: [events],
 *   endpoints: [endpoint('GET', '/ticks', { produces: ['text/event-stream'], handle: async function* () { yield { event: 'tick', data: { n: 1 } }; } })],
 * });
 */
export const events: Convention = {
  name: 'events',
  rank: 80,
  endpoint(endpoint): EndpointParts | undefined {
    if (!endpoint.produces?.some((type) => parseMediaType(type)?.essence === EVENT_STREAM)) return undefined;
    return { writers: { [EVENT_STREAM]: writeEvents(endpoint.events?.keepAlive ?? DEFAULT_KEEP_ALIVE) } };
  },
};

function writeEvents(keepAlive: number): BodyWriter {
  return (_exchange, status, headers, body) => (isEventSource(body) ? eventAnswer(status, headers, body, keepAlive) : undefined);
}
