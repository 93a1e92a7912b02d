import type { ProblemDetails } from '../core/errors.js';
import { remember } from '../core/memo.js';

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
  /** The media type it produces, matched against `Accept`, such as `application/json`. */
  readonly type: string;
  /** The `Content-Type` header it sends. */
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

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';');
    const [type, subtype, extra] = range.trim().toLowerCase().split('/');
    if (!type || !subtype || extra !== undefined) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name?.trim().toLowerCase() !== 'q') continue;
      const parsed = Number(value?.trim());
      q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0;
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The quality a client gives a media type: from the most specific range that matches it. */
function quality(ranges: readonly MediaRange[], mediaType: string): number {
  const [type, subtype] = mediaType.toLowerCase().split('/') as [string, string];
  let best = -1;
  let specificity = -1;
  for (const range of ranges) {
    const exact = range.type === type && range.subtype === subtype;
    const matches = exact || (range.type === type && range.subtype === '*') || (range.type === '*' && range.subtype === '*');
    if (!matches) continue;
    const rank = exact ? 2 : range.type === '*' ? 0 : 1;
    if (rank > specificity) {
      specificity = rank;
      best = range.q;
    }
  }
  return best;
}

/**
 * Picks the format for a response from `Accept` (q-values, wildcards, most specific range first;
 * ties go to the server's order). No header means the first format. Undefined: nothing acceptable.
 *
 * @example
 * negotiate('text/plain;q=0.5, application/json', [json, text]); // json
 */
export function negotiate(accept: string | undefined, formats: readonly Serializer[]): Serializer | undefined {
  if (accept === undefined || accept === '' || accept === '*/*') return formats[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return formats[0];
  let chosen: Serializer | undefined;
  let chosenQuality = 0;
  for (const format of formats) {
    const q = quality(ranges, format.type);
    if (q > chosenQuality) {
      chosen = format;
      chosenQuality = q;
    }
  }
  return chosen;
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
  const base = problemJson(formats);
  if (accept === undefined || accept === '' || accept === '*/*') return base;
  const ranges = parseAccept(accept);
  let chosen: Serializer = base;
  let chosenQuality = Math.max(quality(ranges, 'application/json'), quality(ranges, 'application/problem+json'));
  for (const format of formats) {
    if (format.problemType === undefined || format === base) continue;
    const q = Math.max(quality(ranges, format.type), quality(ranges, format.problemType));
    if (q > chosenQuality) {
      chosen = format;
      chosenQuality = q;
    }
  }
  return chosen;
}

/** The format that writes JSON problems: the API's own `application/json` format when it can, else `json`. */
function problemJson(formats: readonly Serializer[]): Serializer {
  return formats.find((format) => format.type === 'application/json' && format.serializeProblem !== undefined) ?? json;
}

/**
 * A bounded memo of negotiation results, keyed by the `Accept` value: clients send the same few
 * values over and over, and parsing them is most of the cost of negotiating.
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
  const contentCache = new Map<string, Serializer | undefined>();
  const problemCache = new Map<string, Serializer>();
  const base = problemJson(formats);
  return {
    content: (accept) => (accept === undefined ? formats[0] : remember(contentCache, accept, negotiate, formats)),
    problem: (accept) => (accept === undefined ? base : remember(problemCache, accept, negotiateProblem, formats)),
  };
}
