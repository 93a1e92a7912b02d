/**
 * Byte ranges of an answer (RFC 9110 §14): a GET answered 200 with a body of known length (bytes, a
 * string, a `Blob`) under a type of `produces` says `Accept-Ranges: bytes`, and its `Range` is
 * answered 206 with the bytes asked for, one range as it is and several as `multipart/byteranges`,
 * or 416 when none lies within the body. Only byte answers come here, through the seam's byte hook:
 * a JSON answer pays nothing.
 */
import type { ApiResponse } from '../../core/contract.js';
import { ERROR_CODES } from '../../core/error-codes.js';
import { HttpError } from '../../core/errors.js';
import type { Exchange } from '../../core/exchange.js';
import { single } from '../../core/request.js';
import { byteBodyOf, Chunks, type ByteBody } from '../../core/byte-results.js';
import { createMultipartByteranges, evaluateRange, formatContentRange, ifRangeHolds } from '../../core/ranges.js';

/** The status of an answer of part of a body; no outcome of the policy, which never moves it. */
const PARTIAL = 206;
/** The status of a whole body, the one answer whose ranges are sent. */
const OK = 200;
/**
 * The status of a `Range` no part of the body satisfies.
 *
 * @example
 * RANGE_NOT_SATISFIABLE; // 416
 */
export const RANGE_NOT_SATISFIABLE = 416;
const ENCODER = /* @__PURE__ */ new TextEncoder();

/**
 * Adds `Accept-Ranges` to a 200 of bytes of known length (any other answer goes out as it is), and
 * answers its `Range`: the 200 itself when the request has none, another unit, a malformed or too
 * costly one, or an `If-Range` that does not hold (the validators are the answer's own `ETag` and
 * `Last-Modified`); a 206 of the ranges; throws a 416 when no range is within the body. HEAD is
 * answered as a GET without `Range` (range handling is defined for GET alone). `response` is the
 * answer, its headers complete.
 *
 * @example
 * return ranged(exchange, response, result, bytes);
 */
export function ranged(exchange: Exchange, response: ApiResponse, result: unknown, bytes: ByteBody): ApiResponse {
  if (bytes.length === undefined || response.status !== OK) return response;
  const headers = response.headers as Record<string, string>;
  headers['accept-ranges'] = 'bytes';
  const header = exchange.headers.range;
  if (header === undefined || exchange.ctx.request.method !== 'GET') return response;
  const length = bytes.length!;
  if (!ifRangeHolds(single(exchange.headers['if-range']), { etag: headers.etag, lastModified: headers['last-modified'] })) return response;
  const decision = evaluateRange(single(header), length);
  if (decision.kind === 'ignore') return response;
  if (decision.kind === 'unsatisfiable') {
    throw new HttpError(RANGE_NOT_SATISFIABLE, { code: ERROR_CODES.RANGE_NOT_SATISFIABLE, detail: `No range of the request lies within the ${length} bytes of the body`, expose: true, headers: { 'content-range': decision.contentRange } });
  }
  const { ranges } = decision;
  const cut = cutterOf(result, bytes);
  response.status = PARTIAL;
  response.body = undefined;
  response.payload = undefined;
  response.stream = undefined;
  if (ranges.length === 1) {
    const { start, end } = ranges[0]!;
    headers['content-range'] = formatContentRange(ranges[0]!, length);
    headers['content-length'] = String(end - start + 1);
    const part = cut(start, end + 1);
    if (part instanceof Uint8Array) response.body = response.payload = part;
    else response.stream = part;
    return response;
  }
  const multipart = createMultipartByteranges({ ranges, length, contentType: headers['content-type'], slice: cut });
  headers['content-type'] = multipart.contentType;
  headers['content-length'] = String(multipart.length);
  response.stream = new Chunks(() => multipart.chunks[Symbol.asyncIterator]());
  return response;
}

/**
 * Cuts the parts of a body: bytes in memory as views of them, a `Blob` with `blob.slice` as a stream
 * of its chunks (one range as several), never read whole: a part of a file of gigabytes is no
 * buffer of gigabytes.
 */
function cutterOf(result: unknown, bytes: ByteBody): (start: number, end: number) => Uint8Array | Chunks {
  if (bytes.payload === undefined) {
    const blob = result as Blob;
    return (start, end) => byteBodyOf(blob.slice(start, end))!.stream!;
  }
  const whole = typeof bytes.payload === 'string' ? ENCODER.encode(bytes.payload) : bytes.payload;
  return (start, end) => whole.subarray(start, end);
}
