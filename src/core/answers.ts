import type { ApiRequest, ApiResponse, HeaderRecord, ResponseHeaders } from './contract.js';
import { addVary, isEmptyBodyStatus } from './http.js';
import { DEFAULT_CHALLENGE, FORBIDDEN_ITEM, InternalServerError, MISSING_ITEM, NotFoundError, problemOf, withoutStack, type ErrorFacts } from './errors.js';
import { snapshotOf } from './error-facts.js';
import type { Compiled, Exchange } from './exchange.js';
import { buildPath, headerSafeUrl, joinPaths } from './path.js';
import { OUTCOMES } from './outcomes.js';
import { applyPolicy } from './policy.js';
import { reportAside } from './report.js';
import { requestIdOf } from './request-id.js';
import { single } from './request.js';
import type { Settings } from './settings.js';
import { checkedReply } from './context.js';
import { payloadOf, whyUnwritable } from './writable.js';
import { byteBodyOf, type ByteBody } from './byte-results.js';
import { isByteType } from './produces.js';
import { formatOfResult } from './blob-type.js';
import type { Serializer } from '../formats/formats.js';

/**
 * The answers of a request, the last stop of its walk: a success as the status policy and the
 * negotiated format make it, a failure as a problem, and the answers routing gives itself.
 */

/** The answer for a path no route matches: one frozen error, since nothing about it varies. */
export const NO_ROUTE = /* @__PURE__ */ withoutStack(() => new NotFoundError('No resource matches this path'));

/**
 * OPTIONS on a path without an OPTIONS endpoint: the policy's status and `Allow`.
 *
 * @example
 * optionsResponse('GET, HEAD, POST', settings); // { status: 204, headers: { allow: 'GET, HEAD, POST' }, ... }
 */
export function optionsResponse(allow: string, settings: Settings): ApiResponse {
  return { status: settings.policy.decide('options'), headers: { allow }, body: undefined, payload: undefined };
}

/** What a failure is answered with: the error as the policy moves it, and what `onError` learns of it. */
export interface Failure {
  facts: ErrorFacts;
  reported: unknown;
}

/** A masked 500: what every value that is no `HttpError`, or cannot be answered as one, is answered with. */
const INTERNAL: ErrorFacts = /* @__PURE__ */ snapshotOf(withoutStack(() => new InternalServerError()))!;

const PROBLEM_JSON = 'application/problem+json; charset=utf-8';

/**
 * What a thrown or rejected value is answered with. An `HttpError` is read once (see
 * {@link snapshotOf}) and moved by the policy; anything else, or an `HttpError` that cannot be
 * answered as it stands, is a masked 500. Never throws.
 *
 * @example
 * failureOf(settings, new ConflictError()).facts.code; // 'RC_CONFLICT'
 */
export function failureOf(settings: Settings, error: unknown): Failure {
  let facts: ErrorFacts | undefined;
  try {
    facts = snapshotOf(error === FORBIDDEN_ITEM ? settings.forbiddenItem : error);
  } catch (unanswerable) {
    return { facts: INTERNAL, reported: unanswerable };
  }
  return { facts: facts === undefined ? INTERNAL : applyPolicy(settings.policy, facts), reported: error };
}

/**
 * The one place where a failure, thrown or rejected, becomes a problem response: the status the
 * policy gives it, a body in the format `Accept` asks for, and a report for every 5xx. Never throws.
 */
export function failure(settings: Settings, error: unknown, request: ApiRequest, headers: HeaderRecord, id?: string): ApiResponse {
  return problemAnswer(settings, failureOf(settings, error), request, headers, id);
}

/**
 * The problem response of a failure. A body that cannot be built (`problemBody.build` throws, gives
 * nothing or what no format writes; a format's serializer throws or gives no string or bytes) is
 * reported, and the plain problem goes out instead, in JSON when the format failed. Every problem
 * carries the request's id as its `instance` (`id`, or found as {@link requestIdOf} finds it), which
 * is what `onError` learns too. Never throws.
 */
