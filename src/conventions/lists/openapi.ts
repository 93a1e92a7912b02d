import type { Endpoint } from '../../core/endpoint.js';
import type { StandardSchema } from '../../core/standard-schema.js';
import type { OpenApiPart } from '../../openapi/part.js';
import type { JsonSchema } from '../../openapi/schemas.js';
import type { ListRules } from './lists.js';

/**
 * The part of a list in the OpenAPI document: its page, sort and filter parameters, its page schema
 * and its `Link` header.
 */

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
  const rules = endpoint.conventions?.lists as ListRules | undefined;
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
const LINK_HEADER: JsonSchema = header('The pages around this one, as in the body: <url>; rel="next", <url>; rel="prev".');

/**
 * The part of lists in the OpenAPI document.
 *
 * @example
 * listsPart.headers!(pagedList, 'list'); // { Link: { ... } }
 */
export const listsPart: OpenApiPart = {
  parameters: (endpoint, book, name) => listParameters(endpoint, book.embed, name),
  headers: (endpoint, outcome) => (outcome === 'list' && (endpoint.conventions?.lists as ListRules | undefined)?.page !== undefined ? { Link: LINK_HEADER } : undefined),
  page: pageSchema,
};
