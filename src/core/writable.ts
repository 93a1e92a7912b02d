/**
 * What can go on the wire: a value a format can write as data, and a payload a serializer may give.
 * JSON turns a stream into `{"_events":...}`, bytes into `{"0":1,...}` and a promise into `{}`, and
 * sends them under a 2xx; these checks turn such a value into an error instead, which the answer
 * masks as a 500 and reports.
 */

const OBJECT_PROTOTYPE = Object.prototype;
const ARRAY_PROTOTYPE = Array.prototype;

/**
 * How deep the check looks. Deeper than this a value is left to its format; JSON.stringify itself
 * runs out of stack a few thousand levels down.
 */
const MAX_DEPTH = 1000;

/**
 * Why no format can write a value as data, or undefined when one can: bytes (`Uint8Array`, `Buffer`,
 * `ArrayBuffer`, `Blob`), a stream (a Node stream, a `ReadableStream`, an async iterable), a
 * promise, a function or a symbol, a `Map`, `Set`, `WeakMap` or `WeakSet` (which JSON writes as `{}`),
 * in the value or anywhere in it. The reason names it, says where it is and what to do. Plain objects
 * and arrays cost a `typeof` per member and a prototype lookup per object; only an object of another
 * class is looked at more closely. Each object is looked at once, however often the value holds it:
 * an object that holds itself twice is no walk of 2^depth steps, and its format refuses the cycle.
 *
 * @example
 * whyUnwritable({ user: loadUser() }); // 'holds a promise at #/user: await it'
 */
export function whyUnwritable(value: unknown): string | undefined {
  if (isFlatData(value)) return undefined;
  // No set of seen objects for a string, a number or null: most results of a write are one.
  const found = typeof value === 'object' && value !== null ? unwritable(value, 0, new Set()) : unwritable(value, 0, NOTHING_SEEN);
  if (found === undefined) return undefined;
  const [kind, pointer] = found;
  const advice = kind === 'a promise' ? 'await it' : kind === 'a function' || kind === 'a symbol' ? 'no format can write it' : kind === COLLECTION ? 'JSON writes it as {}; give an object or an array' : "bytes and streams go out only as the whole result, under a type the endpoint sends them as: declare the media type in the endpoint's `produces` (such as produces: ['application/octet-stream']), or give data";
  return `${pointer === '' ? 'is' : 'holds'} ${kind}${pointer === '' ? '' : ` at #${pointer}`}: ${advice}`;
}

/**
 * Whether a value is a plain object whose members are all primitives a format can write (an item of
 * strings and numbers, the most common result): it holds nothing to look into, and needs no set of
 * seen objects. Anything else is looked at member by member.
 */
function isFlatData(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== OBJECT_PROTOTYPE && prototype !== null) return false;
  for (const key in value) {
    const member: unknown = (value as Record<string, unknown>)[key];
    const type = typeof member;
    if ((type === 'object' && member !== null) || type === 'function' || type === 'symbol') return false;
  }
  return true;
}

/** The seen objects of a value that is no object: never read. */
const NOTHING_SEEN: Set<object> = new Set();

/** What no format can write, and where: its kind and a JSON Pointer, `''` for the value itself. */
type Found = [kind: string, pointer: string];

function unwritable(value: unknown, depth: number, seen: Set<object>): Found | undefined {
  const type = typeof value;
  if (type === 'function' || type === 'symbol') return [`a ${type}`, ''];
  if (type !== 'object' || value === null) return undefined;
  // Looked at before and found writable: a shared or cyclic member, looked at once.
  if (seen.has(value as object)) return undefined;
  const prototype: unknown = Object.getPrototypeOf(value);
  const plain = prototype === OBJECT_PROTOTYPE || prototype === null;
  if (!plain && prototype !== ARRAY_PROTOTYPE) {
    if (value instanceof Date) return undefined;
    const kind = kindOf(value as Record<PropertyKey, unknown>);
    if (kind !== undefined) return [kind, ''];
    // A class of the user's with toJSON: the format writes what toJSON gives.
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  }
  if (depth === MAX_DEPTH) return undefined;
  seen.add(value as object);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = memberOf(value[index], depth, seen);
      if (found !== undefined) return within(found, String(index));
    }
  } else if (plain) {
    // for...in, without the array of keys Object.keys makes; a key it inherits is no member.
    for (const key in value) {
      const found = memberOf((value as Record<string, unknown>)[key], depth, seen);
      if (found !== undefined && Object.hasOwn(value, key)) return within(found, key);
    }
  } else {
    for (const key of Object.keys(value as object)) {
      const found = memberOf((value as Record<string, unknown>)[key], depth, seen);
      if (found !== undefined) return within(found, key);
    }
  }
  return undefined;
}

/** A member: primitives, the most of any result, without a call. */
function memberOf(member: unknown, depth: number, seen: Set<object>): Found | undefined {
  const type = typeof member;
  return type === 'object' || type === 'function' || type === 'symbol' ? unwritable(member, depth + 1, seen) : undefined;
}

function within(found: Found, key: string): Found {
  found[1] = `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}${found[1]}`;
  return found;
}

const COLLECTION = 'a Map or Set';

/** Bytes, a stream, a promise or a keyed collection: the objects JSON would write as junk. */
function kindOf(value: Record<PropertyKey, unknown>): string | undefined {
  if (typeof value.then === 'function') return 'a promise';
  // A class of the user's may extend Map and say with toJSON how it is written.
  if ((value instanceof Map || value instanceof Set || value instanceof WeakMap || value instanceof WeakSet) && typeof value.toJSON !== 'function') return COLLECTION;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer) || (typeof Blob === 'function' && value instanceof Blob)) return 'bytes';
  if (typeof value.getReader === 'function' || typeof value.pipe === 'function' || typeof value[Symbol.asyncIterator] === 'function') return 'a stream';
  return undefined;
}

/**
 * A serializer's output as an adapter can write it: a string, or a `Uint8Array` (a copy when its
 * memory is shared, which not every adapter can send). Anything else throws a `TypeError` that
 * names the serializer by its media type.
 *
 * @example
 * payloadOf(csv.serialize(rows), 'text/csv'); // the string; a number throws: The text/csv serializer gave a number; ...
 */
export function payloadOf(payload: unknown, mediaType: string): string | Uint8Array {
  if (typeof payload === 'string') return payload;
  if (payload instanceof Uint8Array) return payload.buffer instanceof ArrayBuffer ? payload : new Uint8Array(payload);
  const what = payload === null ? 'null' : typeof payload === 'object' ? 'an object that is no Uint8Array' : `a ${typeof payload}`;
  throw new TypeError(`The ${mediaType} serializer gave ${what}; give a string or a Uint8Array`);
}
