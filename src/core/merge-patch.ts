/**
 * JSON Merge Patch (RFC 7396): a patch document applied to a target. An object patch changes the
 * members it names, `null` removes one; any other patch replaces the target whole.
 */

/** The media type of a JSON merge patch document. */
export const MERGE_PATCH_TYPE = 'application/merge-patch+json';

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
