/**
 * What the OpenAPI document says of the byte answers of `produces`: their content, as bytes of a
 * media type, text, or a stream of server-sent events.
 */
import type { JsonSchema } from './schemas.js';

/**
 * The `type/subtype` of a media type in lower case.
 *
 * @example
 * essenceOf('Text/CSV; charset=utf-8'); // 'text/csv'
 */
export const essenceOf = (type: string): string => type.split(';')[0]!.trim().toLowerCase();

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
