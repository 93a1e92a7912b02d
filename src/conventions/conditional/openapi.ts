import type { Endpoint } from '../../core/endpoint.js';
import type { OpenApiPart } from '../../openapi/part.js';
import type { JsonSchema } from '../../openapi/schemas.js';
import type { ConditionalDeclaration } from './declare.js';

/**
 * The part of conditional requests in the OpenAPI document: the precondition headers an operation
 * evaluates, and the validators its answers carry.
 */

const header = (description: string, schema: JsonSchema = { type: 'string' }): JsonSchema => ({ description, schema });

/**
 * The precondition headers an operation that loads its item evaluates before its handler runs.
 *
 * @example
 * preconditionParameters(endpoint); // [{ name: 'If-None-Match', in: 'header', ... }]
 */
export function preconditionParameters(endpoint: Endpoint): JsonSchema[] {
  const validators = endpoint.conventions?.conditional as ConditionalDeclaration | undefined;
  const { method } = endpoint;
  if (validators === undefined) return [];
  const byTag = validators.etag !== undefined;
  const byDate = validators.lastModified !== undefined;
  const parameter = (name: string, description: string): JsonSchema => ({ name, in: 'header', required: false, description, schema: { type: 'string' } });
  if (method === 'GET' || method === 'HEAD') {
    return [
      ...(byTag ? [parameter('If-None-Match', 'The ETag of the copy the client holds: 304 while it is current.')] : []),
      ...(byDate ? [parameter('If-Modified-Since', 'The Last-Modified of the copy the client holds: 304 when the item has not changed since.')] : []),
    ];
  }
  const required = validators.requireIfMatch ? ' A change without If-Match or If-Unmodified-Since is a 428.' : '';
  return [
    ...(byTag ? [parameter('If-Match', `The ETag of the copy this change is based on: 412 when the item has changed since.${required}`)] : []),
    ...(byDate ? [parameter('If-Unmodified-Since', `The Last-Modified of the copy this change is based on: 412 when the item has changed since.${required}`)] : []),
  ];
}

/**
 * The validators a success carries (`ETag`, `Last-Modified`); a 304 carries the `ETag`, or without
 * one the `Last-Modified`.
 *
 * @example
 * validatorHeaders(endpoint, false); // { ETag: { ... } }
 */
export function validatorHeaders(endpoint: Endpoint, notModified: boolean): JsonSchema | undefined {
  const validators = endpoint.conventions?.conditional as ConditionalDeclaration | undefined;
  const { operation } = endpoint;
  if (validators === undefined || operation === 'remove' || operation === 'list' || operation === 'submit') return undefined;
  const headers: JsonSchema = {};
  if (validators.etag !== undefined) headers.ETag = header('The entity tag of the item: send it back in If-None-Match or If-Match.');
  if (validators.lastModified !== undefined && (!notModified || validators.etag === undefined)) {
    headers['Last-Modified'] = header('When the item last changed, an HTTP date.', { type: 'string' });
  }
  return Object.keys(headers).length === 0 ? undefined : headers;
}

/**
 * The part of conditional requests in the OpenAPI document.
 *
 * @example
 * conditionalPart.parameters!(readDocument, book, 'ReadDocument'); // [{ name: 'If-None-Match', ... }]
 */
export const conditionalPart: OpenApiPart = {
  parameters: (endpoint) => preconditionParameters(endpoint),
  headers: (endpoint, outcome) => validatorHeaders(endpoint, outcome === 'notModified'),
};
