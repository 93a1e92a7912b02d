/**
 * The checks of a parsed body, from restcanon or from a framework's parser: keys that could pollute
 * prototypes, nesting, and, for a framework's, the size its JSON text must have had.
 */
import { BadRequestError, withoutStack } from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import { tooLarge } from './body.js';

/**
 * Checks a parsed body, from restcanon or from a framework's parser, for keys that could pollute
 * prototypes (`__proto__`, `constructor.prototype`), for an object whose prototype a parser already
 * replaced (a parser that assigned `obj["__proto__"] = {...}`), and for nesting deeper than `maxDepth`.
 * Given a `limit`, it also answers 413 for a parsed body whose JSON text cannot have fit in it, so
 * that a framework's body gets the same limit as a raw one. It walks with its own stack, so a body
 * nested thousands deep cannot overflow the call stack.
 *
 * @example
 * inspectBody(JSON.parse('{"__proto__":{"admin":true}}'), 64); // throws a 400
 */
export function inspectBody(value: unknown, maxDepth: number, limit = Infinity): void {
  if (limit === Infinity) {
    inspectObjects(value, maxDepth);
    return;
  }
  const pending: unknown[] = [value];
  const depths: number[] = [1];
  const measure = limit !== Infinity;
  let size = 0;
  while (pending.length > 0) {
    const current = pending.pop();
    const depth = depths.pop()!;
    if (measure) {
      size += jsonSizeFloor(current);
      if (size > limit) throw tooLarge(limit);
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth > maxDepth) throw tooDeep(maxDepth);
    if (Array.isArray(current)) {
      for (const item of current) {
        pending.push(item);
        depths.push(depth + 1);
      }
      continue;
    }
    if (hasPlantedPrototype(current)) throw forbiddenKey();
    for (const key of Object.keys(current)) {
      const child = (current as Record<string, unknown>)[key];
      if (key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))) {
        throw forbiddenKey();
      }
      pending.push(child);
      depths.push(depth + 1);
    }
  }
}

/**
 * {@link inspectBody} without a limit: the same checks in the same order, where values that are not
 * objects need no visit, so a body without nested objects is checked without a stack.
 */
function inspectObjects(value: unknown, maxDepth: number): void {
  if (typeof value !== 'object' || value === null) return;
  let pending: object[] | undefined;
  let depths: number[] | undefined;
  let current: object = value;
  let depth = 1;
  for (;;) {
    if (depth > maxDepth) throw tooDeep(maxDepth);
    if (Array.isArray(current)) {
      for (const item of current as unknown[]) {
        if (typeof item !== 'object' || item === null) continue;
        (pending ??= []).push(item);
        (depths ??= []).push(depth + 1);
      }
    } else {
      if (hasPlantedPrototype(current)) throw forbiddenKey();
      for (const key of Object.keys(current)) {
        const child = (current as Record<string, unknown>)[key];
        if (key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))) {
          throw forbiddenKey();
        }
        if (typeof child !== 'object' || child === null) continue;
        (pending ??= []).push(child);
        (depths ??= []).push(depth + 1);
      }
    }
    if (pending === undefined || pending.length === 0) return;
    current = pending.pop()!;
    depth = depths!.pop()!;
  }
}

function tooDeep(maxDepth: number): BadRequestError {
  return withoutStack(() => new BadRequestError(`The body nests deeper than ${maxDepth} levels`, { code: ERROR_CODES.TOO_DEEP }));
}

/**
 * A prototype that is neither `Object.prototype`, `null`, nor the prototype of a class (whose own
 * `constructor` points back to it; JSON cannot make a function): a plain object that some parser put
 * there from a `__proto__` key.
 */
function hasPlantedPrototype(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as { constructor?: unknown } | null;
  if (prototype === null || prototype === Object.prototype) return false;
  const owner = Object.getOwnPropertyDescriptor(prototype, 'constructor')?.value as { prototype?: unknown } | undefined;
  return typeof owner !== 'function' || owner.prototype !== prototype;
}

function forbiddenKey(): BadRequestError {
  return withoutStack(() => new BadRequestError('The body holds a key that is not allowed', { code: ERROR_CODES.FORBIDDEN_KEY }));
}

/**
 * The fewest bytes a value can take in JSON text, its children aside: strings in UTF-8 with quotes,
 * brackets and commas, keys with quotes and colon, and one byte for a number (`1e21` is shorter
 * than `String(1e21)`). Escapes and whitespace only add, so the sum never exceeds the real size.
 */
function jsonSizeFloor(value: unknown): number {
  if (typeof value === 'string') return utf8Length(value) + 2;
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (value === null || typeof value === 'number' || typeof value === 'bigint') return value === null ? 4 : 1;
  if (typeof value !== 'object') return 0;
  const keys = Array.isArray(value) ? undefined : Object.keys(value);
  const count = keys === undefined ? (value as unknown[]).length : keys.length;
  let size = 2 + Math.max(0, count - 1);
  if (keys !== undefined) for (const key of keys) size += utf8Length(key) + 3;
  return size;
}

/** The UTF-8 size of a string, without encoding it. A surrogate pair is 2 + 2 = 4 bytes. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    bytes += unit < 0x80 ? 1 : unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 2 : 3;
  }
  return bytes;
}
