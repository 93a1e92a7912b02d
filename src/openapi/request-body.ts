import type { Endpoint } from '../core/endpoint.js';
import type { JsonSchema } from './schemas.js';

/**
 * The `requestBody` of an operation, per media type it consumes (OpenAPI 3.1): JSON, text and forms
 * with the body's schema, a multipart form with the schema of its fields, and bytes as a binary
 * string (`contentMediaType` of an exact type, `format: binary` for a range).
 *
 * @example
 * requestBodyOf(upload, () => book.model(upload.body, names)); // { required: true, content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } } }
 */
export function requestBodyOf(endpoint: Endpoint, model: () => JsonSchema): JsonSchema {
  const asBytes = endpoint.body === 'bytes' || endpoint.body === 'stream';
  let schema: JsonSchema | undefined;
  const content: Record<string, JsonSchema> = {};
  for (const type of endpoint.consumes) {
    const lower = type.toLowerCase();
    if (asBytes || !readAsData(lower)) content[type] = { schema: binary(lower) };
    else content[type] = { schema: (schema ??= model()) };
  }
  return { required: endpoint.body !== 'unvalidated', content };
}

/** Types whose body the schema describes as data: JSON, text, forms; any other is bytes. */
function readAsData(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json') || type.startsWith('text/') || type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data';
}

/**
 * The schema of bytes of one media type or range: a string of that type (`contentMediaType`), or
 * any binary string for a range.
 *
 * @example
 * binary('application/pdf'); // { type: 'string', contentMediaType: 'application/pdf' }
 * binary('image/*'); // { type: 'string', format: 'binary' }
 */
export function binary(type: string): JsonSchema {
  return type.endsWith('/*') ? { type: 'string', format: 'binary' } : { type: 'string', contentMediaType: type };
}
