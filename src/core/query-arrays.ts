/**
 * One rule for arrays in a query, which the server and `restcanon/client` share: a key given once
 * (`?tag=a`) reaches a schema that takes only arrays there as a one-element array (`['a']`), as the
 * same key given twice (`?tag=a&tag=b`) reaches it as two. Which keys take only arrays is read once,
 * when the endpoint is built, from the schema's own JSON Schema (Standard JSON Schema), never guessed
 * from a failed validation.
 */
import type { Step } from './exchange.js';
import { jsonSchemaOf, type StandardSchema } from './standard-schema.js';

/** Options that let zod, valibot and arktype describe what they can of a schema with a part that has no JSON Schema (a transform). */
const TOLERANT = { unrepresentable: 'any', errorMode: 'ignore', fallback: (context: { base: unknown }) => context.base };

type Node = Record<string, unknown>;

/**
 * Whether a schema takes arrays and nothing else (`null` aside): `z.array(z.string())`, its
 * optional or nullable forms, a union of arrays. A schema that also takes a string takes `?tag=a`
 * as it is.
 *
 * @example
 * takesOnlyArrays(z.array(z.string()).optional()); // true
 * takesOnlyArrays(z.union([z.string(), z.array(z.string())])); // false
 */
export function takesOnlyArrays(schema: StandardSchema): boolean {
  return onlyArrays(jsonSchemaOf(schema, 'draft-2020-12') ?? jsonSchemaOf(schema, 'draft-2020-12', TOLERANT));
}

function onlyArrays(node: unknown, depth = 0): boolean {
  if (typeof node !== 'object' || node === null || depth > 8) return false;
  const { type, anyOf, oneOf } = node as Node;
  if (type === 'array') return true;
  if (Array.isArray(type)) return type.includes('array') && type.every((one) => one === 'array' || one === 'null');
  const branches = anyOf ?? oneOf;
  if (type !== undefined || !Array.isArray(branches)) return false;
  const kept = branches.filter((branch) => (branch as Node | null)?.type !== 'null');
  return kept.length > 0 && kept.every((branch) => onlyArrays(branch, depth + 1));
}

/**
 * The keys of an object schema (a query's, a form's) that take only arrays.
 *
 * @example
 * arrayKeys(z.object({ tag: z.array(z.string()), name: z.string() })); // ['tag']
 */
export function arrayKeys(schema: StandardSchema): string[] {
  const json = jsonSchemaOf(schema, 'draft-2020-12') ?? jsonSchemaOf(schema, 'draft-2020-12', TOLERANT);
  const properties = json?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.keys(properties).filter((key) => onlyArrays((properties as Node)[key]));
}

/**
 * The keys of an object schema's properties (a form's fields), read from its JSON Schema; none for a
 * schema that has no properties to read.
 *
 * @example
 * propertyKeys(z.object({ title: z.string(), tags: z.array(z.string()) })); // ['title', 'tags']
 */
export function propertyKeys(schema: StandardSchema): string[] {
  const json = jsonSchemaOf(schema, 'draft-2020-12') ?? jsonSchemaOf(schema, 'draft-2020-12', TOLERANT);
  const properties = json?.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/**
 * The step that puts a single value of an array key into a one-element array, before the query
 * schema sees it; undefined when the schema has no such key, so that its endpoints pay nothing.
 *
 * @example
 * const step = singleValuesAsArrays(z.object({ tag: z.array(z.string()) })); // ?tag=a reaches the schema as { tag: ['a'] }
 */
export function singleValuesAsArrays(schema: StandardSchema): Step | undefined {
  const keys = arrayKeys(schema);
  if (keys.length === 0) return undefined;
  return (exchange) => {
    // The query record is this request's own, parsed for it: changed in place.
    const query = exchange.ctx.query as Record<string, unknown> | undefined;
    if (query !== undefined) for (const key of keys) if (typeof query[key] === 'string') query[key] = [query[key]];
    return undefined;
  };
}
