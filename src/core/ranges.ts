/**
 * Byte ranges (RFC 9110 §14): the `Range` header of a GET, evaluated against the length of the
 * answer it would get; `If-Range`; the `Content-Range` values of a 206 or a 416; and the
 * `multipart/byteranges` body of a 206 with several ranges. Pure functions: the answer path decides
 * when a range applies (a GET answered 200 with a body of known length) and writes the headers.
 */

/**
 * A range of bytes of a representation, both ends inclusive as in `Content-Range`.
 *
 * @example
 * const firstHundred: ByteRange = { start: 0, end: 99 };
 */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * One `range-spec` of a `Range: bytes=` header as written, before it meets a length: `first-last`
 * or `first-` (`last` left out), or `-suffix` (the last `suffix` bytes).
 *
 * @example
 * const specs: RangeSpec[] = [{ first: 0, last: 99 }, { first: 500 }, { suffix: 20 }];
 */
export type RangeSpec = { first: number; last?: number } | { suffix: number };

/**
 * What to do with a request's `Range` header, from {@link evaluateRange}:
 * - `ignore`: answer the whole body with 200, as if there were no `Range` (none, another unit, a
 *   malformed one, or one refused as too costly);
 * - `satisfiable`: answer 206 with these ranges, sorted, coalesced and within the length;
 * - `unsatisfiable`: answer 416 with `Content-Range: <contentRange>` (`bytes *\/<length>`).
 *
 * @example
 * const decision: RangeDecision = { kind: 'satisfiable', ranges: [{ start: 0, end: 99 }] };
 */
export type RangeDecision =
  | { kind: 'ignore' }
  | { kind: 'satisfiable'; ranges: readonly ByteRange[] }
  | { kind: 'unsatisfiable'; contentRange: string };

/**
 * Bounds on the work a `Range` header may ask for; see {@link evaluateRange}.
 *
 * @example
 * const limits: RangeLimits = { maxRanges: 4 };
 */
export interface RangeLimits {
  /** Range-specs in one header past which the header is ignored. 16 when left out. */
  maxRanges?: number | undefined;
  /** The bytes the ranges ask for together, as a multiple of the length, past which the header is ignored. 2 when left out. */
  maxCoverage?: number | undefined;
  /** Ranges closer than this many bytes are sent as one. 80 when left out (about the cost of a part's headers). */
  coalesceGap?: number | undefined;
}

const DEFAULT_MAX_RANGES = 16;
const DEFAULT_MAX_COVERAGE = 2;
const DEFAULT_COALESCE_GAP = 80;

const IGNORE: RangeDecision = Object.freeze({ kind: 'ignore' });

/**
 * A list element without the OWS around it (RFC 9110 §5.6.1), by hand: a pattern of optional
 * spaces on both sides of a comma backtracks quadratically over a long run of spaces.
 */
function withoutOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === ' ' || text[start] === '\t')) start++;
  while (end > start && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  return text.slice(start, end);
}

/**
 * Reads `1*DIGIT` as a number, or `undefined` when the text is not only digits or is past
 * `Number.MAX_SAFE_INTEGER` (where two different offsets would read as the same number).
 */
function parseDigits(text: string): number | undefined {
  if (text.length === 0) return undefined;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return undefined;
  }
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

function parseRangeSpec(text: string): RangeSpec | undefined {
  const dash = text.indexOf('-');
  if (dash === -1) return undefined;
  if (dash === 0) {
    const suffix = parseDigits(text.slice(1));
    return suffix === undefined ? undefined : { suffix };
  }
  const first = parseDigits(text.slice(0, dash));
  if (first === undefined) return undefined;
  if (dash === text.length - 1) return { first };
  const last = parseDigits(text.slice(dash + 1));
  // RFC 9110 §14.1.1: an int-range whose last-pos is below its first-pos is invalid.
  if (last === undefined || last < first) return undefined;
  return { first, last };
}

