import type { Endpoint } from '../../core/endpoint.js';
import { isStandardSchema } from '../../core/standard-schema.js';
import type { OpenApiPart } from '../../openapi/part.js';
import { binary, requestBodyOf } from '../../openapi/request-body.js';
import type { JsonSchema } from '../../openapi/schemas.js';
import { fileRulesOf, type FileRules } from './file-fields.js';

/**
 * The part of multipart uploads in the OpenAPI document: an endpoint that declares its file fields
 * describes its `multipart/form-data` body as its fields and its files together (a component of its
 * own), each file a binary string (an array of them where a field takes several), with the media
 * types each takes in the media type's `encoding`, as OpenAPI 3.1 asks of multipart bodies.
 */

const MULTIPART = 'multipart/form-data';

/**
 * The schema of the files of declared fields: one binary string per field, or an array of at most
 * `max` of them; a string of the exact type where the field takes one type, any binary string for a
 * range or several types, as the document describes byte bodies.
 *
 * @example
 * fileProperties(new Map([['photo', { types: ['image/png'], ranges, max: 1 }]])); // { photo: { type: 'string', contentMediaType: 'image/png' } }
 */
export function fileProperties(rules: FileRules): JsonSchema {
  const properties: JsonSchema = {};
  for (const [name, { types, max }] of rules) {
    const file = binary(types.length === 1 ? types[0]! : '*/*');
    properties[name] = max === 1 ? file : { type: 'array', items: file, maxItems: max };
  }
  return properties;
}

/**
 * The schema of a multipart body: the fields' schema with the files among its properties, or, for a
 * fields' schema that is no plain object (a union), both of them.
 *
 * @example
 * withFiles({ type: 'object', properties: { title: { type: 'string' } } }, rules); // { type: 'object', properties: { title: ..., photo: ... } }
 */
export function withFiles(fields: JsonSchema, rules: FileRules): JsonSchema {
  const files = fileProperties(rules);
  const { properties } = fields;
  const plain = fields.type === 'object' && fields.allOf === undefined && fields.anyOf === undefined && fields.oneOf === undefined && fields.$ref === undefined;
  if (plain && (properties === undefined || (typeof properties === 'object' && properties !== null))) return { ...fields, properties: { ...(properties as JsonSchema | undefined), ...files } };
  if (Object.keys(fields).length === 0) return { type: 'object', properties: files };
  return { allOf: [fields], type: 'object', properties: files };
}

/**
 * The part of multipart uploads in the OpenAPI document: the request body of an endpoint with
 * `fileFields`, its other media types as the document gives them.
 *
 * @example
 * multipartPart.requestBody!(upload, book, ['PhotoBody']); // { required: true, content: { 'multipart/form-data': { schema: { $ref: '#/components/schemas/PhotoUpload' }, encoding: { photo: { contentType: 'image/*' } } } } }
 */
export const multipartPart: OpenApiPart = {
  requestBody(endpoint, book, names) {
    const rules = rulesOf(endpoint);
    const key = endpoint.consumes.find((type) => type.toLowerCase() === MULTIPART);
    if (rules === undefined || key === undefined) return undefined;
    const { body } = endpoint;
    const others = requestBodyOf({ ...endpoint, consumes: endpoint.consumes.filter((type) => type !== key) }, () => (isStandardSchema(body) ? book.model(body, names) : {}));
    const schema = isStandardSchema(body)
      ? book.variant(
          body,
          names.map((name) => `${name.replace(/(Body|Patch)$/, '')}Upload`),
          (derived) => withFiles(derived, rules),
        )
      : withFiles({}, rules);
    const encoding = Object.fromEntries([...rules].map(([name, { types }]) => [name, { contentType: types.join(', ') }]));
    const content = others.content as JsonSchema;
    return { ...others, content: Object.fromEntries(endpoint.consumes.map((type) => [type, type === key ? { schema, encoding } : content[type]])) };
  },
};

/** The rules of an endpoint's `fileFields`, checked when its API was built; undefined without them. */
function rulesOf(endpoint: Endpoint): FileRules | undefined {
  const declared = (endpoint.conventions?.multipart as { fileFields?: unknown } | undefined)?.fileFields;
  if (declared === undefined || (!isStandardSchema(endpoint.body) && endpoint.body !== 'unvalidated')) return undefined;
  return fileRulesOf(declared, endpoint.body, Number.MAX_SAFE_INTEGER, `${endpoint.method} ${endpoint.path}`);
}
