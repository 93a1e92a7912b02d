/**
 * What can go on the wire: a value a format can write as data, and a payload a serializer may give.
 * JSON turns a stream into `{"_events":...}`, bytes into `{"0":1,...}` and a promise into `{}`, and
 * sends them under a 2xx; these checks turn such a value into an error instead, which the answer
 * masks as a 500 and reports.
 */

const OBJECT_PROTOTYPE = Object.prototype;
const ARRAY_PROTOTYPE = Array.prototype;

/** How deep the check looks. Deeper than this a value is left to its format, which refuses a cycle. */
const MAX_DEPTH = 64;

const STREAMS = 'bytes and streams are not supported yet; return data a format can write, such as an object, an array or a string';

/** A value no format can write, and where it is. */
interface Unwritable {
  /** A JSON Pointer into the value, `''` for the value itself. */
  pointer: string;
  kind: string;
  advice: string;
}

/**
 * Why no format can write a value as data, or undefined when one can: bytes (`Uint8Array`, `Buffer`,
 * `ArrayBuffer`, `Blob`), a stream (a Node stream, a `ReadableStream`, an async iterable), a
 * promise, a function or a symbol, in the value or anywhere in it. The reason names it, says where
 * it is and what to do. Plain objects and arrays cost a `typeof` per member and a prototype lookup
 * per object; only an object of another class is looked at more closely.
 *
 * @example
 * whyUnwritable({ user: loadUser() }); // 'holds a promise at #/user: await it before returning it'
 */
export function whyUnwritable(value: unknown): string | undefined {
  const found = unwritable(value, 0);
  if (found === undefined) return undefined;
  return `${found.pointer === '' ? `is ${found.kind}` : `holds ${found.kind} at #${found.pointer}`}: ${found.advice}`;
}

function unwritable(value: unknown, depth: number): Unwritable | undefined {
  const type = typeof value;
  if (type === 'function') return { pointer: '', kind: 'a function', advice: 'no format can write it; leave it out, or call it' };
  if (type === 'symbol') return { pointer: '', kind: 'a symbol', advice: 'no format can write it; leave it out, or give its description' };
  if (type !== 'object' || value === null) return undefined;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== OBJECT_PROTOTYPE && prototype !== ARRAY_PROTOTYPE && prototype !== null) {
    if (value instanceof Date) return undefined;
    const kind = kindOf(value as Record<PropertyKey, unknown>);
    if (kind !== undefined) return kind;
    // A class of the user's with toJSON: the format writes what toJSON gives.
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  }
  if (depth === MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = memberOf(value[index], depth);
      if (found !== undefined) return within(found, String(index));
    }
    return undefined;
  }
  const keys = Object.keys(value as object);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const found = memberOf((value as Record<string, unknown>)[key], depth);
    if (found !== undefined) return within(found, key);
  }
  return undefined;
}

/** A member: primitives, the most of any result, without a call. */
function memberOf(member: unknown, depth: number): Unwritable | undefined {
  const type = typeof member;
  if (type !== 'object' && type !== 'function' && type !== 'symbol') return undefined;
  return unwritable(member, depth + 1);
}

function within(found: Unwritable, key: string): Unwritable {
  found.pointer = `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}${found.pointer}`;
  return found;
}

/** Bytes, a stream or a promise: the objects JSON would write as junk. */
function kindOf(value: Record<PropertyKey, unknown>): Unwritable | undefined {
  if (typeof value.then === 'function') return { pointer: '', kind: 'a promise', advice: 'await it before returning it' };
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer)) {
    return { pointer: '', kind: 'bytes', advice: STREAMS };
  }
  if (typeof Blob === 'function' && value instanceof Blob) return { pointer: '', kind: 'a Blob', advice: STREAMS };
  if (typeof value.getReader === 'function') return { pointer: '', kind: 'a ReadableStream', advice: STREAMS };
  if (typeof value.pipe === 'function') return { pointer: '', kind: 'a Node stream', advice: STREAMS };
  if (typeof value[Symbol.asyncIterator] === 'function') return { pointer: '', kind: 'an async iterable', advice: STREAMS };
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
