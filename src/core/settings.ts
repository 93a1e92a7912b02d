import type { Promisable } from 'type-fest' with { 'resolution-mode': 'import' };
import type { ApiRequest, ErrorInfo, Logger } from './contract.js';
import type { AnyContext, Authenticated } from './endpoint.js';
import { DEFAULT_CHALLENGE, FORBIDDEN_ITEM, MISSING_ITEM, type HttpError, type ProblemDetails } from './errors.js';
import { checkFunction, checkOptions } from './options.js';
import { checkSchema, type StandardSchema } from './standard-schema.js';
import { createNegotiator, json, type Serializer } from '../formats/formats.js';
import { checkedPolicy, DEFAULT_POLICY, type StatusPolicy } from './policy.js';
import { splitUrl } from './request.js';
import { SILENT_LOGGER } from './request-id.js';
import { HEADER_NAME } from './http.js';
import type { Deadlines, Timed } from './deadlines.js';

/**
 * What every request of an API reads: its options, checked once and with their defaults.
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
  authenticate?: (request: ApiRequest) => Promisable<Authenticated>;
  /** A rule every protected request must pass; `false` answers 403. Public endpoints never run it: they answer every caller alike. */
  authorize?: (ctx: AnyContext) => Promisable<boolean>;
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
   * Shapes the body of every error answer: `build` receives the problem (status, code, detail, the
   * invalid inputs with their pointers) and the request, and its result is sent instead, in the
   * negotiated format's own media type (`application/json`, not `application/problem+json`).
   * `schema` describes the shaped body to the OpenAPI document.
   */
  problemBody?: ProblemBody;
  /**
   * Milliseconds a request may take from routing to result, 30 seconds by default. Past it the
   * client gets the policy's `timeout` status (503) and the request is freed; the handler's late
   * result is dropped. `false` lets requests take as long as they take. While someone awaits
   * `api.handle`, the deadline keeps the process alive, so that the 503 arrives in a script too.
   */
  timeout?: number | false;
  /**
   * A pino-compatible logger: `ctx.log` where the host gives none, and where restcanon reports an
   * unexpected error when there is no `onError` (before, and in place of, `console.error`).
   */
  logger?: Logger;
  /**
   * Request ids. `from` names an incoming header whose id the API trusts (a proxy's `X-Request-Id`;
   * only a plain id of at most 128 characters is taken); `echo` names a response header that every
   * answer carries the request's id in. The host's own id (Fastify's `request.id`) comes first.
   */
  requestId?: { from?: string; echo?: string };
}

/**
 * An API's own error body, built from each problem.
 *
 * @example
 * const problemBody: ProblemBody = { build: (problem) => ({ errors: { body: [problem.detail ?? problem.title] } }) };
 */
export interface ProblemBody {
  build: (problem: ProblemDetails, request: ApiRequest) => unknown;
  schema?: StandardSchema;
}

/** What every request of an API reads: its options, checked and with their defaults. */
export interface Settings {
  problemBody: ProblemBody | undefined;
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
  /** What someone else's item is answered as: the very error of a missing item when the policy answers both 404. */
  forbiddenItem: HttpError;
  /** The deadlines of running requests, unless `timeout: false`. */
  deadlines: Deadlines<Timed> | undefined;
  /** Not in production (`NODE_ENV`): undeclared errors are reported. */
  development: boolean;
  /** `ctx.log` where the host gives none. */
  logger: Logger;
  /** The incoming header whose id the API trusts, lower case. */
  requestIdFrom: string | undefined;
  /** The response header every answer carries the request's id in, lower case. */
  requestIdEcho: string | undefined;
}

/**
 * Without `onError`, an unexpected error is written once to `console.error` with what an operator
 * needs to find it again (the id the client got, the method and path, the stack); never to the client.
 */
function logError(error: unknown, info: ErrorInfo, logger: Logger | undefined): void {
  try {
    const path = splitUrl(info.request.url).path;
    if (logger === undefined) console.error(`restcanon: ${info.status} ${info.requestId} ${info.request.method} ${path}`, error);
    else logger.error({ err: error, requestId: info.requestId, status: info.status, method: info.request.method, path }, 'restcanon: an error the client does not see');
  } catch {
    // A logger that throws must not change what the client gets.
  }
}

const REQUEST_ID_OPTIONS = ['from', 'echo'];

function checkRequestId(value: RuntimeOptions['requestId']): { from: string | undefined; echo: string | undefined } {
  if (value === undefined) return { from: undefined, echo: undefined };
  if (typeof value !== 'object' || value === null) throw new TypeError('createApi: "requestId" must be { from, echo }: the incoming header to trust, the response header to send the id in');
  checkOptions('createApi(): "requestId"', value, REQUEST_ID_OPTIONS);
  const name = (which: 'from' | 'echo'): string | undefined => {
    const given: unknown = value[which];
    if (given === undefined) return undefined;
    if (typeof given !== 'string' || !HEADER_NAME.test(given)) throw new TypeError(`createApi: "requestId.${which}" must be a header name, such as 'x-request-id'`);
    return given.toLowerCase();
  };
  return { from: name('from'), echo: name('echo') };
}

