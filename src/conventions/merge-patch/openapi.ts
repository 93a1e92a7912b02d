import type { OpenApiPart } from '../../openapi/part.js';
import type { JsonSchema } from '../../openapi/schemas.js';
import type { MergePatchDeclaration } from './index.js';

/** The part of merge patches in the OpenAPI document: the patch's schema, and the body of an update that takes one. */

/**
 * The JSON merge patch (RFC 7396) of an item, from the schema the merged item must pass (what a
 * client may write): each of its members, none required, and `null` for the optional ones, which a
 * patch removes; as `restcanon/client` types the patch. A required member is not nullable: removing
 * it leaves an invalid item, a 400. A schema without members to read (a union, one that has no JSON
 * Schema) gives any object.
 *
 * @example
 * mergePatchSchema({ type: 'object', required: ['name'], properties: { name: { type: 'string' }, bio: { type: 'string' } } });
 * // { type: 'object', description: ..., properties: { name: { type: 'string' }, bio: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }
 */
export function mergePatchSchema(written: JsonSchema): JsonSchema {
  const schema: JsonSchema = {
    type: 'object',
    description: 'A JSON merge patch (RFC 7396) of the item: the members to change, null to remove an optional one. The item it makes must be valid as a whole.',
  };
  const members = isRecord(written.properties) ? written.properties : undefined;
  if (members !== undefined) {
    const required = new Set(Array.isArray(written.required) ? written.required : []);
    schema.properties = Object.fromEntries(Object.entries(members).map(([name, member]) => [name, required.has(name) ? member : nullable(member)]));
  }
  return schema;
}

/**
 * The request body of an update that takes a JSON merge patch: the patch's schema (a `$ref` to it)
 * in each media type it consumes.
 *
 * @example
 * mergePatchBody(['application/merge-patch+json', 'application/json'], { $ref: '#/components/schemas/UserPatch' });
 */
export function mergePatchBody(consumes: readonly string[], schema: JsonSchema): JsonSchema {
  return { required: true, content: Object.fromEntries(consumes.map((type) => [type, { schema }])) };
}

/**
 * The part of merge patches in the OpenAPI document: an update that takes one documents the patch
 * of its schema as its body, a component of its own.
 *
 * @example
 * mergePatchPart.requestBody!(updateUser, book, ['UserPatch']); // { required: true, content: { 'application/merge-patch+json': ... } }
 */
export const mergePatchPart: OpenApiPart = {
  requestBody(endpoint, book, names) {
    const merge = endpoint.conventions?.mergePatch as MergePatchDeclaration | undefined;
    return merge === undefined ? undefined : mergePatchBody(endpoint.consumes, book.variant(merge.schema, names, mergePatchSchema));
  },
};

/** A member's schema that also takes `null`; one that takes anything (`{}`, `true`) already does. */
function nullable(member: unknown): unknown {
  if (member === true || (isRecord(member) && Object.keys(member).length === 0)) return member;
  return { anyOf: [member, { type: 'null' }] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
