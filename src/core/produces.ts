/**
 * An endpoint's `produces`: the media types of the success bodies it sends besides the API's formats
 * (`image/png`, `text/csv`), negotiated against `Accept` as formats are. A type that an API format
 * writes is that format; any other is a type of bytes, which no format writes: a result of bytes, a
 * string or a stream goes out as it is under it.
 */
import type { Serializer } from '../formats/formats.js';
import { parseMediaType } from './media-type.js';

/** The stand-ins for the byte types of `produces`: formats that write nothing. */
const BYTE_TYPES = new WeakSet<Serializer>();

/**
 * Checks an endpoint's `produces` where it is declared: a non-empty array of media types (no range
 * such as `image/*`: a range is what a client accepts, never what an answer is), none twice.
 * Gives the list, or undefined when not given.
 *
 * @example
 * checkProduces(['text/csv', 'application/json'], 'endpoint(GET /report)'); // the list
 * checkProduces(['image/*'], 'endpoint(GET /logo)'); // throws: ... is a range ...
 */
export function checkProduces(produces: unknown, where: string): readonly string[] | undefined {
  if (produces === undefined) return undefined;
  if (!Array.isArray(produces) || produces.length === 0) {
    throw new TypeError(`${where}: "produces" must be a non-empty array of the media types its answers have, such as ['text/csv']`);
  }
  const seen = new Set<string>();
  for (const entry of produces as unknown[]) {
    const media = typeof entry === 'string' ? parseMediaType(entry) : undefined;
    if (media === undefined) throw new TypeError(`${where}: "produces" holds ${JSON.stringify(entry) ?? String(entry)}, which is no media type; write one such as 'application/octet-stream' or 'text/csv'`);
    if (media.type === '*' || media.subtype === '*') {
      throw new TypeError(`${where}: "produces" holds the range "${entry as string}"; an answer has one exact type: list each, such as 'image/png', 'image/jpeg'`);
    }
    if (seen.has(media.essence)) throw new TypeError(`${where}: "produces" lists "${media.essence}" twice; list each media type once`);
    seen.add(media.essence);
  }
  return Object.freeze([...(produces as string[])]);
}

/**
 * The formats an endpoint negotiates with its `produces`: for each type, the API's format of that
 * media type, or a stand-in that writes nothing (see {@link isByteType}).
 *
 * @example
 * producedFormats(['text/csv', 'application/json'], [json]); // [text/csv stand-in, json]
 */
export function producedFormats(produces: readonly string[], formats: readonly Serializer[]): Serializer[] {
  return produces.map((type) => {
    const essence = parseMediaType(type)!.essence;
    const format = formats.find((served) => parseMediaType(served.type)?.essence === essence);
    if (format !== undefined) return format;
    const stand: Serializer = Object.freeze({
      type,
      contentType: type,
      serialize(): never {
        throw new TypeError(`No format of the API writes ${type}; return bytes, a string or a stream for it, or add a format of that type to createApi({ formats })`);
      },
    });
    BYTE_TYPES.add(stand);
    return stand;
  });
}

/**
 * Whether a negotiated format is a type of `produces` that no API format writes.
 *
 * @example
 * isByteType(exchange.format); // true for the 'text/csv' of produces: ['text/csv']
 */
export function isByteType(format: Serializer): boolean {
  return BYTE_TYPES.has(format);
}
