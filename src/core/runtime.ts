import type { ApiRequest, ApiResponse, ErrorInfo, HeaderRecord } from './contract.js';
import { BODY_METHODS, isEmptyBodyStatus } from './http.js';
import { checkContentEncoding, checkContentLength, checkMediaType, declaredLength, inspectBody, isRawBody, parseBodyText, readBody, type BodyRules } from './body.js';
import type { AnyContext, Authenticated, Authorize, Endpoint, ResultFilter } from './endpoint.js';
import {
  BadRequestError,
  DEFAULT_CHALLENGE,
  FORBIDDEN_ITEM,
  ForbiddenError,
  HttpError,
  InternalServerError,
  isHttpError,
  MISSING_ITEM,
  NotAcceptableError,
  NotFoundError,
  problemOf,
  UnauthorizedError,
  withoutStack,
  type InputIssue,
} from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import { createNegotiator, json, type Serializer } from '../formats/formats.js';
import { buildPath, headerSafeUrl, joinPaths } from './path.js';
import { applyPolicy, DEFAULT_POLICY, type StatusPolicy } from './policy.js';
import type { Route } from './router.js';
import { emptyQuery, parseQuery, single, splitUrl } from './request.js';
import { checkCredentials } from './credentials.js';
import { createDeadlines, type Deadlines, type Timed } from './deadlines.js';
import { compileProjection, type Projection } from './projection.js';
import { jsonSchemaOf } from './standard-schema.js';
import { addIssues, invalidInput, partValidator, type IssueList, type PartResult, type PartSchema } from './validation.js';

/**
 * The steps of one request, from a matched endpoint to a response: negotiation, authentication, the
 * body, validation, authorization, guards, the handler, the status policy and serialization, and
 * the one place where any failure becomes a problem response.
 */

const ONE_MEBIBYTE = 1024 * 1024;
const DEFAULT_DEPTH = 64;
const DEFAULT_TIMEOUT = 30_000;

/**
 * The options of an API that every request reads, which {@link createEndpointHandler} takes for one
 * endpoint too.
 *
 * @example
 * const options: RuntimeOptions = { bodyLimit: 64 * 1024, timeout: 10_000 };
 */
export interface RuntimeOptions {
  /**
   * Finds the caller of a request: an object for a caller; `undefined`, `null` or `false` for an
   * anonymous one (so an ORM lookup that finds no user leaves the caller anonymous). Any other value
   * is a mistake in `authenticate` and answers a masked 500, reported to `onError`. Throw an
   * `UnauthorizedError` for credentials that are wrong. Once set, every endpoint that is not `public`
   * needs a caller.
   */
  authenticate?: (request: ApiRequest) => Authenticated | Promise<Authenticated>;
  /** A rule every protected request must pass; `false` answers 403. */
  authorize?: (ctx: AnyContext) => boolean | Promise<boolean>;
  /** The `WWW-Authenticate` challenge of a 401. Default `Bearer realm="api"`. */
  challenge?: string;
  /** Sees every error that becomes a 5xx, and what was hidden from a client; never changes the response. */
  onError?: (error: unknown, info: ErrorInfo) => void;
  policy?: StatusPolicy;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Deepest nesting of a JSON body. Default 64. */
  maxDepth?: number;
  /** Response formats in the server's order of preference. Default `[json]`. */
  formats?: readonly Serializer[];
  /**
   * Compiles a JSON serializer for each endpoint that declares its response (`response`, or a
   * collection's `item`) from that schema's JSON Schema (draft-07), as Fastify does with route
   * response schemas: `serializerCompiler: fastJson` with fast-json-stringify. The compiled function
   * writes the endpoint's JSON answers (a list's items one by one); an endpoint whose schema has no
   * JSON Schema keeps `JSON.stringify`.
   */
  serializerCompiler?: (schema: Record<string, unknown>) => (value: unknown) => string;
  /**
   * Milliseconds a request may take from routing to result, 30 seconds by default. Past it the
   * client gets the policy's `timeout` status (503) and the request is freed; the handler's late
   * result is dropped. `false` lets requests take as long as they take.
   */
  timeout?: number | false;
}

