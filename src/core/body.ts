import type { HeaderRecord } from './contract.js';
import { BadRequestError, isHttpError, PayloadTooLargeError, UnsupportedMediaTypeError, withoutStack } from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import { parseMediaType } from './media-type.js';
import { remember } from './memo.js';

/**
 * A body as bytes on the wire: a string, bytes, or chunks as a framework's stream gives them.
 * Any other value given as a request body is taken as already parsed by a framework.
 *
 * @example
 * const raw: RawBody = '{"name":"Ada"}';
 */
export type RawBody = string | Uint8Array | ArrayBuffer | AsyncIterable<Uint8Array | string>;

/**
 * The key of a raw body's own way to give its bytes at once when they are all in memory already (an
 * adapter's stream whose buffer holds the whole body): it returns them, or undefined when they have
 * not all arrived, and the body is then read as the iterable it is.
 *
 * @example
 * const body = { [TAKE_WHOLE]: () => bytes, [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator]() };
 */
export const TAKE_WHOLE: unique symbol = Symbol('restcanon.takeWhole');

/**
 * A raw body that can give its bytes at once (see {@link TAKE_WHOLE}).
 *
 * @example
 * const whole = (body as WholeBody)[TAKE_WHOLE]?.();
 */
export interface WholeBody {
  [TAKE_WHOLE]?(): Uint8Array | undefined;
}

/**
 * The bytes of a raw body that is whole in memory already, taken without waiting; undefined for any
 * other body, which is read as it comes.
 *
 * @example
 * const bytes = takeWhole(body); // Uint8Array, or undefined
 */
export function takeWhole(body: RawBody): Uint8Array | undefined {
  return typeof body === 'object' && !(body instanceof Uint8Array) && !(body instanceof ArrayBuffer) ? (body as WholeBody)[TAKE_WHOLE]?.() : undefined;
}

/**
 * How the pipeline reads the body of one endpoint.
 *
 * @example
 * const rules: BodyRules = {
 *   limit: 1024 * 1024,
 *   maxDepth: 64,
 *   consumes: new Set(['application/json']),
 *   ranges: [],
 *   acceptHeader: { name: 'accept-post', value: 'application/json' },
 *   reading: 'parse',
 *   readers: undefined,
 * };
 */
export interface BodyRules {
  /** Largest body in bytes. */
  limit: number;
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** Media types the endpoint accepts; `application/json` also admits every `+json` type. */
  consumes: ReadonlySet<string>;
  /** The ranges among them, as the prefix a type starts with: `image/` for `image/*`, `''` for `*\/*`. */
  ranges?: readonly string[] | undefined;
  /** The `Accept-Post` or `Accept-Patch` header sent with a 415, if the method has one. */
  acceptHeader: { name: string; value: string } | undefined;
  /** `'parse'` by media type, `'bytes'` whatever the type, or `'stream'`: handed to the handler unread. */
  reading?: 'parse' | 'bytes' | 'stream' | undefined;
  /** The steps of the API's modules that read a media type themselves (a form, `multipart/form-data`), by type. */
  readers?: ReadonlyMap<string, BodyReader> | undefined;
}

/**
 * A step of a module that reads a media type itself (a seam's `readers`), as the body's rules keep
 * it: it takes the request's exchange, which this file does not name.
 *
 * @example
 * const reader: BodyReader = readParts as BodyReader;
 */
export type BodyReader = (exchange: never) => Promise<unknown> | undefined;

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

/** What a body's reading needs of a `Content-Type`: its `type/subtype` and its charset, lower-cased. */
interface BodyType {
  type: string;
  charset: string | undefined;
}

/**
 * Parsed `Content-Type` values, bounded: clients send the same few over and over. Only what the
 * reading needs is kept: a value's parameters may take many times its size as a map.
 */
const BODY_TYPES = new Map<string, BodyType | undefined>();

function bodyTypeOf(header: string): BodyType | undefined {
  const media = parseMediaType(header);
  return media === undefined ? undefined : { type: media.essence, charset: media.parameters.get('charset')?.toLowerCase() };
}

/**
 * Checks a body's media type against what the endpoint consumes: 415 (with `Accept-Post` or
 * `Accept-Patch`) for no `Content-Type`, one that is not a media type by the grammar of RFC 9110
 * (see {@link parseMediaType}), another type, or a charset other than UTF-8. Returns the accepted type.
 *
 * @example
 * checkMediaType('application/merge-patch+json', rules); // 'application/json'
 */
export function checkMediaType(header: string | undefined, rules: BodyRules): 'application/json' | string {
  if (header === undefined) throw unsupported(rules, 'The body needs a Content-Type');
  const media = remember(BODY_TYPES, header, bodyTypeOf, undefined);
  if (media === undefined) throw unsupported(rules, 'The Content-Type is malformed');
  const { type, charset } = media;
  const accepted = acceptedType(type, rules);
  if (accepted === undefined) throw unsupported(rules, `Send one of: ${[...rules.consumes].join(', ')}`);
  // Bytes have no charset to honour; text, JSON and forms are read as UTF-8 and nothing else.
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && isTextual(accepted)) throw unsupported(rules, 'The body must be encoded as UTF-8');
  return accepted;
}