export function problemAnswer(settings: Settings, { facts, reported }: Failure, request: ApiRequest, headers: HeaderRecord, id?: string): ApiResponse {
  const { status } = facts;
  const instance = id ?? requestIdOf(request, headers, settings.requestIdFrom);
  const head = request.method === 'HEAD';
  try {
    const problem = problemOf(facts, instance);
    const format = settings.negotiator.problem(single(headers.accept));
    // A copy then an assignment, not `{ ...headers, key }`: in V8 a spread followed by a new key is slower.
    const responseHeaders: Record<string, string> = Object.assign({}, facts.headers);
    // A 401 without a challenge of its own (a handler's `new UnauthorizedError()`, an `HttpError(401)`) carries the API's.
    if (status === OUTCOMES.unauthorized.status && (responseHeaders['www-authenticate'] ?? DEFAULT_CHALLENGE) === DEFAULT_CHALLENGE) {
      responseHeaders['www-authenticate'] = settings.challenge;
    }
    if (settings.vary) addVary(responseHeaders, 'Accept');
    let body: unknown = problem;
    let payload: string | Uint8Array | undefined;
    let contentType: string | undefined;
    // The API's own body is no problem document: it goes out in the format's own media type.
    if (settings.problemBody !== undefined) {
      try {
        const shaped: unknown = settings.problemBody.build(structuredClone(problem), request);
        // An async build is refused below; its rejection must not end the process as an unhandled one.
        if (shaped instanceof Promise) PROMISE_THEN.call(shaped, undefined, ignore);
        const why = shaped === undefined ? 'is undefined' : whyUnwritable(shaped);
        if (why !== undefined) throw new TypeError(`The body problemBody.build returned ${why}`);
        payload = head ? undefined : payloadOf(format.serialize(shaped), format.type);
        body = shaped;
        contentType = format.contentType;
      } catch (error) {
        settings.report(error, { requestId: instance, status, request });
      }
    }
    if (contentType === undefined) {
      contentType = format.problemType === undefined ? PROBLEM_JSON : `${format.problemType}; charset=utf-8`;
      try {
        payload = head ? undefined : payloadOf(format.serializeProblem!(problem), contentType);
      } catch (error) {
        settings.report(error, { requestId: instance, status, request });
        contentType = PROBLEM_JSON;
        payload = JSON.stringify(problem);
      }
    }
    responseHeaders['content-type'] = contentType;
    // Reported once the answer is built, so that an error that fails to build one is reported once.
    if (status >= 500) settings.report(reported, { requestId: instance, status, request });
    // An error's one cookie (a 401 that ends a session) is a list of one line, as every answer's.
    const cookie = responseHeaders['set-cookie'];
    return { status, headers: cookie === undefined ? responseHeaders : withCookies(responseHeaders, [cookie]), body: head ? undefined : body, payload };
  } catch (fault) {
    // Where nothing should throw (an `Accept` that cannot be read, say): a masked 500 of constants.
    settings.report(status < 500 ? fault : reported, { requestId: instance, status: INTERNAL.status, request });
    const problem = problemOf(INTERNAL, instance);
    return { status: INTERNAL.status, headers: { 'content-type': PROBLEM_JSON }, body: head ? undefined : problem, payload: head ? undefined : JSON.stringify(problem) };
  }
}