/** An endpoint prepared once, when the API is built. */
export interface Compiled {
  endpoint: Endpoint;
  template: string;
  itemTemplate: string | undefined;
  bodyRules: BodyRules | undefined;
  steps: readonly Step[];
  /** The endpoint's JSON serializer, compiled from its response schema by `serializerCompiler`. */
  stringify: ((value: unknown) => string) | undefined;
  /** Drops what the response schema does not declare from a result, before any format writes it. */
  project: Projection | undefined;
}

/** What every request of an API reads: its options, checked and with their defaults. */
interface Settings {
  authenticate: RuntimeOptions['authenticate'];
  authorize: RuntimeOptions['authorize'];
  challenge: string;
  policy: StatusPolicy;
  maxDepth: number;
  bodyLimit: number;
  formats: readonly Serializer[];
  negotiator: ReturnType<typeof createNegotiator>;
  vary: boolean;
  report: (error: unknown, info: ErrorInfo) => void;
  timeout: number | undefined;
  serializerCompiler: RuntimeOptions['serializerCompiler'];
  /** Someone else's item as the policy answers it: the very error of a missing item when `forbidden` is 404. */
  forbiddenItem: HttpError;
  /** The deadlines of running requests, unless `timeout: false`. */
  deadlines: Deadlines<Exchange> | undefined;
}

/** The settings of an API, and the two things every request needs: run an endpoint, and turn a failure into a response. */
export interface Runtime {
  settings: Settings;
  /** The response, or its promise when a step had to wait. Never throws, and the promise never rejects. */
  run(compiled: Compiled, rawParams: Record<string, string>, search: string, headers: HeaderRecord, request: ApiRequest): ApiResponse | Promise<ApiResponse>;
  fail(error: unknown, request: ApiRequest, headers: HeaderRecord): ApiResponse;
}

