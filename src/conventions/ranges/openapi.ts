import type { Endpoint } from '../../core/endpoint.js';
import { byteContent, byteTypesOf, essenceOf } from '../../openapi/byte-answers.js';
import type { OpenApiPart, PartAnswers } from '../../openapi/part.js';
import type { JsonSchema } from '../../openapi/schemas.js';

/**
 * The part of ranges in the OpenAPI document: on a GET of bytes, the `Range` and `If-Range`
 * parameters, the 206 and the 416. An API without the convention answers such a GET whole, and
 * its document says nothing of ranges.
 */

/** The byte types of a GET whose answers may be cut into ranges: all but `text/event-stream`, whose stream has no length. */
function rangedTypesOf(endpoint: { method: string; produces?: readonly string[] | undefined }, formats: readonly { type: string }[]): string[] {
  if (endpoint.method !== 'GET') return [];
  return byteTypesOf(endpoint.produces, formats).filter((type) => essenceOf(type) !== 'text/event-stream');
}

/** The header parameters of a GET whose answer may be cut into ranges. */
const RANGE_PARAMETERS: readonly JsonSchema[] = [
  { name: 'Range', in: 'header', required: false, description: 'The byte ranges to answer (`bytes=0-99`, `bytes=-500`, several joined by commas), answered 206; ignored when malformed.', schema: { type: 'string', pattern: '^bytes=' } },
  { name: 'If-Range', in: 'header', required: false, description: 'The strong ETag or the Last-Modified date of the copy the client holds: the Range applies only while it is current, else the whole body is answered.', schema: { type: 'string' } },
];

/** The 206 of a GET of bytes: one range in the type of the body, several as `multipart/byteranges`. */
function partialResponse(byteTypes: readonly string[]): JsonSchema {
  return {
    description: 'Partial Content: the ranges of the body that Range asks for, one as it is, several as multipart/byteranges.',
    headers: { 'Content-Range': { description: 'The range sent and the length of the whole body: `bytes 0-99/1000` (one range only).', schema: { type: 'string' } } },
    content: { ...Object.fromEntries(byteTypes.map((type) => [type, byteContent(type)])), 'multipart/byteranges': { schema: { type: 'string' } } },
  };
}

/** What a 416 means on a GET of bytes, and its header. */
const RANGE_NOT_SATISFIABLE = {
  reason: 'no range of Range lies within the body',
  headers: { 'Content-Range': { description: 'The length of the whole body: `bytes */1000`.', schema: { type: 'string' } } },
} as const;

/**
 * The part of ranges in the OpenAPI document.
 *
 * @example
 * rangesPart.answers!(readReport, [json]); // { parameters: [Range, If-Range], successes: { 206: ... }, errors: { 416: ... } }
 */
export const rangesPart: OpenApiPart = {
  answers(endpoint: Endpoint, formats: readonly { type: string }[]): PartAnswers | undefined {
    const byteTypes = rangedTypesOf(endpoint, formats);
    if (byteTypes.length === 0) return undefined;
    return { parameters: RANGE_PARAMETERS, successes: { 206: partialResponse(byteTypes) }, errors: { 416: RANGE_NOT_SATISFIABLE } };
  },
};
