/**
 * What makes two requests under one key the same request, and where their key is kept: each a
 * SHA-256 digest, so that what the store holds has a fixed size and names neither the caller nor the
 * body.
 */

/**
 * A request's body as canonical JSON: object members sorted by name, no whitespace, bytes as their
 * hex digits. Read from the body as parsed, before any schema changes it, so that a retry whose
 * client writes the same JSON with other spacing or member order is the same request, and one that
 * changes any value is not.
 *
 * @example
 * canonicalBody({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 */
export function canonicalBody(value: unknown): string {
  if (value === undefined) return '';
  if (value instanceof Uint8Array) return `bytes:${hex(value)}`;
  return JSON.stringify(value, sorted) ?? '';
}

/** JSON.stringify's replacer: a plain object's members in the order of their names. */
function sorted(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  // No prototype: a member named `__proto__` stays a member.
  const ordered: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(value).sort()) ordered[name] = (value as Record<string, unknown>)[name];
  return ordered;
}

const ENCODER = new TextEncoder();

/**
 * The SHA-256 digest of the parts, in hex: the parts are written as a JSON array first, so that no
 * two lists of parts (`['a:b', 'c']` and `['a', 'b:c']`) give the same text.
 *
 * @example
 * await digestOf(['POST /orders', 'alice', 'k1']); // '5d41...'
 */
export async function digestOf(parts: readonly string[]): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', ENCODER.encode(JSON.stringify(parts)));
  return hex(new Uint8Array(digest));
}

function hex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}
