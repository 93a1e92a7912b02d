/**
 * A `Blob` result that names its own type: the one way a handler of an endpoint with several
 * `produces` types answers in the type its bytes have (an avatar stored as PNG or as JPEG) rather
 * than the one negotiation chose.
 */
import type { Serializer } from '../formats/formats.js';
import { createNegotiator } from '../formats/formats.js';
import { NotAcceptableError } from './errors.js';
import type { Exchange } from './exchange.js';
import { parseMediaType } from './media-type.js';
import { single } from './request.js';

/**
 * The format a success answer goes out in: the negotiated one, or, for a `Blob` whose `type` is
 * another of the endpoint's `produces` types, that type. A type `Accept` refuses is a 406 (sent all
 * the same under a policy whose `unacceptable` is not `'reject'`); a type the endpoint does not produce
 * is the endpoint's fault: a `TypeError`, answered as a masked 500.
 *
 * @example
 * const format = formatOfResult(exchange, new Blob([bytes], { type: 'image/jpeg' })); // the image/jpeg of produces
 */
export function formatOfResult(exchange: Exchange, result: unknown): Serializer {
  const { format, compiled } = exchange;
  if (compiled.produced === undefined || typeof Blob !== 'function' || !(result instanceof Blob) || result.type === '') return format;
  const essence = parseMediaType(result.type)?.essence;
  if (essence === parseMediaType(format.type)?.essence) return format;
  const own = compiled.produced.find((produced) => parseMediaType(produced.type)?.essence === essence);
  const { method, path } = compiled.endpoint;
  if (own === undefined) throw new TypeError(`${method} ${path} returned a Blob of type ${JSON.stringify(result.type)}, which its "produces" does not list: add it there, or give the Blob one of ${compiled.produced.map((produced) => produced.type).join(', ')}`);
  if (createNegotiator([own]).content(single(exchange.headers.accept)) === undefined && exchange.settings.policy.unacceptable === 'reject') {
    throw new NotAcceptableError(`Available: ${own.type}`);
  }
  return own;
}