/** A success: the policy's status for the operation and its result, `Location` for a create, and the body in the negotiated format. */
export function succeed(exchange: Exchange): ApiResponse {
  // A step answered the request itself (a 304).
  if (exchange.response !== undefined) return exchange.response;
  const { compiled, result, ctx, settings } = exchange;
  const { endpoint } = compiled;
  const operation = endpoint.operation;
  const missing = result === undefined || result === null;
  // A handler that chose its outcome said what happened: nothing is then that outcome without a body.
  if (compiled.item && ((missing && ctx.reply?.outcome === undefined) || (operation === 'remove' && result === false))) throw MISSING_ITEM;
  // What the handler set comes first: the headers restcanon sets below win over its own.
  const reply = ctx.reply === undefined ? undefined : checkedReply(ctx.reply, compiled.choices);
  const headers: Record<string, string> = reply === undefined ? {} : reply.headers;
  const cookies = reply?.cookies;
  if (settings.vary) addVary(headers, 'Accept');
  let status: number;
  let body: unknown = result;
  if (reply?.outcome !== undefined) {
    status = settings.policy.decide(reply.outcome);
  } else if (operation === 'remove' && result === true) {
    status = settings.policy.decide('empty');
    body = undefined;
  } else if (missing && operation !== 'create') {
    status = settings.policy.decide('empty');
    body = undefined;
  } else {
    status = settings.policy.decide(operation);
  }
  // `Location` names a created item: sent when the answer is a create, whichever outcome the operation has by default.
  if ((reply?.outcome ?? operation) === 'create' && !missing) {
    const location = endpoint.location !== undefined ? customLocation(exchange, result) : defaultLocation(exchange, result);
    if (location !== undefined) headers.location = location;
  }
  // What the endpoint's conventions add: a validator, a page around a list's items.
  if (compiled.answer !== undefined) body = compiled.answer(exchange, headers, body, status);
  if (isEmptyBodyStatus(status) || body === undefined || body === null) {
    return { status, headers: cookies === undefined ? headers : withCookies(headers, cookies), body: undefined, payload: undefined };
  }
  // A Blob of another of the endpoint's types answers in its own.
  const format = formatOfResult(exchange, body);
  // An endpoint that produces types of its own answers bytes and streams as they are.
  if (compiled.produced !== undefined) {
    const byteType = isByteType(format);
    // A type a convention writes (server-sent events): its answer, unless the result is none it writes.
    const written = compiled.writers?.get(format)?.(exchange, status, headers, body);
    if (written !== undefined) {
      if (cookies !== undefined) withCookies(written.headers, cookies);
      return written;
    }
    // A string is data to a format (JSON writes it quoted), bytes under a type of bytes.
    const bytes = byteType || typeof body !== 'string' ? byteBodyOf(body) : undefined;
    if (bytes !== undefined) return byteAnswer(exchange, status, headers, cookies, format, body, bytes);
    if (byteType) throw new TypeError(`The result of ${endpoint.method} ${endpoint.path} is data, and the answer's type is ${format.type}, which no format of the API writes: return bytes, a string or a stream for it, or add a format of that type`);
  }
  // Before the response schema cuts it: cut, a stream would go out as the plain object of its fields.
  const why = whyUnwritable(body);
  if (why !== undefined) throw new TypeError(`The result of ${endpoint.method} ${endpoint.path} ${why}`);
  if (compiled.project !== undefined) body = compiled.project(body);
  const payload = compiled.stringify !== undefined && format.type === 'application/json' ? payloadOf(compiled.stringify(body), 'compiled application/json') : payloadOf(format.serialize(body), format.type);
  headers['content-type'] = format.contentType;
  return { status, headers: cookies === undefined ? headers : withCookies(headers, cookies), body, payload };
}

/**
 * The answer of a byte result: its type (`charset=utf-8` added to a `text/*` type for a string),
 * `Content-Length` where the length is known, and its payload or its stream.
 *
 * The one place where a byte or stream answer is made, before the settle and finish hooks see it:
 * what transforms such an answer is a convention's byte hook (`bytes` of the seam), given the
 * response this builds, with the request in `exchange` (the `ranges` convention answers a `Range`
 * 206 or 416 from a payload or a Blob of known length).
 */
function byteAnswer(exchange: Exchange, status: number, headers: Record<string, string>, cookies: string[] | undefined, format: Serializer, result: unknown, bytes: ByteBody): ApiResponse {
  const type = isByteType(format) ? format.type : format.contentType;
  headers['content-type'] = typeof result === 'string' && /^text\//i.test(type) && !/;\s*charset=/i.test(type) ? `${type}; charset=utf-8` : type;
  if (bytes.length !== undefined) headers['content-length'] = String(bytes.length);
  const response: ApiResponse = { status, headers: cookies === undefined ? headers : withCookies(headers, cookies), body: bytes.payload, payload: bytes.payload };
  if (bytes.stream !== undefined) response.stream = bytes.stream;
  // What the endpoint's conventions make of it: the ranges of a `Range`.
  const hook = exchange.compiled.bytes;
  return hook === undefined ? response : hook(exchange, response, result, bytes);
}