/**
 * Parses a `Range` header of the `bytes` unit into its range-specs, in the order written; reading
 * stops after `maxRanges + 1` of them, which is enough for {@link evaluateRange} to refuse it.
 * `undefined` for no header, another unit, or any syntax error (RFC 9110 §14.2: a server ignores
 * such a header).
 *
 * @example
 * parseRange('bytes=0-99, -20'); // [{ first: 0, last: 99 }, { suffix: 20 }]
 * parseRange('items=0-9'); // undefined
 */
export function parseRange(header: string | undefined, maxRanges: number = DEFAULT_MAX_RANGES): RangeSpec[] | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const equals = value.indexOf('=');
  // Range units are case-insensitive (RFC 9110 §14.1); no whitespace may surround the `=`.
  if (equals !== 5 || value.slice(0, 5).toLowerCase() !== 'bytes') return undefined;
  if (value[6] === ' ' || value[6] === '\t') return undefined;
  const specs: RangeSpec[] = [];
  for (const part of value.slice(6).split(',')) {
    // Empty list elements are accepted, as RFC 9110 §5.6.1 asks of a recipient.
    const element = withoutOws(part);
    if (element === '') continue;
    const spec = parseRangeSpec(element);
    if (spec === undefined) return undefined;
    specs.push(spec);
    if (specs.length > maxRanges) return specs;
  }
  return specs.length === 0 ? undefined : specs;
}

/** The bytes a range-spec selects of a representation of `length` bytes, or `undefined` when none. */
function resolveSpec(spec: RangeSpec, length: number): ByteRange | undefined {
  if ('suffix' in spec) {
    if (spec.suffix === 0 || length === 0) return undefined;
    return { start: Math.max(0, length - spec.suffix), end: length - 1 };
  }
  if (spec.first >= length) return undefined;
  return { start: spec.first, end: spec.last === undefined ? length - 1 : Math.min(spec.last, length - 1) };
}

/**
 * Sorts ranges by start and joins those that overlap or lie within `gap` bytes of each other, as
 * RFC 9110 §14.2 allows: each part of a multipart answer costs its own headers.
 *
 * @example
 * coalesceRanges([{ start: 50, end: 99 }, { start: 0, end: 60 }], 0); // [{ start: 0, end: 99 }]
 */
export function coalesceRanges(ranges: readonly ByteRange[], gap: number = DEFAULT_COALESCE_GAP): ByteRange[] {
  const sorted = [...ranges].sort((left, right) => left.start - right.start);
  const merged: ByteRange[] = [];
  for (const range of sorted) {
    const previous = merged[merged.length - 1];
    if (previous !== undefined && range.start <= previous.end + 1 + gap) {
      previous.end = Math.max(previous.end, range.end);
    } else {
      merged.push({ start: range.start, end: range.end });
    }
  }
  return merged;
}

/**
 * Evaluates a request's `Range` header against the length of the body it would get (RFC 9110
 * §14.1.2, §14.2). Besides a missing, foreign or malformed header, it ignores (answers the whole
 * body) a header with more than `maxRanges` range-specs, or whose ranges ask for more than
 * `maxCoverage` times the length together: `bytes=0-,0-,0-,...` would otherwise make a small
 * request cost many copies of the body (RFC 9110 §15.3.7 names such overlapping requests as an
 * attack a server may refuse). A body of length 0 has no byte to send: an int-range is
 * unsatisfiable, and a suffix-range, which asks for the whole (empty) body, is ignored. Throws a
 * `TypeError` for a length that is not a non-negative integer.
 *
 * @example
 * evaluateRange('bytes=0-99', 1000); // { kind: 'satisfiable', ranges: [{ start: 0, end: 99 }] }
 * evaluateRange('bytes=2000-', 1000); // { kind: 'unsatisfiable', contentRange: 'bytes *\/1000' }
 * evaluateRange('bytes=0-,0-,0-', 1000); // { kind: 'ignore' }
 */
