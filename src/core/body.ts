import { BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from './errors.js';
import { ERROR_CODES } from './error-codes.js';

/**
 * A body as bytes on the wire: a string, bytes, or chunks as a framework's stream gives them.
 * Any other value given as a request body is taken as already parsed by a framework.
 *
 * @example
 * const raw: RawBody = '{"name":"Ada"}';
 */
export type RawBody = string | Uint8Array | ArrayBuffer | AsyncIterable<Uint8Array | string>;

/** The media type of a request body, lower-cased, with its charset when one was given. */
export interface MediaType {
  type: string;
  charset: string | undefined;
}

/** How the pipeline reads the body of one endpoint. */
export interface BodyRules {
  /** Largest body in bytes. */
  limit: number;
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** Media types the endpoint accepts; `application/json` also admits every `+json` type. */
  consumes: ReadonlySet<string>;
  /** The `Accept-Post` or `Accept-Patch` header sent with a 415, if the method has one. */
  acceptHeader: { name: string; value: string } | undefined;
}

/**
 * Whether a request body is raw (to be read and parsed) rather than parsed by a framework.
 *
 * @example
 * isRawBody('{}'); // true
 * isRawBody({}); // false
 */
export function isRawBody(body: unknown): body is RawBody {
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer) return true;
  return typeof body === 'object' && body !== null && typeof (body as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

const WHITESPACE = /^[ \t]+|[ \t]+$/g;

/**
 * Parses a `Content-Type` value. Casing, spaces, tabs and parameters are normalized, so none of them
 * can slip past a check. Returns undefined for a value with no `type/subtype`.
 *
 * @example
 * parseMediaType('Application/JSON ;\tcharset="UTF-8"'); // { type: 'application/json', charset: 'utf-8' }
 */
export function parseMediaType(header: string): MediaType | undefined {
  const parts = header.split(';');
  const type = parts[0]!.replace(WHITESPACE, '').toLowerCase();
  const slash = type.indexOf('/');
  if (slash <= 0 || slash === type.length - 1 || /[\s,"]/.test(type)) return undefined;
  let charset: string | undefined;
  for (let index = 1; index < parts.length; index++) {
    const parameter = parts[index]!;
    const equals = parameter.indexOf('=');
    if (equals === -1) continue;
    if (parameter.slice(0, equals).replace(WHITESPACE, '').toLowerCase() !== 'charset') continue;
    charset = parameter.slice(equals + 1).replace(WHITESPACE, '').replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return { type, charset };
}

/**
 * Checks a body's media type against what the endpoint consumes: 415 (with `Accept-Post` or
 * `Accept-Patch`) for another type or a charset other than UTF-8. Returns the accepted type.
 *
 * @example
 * checkMediaType('application/merge-patch+json', rules); // 'application/json'
 */
export function checkMediaType(header: string | undefined, rules: BodyRules): 'application/json' | string {
  const media = header === undefined ? undefined : parseMediaType(header);
  if (media === undefined) throw unsupported(rules, 'The body needs a Content-Type');
  if (media.charset !== undefined && media.charset !== 'utf-8' && media.charset !== 'utf8') {
    throw unsupported(rules, 'The body must be encoded as UTF-8');
  }
  if (rules.consumes.has(media.type)) return media.type;
  if (media.type.endsWith('+json') && rules.consumes.has('application/json')) return 'application/json';
  throw unsupported(rules, `Send one of: ${[...rules.consumes].join(', ')}`);
}

function unsupported(rules: BodyRules, detail: string): UnsupportedMediaTypeError {
  const headers = rules.acceptHeader === undefined ? {} : { [rules.acceptHeader.name]: rules.acceptHeader.value };
  return new UnsupportedMediaTypeError(detail, { headers });
}

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The body is larger than ${limit} bytes`);
}

const encoder = new TextEncoder();

/**
 * Reads a raw body into text, counting bytes as they arrive: past `limit` it throws 413 at once and
 * stops reading, so a huge body never sits in memory. Bytes that are not UTF-8 are a 400.
 *
 * @example
 * await readBody('{"a":1}', 1024); // '{"a":1}'
 */
export async function readBody(body: RawBody, limit: number): Promise<string> {
  if (typeof body === 'string') {
    // A UTF-16 unit is at most 3 UTF-8 bytes, so short strings need no encoding to be measured.
    if (body.length * 3 > limit && encoder.encode(body).byteLength > limit) throw tooLarge(limit);
    return body;
  }
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    if (body.byteLength > limit) throw tooLarge(limit);
    return decode(decoder, body, false);
  }
  let total = 0;
  let text = '';
  for await (const chunk of body) {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    total += bytes.byteLength;
    if (total > limit) throw tooLarge(limit);
    text += decode(decoder, bytes, true);
  }
  return text + decode(decoder, new Uint8Array(0), false);
}

function decode(decoder: TextDecoder, bytes: Uint8Array | ArrayBuffer, stream: boolean): string {
  try {
    return decoder.decode(bytes, { stream });
  } catch {
    throw new BadRequestError('The body is not valid UTF-8', { code: ERROR_CODES.MALFORMED_BODY });
  }
}

/**
 * Parses a body's text by its media type: JSON for `application/json` (and `+json`), the text itself
 * for anything else the endpoint consumes. Malformed JSON is a 400 that does not quote the input.
 *
 * @example
 * parseBodyText('{"a":1}', 'application/json'); // { a: 1 }
 */
export function parseBodyText(text: string, type: string): unknown {
  if (type !== 'application/json') return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError('The body is not valid JSON', { code: ERROR_CODES.MALFORMED_BODY });
  }
}

/**
 * Checks a parsed body, from restcanon or from a framework's parser, for keys that could pollute
 * prototypes (`__proto__`, `constructor.prototype`) and for nesting deeper than `maxDepth`.
 *
 * @example
 * inspectBody(JSON.parse('{"__proto__":{"admin":true}}'), 64); // throws a 400
 */
export function inspectBody(value: unknown, maxDepth: number): void {
  inspect(value, 1, maxDepth);
}

function inspect(value: unknown, depth: number, maxDepth: number): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth > maxDepth) {
    throw new BadRequestError(`The body nests deeper than ${maxDepth} levels`, { code: ERROR_CODES.TOO_DEEP });
  }
  if (Array.isArray(value)) {
    for (const item of value) inspect(item, depth + 1, maxDepth);
    return;
  }
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (key === '__proto__' || (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))) {
      throw new BadRequestError('The body holds a key that is not allowed', { code: ERROR_CODES.FORBIDDEN_KEY });
    }
    inspect(child, depth + 1, maxDepth);
  }
}
