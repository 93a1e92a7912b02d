/**
 * A request body that a Koa body parser (koa-bodyparser, @koa/bodyparser, both on co-body) read
 * before the API, or failed to read: what the API reads instead of the stream, so that it answers as
 * if it had read the body itself.
 */
import type { IncomingMessage } from 'node:http';
import { bodyAfterFailure, parsedByHost } from './host-body.js';
import { bodyParserFailure, isInflateError } from './host-errors.js';

/**
 * What a Koa body parser leaves on `ctx.request`: the parsed body, and the text it read.
 *
 * @example
 * const text = (request: KoaParsedRequest) => request.rawBody;
 */
export interface KoaParsedRequest {
  body?: unknown;
  rawBody?: unknown;
}

/** A parser's failure that `parserErrorsOf` handed to the API, by the Node request it failed on. */
interface ParserFailure {
  error: unknown;
  type: string;
}

const FAILURES = new WeakMap<IncomingMessage, ParserFailure>();

/**
 * The body the API reads of a request a Koa body parser saw, or undefined for the stream: the text the
 * parser read (`rawBody`), which the API parses with its own limit, depth and key checks as it would
 * the stream's; the parsed body where the parser kept no text; after a failure the parser's text, or
 * a body whose reading fails as the parser's did.
 *
 * @example
 * const body = koaParsedBody(ctx.req, ctx.request);
 * if (body !== undefined) request.body = body;
 */
export function koaParsedBody(req: IncomingMessage, request: KoaParsedRequest): unknown {
  const failure = FAILURES.get(req);
  if (failure !== undefined) return bodyAfterFailure(req, failure.type, (failure.error as { body?: unknown }).body);
  if (!parsedByHost(req)) return undefined;
  return typeof request.rawBody === 'string' ? request.rawBody : request.body;
}

/**
 * The failure of a Koa body parser the API answers, as body-parser names it (see
 * `bodyParserFailure`), or undefined for any other error. co-body marks JSON or a form that does not
 * parse with status 400 and the text it read, a Content-Encoding it cannot inflate with 415, and
 * passes raw-body's own errors (a body over its limit, an aborted request) and zlib's (a compressed
 * body that does not inflate) on as they are.
 *
 * @example
 * koaParserFailure(Object.assign(new SyntaxError('Unexpected end'), { status: 400, body: '{' })); // 'entity.parse.failed'
 */
export function koaParserFailure(error: unknown): string | undefined {
  const type = bodyParserFailure(error);
  if (type !== undefined || typeof error !== 'object' || error === null || 'type' in error) return type;
  const { status, body, code } = error as { status?: unknown; body?: unknown; code?: unknown };
  if (status === 400 && typeof body === 'string') return 'entity.parse.failed';
  if (isInflateError(code)) return 'content.decoding';
  return status === 415 ? 'encoding.unsupported' : undefined;
}

/**
 * Keeps a parser's failure for the API to answer when the request reaches it.
 *
 * @example
 * recordParserFailure(ctx.req, error, 'entity.parse.failed');
 */
export function recordParserFailure(req: IncomingMessage, error: unknown, type: string): void {
  FAILURES.set(req, { error, type });
}

/**
 * The error of a parser's failure that was kept for the API, for a request the API then passed on:
 * it goes on to the host's error handling, as the parser would have thrown it.
 *
 * @example
 * const failed = parserErrorOf(ctx.req);
 * if (failed !== undefined) throw failed.error;
 */
export function parserErrorOf(req: IncomingMessage): { error: unknown } | undefined {
  return FAILURES.get(req);
}