export function evaluateRange(header: string | undefined, length: number, limits: RangeLimits = {}): RangeDecision {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new TypeError(`evaluateRange: length must be a non-negative integer; got ${String(length)}.`);
  }
  const maxRanges = limits.maxRanges ?? DEFAULT_MAX_RANGES;
  const specs = parseRange(header, maxRanges);
  if (specs === undefined || specs.length > maxRanges) return IGNORE;
  const ranges: ByteRange[] = [];
  let requested = 0;
  for (const spec of specs) {
    const range = resolveSpec(spec, length);
    if (range === undefined) continue;
    ranges.push(range);
    requested += range.end - range.start + 1;
  }
  if (ranges.length === 0) {
    const asksForAll = length === 0 && specs.some((spec) => 'suffix' in spec && spec.suffix > 0);
    return asksForAll ? IGNORE : { kind: 'unsatisfiable', contentRange: formatUnsatisfiedRange(length) };
  }
  if (requested > length * (limits.maxCoverage ?? DEFAULT_MAX_COVERAGE)) return IGNORE;
  return { kind: 'satisfiable', ranges: coalesceRanges(ranges, limits.coalesceGap ?? DEFAULT_COALESCE_GAP) };
}

/**
 * Writes a `Range` header value for range-specs; the inverse of {@link parseRange}.
 *
 * @example
 * formatRange([{ first: 0, last: 99 }, { suffix: 20 }]); // 'bytes=0-99,-20'
 */
export function formatRange(specs: readonly RangeSpec[]): string {
  const written = specs.map((spec) =>
    'suffix' in spec ? `-${spec.suffix}` : `${spec.first}-${spec.last === undefined ? '' : spec.last}`,
  );
  return `bytes=${written.join(',')}`;
}

/**
 * The `Content-Range` value of a 206 part: `bytes <start>-<end>/<length>`.
 *
 * @example
 * formatContentRange({ start: 0, end: 99 }, 1000); // 'bytes 0-99/1000'
 */
export function formatContentRange(range: ByteRange, length: number): string {
  return `bytes ${range.start}-${range.end}/${length}`;
}

/**
 * The `Content-Range` value of a 416: `bytes *\/<length>`.
 *
 * @example
 * formatUnsatisfiedRange(1000); // 'bytes *\/1000'
 */
export function formatUnsatisfiedRange(length: number): string {
  return `bytes */${length}`;
}

/**
 * What a `Content-Range` value says: a range of a body of `length` bytes (`undefined` for `*`), or,
 * with no range, the length alone (a 416's `bytes *\/<length>`).
 *
 * @example
 * const value: ContentRange = { range: { start: 0, end: 99 }, length: 1000 };
 */
export interface ContentRange {
  range: ByteRange | undefined;
  length: number | undefined;
}

/**
 * Reads a `Content-Range` value of the `bytes` unit (RFC 9110 §14.4), as a client does for a 206
 * or a 416; `undefined` when it is malformed or inconsistent (an end before its start, a range that
 * reaches past the length).
 *
 * @example
 * parseContentRange('bytes 0-99/1000'); // { range: { start: 0, end: 99 }, length: 1000 }
 * parseContentRange('bytes *\/1000'); // { range: undefined, length: 1000 }
 */
export function parseContentRange(value: string | undefined): ContentRange | undefined {
  if (value === undefined) return undefined;
  const match = /^bytes (?:\*|([0-9]+)-([0-9]+))\/(?:\*|([0-9]+))$/i.exec(value.trim());
  if (match === null) return undefined;
  const [, startText, endText, lengthText] = match;
  const length = lengthText === undefined ? undefined : parseDigits(lengthText);
  if (lengthText !== undefined && length === undefined) return undefined;
  if (startText === undefined || endText === undefined) {
    return length === undefined ? undefined : { range: undefined, length };
  }
  const start = parseDigits(startText);
  const end = parseDigits(endText);
  if (start === undefined || end === undefined || end < start) return undefined;
  if (length !== undefined && end >= length) return undefined;
  return { range: { start, end }, length };
}

/** `entity-tag` (RFC 9110 §8.8.3): an optional `W/` and a quoted string of etagc. */
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;
/** IMF-fixdate (RFC 9110 §5.6.7), the form a server sends in `Last-Modified` and a client echoes. */
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$/;

