import { checkContentEncoding, checkContentLength, checkMediaType, decode, declaredLength, isRawBody, isTextual, parseBodyText, readBody, readBytes, takeWhole, tooLarge, type BodyRules, type RawBody } from './body.js';
import { inspectBody } from './body-inspection.js';
import { countedBody } from './body-stream.js';
import type { Authorize, CurrentItem, Guard } from './endpoint.js';
import { contextWith } from './context.js';
import { BadRequestError, ForbiddenError, MISSING_ITEM, isHttpError, NotAcceptableError, statusOf, UnauthorizedError, withoutStack, type InputIssue } from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import { settled, type Exchange, type Step } from './exchange.js';
import { single } from './request.js';
import { checkCredentials } from './credentials.js';
import { OUTCOMES } from './outcomes.js';
import { addIssues, invalidInput, partValidator, type PartResult, type PartSchema } from './validation.js';

/**
 * The engine's own steps of a request, from a matched endpoint to its result: authentication,
 * negotiation, the body, validation, authorization, guards, the item's load and the handler.
 * `compile` chooses them once per endpoint, with what its conventions add between them. Each step is
 * synchronous unless it has to wait.
 */

/**
 * Loads the item the URL names, as `ctx.item`: nothing is a 404. A loader that is the handler (a
 * collection's read) gets the request's own context, so what it sets reaches the answer.
 */
export function loading(current: CurrentItem): Step {
  const keep = (exchange: Exchange, item: unknown): void => {
    if (current.isHandler && (item instanceof Error || isHttpError(item))) throw item;
    // A read that chose its outcome and gave nothing answers that outcome: there is no item to check or compare.
    if (current.isHandler && (item === undefined || item === null) && exchange.ctx.reply?.outcome !== undefined) {
      exchange.done = true;
      return;
    }
    if (item === undefined || item === null || item instanceof Error) throw MISSING_ITEM;
    exchange.item = item;
    exchange.ctx.item = item;
  };
  return (exchange) => {
    const { ctx } = exchange;
    return settled(current.load(current.isHandler ? ctx : contextWith(ctx, { body: undefined })), exchange, keep);
  };
}

/** A collection's read loaded the item as its handler: the item is the result. */
export function keepLoaded(exchange: Exchange): undefined {
  exchange.result = exchange.item;
  return undefined;
}

/** Runs the steps from `from` on: synchronously, until one returns a promise; then on from where it left off, once it settles. */
export function runSteps(exchange: Exchange, from: number): Promise<unknown> | undefined {
  const steps = exchange.compiled.steps;
  for (let index = from; index < steps.length; index++) {
    if (exchange.done) return undefined;
    const pending = steps[index]!(exchange);
    if (pending !== undefined) return pending.then(() => runSteps(exchange, index + 1));
  }
  return undefined;
}

/**
 * The format of a successful answer, from `Accept`, among the endpoint's `produces` where it has one
 * (else the API's formats); a 406 when none fits and the policy says so, else the first. Its media
 * type is `ctx.responseType`.
 */
export function negotiateFormat(exchange: Exchange): undefined {
  const { settings, compiled } = exchange;
  const produced = compiled.produced;
  const format = (compiled.negotiator ?? settings.negotiator).content(single(exchange.headers.accept));
  if (format !== undefined) exchange.format = format;
  else if (settings.policy.unacceptable === 'reject') {
    throw new NotAcceptableError(`Available: ${(produced ?? settings.formats).map((serializer) => serializer.type).join(', ')}`);
  } else if (produced !== undefined) exchange.format = produced[0]!;
  (exchange.ctx as { responseType: string }).responseType = exchange.format.type;
  return undefined;
}

function ignore(): void {}

/** Content-Type, Content-Encoding and Content-Length, checked before anyone reads the body. */
export function checkBodyHeaders(exchange: Exchange): undefined {
  const { headers } = exchange;
  const rules = exchange.compiled.bodyRules!;
  const contentType = single(headers['content-type']);
  if (contentType !== undefined) exchange.mediaType = checkMediaType(contentType, rules);
  checkContentEncoding(single(headers['content-encoding']), rules);
  checkContentLength(single(headers['content-length']), rules.limit);
  return undefined;
}

/**
 * The caller, or a 401 on an endpoint that needs one. `undefined`, `null` and `false` are an
 * anonymous caller (an ORM's lookup of an unknown token gives `null`); an object is a caller; any
 * other value is a mistake in `authenticate`, never a pass: a 500, reported.
 */
