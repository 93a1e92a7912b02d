/**
 * restcanon/openapi: the OpenAPI 3.1 document of an API, from the same definitions, errors
 * included. A subpath of its own, so that APIs that serve no document never load it.
 */
import { buildDocument, type OpenApiOptions } from './document.js';
import { checkOptions } from '../core/options.js';
import type { ApiDocument } from '../core/api.js';

export { createOpenApiDocument, type JsonSchema, type OpenApiDocument, type OpenApiInfo, type OpenApiOperation, type OpenApiOptions } from './document.js';

/** Options of {@link openApi}: the document's, and where it is served. */
export interface ServedOpenApiOptions extends OpenApiOptions {
  /** Default `/openapi.json`, below the API's `basePath`. */
  path?: string;
  /** Default `true`: the document is reachable without a caller. */
  public?: boolean;
}

/**
 * Serves the API's OpenAPI document: pass it as `createApi({ openapi: openApi({ info }) })`.
 *
 * @example
 * const api = createApi({ resources: [users], openapi: openApi({ info: { title: 'Shop', version: '1.0.0' } }) });
 * await api.handle({ method: 'GET', url: '/openapi.json' }); // 200 with the document
 */
export function openApi(options: ServedOpenApiOptions): ApiDocument {
  checkOptions('openApi()', options, ['info', 'servers', 'toJsonSchema', 'securitySchemes', 'path', 'public']);
  const { path = '/openapi.json', public: isPublic = true, ...documentOptions } = options;
  return { path, public: isPublic, build: (api) => buildDocument(api, documentOptions, path) };
}
