/**
 * What the HTTP conventions of an endpoint add to its operation: a list's page, sort and filter
 * parameters and its page schema with `Link`; the precondition headers a request may send and the
 * validators a success carries; the merge patch a collection's update takes.
 */
import type { Endpoint } from '../core/endpoint.js';
import type { StandardSchema } from '../core/standard-schema.js';
import type { JsonSchema } from './schemas.js';

/** How a part of a request becomes a schema of the document (a `$ref` where it had to be a component). */
type Embed = (schema: StandardSchema, name: string) => JsonSchema;

const header = (description: string, schema: JsonSchema = { type: 'string' }): JsonSchema => ({ description, schema });

/**
 * The query parameters of a list's conventions: `limit` and `cursor` or `offset`, `sort`, and one
 * parameter per filter field.
 *
 * @example
 * listParameters(endpoint, embed, 'ListOrders'); // [{ name: 'limit', in: 'query', ... }, ...]
 */
export function listParameters(endpoint: Endpoint, embed: Embed, name: string): JsonSchema[] {
  const rules = endpoint.list?.rules;
  if (rules === undefined) return [];
  const parameters: JsonSchema[] = [];
  const { page, sort, filter } = rules;
  if (page !== undefined) {
    parameters.push({
      name: 'limit',
      in: 'query',
      required: false,
      description: `How many items a page holds; more than ${page.max} is a 400.`,
      schema: { type: 'integer', minimum: 1, maximum: page.max, default: page.limit },
    });
    parameters.push(
      page.by === 'cursor'
        ? { name: 'cursor', in: 'query', required: false, description: 'Where the page starts: the cursor of a `next` or `prev` link, as given. Any other value is a 400.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' } }
        : { name: 'offset', in: 'query', required: false, description: 'How many items to skip.', schema: { type: 'integer', minimum: 0, default: 0 } },
    );
  }
  if (sort !== undefined) {
    const fields = sort.flatMap((field) => [field, `-${field}`]).join('|');
    parameters.push({
      name: 'sort',
      in: 'query',
      required: false,
      description: `The order, by fields separated by commas, each ascending or with "-" descending: ${sort.join(', ')}. Any other field is a 400.`,
      schema: { type: 'string', pattern: `^(${fields.replace(/\./g, '\\.')})(,(${fields.replace(/\./g, '\\.')}))*$` },
    });
  }
  for (const [field, schema] of Object.entries(filter ?? {})) {
    parameters.push({ name: field, in: 'query', required: false, description: `Only the items whose ${field} is this value.`, schema: embed(schema, `${name}${field[0]!.toUpperCase()}${field.slice(1)}`) });
  }
  return parameters;
}

/**
 * The precondition headers an operation that loads its item evaluates before its handler runs.
 *
 * @example
 * preconditionParameters(endpoint); // [{ name: 'If-None-Match', in: 'header', ... }]
 */
export function preconditionParameters(endpoint: Endpoint): JsonSchema[] {
  const { validators, current, method } = endpoint;
  if (validators === undefined || current === undefined) return [];
  const byTag = validators.etag !== undefined;
  const byDate = validators.lastModified !== undefined;
  const parameter = (name: string, description: string): JsonSchema => ({ name, in: 'header', required: false, description, schema: { type: 'string' } });
  if (method === 'GET' || method === 'HEAD') {
    return [
      ...(byTag ? [parameter('If-None-Match', 'The ETag of the copy the client holds: 304 while it is current.')] : []),
      ...(byDate ? [parameter('If-Modified-Since', 'The Last-Modified of the copy the client holds: 304 when the item has not changed since.')] : []),
    ];
  }
  const required = current.requireCondition ? ' A change without If-Match or If-Unmodified-Since is a 428.' : '';
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
  const { validators, operation } = endpoint;
  if (validators === undefined || operation === 'remove' || operation === 'list' || operation === 'submit') return undefined;
  const headers: JsonSchema = {};
  if (validators.etag !== undefined) headers.ETag = header('The entity tag of the item: send it back in If-None-Match or If-Match.');
  if (validators.lastModified !== undefined && (!notModified || validators.etag === undefined)) {
    headers['Last-Modified'] = header('When the item last changed, an HTTP date.', { type: 'string' });
  }
  return Object.keys(headers).length === 0 ? undefined : headers;
}

/**
 * The body of a paged list: its items and the links of the pages around it.
 *
 * @example
 * pageSchema({ $ref: '#/components/schemas/Order' });
 */
export function pageSchema(item: JsonSchema): JsonSchema {
  const link = (which: string): JsonSchema => ({ type: ['string', 'null'], format: 'uri-reference', description: `The ${which} page, or null when there is none.` });
  return {
    type: 'object',
    required: ['items', 'next', 'prev'],
    properties: { items: { type: 'array', items: item }, next: link('next'), prev: link('previous') },
  };
}

/** The `Link` header of a page (RFC 8288). */
export const LINK_HEADER: JsonSchema = header('The pages around this one, as in the body: <url>; rel="next", <url>; rel="prev".');

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

/** A member's schema that also takes `null`; one that takes anything (`{}`, `true`) already does. */
function nullable(member: unknown): unknown {
  if (member === true || (isRecord(member) && Object.keys(member).length === 0)) return member;
  return { anyOf: [member, { type: 'null' }] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
