import type { ByteHook } from '../../core/exchange.js';
import { isByteType, producedFormats } from '../../core/produces.js';
import type { Convention, EndpointParts } from '../../core/seam.js';
import { RANGE_NOT_SATISFIABLE, ranged } from './byte-ranges.js';

/**
 * Ranges as a convention: the byte answers of a GET answer `Range` (RFC 9110 §14). The engine alone
 * answers such a GET whole, without `Accept-Ranges`, whatever its `Range` asks: RFC 9110 §14.2 lets
 * a server ignore it.
 */

const STATUSES: readonly number[] = [RANGE_NOT_SATISFIABLE];

/**
 * The `ranges` convention: on every GET that `produces` a type no format of the API writes, a 200 of
 * bytes, a string or a `Blob` says `Accept-Ranges: bytes`, and its `Range` is answered 206 with the
 * bytes asked for (several ranges as `multipart/byteranges`), 416 `RC_RANGE_NOT_SATISFIABLE` when
 * none lies within the body, or 200 as a whole when `If-Range` names another copy than the answer's
 * `ETag` or `Last-Modified`. CORS lets a page read `Accept-Ranges` and `Content-Range`. A stream of unknown length and server-sent events go out whole. An
 * endpoint declares nothing for it. `createApi` from `restcanon` has it; from `restcanon/engine`,
 * give it in `use`.
 *
 * @example
 * const api = createApi({ use: [ranges], endpoints: [endpoint('GET', '/report.pdf', { produces: ['application/pdf'], handle: () => pdf })] });
 * (await api.handle({ method: 'GET', url: '/report.pdf', headers: { range: 'bytes=0-99' } })).status; // 206
 */
export const ranges: Convention = {
  name: 'ranges',
  rank: 70,
  // A page that asks for a range reads which bytes it got, and whether it may ask again.
  exposes: ['Accept-Ranges', 'Content-Range'],
  endpoint(endpoint, _declared, { settings }): EndpointParts | undefined {
    if (endpoint.method !== 'GET' || endpoint.produces === undefined) return undefined;
    const events = producedFormats(endpoint.produces, settings.formats).filter(isByteType).map((format) => isEventStream(format.type));
    if (!events.includes(false)) return undefined;
    return { bytes: events.includes(true) ? besideEvents : ranged, statuses: STATUSES };
  },
};

/** On an endpoint that sends server-sent events too: their bytes, a string the handler gave, are one stream, never cut. */
const besideEvents: ByteHook = (exchange, response, result, bytes) => (isEventStream(response.headers['content-type']) ? response : ranged(exchange, response, result, bytes));

function isEventStream(type: unknown): boolean {
  return /^text\/event-stream\s*(;|$)/i.test(String(type));
}
