/**
 * JSON Merge Patch (RFC 7396): a patch document applied to a target. An object patch changes the
 * members it names, `null` removes one; any other patch replaces the target whole.
 */
import { compileWritable, type Projection } from '../../core/projection.js';
import type { StandardSchema } from '../../core/standard-schema.js';

export { MERGE_PATCH_TYPE } from '../../core/body.js';

/**
 * The target with the patch applied, as RFC 7396 section 2 defines it. The target is not changed: the
 * result shares the members the patch leaves alone.
 *
 * @example
 * mergePatch({ a: 'b', c: { d: 'e', f: 'g' } }, { a: 'z', c: { f: null } }); // { a: 'z', c: { d: 'e' } }
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const name of Object.keys(patch)) {
    const value = patch[name];
    if (value === null) delete result[name];
    // Defined, not assigned: a member named `__proto__` (JSON.parse makes one) is a member, not the prototype.
    else Object.defineProperty(result, name, { value: mergePatch(Object.hasOwn(result, name) ? result[name] : undefined, value), writable: true, enumerable: true, configurable: true });
  }
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a merged item keeps before its schema checks it: the members the schema names, and nothing
 * else of the item (its `id`, its owner) or of the patch, whatever the schema does with other keys.
 * A schema without a JSON Schema names no members that restcanon can read, so a merge checked by it
 * throws a `TypeError` when the API is built: it would pass the item's own fields through a loose
 * schema, and refuse every patch under a strict one. It walks as deep as a body may nest (`maxDepth`).
 *
 * @example
 * const writable = writableOf(z.looseObject({ title: z.string() }), 'PATCH /posts/:id', 64);
 * writable({ id: 1, ownerId: 2, title: 'x' }); // { title: 'x' }
 */
export function writableOf(schema: StandardSchema, where: string, maxDepth: number): Projection {
  const writable = compileWritable(schema, maxDepth);
  if (writable !== undefined) return writable;
  throw new TypeError(`${where}: "update" with "merge" needs a body schema with a JSON Schema, to name what a client may write (valibot: toStandardJsonSchema())`);
}