/** An answer's headers with the lines of its `Set-Cookie`. */
function withCookies(headers: ResponseHeaders, cookies: string[]): ResponseHeaders {
  headers['set-cookie'] = cookies;
  return headers;
}

/**
 * A path of the API as the client reaches it: below the host's mount prefix.
 *
 * @example
 * publicPath({ method: 'GET', url: '/users', baseUrl: '/api' }, '/users'); // '/api/users'
 */
export function publicPath(request: ApiRequest, path: string): string {
  const baseUrl = request.baseUrl;
  return baseUrl === undefined || baseUrl === '' || baseUrl === '/' ? path : joinPaths(headerSafeUrl(baseUrl), path);
}

/**
 * The `Location` an endpoint's own `location` gives, made safe to send: the item exists by now, so a
 * value that could not go on the wire (CR, LF, text beyond ASCII) is encoded rather than turned into
 * an error, and a value that is no string is left out and reported.
 */
function customLocation(exchange: Exchange, result: unknown): string | undefined {
  const { compiled, ctx, settings } = exchange;
  let location: unknown;
  try {
    location = compiled.endpoint.location!(result, ctx);
    if (location === undefined || location === '') return undefined;
    if (typeof location === 'string') return headerSafeUrl(location);
    throw new TypeError(`The location of ${compiled.endpoint.method} ${compiled.endpoint.path} returned a ${typeof location}, not a string`);
  } catch (error) {
    reportAside(exchange, error);
    return undefined;
  }
}

/**
 * The `Location` of a created item from the `id` of the result: the item's template filled with the
 * params and the id, each percent-encoded, below the host's mount prefix. A result without a usable
 * `id` (none, or not a string, number or bigint) still answers 201, without `Location`, and the
 * mistake is reported, with how to give the id.
 */
function defaultLocation(exchange: Exchange, result: unknown): string | undefined {
  const { compiled, ctx } = exchange;
  const { endpoint } = compiled;
  if (compiled.itemTemplate === undefined) return undefined;
  let id: unknown;
  try {
    id = endpoint.locationId !== undefined ? endpoint.locationId(result, ctx) : (result as { id?: unknown }).id;
  } catch (error) {
    reportAside(exchange, error);
    return undefined;
  }
  if (!isSegment(id)) {
    const what = id === undefined || id === null || typeof id === 'number' ? String(id) : typeof id === 'string' ? JSON.stringify(id) : typeof id === 'object' ? 'an object' : `a ${typeof id}`;
    const source = endpoint.locationId !== undefined ? `its "idOf" gave ${what}` : id === undefined ? 'the created item has no "id"' : `the created item's "id" is ${what}`;
    reportAside(exchange, new TypeError(`${endpoint.method} ${endpoint.path}: ${source}, so the 201 has no Location: give a string or number id, with the collection's "idOf" or the endpoint's "location"`));
    return undefined;
  }
  const values: Record<string, unknown> = Object.assign({}, exchange.rawParams);
  // A parent id as its schema read it, so that one item has one URL: `/users/0x1/orders` creates under `/users/1`.
  const params = ctx.params as Record<string, unknown>;
  for (const name in params) if (Object.hasOwn(params, name) && isSegment(params[name])) values[name] = params[name];
  values.id = id;
  return publicPath(ctx.request, buildPath(compiled.itemTemplate, values));
}

/**
 * Whether an id names one item as a path segment: a string, a number or a bigint, but not `''`, `.`
 * or `..` (every URL parser reads `/articles/..` as `/`, and `/articles/.` as the collection), nor
 * `NaN` or `Infinity`.
 */
function isSegment(id: unknown): boolean {
  return typeof id === 'string' ? id !== '' && id !== '.' && id !== '..' : typeof id === 'bigint' || Number.isFinite(id);
}

const PROMISE_THEN = Promise.prototype.then;

function ignore(): void {}