export async function authenticateCaller({ settings, ctx, compiled, headers }: Exchange): Promise<void> {
  const isPublic = compiled.endpoint.public;
  if (headers.authorization !== undefined) checkCredentials(headers.authorization);
  try {
    ctx.principal = callerOf(await settings.authenticate!(ctx.request));
  } catch (error) {
    if (statusOf(error) !== OUTCOMES.unauthorized.status) throw error;
    // A bad token on a public endpoint leaves the caller anonymous; anywhere else it is the 401 it says.
    if (isPublic) return;
    throw error;
  }
  if (ctx.principal === undefined && !isPublic) throw new UnauthorizedError(undefined, { challenge: settings.challenge });
}

/**
 * Reads the body as its endpoint says: handed over unread (`'stream'`), as bytes (`'bytes'`), or by
 * its media type: JSON parsed, text as text, a type an API's module reads (a form, a multipart body)
 * by that module, any other as bytes.
 */
export function readRequestBody(exchange: Exchange): Promise<void> | undefined {
  const body = exchange.ctx.request.body;
  if (body === undefined || body === null) return undefined;
  const rules = exchange.compiled.bodyRules!;
  const raw = isRawBody(body);
  if (!raw && ((rules.reading ?? 'parse') !== 'parse' || readsAsBytes(exchange.mediaType, rules))) {
    throw new TypeError(
      `${exchange.compiled.endpoint.method} ${exchange.compiled.template} reads its body as bytes, and a body parser of the host parsed it first; let the raw bytes reach restcanon (mount it before the parser, or give this type express.raw())`,
    );
  }
  if (rules.reading === 'stream') {
    if (exchange.mediaType === undefined && announcesBody(exchange)) checkMediaType(undefined, rules);
    exchange.ctx.body = countedBody(body as RawBody, rules.limit, exchange);
    return undefined;
  }
  if (!raw) {
    // A framework's parsed body gets the same limit as a raw one (measured from below, never a false 413).
    inspectBody(body, rules.maxDepth, rules.limit);
    exchange.ctx.body = body;
    return undefined;
  }
  const type = exchange.mediaType;
  if (rules.reading !== 'bytes' && type !== undefined) {
    const reader = rules.readers?.get(type);
    if (reader !== undefined) return reader(exchange as never) as Promise<void> | undefined;
  }
  return readRaw(exchange, body, rules, parseBodyText);
}

/** Parses a body's text of an accepted media type into what the handler gets as `ctx.body`. */
type TextParser = (text: string, type: string) => unknown;

/**
 * A reader of a text type for a module's `readers` (a urlencoded form): the body read as the engine
 * reads JSON (UTF-8 within the endpoint's limit, an empty body as none), `parse`d, and inspected as
 * JSON is, as `ctx.body`.
 *
 * @example
 * const parts = { readers: { 'application/x-www-form-urlencoded': textReader((text) => parseForm(text, new Set())) } };
 */
export function textReader(parse: TextParser): Step {
  return (exchange) => readRaw(exchange, exchange.ctx.request.body as RawBody, exchange.compiled.bodyRules!, parse);
}

function readRaw(exchange: Exchange, body: RawBody, rules: BodyRules, parse: TextParser): Promise<void> | undefined {
  // A body whole in memory already is taken without a promise: the request goes on in the same turn.
  const whole = takeWhole(body);
  if (whole === undefined) return readAndParse(exchange, body, rules, parse);
  if (whole.byteLength > rules.limit) throw tooLarge(rules.limit);
  if (readsBytes(exchange.mediaType, rules)) keepBytes(exchange, whole, rules);
  else keepText(exchange, decode(whole), rules, parse);
  return undefined;
}

async function readAndParse(exchange: Exchange, body: RawBody, rules: BodyRules, parse: TextParser): Promise<void> {
  if (readsBytes(exchange.mediaType, rules)) keepBytes(exchange, await readBytes(body, rules.limit, exchange), rules);
  else keepText(exchange, await readBody(body, rules.limit, exchange), rules, parse);
}

function readsBytes(known: string | undefined, rules: BodyRules): boolean {
  return rules.reading === 'bytes' || readsAsBytes(known, rules);
}

function keepBytes(exchange: Exchange, bytes: Uint8Array, rules: BodyRules): void {
  const known = exchange.mediaType;
  if (bytes.byteLength === 0 && known === undefined) return;
  if (known === undefined) checkMediaType(undefined, rules);
  exchange.ctx.body = bytes;
}

