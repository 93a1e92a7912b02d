/**
 * A request body that a host's parser (Express's `express.json()`, `express.text()`, ...) read before
 * the API, or failed to read: when the parsed value stands in for the stream, and what the API reads
 * after the parser failed, so that it answers as if it had read the body itself.
 */
import type { IncomingMessage } from 'node:http';
import { PayloadTooLargeError } from '../core/errors.js';
import { readNodeBody } from './node.js';

/**
 * An Express request as a body parser leaves it: Express 4's parsers mark `_body`, Express 5's leave
 * the stream ended.
 *
 * @example
 * const parsed = (req: ParsedRequest) => req._body === true;
 */
export interface ParsedRequest extends IncomingMessage {
  /** Set by Express 4's body parsers once they have read the body. */
  _body?: boolean;
}

/**
 * Whether a parser spent the stream on a body the request announced: the parsed body then stands in
 * for the stream. A request that carried no body keeps none, whatever a parser made of it.
 *
 * @example
 * if (parsedByHost(req)) request.body = req.body;
 */
export function parsedByHost(req: ParsedRequest): boolean {
  return (req._body === true || req.readableEnded) && hasBody(req.headers);
}

/** Whether the request's framing announces a body (RFC 9112 §6.3): chunked, or a length above 0. */
function hasBody(headers: IncomingMessage['headers']): boolean {
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && length !== '0';
}

/** Failures whose error keeps the body's text, which the API then parses itself. */
const TEXT_KEPT: ReadonlySet<string> = new Set(['entity.parse.failed', 'parameters.too.many']);

/**
 * The body the API reads after a parser failed with `type` (see `bodyParserFailure`): the text the
 * parser could not parse; the stream itself when the parser refused the request before reading it
 * (charset, encoding); otherwise a body whose reading fails, as the parser's reading did. A body a
 * `verify` function refused is never handed on as readable.
 *
 * @example
 * request.body = bodyAfterFailure(req, 'entity.parse.failed', error.body);
 */
export function bodyAfterFailure(req: ParsedRequest, type: string, text: unknown): unknown {
  if (TEXT_KEPT.has(type) && typeof text === 'string') return text;
  if (!req.readableDidRead && !req.readableEnded) return readNodeBody(req);
  return new UnreadableBody(type === 'entity.too.large');
}

/** A body the host's parser failed to read: reading it throws as that reading did. */
class UnreadableBody implements AsyncIterable<Uint8Array> {
  constructor(private readonly tooLarge: boolean) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    const failure = this.tooLarge ? new PayloadTooLargeError('The body is larger than the server accepts') : new Error('The host could not read the body');
    return { next: () => Promise.reject(failure) };
  }
}