/**
 * The validators of the answer a range would be cut from, as its `ETag` and `Last-Modified`
 * headers carry them (a `Date` is taken to the second, as `Last-Modified` is sent).
 *
 * @example
 * const validators: RangeValidators = { etag: '"v42"', lastModified: new Date('2024-01-01T00:00:00Z') };
 */
export interface RangeValidators {
  etag?: string | undefined;
  lastModified?: string | Date | undefined;
}

function secondsOf(date: string | Date): number | undefined {
  const time = typeof date === 'string' ? (IMF_FIXDATE.test(date.trim()) ? Date.parse(date) : Number.NaN) : date.getTime();
  return Number.isFinite(time) ? Math.floor(time / 1000) : undefined;
}

/**
 * Evaluates `If-Range` (RFC 9110 §13.1.5): whether the `Range` of the request still applies, so
 * that the parts it asks for come from the representation the client already holds. True without
 * an `If-Range`. An entity-tag matches only a strong `ETag` equal to it (a weak one on either side
 * never matches); an HTTP-date only a `Last-Modified` of the same second. Anything else, including
 * a malformed value, is false: the whole body is sent, which is always safe.
 *
 * @example
 * ifRangeHolds('"v42"', { etag: '"v42"' }); // true
 * ifRangeHolds('W/"v42"', { etag: 'W/"v42"' }); // false
 * ifRangeHolds('Mon, 01 Jan 2024 00:00:00 GMT', { lastModified: new Date('2024-01-01T00:00:00Z') }); // true
 */
export function ifRangeHolds(ifRange: string | undefined, validators: RangeValidators): boolean {
  if (ifRange === undefined) return true;
  const condition = ifRange.trim();
  if (condition.startsWith('"') || condition.startsWith('W/')) {
    const etag = validators.etag?.trim();
    return ENTITY_TAG.test(condition) && condition.startsWith('"') && etag === condition;
  }
  if (validators.lastModified === undefined || !IMF_FIXDATE.test(condition)) return false;
  const seconds = secondsOf(condition);
  return seconds !== undefined && seconds === secondsOf(validators.lastModified);
}

/**
 * What {@link createMultipartByteranges} takes. `slice(start, end)` returns the bytes of the body
 * from `start` up to but not including `end`, the arguments of `Uint8Array.prototype.subarray` and
 * `Blob.prototype.slice`: at once, or as chunks (a `Blob` slice's stream), which go out as they are
 * read, so that a part of a file is never held whole.
 *
 * @example
 * const bytes = new TextEncoder().encode('Hello, world');
 * const options: MultipartByterangesOptions = {
 *   ranges: [{ start: 0, end: 4 }, { start: 7, end: 11 }],
 *   length: bytes.length,
 *   contentType: 'text/plain; charset=utf-8',
 *   slice: (start, end) => bytes.subarray(start, end),
 * };
 */
export interface MultipartByterangesOptions {
  ranges: readonly ByteRange[];
  /** The length of the whole body the ranges are cut from. */
  length: number;
  /** The `Content-Type` of the whole body, repeated in each part; parts carry none when left out. */
  contentType?: string | undefined;
  /** The boundary between parts; a random one when left out. */
  boundary?: string | undefined;
  slice: (start: number, end: number) => Uint8Array | Promise<Uint8Array> | AsyncIterable<Uint8Array>;
}

/**
 * A `multipart/byteranges` body (RFC 9110 §14.6): its `Content-Type` header, its length in bytes
 * (known before any part is read, for `Content-Length`), and its bytes, read again on each iteration.
 *
 * @example
 * const body: MultipartByteranges = createMultipartByteranges({ ranges: [{ start: 0, end: 0 }], length: 1, slice: () => new Uint8Array(1) });
 */
export interface MultipartByteranges {
  contentType: string;
  length: number;
  chunks: AsyncIterable<Uint8Array>;
}