function keepText(exchange: Exchange, text: string, rules: BodyRules, parse: TextParser): void {
  if (text === '') return;
  const type = exchange.mediaType ?? checkMediaType(single(exchange.headers['content-type']), rules);
  const parsed = parse(text, type);
  inspectBody(parsed, rules.maxDepth);
  exchange.ctx.body = parsed;
}

/** Whether a body of an accepted type is bytes to hand over, not text to parse nor a type a module reads. */
function readsAsBytes(type: string | undefined, rules: BodyRules): boolean {
  return type !== undefined && !isTextual(type) && rules.readers?.has(type) !== true;
}

/** Whether the framing headers say a body comes (a length over 0, or chunks), as a streamed body is not read to know. */
function announcesBody({ headers }: Exchange): boolean {
  const length = declaredLength(single(headers['content-length']));
  return length === undefined ? headers['transfer-encoding'] !== undefined : length > 0;
}

function callerOf(value: unknown): unknown {
  if (value === undefined || value === null || value === false) return undefined;
  // Not a function either: `authenticate: (request) => tokens.find` forgot to call its lookup.
  if (typeof value === 'object') return value;
  throw new TypeError(
    `authenticate returned ${typeof value === 'string' ? 'a string' : String(value)}; return an object for a caller, or undefined, null or false for an anonymous one`,
  );
}

const UNEXPECTED_BODY = /* @__PURE__ */ withoutStack(
  () => new BadRequestError('This endpoint takes no body; declare a body schema to accept one', { code: ERROR_CODES.UNEXPECTED_BODY }),
);

/**
 * On a POST, PUT or PATCH endpoint that declares no body, a request that carries one is refused
 * rather than handed over unvalidated. The framing headers say so without reading; a body without
 * them (HTTP/2, `api.handle`) is read up to its first byte.
 */
export function refuseBody(exchange: Exchange): Promise<void> | undefined {
  const body = exchange.ctx.request.body;
  if (body === undefined || body === null || body === '') return undefined;
  const length = declaredLength(single(exchange.headers['content-length']));
  if (length !== undefined) {
    if (length > 0) throw UNEXPECTED_BODY;
    return undefined;
  }
  if (!isRawBody(body)) throw UNEXPECTED_BODY;
  // A chunked body may still be empty, as streaming clients send one: read it to its first byte.
  if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer) {
    if ((typeof body === 'string' ? body.length : body.byteLength) > 0) throw UNEXPECTED_BODY;
    return undefined;
  }
  return readBody(body, 0).then(ignore, (error: unknown) => {
    throw statusOf(error) === OUTCOMES.payloadTooLarge.status ? UNEXPECTED_BODY : error;
  });
}

export function requireBody(exchange: Exchange): undefined {
  if (exchange.ctx.body === undefined) throw new BadRequestError('The request needs a body', { code: ERROR_CODES.MALFORMED_BODY });
  return undefined;
}

/**
 * Validates one part of the request in place: `ctx[part]` becomes the schema's output, or stays the
 * input while its issues join those of the other parts, so that one 400 lists them all.
 */
export function validation(part: 'params' | 'query' | 'headers' | 'body', schema: PartSchema, location: InputIssue['in']): Step {
  const keep = (exchange: Exchange, result: PartResult): void => {
    if (result.ok) exchange.ctx[part] = result.value;
    else exchange.issues = addIssues(exchange.issues, result);
  };
  const validate = partValidator(schema, location);
  return (exchange) => settled(validate(exchange.ctx[part]), exchange, keep);
}

export function rejectInvalidInput(exchange: Exchange): undefined {
  // A 400 is an ordinary answer: its stack is never shown, and capturing one costs more than the
  // rest of the answer.
  const found = exchange.issues;
  if (found !== undefined) throw withoutStack(() => invalidInput(found.issues, found.omitted));
  return undefined;
}

/** A guard of the endpoint (a parent's load), run as a step. */
export function guarded(guard: Guard): Step {
  return (exchange) => settled(guard(exchange.ctx), exchange, ignore);
}

/** A rule that must say `true`. */
export function authorization(rule: Authorize): Step {
  return (exchange) => settled(rule(exchange.ctx), exchange, allowOrForbid);
}

function allowOrForbid(_exchange: Exchange, allowed: boolean): void {
  if (allowed !== true) throw new ForbiddenError();
}

export function callHandler(exchange: Exchange): Promise<void> | undefined {
  return settled(exchange.compiled.endpoint.handle(exchange.ctx), exchange, keepResult);
}

function keepResult(exchange: Exchange, result: unknown): void {
  if (result instanceof Error || isHttpError(result)) throw result;
  exchange.result = result;
}
