import type { ProblemDetails } from '../core/errors.js';
import { remember } from '../core/memo.js';
import { parseAccept, parseMediaType, qualityOf, type MediaRange, type MediaType } from '../core/media-type.js';

/**
 * Turns handler results into one media type. Register your own (CSV, MessagePack, ...) through
 * `createApi({ formats: [json, myFormat] })`; the order is the server's preference.
 *
 * @example
 * const csv: Serializer = {
 *   type: 'text/csv',
 *   contentType: 'text/csv; charset=utf-8',
 *   serialize: (rows) => (rows as string[][]).map((row) => row.join(',')).join('\n'),
 * };
 */
export interface Serializer {
  /**
   * The media type it produces, matched against `Accept`, such as `application/json`. A range with
   * parameters (`text/csv;header=present`) matches only when this type or `contentType` carries them.
   */
  readonly type: string;
  /** The `Content-Type` header it sends; its parameters (`charset=utf-8`) are matched against `Accept` too. */
  readonly contentType: string;
  /** Serializes a result. Throwing (a cycle, a BigInt) becomes a masked 500. */
  serialize(value: unknown): string | Uint8Array;
  /** The media type of its problem bodies (`application/problem+xml`), if it can write them. */
  readonly problemType?: string;
  /** Serializes a problem body; present together with `problemType`. */
  serializeProblem?(problem: ProblemDetails): string | Uint8Array;
}

function stringify(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`A ${typeof value} cannot be serialized as JSON`);
  return text;
}

/**
 * JSON, the default format: `application/json; charset=utf-8`, and `application/problem+json` for errors.
 *
 * @example
 * createApi({ formats: [json], endpoints });
 */
export const json: Serializer = {
  type: 'application/json',
  contentType: 'application/json; charset=utf-8',
  serialize: stringify,
  problemType: 'application/problem+json',
  serializeProblem: stringify,
};

/**
 * Plain text: a string result is sent as it is, any other result as JSON text.
 *
 * @example
 * createApi({ formats: [json, text], endpoints });
 */
export const text: Serializer = {
  type: 'text/plain',
  contentType: 'text/plain; charset=utf-8',
  serialize: (value) => (typeof value === 'string' ? value : stringify(value)),
};

/** A format with the media types its answers carry, read once. */
interface Offer {
  readonly format: Serializer;
  /** A success: the type and parameters of `type`, with the parameters of `contentType` it lacks. */
  readonly media: MediaType;
  /** A problem, for a format that writes them: its `problemType`, sent with `charset=utf-8`. */
  readonly problem: MediaType | undefined;
}

/**
 * The offer of each format, checked: a format whose `type`, `contentType` or `problemType` is no
 * media type could never be matched against `Accept` as the client means it, so createApi refuses it.
 */
function offersOf(formats: readonly Serializer[]): Offer[] {
  return formats.map(offerOf);
}

function offerOf(format: Serializer): Offer {
  const type = mediaTypeOf(format, 'type');
  const problem = format.problemType === undefined ? undefined : mediaTypeOf(format, 'problemType');
  return {
    format,
    media: withParameters(type, mediaTypeOf(format, 'contentType').parameters),
    problem: problem === undefined ? undefined : withParameters(problem, UTF_8),
  };
}

const UTF_8: ReadonlyMap<string, string> = new Map([['charset', 'utf-8']]);

function mediaTypeOf(format: Serializer, member: 'type' | 'contentType' | 'problemType'): MediaType {
  const value: unknown = format?.[member];
  const media = typeof value === 'string' ? parseMediaType(value) : undefined;
  // A wildcard is a range a client accepts, never a type a format produces.
  if (media === undefined || media.type === '*' || media.subtype === '*') {
    throw new TypeError(`createApi: the ${member} of a format is ${JSON.stringify(value)}; write a media type, such as text/csv; charset=utf-8`);
  }
  return media;
}

/** A media type with the parameters of `extra` it does not have itself. */
function withParameters(media: MediaType, extra: ReadonlyMap<string, string>): MediaType {
  return { ...media, parameters: new Map([...extra, ...media.parameters]) };
}