/** bchars of RFC 2046 §5.1.1: 1 to 70 of them, the last not a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
/** A boundary that is not a token is quoted in the `Content-Type` parameter. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value that cannot end its header line or add another, in ASCII so that its length is its byte count. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

function randomBoundary(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function checkMultipartOptions(options: MultipartByterangesOptions, boundary: string): void {
  const { ranges, length, contentType } = options;
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new TypeError(`multipart/byteranges: length must be a non-negative integer; got ${String(length)}.`);
  }
  if (ranges.length === 0) throw new TypeError('multipart/byteranges: give at least one range.');
  for (const { start, end } of ranges) {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end >= length) {
      throw new TypeError(`multipart/byteranges: the range ${start}-${end} is not within a body of ${length} bytes; pass ranges from evaluateRange.`);
    }
  }
  if (!BOUNDARY.test(boundary)) {
    throw new TypeError('multipart/byteranges: a boundary is 1 to 70 letters, digits or any of \'()+_,-./:=? and ends with no space.');
  }
  if (contentType !== undefined && !FIELD_VALUE.test(contentType)) {
    throw new TypeError('multipart/byteranges: contentType holds a control or non-ASCII character; pass a media type such as text/plain.');
  }
}

/**
 * Frames several ranges of a body as `multipart/byteranges` (RFC 9110 §14.6): each part has its
 * own `Content-Type` (when given) and `Content-Range`, and the whole length is computed up front.
 * Throws a `TypeError` for ranges outside the body or a malformed boundary or type; iterating
 * throws a `RangeError` if `slice` returns another number of bytes than asked, since the body
 * would then disagree with its `Content-Length`.
 *
 * @example
 * const bytes = new TextEncoder().encode('Hello, world');
 * const body = createMultipartByteranges({
 *   ranges: [{ start: 0, end: 4 }, { start: 7, end: 11 }],
 *   length: bytes.length,
 *   contentType: 'text/plain',
 *   slice: (start, end) => bytes.subarray(start, end),
 * });
 * // headers: { 'content-type': body.contentType, 'content-length': String(body.length) }
 * for await (const chunk of body.chunks) void chunk;
 */
export function createMultipartByteranges(options: MultipartByterangesOptions): MultipartByteranges {
  const boundary = options.boundary ?? randomBoundary();
  checkMultipartOptions(options, boundary);
  const { ranges, length, contentType, slice } = options;
  const encoder = new TextEncoder();
  const typeLine = contentType === undefined ? '' : `Content-Type: ${contentType}\r\n`;
  // The delimiter of a later part starts with the CRLF that ends the previous part's bytes (RFC 2046 §5.1.1).
  const heads = ranges.map(
    (range, index) => `${index === 0 ? '' : '\r\n'}--${boundary}\r\n${typeLine}Content-Range: ${formatContentRange(range, length)}\r\n\r\n`,
  );
  const tail = `\r\n--${boundary}--\r\n`;
  // The framing is ASCII (checked above): one byte per character.
  let total = tail.length;
  ranges.forEach((range, index) => {
    total += (heads[index]?.length ?? 0) + range.end - range.start + 1;
  });
  const chunks: AsyncIterable<Uint8Array> = {
    // Chunks are encoded on each read: a byte stream that transfers its chunks' buffers would detach shared ones.
    async *[Symbol.asyncIterator]() {
      for (const [index, range] of ranges.entries()) {
        yield encoder.encode(heads[index]);
        const size = range.end - range.start + 1;
        const part = await slice(range.start, range.end + 1);
        let sent = 0;
        for await (const bytes of part instanceof Uint8Array ? [part] : part) {
          sent += bytes.length;
          if (sent > size) break;
          yield bytes;
        }
        if (sent !== size) {
          throw new RangeError(`multipart/byteranges: slice(${range.start}, ${range.end + 1}) returned ${sent > size ? `more than ${size} bytes` : `${sent} bytes instead of ${size}`}.`);
        }
      }
      yield encoder.encode(tail);
    },
  };
  const parameter = TOKEN.test(boundary) ? boundary : `"${boundary}"`;
  return { contentType: `multipart/byteranges; boundary=${parameter}`, length: total, chunks };
}
