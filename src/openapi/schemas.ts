/**
 * The component schemas restcanon itself defines: the RFC 9457 problem every error answers, its
 * validation form with `errors`, and the OpenAPI document the API serves about itself.
 */

/**
 * A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), or any other OpenAPI object, as plain data.
 *
 * @example
 * const schema: JsonSchema = { type: 'object', properties: { name: { type: 'string' } } };
 */
export type JsonSchema = Record<string, unknown>;

/** Where a component schema is, for a `$ref`. */
export const COMPONENTS = '#/components/schemas/';

/**
 * A `$ref` to a component schema.
 *
 * @example
 * refTo('Problem'); // { $ref: '#/components/schemas/Problem' }
 */
export function refTo(name: string): JsonSchema {
  return { $ref: `${COMPONENTS}${name}` };
}

const PROBLEM: JsonSchema = {
  type: 'object',
  description: 'An RFC 9457 problem details object.',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string', format: 'uri-reference', description: "The problem type; 'about:blank' when the status says it all." },
    title: { type: 'string', description: 'The reason phrase of the status.' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string', pattern: '^RC_', description: 'A stable error code, such as RC_NOT_FOUND.' },
    detail: { type: 'string', description: 'An explanation for the client; never on a masked 5xx.' },
    instance: { type: 'string', format: 'uri-reference', description: 'On every 5xx: a urn:uuid that identifies the failure in the server log.' },
  },
};

const ISSUE: JsonSchema = {
  type: 'object',
  required: ['in', 'pointer', 'detail'],
  properties: { in: { type: 'string', enum: ['path', 'query', 'header', 'body'] }, pointer: { type: 'string' }, detail: { type: 'string' } },
};

const VALIDATION_PROBLEM: JsonSchema = {
  type: 'object',
  description: 'A problem with every invalid input in `errors`.',
  allOf: [
    { ...refTo('Problem'), type: 'object' },
    { type: 'object', properties: { errors: { type: 'array', items: ISSUE, description: 'Every invalid input.' } } },
  ],
};

/** The answer of the route that serves the document: an OpenAPI 3.1 document, described by the specification. */
const OPENAPI_DOCUMENT: JsonSchema = {
  type: 'object',
  description: 'An OpenAPI 3.1 document: this one.',
  externalDocs: { description: 'The OpenAPI Specification', url: 'https://spec.openapis.org/oas/v3.1.0' },
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string' } } },
    servers: { type: 'array', items: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, description: { type: 'string' } } } },
    tags: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, description: { type: 'string' } } } },
    paths: { type: 'object', additionalProperties: { type: 'object' } },
    components: { type: 'object' },
    security: { type: 'array', items: { type: 'object' } },
  },
};

/**
 * The schemas restcanon defines, by component name; each use takes a copy, so that a document
 * never shares (and a caller never mutates) these.
 *
 * @example
 * structuredClone(OWN_SCHEMAS.Problem);
 */
export const OWN_SCHEMAS: Readonly<Record<'Problem' | 'ValidationProblem' | 'OpenApiDocument', JsonSchema>> = {
  Problem: PROBLEM,
  ValidationProblem: VALIDATION_PROBLEM,
  OpenApiDocument: OPENAPI_DOCUMENT,
};