function acceptedType(type: string, rules: BodyRules): string | undefined {
  // A merge patch is JSON to read; what it means is the endpoint's (a collection's update applies it).
  if (rules.consumes.has(type)) return type === MERGE_PATCH_TYPE ? 'application/json' : type;
  // A JSON patch is a list of operations, no JSON body of the item: taken only where declared.
  if (type.endsWith('+json') && type !== JSON_PATCH_TYPE && rules.consumes.has('application/json')) return 'application/json';
  for (const prefix of rules.ranges ?? []) if (type.startsWith(prefix)) return type.endsWith('+json') && type !== JSON_PATCH_TYPE ? 'application/json' : type;
  return undefined;
}

/** The media type of a urlencoded form: text, read into a record by the `forms` convention. */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Whether a body of an accepted type is text to decode as UTF-8 (JSON, `text/*`, a form) rather than
 * bytes handed over as they came.
 *
 * @example
 * isTextual('text/csv'); // true
 * isTextual('image/png'); // false
 */
export function isTextual(type: string): boolean {
  return type === 'application/json' || type === FORM_TYPE || type.startsWith('text/');
}

/** The media type of a JSON merge patch (RFC 7396), JSON to read wherever an endpoint takes it. */
export const MERGE_PATCH_TYPE = 'application/merge-patch+json';

/** The media type of a JSON patch (RFC 6902). */
const JSON_PATCH_TYPE = 'application/json-patch+json';

function unsupported(rules: BodyRules, detail: string): UnsupportedMediaTypeError {
  const headers = rules.acceptHeader === undefined ? {} : { [rules.acceptHeader.name]: rules.acceptHeader.value };
  return withoutStack(() => new UnsupportedMediaTypeError(detail, { headers }));
}

/**
 * The 413 of a body larger than `limit` bytes, without a stack: an ordinary answer.
 *
 * @example
 * throw tooLarge(1024);
 */
export function tooLarge(limit: number): PayloadTooLargeError {
  return withoutStack(() => new PayloadTooLargeError(`The body is larger than ${limit} bytes`));
}

/**
 * Refuses a body whose `Content-Length` already says it is too large, before a byte is read. A value
 * that is not a whole number is left to the reading, which counts the real bytes.
 *
 * @example
 * checkContentLength('5000000000', 1024 * 1024); // throws a 413
 */
export function checkContentLength(header: string | undefined, limit: number): void {
  const length = declaredLength(header);
  if (length !== undefined && length > limit) throw tooLarge(limit);
}

/**
 * The length a `Content-Length` value declares, or undefined for none or one that is not a whole
 * number (`00` is 0, as RFC 9110 reads it).
 *
 * @example
 * declaredLength(' 42 '); // 42
 */
export function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  // Digits alone, as Node passes a value it has checked, need no pattern.
  if (isDigits(header)) return Number(header);
  return !/^\s*\d+\s*$/.test(header) ? undefined : Number(header);
}

function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/**
 * How much of a body the API answered without reading to its end (a 401, 413 or 415, a deadline, a
 * GET) an adapter reads and drops before it closes the connection instead: enough for the client to
 * finish sending and see the answer, not so much that a client that keeps sending holds the server.
 */
export const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * What an adapter does with a body the API answered without reading to its end, by what the request's
 * headers announce: `'none'` when they announce no body; `'close'` when they declare a
 * `Content-Length` over {@link DRAIN_LIMIT}: the answer closes the connection and the body is left
 * unread, as a drain would only be cut off at the bound; otherwise `'drain'`: read and drop up to
 * `DRAIN_LIMIT` (a chunked body, whose length nobody knows, is cut off there), so that the client
 * can finish sending, see the answer and keep the connection.
 *
 * @example
 * unreadBodyFate({ 'content-length': '10000000000' }); // 'close'
 * unreadBodyFate({ 'transfer-encoding': 'chunked' }); // 'drain'
 */
export function unreadBodyFate(headers: HeaderRecord): 'none' | 'drain' | 'close' {
  const length = headers['content-length'];
  const declared = typeof length === 'string' ? declaredLength(length) : undefined;
  // A length that is no whole number announces a body all the same: it is drained, within the bound.
  if (declared === undefined) return length === undefined && headers['transfer-encoding'] === undefined ? 'none' : 'drain';
  return declared === 0 ? 'none' : declared > DRAIN_LIMIT ? 'close' : 'drain';
}

const encoder = new TextEncoder();
const BYTE_ORDER_MARK = 0xfeff;

/**
 * Reads a raw body into text, counting bytes as they arrive: past `limit` it throws 413 at once and
 * stops reading, so a huge body never sits in memory. Bytes that are not UTF-8 are a 400.
 *
 * @example
 * await readBody('{"a":1}', 1024); // '{"a":1}'
 */