/** The ranges of an `Accept` value; undefined for one that is ignored: none, malformed, or with no element. */
function rangesOf(accept: string | undefined): MediaRange[] | undefined {
  const ranges = accept === undefined ? undefined : parseAccept(accept);
  return ranges?.length === 0 ? undefined : ranges;
}

/** The offer a client gives the highest weight above 0, the first of equals. */
function preferred(offers: readonly Offer[], weigh: (offer: Offer) => number): Offer | undefined {
  let chosen: Offer | undefined;
  let chosenQuality = 0;
  for (const offer of offers) {
    const q = weigh(offer);
    if (q > chosenQuality) {
      chosen = offer;
      chosenQuality = q;
    }
  }
  return chosen;
}

/**
 * Picks the format for a response from `Accept` (RFC 9110 §12.5.1): each format gets the weight of
 * the most specific range that applies to it, parameters included (`text/html;level=1` applies only
 * to a format whose media type carries `level=1`); the highest weight wins, ties go to the server's
 * order. No header, an empty one, or one that does not follow the grammar means the first format.
 * Undefined: nothing acceptable.
 *
 * @example
 * negotiate('text/plain;q=0.5, application/json', [json, text]); // json
 */
export function negotiate(accept: string | undefined, formats: readonly Serializer[]): Serializer | undefined {
  return chooseContent(accept, offersOf(formats));
}

function chooseContent(accept: string | undefined, offers: readonly Offer[]): Serializer | undefined {
  const ranges = rangesOf(accept);
  if (ranges === undefined) return offers[0]?.format;
  return preferred(offers, (offer) => qualityOf(ranges, offer.media))?.format;
}

/**
 * Picks the format for a problem body: a format that can write problems and that the client prefers
 * (matching its problem type or its plain type), else the JSON one: the API's own format of
 * `application/json` when it writes problems, else the built-in `json`. Errors are always sent in
 * some format.
 *
 * @example
 * negotiateProblem('application/xml', [json, xml]); // xml
 */
export function negotiateProblem(accept: string | undefined, formats: readonly Serializer[]): Serializer {
  return chooseProblem(accept, offersOf(formats));
}

function chooseProblem(accept: string | undefined, offers: readonly Offer[]): Serializer {
  const base = problemJson(offers);
  const ranges = rangesOf(accept);
  if (ranges === undefined) return base.format;
  const writers = [base, ...offers.filter((offer) => offer.problem !== undefined && offer !== base)];
  const weigh = (offer: Offer) => Math.max(qualityOf(ranges, offer.media), offer.problem === undefined ? -1 : qualityOf(ranges, offer.problem));
  return (preferred(writers, weigh) ?? base).format;
}

/** The format that writes JSON problems: the API's own `application/json` format when it can, else `json`. */
function problemJson(offers: readonly Offer[]): Offer {
  return offers.find((offer) => offer.media.essence === 'application/json' && offer.format.serializeProblem !== undefined) ?? offerOf(json);
}

/**
 * A bounded memo of negotiation results, keyed by the `Accept` value: clients send the same few
 * values over and over, and parsing them is most of the cost of negotiating. It checks the formats
 * at once: one whose `type`, `contentType` or `problemType` is no media type throws.
 *
 * @example
 * const negotiator = createNegotiator([json, text]);
 * negotiator.content('text/plain'); // text
 * negotiator.problem('text/plain'); // json: text cannot write problems
 */
export function createNegotiator(formats: readonly Serializer[]): {
  content(accept: string | undefined): Serializer | undefined;
  problem(accept: string | undefined): Serializer;
} {
  const offers = offersOf(formats);
  const contentCache = new Map<string, Serializer | undefined>();
  const problemCache = new Map<string, Serializer>();
  const first = offers[0]?.format;
  const base = problemJson(offers).format;
  return {
    content: (accept) => (accept === undefined ? first : remember(contentCache, accept, chooseContent, offers)),
    problem: (accept) => (accept === undefined ? base : remember(problemCache, accept, chooseProblem, offers)),
  };
}