function checkLogger(logger: unknown): Logger | undefined {
  if (logger === undefined) return undefined;
  const candidate = logger as Partial<Record<keyof Logger, unknown>> | null;
  if (typeof candidate !== 'object' || candidate === null || (['error', 'warn', 'info', 'debug'] as const).some((level) => typeof candidate[level] !== 'function')) {
    throw new TypeError('createApi: "logger" must be a logger with error, warn, info and debug functions, such as a pino logger');
  }
  return logger as Logger;
}

/** A header value restcanon sends from an option: refused at definition time when it could split a header. */
function checkHeaderValue(name: string, value: unknown): string {
  if (typeof value !== 'string' || /[^\t\x20-\x7e]/.test(value)) {
    throw new TypeError(`createApi: "${name}" must give a header value of printable ASCII, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * A format as the API uses it: its media types read once and checked here, so that what goes into
 * `Content-Type` is what was checked. The copy inherits the rest from the format, methods and all.
 */
function checkedFormat(format: Serializer): Serializer {
  if (typeof format !== 'object' || format === null || typeof format.serialize !== 'function') {
    throw new TypeError(`createApi: each of "formats" is a format with a serialize function, such as json; got ${format === null ? 'null' : typeof format}`);
  }
  const { type, contentType, problemType } = format;
  checkHeaderValue('formats', contentType);
  if (problemType !== undefined) {
    checkHeaderValue('formats', problemType);
    // Without its writer, the problem would go out as JSON under a type that says otherwise.
    if (typeof format.serializeProblem !== 'function') {
      throw new TypeError(`createApi: the format ${JSON.stringify(type)} has the problemType ${JSON.stringify(problemType)} but no serializeProblem to write its problems: give it serializeProblem(problem), or drop problemType so that its problems go out in JSON`);
    }
  }
  return Object.create(format, { type: { value: type }, contentType: { value: contentType }, problemType: { value: problemType } }) as Serializer;
}

function checkProblemBody(value: ProblemBody | undefined): ProblemBody | undefined {
  if (value === undefined) return undefined;
  checkOptions('createApi(): "problemBody"', value, ['build', 'schema']);
  if (typeof value.build !== 'function') throw new TypeError('createApi: "problemBody" needs a build function: (problem, request) => body');
  checkSchema(value.schema, 'createApi: the schema of "problemBody"');
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

/**
 * Checks the options of an API (or of one endpoint) and gives them with their defaults. A mistake
 * throws with a sentence that says what to change.
 *
 * @example
 * const settings = createSettings({ bodyLimit: 64 * 1024 });
 */
export function createSettings(options: RuntimeOptions): Settings {
  checkFunction(options.authenticate, 'createApi: "authenticate"', '(request) => the caller');
  checkFunction(options.authorize, 'createApi: "authorize"', '(ctx) => true to let the caller go on');
  checkFunction(options.onError, 'createApi: "onError"', '(error, info) => void');
  checkFunction(options.serializerCompiler, 'createApi: "serializerCompiler"', '(schema) => (value) => string');
  const formats = options.formats ?? [json];
  if (formats.length === 0) throw new TypeError('createApi: "formats" needs at least one serializer, such as json');
  const served = formats.map(checkedFormat);
  const onError = options.onError;
  const logger = checkLogger(options.logger);
  const requestId = checkRequestId(options.requestId);
  function report(error: unknown, info: ErrorInfo): void {
    if (onError === undefined) return logError(error, info, info.request.log ?? logger);
    try {
      const returned: unknown = onError(error, info);
      // An async onError returns a promise: its rejection must not become an unhandled one either.
      // Promise's own `then`, so that a promise whose `catch` or `then` was replaced is handled all the same.
      if (returned !== undefined) PROMISE_THEN.call(returned instanceof Promise ? returned : Promise.resolve(returned), undefined, ignore);
    } catch {
      // A failing logger must not turn one error into a crash or change what the client gets.
    }
  }
  const policy = options.policy === undefined ? DEFAULT_POLICY : checkedPolicy(options.policy);
  const { forbidden, notFound } = policy.statuses;
  const settings: Settings = {
    problemBody: checkProblemBody(options.problemBody),
    authenticate: options.authenticate,
    authorize: options.authorize,
    challenge: options.challenge === undefined ? DEFAULT_CHALLENGE : checkHeaderValue('challenge', options.challenge),
    policy,
    maxDepth: checkLimit('maxDepth', options.maxDepth, DEFAULT_DEPTH),
    bodyLimit: checkLimit('bodyLimit', options.bodyLimit, ONE_MEBIBYTE),
    formats,
    negotiator: createNegotiator(served),
    vary: formats.length > 1,
    report,
    timeout: options.timeout === false ? undefined : checkTimeout(options.timeout),
    serializerCompiler: options.serializerCompiler,
    // With both at 404, someone else's item is answered by the missing item's own error, on the same path.
    forbiddenItem: forbidden === MISSING_ITEM.status && notFound === MISSING_ITEM.status ? MISSING_ITEM : FORBIDDEN_ITEM,
    deadlines: undefined,
    development: (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.NODE_ENV !== 'production',
    logger: logger ?? SILENT_LOGGER,
    requestIdFrom: requestId.from,
    requestIdEcho: requestId.echo,
  };
  return settings;
}

const PROMISE_THEN = Promise.prototype.then;

function ignore(): void {}
