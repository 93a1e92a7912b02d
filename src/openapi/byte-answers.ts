/**
 * What the OpenAPI document says of the byte answers of `produces` beyond their content: the
 * ranges of a GET (the `Range` and `If-Range` parameters, 206 and 416), and a stream of
 * server-sent events.
 */
import type { JsonSchema } from './schemas.js';

const essenceOf = (type: string): string => type.split(';')[0]!.trim().toLowerCase();

/**
 * The types of `produces` that no API format writes: those answered as bytes.
 *
 * @example
 * byteTypesOf(['image/png', 'application/json'], [{ type: 'application/json' }]); // ['image/png']
 */
export function byteTypesOf(produces: readonly string[] | undefined, formats: readonly { type: string }[]): string[] {
  if (produces === undefined) return [];
  return produces.filter((type) => !formats.some((format) => essenceOf(format.type) === essenceOf(type)));
}

/**
 * The byte types of a GET whose answers may be cut into ranges: all but `text/event-stream`, whose
 * stream has no length.
 *
 * @example
 * rangedTypesOf({ method: 'GET', produces: ['application/pdf'] }, formats); // ['application/pdf']
 */
export function rangedTypesOf(endpoint: { method: string; produces?: readonly string[] | undefined }, formats: readonly { type: string }[]): string[] {
  if (endpoint.method !== 'GET') return [];
  return byteTypesOf(endpoint.produces, formats).filter((type) => essenceOf(type) !== 'text/event-stream');
}

/**
 * The schema of a byte type's content: text for a `text/*` type, a string of that media type
 * otherwise (OpenAPI 3.1 says so with `contentMediaType`), and for `text/event-stream` a string
 * described as events (an `itemSchema` of each event is OpenAPI 3.2's).
 *
 * @example
 * byteContent('text/event-stream'); // { schema: { type: 'string', description: 'Server-sent events...' } }
 */
export function byteContent(type: string): JsonSchema {
  const essence = essenceOf(type);
  if (essence === 'text/event-stream') {
    return { schema: { type: 'string', description: 'Server-sent events, one after another as they happen: each an `id`, an `event` and `data` lines (JSON for data that is no string), then a blank line; a `: keep-alive` comment while there is none. A reconnecting client sends the last id it received in Last-Event-ID.' } };
  }
  return { schema: essence.startsWith('text/') ? { type: 'string' } : { type: 'string', contentMediaType: essence } };
}

/**
 * The header parameters of a GET whose answer may be cut into ranges.
 *
 * @example
 * operation.parameters.push(...RANGE_PARAMETERS);
 */
export const RANGE_PARAMETERS: readonly JsonSchema[] = [
  { name: 'Range', in: 'header', required: false, description: 'The byte ranges to answer (`bytes=0-99`, `bytes=-500`, several joined by commas), answered 206; ignored when malformed.', schema: { type: 'string', pattern: '^bytes=' } },
  { name: 'If-Range', in: 'header', required: false, description: 'The strong ETag or the Last-Modified date of the copy the client holds: the Range applies only while it is current, else the whole body is answered.', schema: { type: 'string' } },
];

/**
 * The 206 of a GET of bytes: one range in the type of the body, several as `multipart/byteranges`.
 *
 * @example
 * responses['206'] = partialResponse(['application/pdf']);
 */
export function partialResponse(byteTypes: readonly string[]): JsonSchema {
  return {
    description: 'Partial Content: the ranges of the body that Range asks for, one as it is, several as multipart/byteranges.',
    headers: { 'Content-Range': { description: 'The range sent and the length of the whole body: `bytes 0-99/1000` (one range only).', schema: { type: 'string' } } },
    content: { ...Object.fromEntries(byteTypes.map((type) => [type, byteContent(type)])), 'multipart/byteranges': { schema: { type: 'string' } } },
  };
}

/** What a 416 means on a GET of bytes, and its header. */
export const RANGE_NOT_SATISFIABLE = {
  reason: 'no range of Range lies within the body',
  headers: { 'Content-Range': { description: 'The length of the whole body: `bytes */1000`.', schema: { type: 'string' } } },
} as const;