export async function readBody(body: RawBody, limit: number, reading?: BodyReading): Promise<string> {
  if (typeof body === 'string') {
    // A UTF-16 unit is at most 3 UTF-8 bytes, so short strings need no encoding to be measured.
    if (body.length * 3 > limit && encoder.encode(body).byteLength > limit) throw tooLarge(limit);
    // A leading byte order mark is dropped, as the decoder drops it from bytes: every form reads alike.
    return body.charCodeAt(0) === BYTE_ORDER_MARK ? body.slice(1) : body;
  }
  return decode(await readBytes(body, limit, reading));
}

/**
 * Reads a raw body into bytes, as they came, counting them as they arrive: past `limit` it throws 413
 * at once and stops reading, so a huge body never sits in memory.
 *
 * @example
 * await readBytes(stream, 1024 * 1024); // Uint8Array [255, 254, 0, 128]
 */
export async function readBytes(body: RawBody, limit: number, reading?: BodyReading): Promise<Uint8Array> {
  if (typeof body === 'string') body = encoder.encode(body);
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) {
    if (body.byteLength > limit) throw tooLarge(limit);
    return body instanceof ArrayBuffer ? new Uint8Array(body) : body;
  }
  let total = 0;
  // In a box, so that a stopped reading lets go of the bytes even while it still waits for a chunk.
  const read: { chunks: Uint8Array[] } = { chunks: [] };
  const iterator = body[Symbol.asyncIterator]();
  if (reading !== undefined) {
    reading.stop = () => {
      read.chunks = [];
      total = Infinity;
      // Later, not now: a source whose return() throws must not keep the request from its answer.
      void Promise.resolve()
        .then(() => iterator.return?.())
        .catch(() => {});
    };
  }
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array | string>;
      try {
        next = await iterator.next();
        if (total === Infinity) throw malformed('The body was not read to its end');
      } catch (error) {
        // An adapter's body may fail with the answer its host's reading came to (a 413 from a parser's limit).
        if (isHttpError(error)) throw error;
        // The stream failed (the client aborted, the connection reset): the client's doing, not a server fault.
        throw malformed('The body could not be read to its end');
      }
      if (next.done === true) break;
      const bytes = typeof next.value === 'string' ? encoder.encode(next.value) : next.value;
      total += bytes.byteLength;
      if (total > limit) throw tooLarge(limit);
      read.chunks.push(bytes);
    }
  } catch (error) {
    // Stop the source early (past the limit, or a failed read) without waiting for it.
    void Promise.resolve(iterator.return?.()).catch(() => {});
    throw error;
  }
  const { chunks } = read;
  return chunks.length === 1 ? chunks[0]! : joined(chunks, total);
}

function joined(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * A reading of a body that its request can stop, once its time has run out: {@link readBody} sets
 * `stop`, which lets go of what was read and tells the source to stop.
 *
 * @example
 * const reading: BodyReading = { stop: undefined };
 * const text = readBody(stream, limit, reading); // later: reading.stop?.()
 */
export interface BodyReading {
  stop: (() => void) | undefined;
}

/**
 * Refuses a body in a content coding restcanon does not decode (gzip, br, ...): 415 with
 * `Accept-Encoding: identity`, as RFC 7694 §3 describes, rather than a confusing 400 from bytes
 * that are not JSON.
 *
 * @example
 * checkContentEncoding('gzip', rules); // throws a 415
 */
export function checkContentEncoding(header: string | undefined, rules: BodyRules): void {
  if (header === undefined) return;
  const codings = header.split(',').map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return;
  const error = unsupported(rules, 'The body must not be compressed or otherwise encoded');
  throw new UnsupportedMediaTypeError(error.detail, { headers: { ...error.headers, 'accept-encoding': 'identity' } });
}

/**
 * One decoder for every body: `fatal` refuses bytes that are not UTF-8, and each call decodes a whole
 * body, so no state passes from one body to the next.
 */
const DECODER = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The text of a body's bytes as UTF-8, without a leading byte order mark; bytes that are not UTF-8 are a 400.
 *
 * @example
 * decode(new TextEncoder().encode('{"a":1}')); // '{"a":1}'
 */
export function decode(bytes: Uint8Array | ArrayBuffer): string {
  try {
    return DECODER.decode(bytes);
  } catch {
    throw malformed('The body is not valid UTF-8');
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
  // No stack for JSON.parse's SyntaxError either: it is dropped at once, and capturing it cost more
  // than parsing a small body.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError('The body is not valid JSON', { code: ERROR_CODES.MALFORMED_BODY });
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * The 400 of a body that cannot be read for what it is (`RC_MALFORMED_BODY`), without a stack.
 *
 * @example
 * throw malformed('The body is not valid UTF-8');
 */
export function malformed(detail: string): BadRequestError {
  return withoutStack(() => new BadRequestError(detail, { code: ERROR_CODES.MALFORMED_BODY }));
}