/** Checks the options of an API (or of one endpoint) and prepares its runtime. */
export function createRuntime(options: RuntimeOptions): Runtime {
  const formats = options.formats ?? [json];
  if (formats.length === 0) throw new TypeError('createApi: "formats" needs at least one serializer, such as json');
  const onError = options.onError;
  function report(error: unknown, info: ErrorInfo): void {
    if (onError === undefined) return logError(error, info);
    try {
      // An async onError returns a promise: its rejection must not become an unhandled one either.
      void Promise.resolve(onError(error, info) as unknown).catch(() => {});
    } catch {
      // A failing logger must not turn one error into a crash or change what the client gets.
    }
  }
  const policy = options.policy ?? DEFAULT_POLICY;
  const hiddenForbidden = applyPolicy(policy, FORBIDDEN_ITEM);
  const settings: Settings = {
    authenticate: options.authenticate,
    authorize: options.authorize,
    challenge: options.challenge === undefined ? DEFAULT_CHALLENGE : checkHeaderValue('challenge', options.challenge),
    policy,
    maxDepth: checkLimit('maxDepth', options.maxDepth, DEFAULT_DEPTH),
    bodyLimit: checkLimit('bodyLimit', options.bodyLimit, ONE_MEBIBYTE),
    formats,
    negotiator: createNegotiator(formats),
    vary: formats.length > 1,
    report,
    timeout: options.timeout === false ? undefined : checkTimeout(options.timeout),
    serializerCompiler: options.serializerCompiler,
    forbiddenItem: hiddenForbidden.status === MISSING_ITEM.status && hiddenForbidden !== FORBIDDEN_ITEM ? MISSING_ITEM : hiddenForbidden,
    deadlines: undefined,
  };
  if (settings.timeout !== undefined) {
    settings.deadlines = createDeadlines<Exchange>(settings.timeout, (exchange) => {
      answerWith(exchange, fail(TIMED_OUT, exchange.ctx.request, exchange.headers));
      exchange.stop?.();
    });
  }
  for (const format of formats) checkHeaderValue('formats', format?.contentType);

  function fail(error: unknown, request: ApiRequest, headers: HeaderRecord): ApiResponse {
    try {
      if (error === FORBIDDEN_ITEM) return answer(settings.forbiddenItem, error, request, headers);
      return answer(isHttpError(error) ? applyPolicy(settings.policy, error) : new InternalServerError(undefined, { cause: error }), error, request, headers);
    } catch {
      // A thrown value that throws when read (a Proxy, a getter) is a server fault like any other.
      return answer(new InternalServerError(undefined, { cause: error }), error, request, headers);
    }
  }

  function answer(httpError: HttpError, error: unknown, request: ApiRequest, headers: HeaderRecord): ApiResponse {
    const instance = httpError.status >= 500 ? `urn:uuid:${globalThis.crypto.randomUUID()}` : undefined;
    const problem = problemOf(httpError, instance);
    const format = settings.negotiator.problem(single(headers.accept));
    // A copy then an assignment, not `{ ...headers, key }`: in V8 a spread followed by a new key is slower.
    const responseHeaders: Record<string, string> = Object.assign({}, httpError.headers);
    responseHeaders['content-type'] = `${format.problemType ?? 'application/problem+json'}; charset=utf-8`;
    if (settings.vary) responseHeaders.vary = 'Accept';
    const head = request.method === 'HEAD';
    const payload = head ? undefined : (format.serializeProblem ?? json.serializeProblem!)(problem);
    // Reported once the answer is built, so that an error that fails to build one is reported once.
    if (instance !== undefined) report(error, { requestId: instance, status: httpError.status, request });
    return { status: httpError.status, headers: responseHeaders, body: head ? undefined : problem, payload };
  }

  function runEndpoint(compiled: Compiled, rawParams: Record<string, string>, search: string, headers: HeaderRecord, request: ApiRequest): ApiResponse | Promise<ApiResponse> {
    const response = run(compiled, rawParams, search, headers, request, settings, fail);
    if (!(response instanceof Promise)) return request.method === 'HEAD' ? withoutBody(response) : response;
    return request.method === 'HEAD' ? response.then(withoutBody) : response;
  }

  return { settings, run: runEndpoint, fail };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function withoutBody(response: ApiResponse): ApiResponse {
  response.body = undefined;
  response.payload = undefined;
  return response;
}

/** The answer for a path no route matches: one frozen error, since nothing about it varies. */
export const NO_ROUTE = withoutStack(() => new NotFoundError('No resource matches this path'));


const TIMED_OUT = withoutStack(() => new HttpError(503, { code: ERROR_CODES.TIMEOUT, detail: 'The request did not finish in time', expose: true }));

/**
 * Without `onError`, an unexpected error is written once to `console.error` with what an operator
 * needs to find it again (the id the client got, the method and path, the stack); never to the client.
 */
function logError(error: unknown, info: ErrorInfo): void {
  try {
    console.error(`restcanon: ${info.status} ${info.requestId} ${info.request.method} ${splitUrl(info.request.url).path}`, error);
  } catch {
    // A console that throws must not change what the client gets.
  }
}

/** A header value restcanon sends from an option: refused at definition time when it could split a header. */
function checkHeaderValue(name: string, value: unknown): string {
  if (typeof value !== 'string' || /[^\t\x20-\x7e]/.test(value)) {
    throw new TypeError(`createApi: "${name}" must give a header value of printable ASCII, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The largest delay a timer takes (2^31 - 1 ms, about 24.8 days); beyond it Node fires at once. */
const LONGEST_TIMEOUT = 2_147_483_647;

function checkTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > LONGEST_TIMEOUT) {
    throw new TypeError(`createApi: "timeout" must be a whole number of milliseconds from 1 to ${LONGEST_TIMEOUT}, or false for none; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  }
  return value;
}

function checkLimit(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`createApi: "${name}" must be a whole number of at least 0, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  }
  return value;
}

/** Prepares an endpoint served at a template: its body rules, and the template of a created item's URL. */
export function compile(endpoint: Endpoint, template: string, settings: Settings): Compiled {
  let bodyRules: BodyRules | undefined;
  if (BODY_METHODS.has(endpoint.method) && endpoint.body !== undefined) {
    const consumes = new Set(endpoint.consumes.map((type) => type.toLowerCase()));
    const headerName = endpoint.method === 'POST' ? 'accept-post' : endpoint.method === 'PATCH' ? 'accept-patch' : undefined;
    bodyRules = {
      limit: settings.bodyLimit,
      maxDepth: settings.maxDepth,
      consumes,
      acceptHeader: headerName === undefined ? undefined : { name: headerName, value: [...consumes].join(', ') },
    };
  }
  const itemTemplate = endpoint.itemPath === undefined ? undefined : joinPaths(template.slice(0, template.length - endpoint.path.length) || '/', endpoint.itemPath);
  return {
    endpoint,
    template,
    itemTemplate,
    bodyRules,
    steps: stepsOf(endpoint, bodyRules, settings),
    stringify: compileStringify(endpoint, settings),
    project: projectionOf(endpoint),
  };
}

/**
 * What a response schema hides is hidden in every format: the result is cut down to what the schema
 * declares before JSON, text, XML or a compiled serializer sees it. A list's items one by one.
 */
function projectionOf(endpoint: Endpoint): Projection | undefined {
  const { response } = endpoint;
  if (response === undefined) return undefined;
  let project: Projection;
  try {
    project = compileProjection(response.schema);
  } catch (error) {
    throw new TypeError(`${endpoint.method} ${endpoint.path}: the response schema cannot be used: ${String((error as Error)?.message ?? error)}`, { cause: error });
  }
  return response.array ? eachItem(endpoint, (items) => items.map(project)) : project;
}

/**
 * A list's result, item by item: anything but an array is a masked 500 (as for any result its
 * schema does not describe), never a body sent as it is.
 */
function eachItem<Out>(endpoint: Endpoint, map: (items: readonly unknown[]) => Out): (value: unknown) => Out {
  return (value) => {
    if (!Array.isArray(value)) throw new TypeError(`The result of ${endpoint.method} ${endpoint.path} is not the array its item schema needs`);
    return map(value);
  };
}

/**
 * The endpoint's JSON serializer from its response schema, when the API has a `serializerCompiler`
 * and the schema a JSON Schema. A list's items are written one by one and joined: the compiler gets
 * the item's own schema, where a reference to the root (a recursive item) still means the item.
 */
function compileStringify(endpoint: Endpoint, settings: Settings): Compiled['stringify'] {
  const { response } = endpoint;
  const compiler = settings.serializerCompiler;
  if (response === undefined || compiler === undefined) return undefined;
  const schema = jsonSchemaOf(response.schema, 'draft-07');
  if (schema === undefined) return undefined;
  let item: (value: unknown) => string;
  try {
    item = compiler(schema);
  } catch (error) {
    throw new TypeError(`createApi: serializerCompiler failed for ${endpoint.method} ${endpoint.path}: ${String((error as Error)?.message ?? error)}`, { cause: error });
  }
  return response.array ? eachItem(endpoint, (items) => `[${items.map((entry) => item(entry)).join(',')}]`) : item;
}

/** OPTIONS on a path without an OPTIONS endpoint: the policy's status and `Allow`. */
export function optionsResponse(route: Route<Compiled>, settings: Settings): ApiResponse {
  return { status: settings.policy.decide('options'), headers: { allow: route.allow }, body: undefined, payload: undefined };
}

/**
 * One request on its way through its endpoint's steps: what the steps read, and what each leaves for
 * the next. A plain object of one shape, so that every step reads it the same way.
 */
interface Exchange extends Timed {
  readonly compiled: Compiled;
  readonly settings: Settings;
  /** The request's headers as they came (a validated `ctx.headers` may be another object). */
  readonly headers: HeaderRecord;
  /** The params as the router matched them (a validated `ctx.params` may hold numbers). */
  readonly rawParams: Record<string, string>;
  readonly ctx: AnyContext;
  /** The format of a successful answer, once `Accept` was negotiated. */
  format: Serializer;
  /** The body's media type, once its Content-Type passed the endpoint's `consumes`. */
  mediaType: string | undefined;
  /** Issues of every part validated so far, capped; a list only once there is one. */
  issues: IssueList | undefined;
  /** What the handler returned, after the result filters. */
  result: unknown;
  /** Stops the reading of the body, set while it is being read: a request out of time lets go of it. */
  stop: (() => void) | undefined;
  /** Settles the request's promise, once a step had to wait; the first answer wins. */
  resolve: ((response: ApiResponse) => void) | undefined;
  /** When its time runs out, and its place among the running requests (see {@link createDeadlines}). */
  dueAt: number;
  older: Timed | undefined;
  newer: Timed | undefined;
}

/** The answer of a request that had to wait: its steps' or its deadline's, whichever comes first. */
function answerWith(exchange: Exchange, response: ApiResponse): void {
  exchange.settings.deadlines?.delete(exchange);
  exchange.resolve!(response);
}

/**
 * One step of a request. It returns nothing when it finished, and a promise only when it has to
 * wait: a request whose every step is synchronous (a sync schema and handler, say) is answered
 * without a single promise, while an async step costs one tick and no more.
 */
type Step = (exchange: Exchange) => Promise<unknown> | undefined;

/**
 * The steps of one endpoint, in order, chosen once from what it declares and what the API sets. The
 * caller is known before anything of the request is parsed beyond its path: an anonymous caller of a
 * protected endpoint costs no work on `Accept`, `Content-Type` or the body.
 */
function stepsOf(endpoint: Endpoint, bodyRules: BodyRules | undefined, settings: Settings): Step[] {
  const steps: Step[] = [];
  if (settings.authenticate !== undefined) steps.push(authenticateCaller);
  steps.push(negotiateFormat);
  if (bodyRules !== undefined) steps.push(checkBodyHeaders, readRequestBody);
  else if (BODY_METHODS.has(endpoint.method)) steps.push(refuseBody);
  if (endpoint.params !== undefined) steps.push(validation('params', endpoint.params, 'path'));
  if (endpoint.query !== undefined) steps.push(validation('query', endpoint.query, 'query'));
  if (endpoint.headers !== undefined) steps.push(validation('headers', endpoint.headers, 'header'));
  if (endpoint.body !== undefined && endpoint.body !== 'unvalidated') steps.push(requireBody, validation('body', endpoint.body, 'body'));
  if (endpoint.params !== undefined || endpoint.query !== undefined || endpoint.headers !== undefined || (endpoint.body !== undefined && endpoint.body !== 'unvalidated')) {
    steps.push(rejectInvalidInput);
  }
  if (settings.authorize !== undefined) steps.push(authorization(settings.authorize));
  for (const rule of endpoint.authorize) steps.push(authorization(rule));
  for (const guard of endpoint.guards) steps.push((exchange) => settled(guard(exchange.ctx), exchange, ignore));
  steps.push(callHandler);
  for (const filter of endpoint.filters) steps.push(resultFilter(filter));
  return steps;
}

/** Runs the steps from `from` on: synchronously, until one returns a promise; then on from where it left off, once it settles. */
function runSteps(exchange: Exchange, from: number): Promise<unknown> | undefined {
  const steps = exchange.compiled.steps;
  for (let index = from; index < steps.length; index++) {
    const pending = steps[index]!(exchange);
    if (pending !== undefined) return pending.then(() => runSteps(exchange, index + 1));
  }
  return undefined;
}

/**
 * Every step of a request, then its answer. A failure, thrown or rejected, is answered here: the
 * promise of an async step gets its handlers as soon as it exists, so a rejection never goes through
 * Node's unhandled-rejection bookkeeping, which every error answer would otherwise pay for.
 */
function run(
  compiled: Compiled,
  rawParams: Record<string, string>,
  search: string,
  headers: HeaderRecord,
  request: ApiRequest,
  settings: Settings,
  fail: Runtime['fail'],
): ApiResponse | Promise<ApiResponse> {
  try {
    const exchange: Exchange = {
      compiled,
      settings,
      headers,
      rawParams,
      ctx: { params: rawParams, query: search === '' ? emptyQuery() : parseQuery(search), headers, body: undefined, principal: undefined, request },
      format: json,
      mediaType: undefined,
      issues: undefined,
      result: undefined,
      stop: undefined,
      resolve: undefined,
      dueAt: 0,
      older: undefined,
      newer: undefined,
    };
    const pending = runSteps(exchange, 0);
    // A response that is already there has nothing left to wait for, nor to time out.
    if (pending === undefined) return succeed(exchange);
    // One promise per request, settled by its steps or by its deadline, whichever comes first.
    const answer = new Promise<ApiResponse>((resolve) => (exchange.resolve = resolve));
    settings.deadlines?.add(exchange);
    pending.then(
      () => {
        let response: ApiResponse;
        try {
          response = succeed(exchange);
        } catch (error) {
          response = fail(error, request, headers);
        }
        answerWith(exchange, response);
      },
      (error: unknown) => answerWith(exchange, fail(error, request, headers)),
    );
    return answer;
  } catch (error) {
    return fail(error, request, headers);
  }
}

/** The format of a successful answer, from `Accept`; a 406 when none fits and the policy says so. */
function negotiateFormat(exchange: Exchange): undefined {
  const { settings } = exchange;
  const format = settings.negotiator.content(single(exchange.headers.accept));
  if (format !== undefined) exchange.format = format;
  else if (settings.policy.unacceptable === 'reject') {
    throw new NotAcceptableError(`Available: ${settings.formats.map((serializer) => serializer.type).join(', ')}`);
  }
  return undefined;
}

/**
 * Hands a step's value to `next`: at once when it is there, or once it settles, with the promise of
 * that for {@link runSteps} to wait on. `next` takes the exchange, so that a step that does not wait
 * allocates no closure.
 */
function settled<Value>(value: Value | PromiseLike<Value>, exchange: Exchange, next: (exchange: Exchange, value: Value) => void): Promise<void> | undefined {
  if (isThenable(value)) return Promise.resolve(value).then((resolved) => next(exchange, resolved));
  next(exchange, value as Value);
  return undefined;
}

function ignore(): void {}

/** Content-Type, Content-Encoding and Content-Length, checked before anyone reads the body. */
function checkBodyHeaders(exchange: Exchange): undefined {
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
async function authenticateCaller({ settings, ctx, compiled, headers }: Exchange): Promise<void> {
  const isPublic = compiled.endpoint.public;
  if (headers.authorization !== undefined) checkCredentials(headers.authorization);
  try {
    ctx.principal = callerOf(await settings.authenticate!(ctx.request));
  } catch (error) {
    if (!isHttpError(error) || error.status !== 401) throw error;
    // A bad token on a public endpoint leaves the caller anonymous; anywhere else it is the 401 it says.
    if (isPublic) return;
    // An UnauthorizedError built without a challenge of its own gets the API's configured one.
    const challenge = error.headers['www-authenticate'];
    if (challenge !== undefined && challenge !== DEFAULT_CHALLENGE) throw error;
    throw new UnauthorizedError(error.detail, { challenge: settings.challenge, code: error.code });
  }
  if (ctx.principal === undefined && !isPublic) throw new UnauthorizedError(undefined, { challenge: settings.challenge });
}

async function readRequestBody(exchange: Exchange): Promise<void> {
  const body = exchange.ctx.request.body;
  if (body === undefined || body === null) return;
  const rules = exchange.compiled.bodyRules!;
  if (!isRawBody(body)) {
    // A framework's parsed body gets the same limit as a raw one (measured from below, never a false 413).
    inspectBody(body, rules.maxDepth, rules.limit);
    exchange.ctx.body = body;
    return;
  }
  const text = await readBody(body, rules.limit, exchange);
  if (text === '') return;
  const type = exchange.mediaType ?? checkMediaType(single(exchange.headers['content-type']), rules);
  const parsed = parseBodyText(text, type);
  inspectBody(parsed, rules.maxDepth);
  exchange.ctx.body = parsed;
}

function callerOf(value: unknown): unknown {
  if (value === undefined || value === null || value === false) return undefined;
  // Not a function either: `authenticate: (request) => sessions.find` forgot to call its lookup.
  if (typeof value === 'object') return value;
  throw new TypeError(
    `authenticate returned ${typeof value === 'string' ? 'a string' : String(value)}; return an object for a caller, or undefined, null or false for an anonymous one`,
  );
}

const UNEXPECTED_BODY = withoutStack(
  () => new BadRequestError('This endpoint takes no body; declare a body schema to accept one', { code: ERROR_CODES.UNEXPECTED_BODY }),
);

/**
 * On a POST, PUT or PATCH endpoint that declares no body, a request that carries one is refused
 * rather than handed over unvalidated. The framing headers say so without reading; a body without
 * them (HTTP/2, `api.handle`) is read up to its first byte.
 */
function refuseBody(exchange: Exchange): Promise<void> | undefined {
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
    throw isHttpError(error) && error.status === 413 ? UNEXPECTED_BODY : error;
  });
}

function requireBody(exchange: Exchange): undefined {
  if (exchange.ctx.body === undefined) throw new BadRequestError('The request needs a body', { code: ERROR_CODES.MALFORMED_BODY });
  return undefined;
}

/**
 * Validates one part of the request in place: `ctx[part]` becomes the schema's output, or stays the
 * input while its issues join those of the other parts, so that one 400 lists them all.
 */
function validation(part: 'params' | 'query' | 'headers' | 'body', schema: PartSchema, location: InputIssue['in']): Step {
  const keep = (exchange: Exchange, result: PartResult): void => {
    if (result.ok) exchange.ctx[part] = result.value;
    else exchange.issues = addIssues(exchange.issues, result);
  };
  const validate = partValidator(schema, location);
  return (exchange) => settled(validate(exchange.ctx[part]), exchange, keep);
}

function rejectInvalidInput(exchange: Exchange): undefined {
  // A 400 is an ordinary answer: its stack is never shown, and capturing one costs more than the
  // rest of the answer.
  const found = exchange.issues;
  if (found !== undefined) throw withoutStack(() => invalidInput(found.issues, found.omitted));
  return undefined;
}

/** A rule that must say `true` for a caller (anonymous callers of public endpoints are not asked). */
function authorization(rule: Authorize): Step {
  return (exchange) => {
    if (exchange.compiled.endpoint.public && exchange.ctx.principal === undefined) return undefined;
    return settled(rule(exchange.ctx), exchange, allowOrForbid);
  };
}

function allowOrForbid(_exchange: Exchange, allowed: boolean): void {
  if (allowed !== true) throw new ForbiddenError();
}

function keepFiltered(exchange: Exchange, result: unknown): void {
  exchange.result = result;
}

function callHandler(exchange: Exchange): Promise<void> | undefined {
  return settled(exchange.compiled.endpoint.handle(exchange.ctx), exchange, keepResult);
}

function keepResult(exchange: Exchange, result: unknown): void {
  if (result instanceof Error || isHttpError(result)) throw result;
  exchange.result = result;
}

function resultFilter(filter: ResultFilter): Step {
  return (exchange) => {
    const { settings, ctx } = exchange;
    const report = (error: unknown): void =>
      settings.report(error, { requestId: `urn:uuid:${globalThis.crypto.randomUUID()}`, status: settings.policy.decide(exchange.compiled.endpoint.operation), request: ctx.request });
    return settled(filter(exchange.result, ctx, report), exchange, keepFiltered);
  };
}

function succeed(exchange: Exchange): ApiResponse {
  const { compiled, result, ctx, settings } = exchange;
  const { endpoint } = compiled;
  const operation = endpoint.operation;
  const missing = result === undefined || result === null;
  if (operation === 'read' || operation === 'replace' || operation === 'update' || operation === 'remove') {
    if (missing || (operation === 'remove' && result === false)) throw MISSING_ITEM;
  }
  const headers: Record<string, string> = {};
  if (settings.vary) headers.vary = 'Accept';
  let status: number;
  let body: unknown = result;
  if (operation === 'remove' && result === true) {
    status = settings.policy.decide('empty');
    body = undefined;
  } else if (missing && operation !== 'create') {
    status = settings.policy.decide('empty');
    body = undefined;
  } else {
    status = settings.policy.decide(operation);
  }
  if (operation === 'create' && !missing) {
    const location = endpoint.location !== undefined ? customLocation(exchange, result) : defaultLocation(compiled, result, exchange.rawParams, ctx.params, ctx.request.baseUrl);
    if (location !== undefined) headers.location = location;
  }
  if (isEmptyBodyStatus(status) || body === undefined || body === null) {
    return { status, headers, body: undefined, payload: undefined };
  }
  if (compiled.project !== undefined) body = compiled.project(body);
  const { format } = exchange;
  const payload = compiled.stringify !== undefined && format.type === 'application/json' ? compiled.stringify(body) : format.serialize(body);
  headers['content-type'] = format.contentType;
  return { status, headers, body, payload };
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
    settings.report(error, { requestId: `urn:uuid:${globalThis.crypto.randomUUID()}`, status: settings.policy.decide('create'), request: ctx.request });
    return undefined;
  }
}

function defaultLocation(compiled: Compiled, result: unknown, rawParams: Record<string, string>, params: object, baseUrl: string | undefined): string | undefined {
  const id = (result as { id?: unknown }).id;
  if (compiled.itemTemplate === undefined || !isUrlPart(id)) return undefined;
  const values: Record<string, unknown> = Object.assign({}, rawParams);
  // A parent id as its schema read it, so that one item has one URL: `/users/0x1/orders` creates under `/users/1`.
  for (const [name, value] of Object.entries(params)) if (isUrlPart(value)) values[name] = value;
  values.id = id;
  const path = buildPath(compiled.itemTemplate, values);
  return baseUrl === undefined || baseUrl === '' || baseUrl === '/' ? path : joinPaths(headerSafeUrl(baseUrl), path);
}

function isUrlPart(value: unknown): value is string | number | bigint {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint';
}
