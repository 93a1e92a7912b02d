/**
 * A `Blob` result that names its own type: the one way a handler of an endpoint with several
 * `produces` types answers in the type its bytes have (an avatar stored as PNG or as JPEG) rather
 * than the one negotiation chose.
 */
import type { Serializer } from '../formats/formats.js';
import { createNegotiator } from '../formats/formats.js';
import { NotAcceptableError } from './errors.js';
import type { Exchange } from './exchange.js';
import { remember } from './memo.js';
import { parseMediaType } from './media-type.js';
import { single } from './request.js';

/**
 * What the Blobs of one endpoint are matched against, read from its `produces` once: the first
 * format for each essence, with a negotiator of that format alone. Keyed by the endpoint's
 * `produced` list, which is made once when the endpoint is compiled.
 */
const OFFERS = new WeakMap<readonly Serializer[], Map<string | undefined, Offer>>();
type Offer = readonly [Serializer, ReturnType<typeof createNegotiator>];
/** The essences of media types, the formats' and those Blobs were given: the handler chooses the latter, so the memo is bounded. */
const ESSENCES = new Map<string, string | undefined>();

const essenceOf = (type: string): string | undefined => remember(ESSENCES, type, (key: string) => parseMediaType(key)?.essence, undefined);

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
  const essence = essenceOf(result.type);
  if (essence === essenceOf(format.type)) return format;
  let offers = OFFERS.get(compiled.produced);
  if (offers === undefined) OFFERS.set(compiled.produced, (offers = new Map(compiled.produced.map((produced) => [essenceOf(produced.type), [produced, createNegotiator([produced])] as Offer] as const).reverse())));
  const { method, path } = compiled.endpoint;
  const [own, negotiator] = offers.get(essence) ?? [];
  if (own === undefined) throw new TypeError(`${method} ${path} returned a Blob of type ${JSON.stringify(result.type)}, which its "produces" does not list: add it there, or give the Blob one of ${compiled.produced.map((produced) => produced.type).join(', ')}`);
  if (negotiator!.content(single(exchange.headers.accept)) === undefined && exchange.settings.policy.unacceptable === 'reject') {
    throw new NotAcceptableError(`Available: ${own.type}`);
  }
  return own;
}
