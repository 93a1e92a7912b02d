import type { Endpoint } from '../../core/endpoint.js';
import type { OpenApiPart } from '../../openapi/part.js';
import type { JsonSchema } from '../../openapi/schemas.js';
import { checkDeprecation } from './declare.js';

/**
 * The part of deprecation in the OpenAPI document: `deprecated: true` on each operation that
 * declares it, its dates in the description, and its headers on every answer.
 */

/**
 * The OpenAPI part of the deprecation module; `gone` says a sunset ends in 410.
 *
 * @example
 * deprecationPart(true).operation!(endpoint, operation); // operation.deprecated === true
 */
export function deprecationPart(gone: boolean): OpenApiPart {
  return {
    operation(endpoint: Endpoint, operation: JsonSchema): void {
      const declared = endpoint.conventions?.deprecation;
      if (declared === undefined) return;
      const { at, fields, sunset } = checkDeprecation(declared, `${endpoint.method} ${endpoint.path}`);
      operation.deprecated = true;
      const said = `Deprecated since ${new Date(at).toISOString()}${sunset === undefined ? '' : `; ${gone ? 'it answers 410 Gone from' : 'it may stop answering on'} ${new Date(sunset).toISOString()}`}.`;
      operation.description = operation.description === undefined ? said : `${String(operation.description)} ${said}`;
      const headers: JsonSchema = {
        Deprecation: { description: 'When this operation was deprecated (RFC 9745), as @ and seconds since the epoch.', schema: { type: 'string', const: fields.deprecation } },
      };
      if (fields.sunset !== undefined) headers.Sunset = { description: 'When this operation stops answering (RFC 8594), an HTTP date.', schema: { type: 'string', const: fields.sunset } };
      for (const response of Object.values(operation.responses as Record<string, JsonSchema>)) response.headers = { ...(response.headers as JsonSchema | undefined), ...headers };
    },
  };
}
