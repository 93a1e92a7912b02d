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

/** What the Blobs of one endpoint are matched against, read from its `produces` once. */
interface BlobOffers {
  /** The first format of `produces` for each essence. */
  readonly byEssence: ReadonlyMap<string, Serializer>;
  /** A one-format negotiator per format a Blob chose, made the first time it is chosen. */
  readonly negotiators: Map<Serializer, ReturnType<typeof createNegotiator>>;
}

/** Keyed by an endpoint's `produced` list, which is made once when the endpoint is compiled. */
const OFFERS = new WeakMap<readonly Serializer[], BlobOffers>();
/** The essence of each format's type; formats are few and live as long as their API. */
const ESSENCES = new WeakMap<Serializer, string | undefined>();
/** The essences of the types Blobs were given: the handler chooses them, so the memo is bounded. */
const BLOB_ESSENCES = new Map<string, string | undefined>();

const essenceOfType = (type: string): string | undefined => parseMediaType(type)?.essence;

function essenceOfFormat(format: Serializer): string | undefined {
  if (!ESSENCES.has(format)) ESSENCES.set(format, essenceOfType(format.type));
  return ESSENCES.get(format);
}

function offersOf(produced: readonly Serializer[]): BlobOffers {
  let offers = OFFERS.get(produced);
  if (offers === undefined) {
    const byEssence = new Map<string, Serializer>();
    for (const format of produced) {
      const essence = essenceOfFormat(format);
      if (essence !== undefined && !byEssence.has(essence)) byEssence.set(essence, format);
    }
    offers = { byEssence, negotiators: new Map() };
    OFFERS.set(produced, offers);
  }
  return offers;
}

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
  const essence = remember(BLOB_ESSENCES, result.type, essenceOfType, undefined);
  if (essence === essenceOfFormat(format)) return format;
  const offers = offersOf(compiled.produced);
  const own = essence === undefined ? undefined : offers.byEssence.get(essence);
  const { method, path } = compiled.endpoint;
  if (own === undefined) throw new TypeError(`${method} ${path} returned a Blob of type ${JSON.stringify(result.type)}, which its "produces" does not list: add it there, or give the Blob one of ${compiled.produced.map((produced) => produced.type).join(', ')}`);
  let negotiator = offers.negotiators.get(own);
  if (negotiator === undefined) offers.negotiators.set(own, (negotiator = createNegotiator([own])));
  if (negotiator.content(single(exchange.headers.accept)) === undefined && exchange.settings.policy.unacceptable === 'reject') {
    throw new NotAcceptableError(`Available: ${own.type}`);
  }
  return own;
}
