/**
 * JSON pointers (RFC 6901) and reference objects: how a finding names its place, and how a rule
 * recognises a `$ref` it has to look through.
 */

/**
 * Whether a value is a reference object.
 *
 * @example
 * isRef({ $ref: '#/components/schemas/User' }); // true
 */
export function isRef(value: unknown): value is { $ref: string } {
  return typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string';
}

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * The JSON pointer of a path of keys, as RFC 6901 writes it.
 *
 * @example
 * pointerOf(['paths', '/users/{id}', 'get']); // '/paths/~1users~1{id}/get'
 */
export function pointerOf(keys: readonly string[]): string {
  return keys.map((key) => `/${escape(key)}`).join('');
}
