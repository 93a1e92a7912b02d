import type { ApiRequest, ApiResponse, HeaderRecord } from './contract.js';
import { BODY_METHODS, isEmptyBodyStatus } from './http.js';
import type { BodyRules } from './body.js';
import type { Endpoint } from './endpoint.js';
import {
  FORBIDDEN_ITEM,
  HttpError,
  InternalServerError,
  isHttpError,
  MISSING_ITEM,
  NotFoundError,
  problemOf,
  withoutStack,
} from './errors.js';
import { json } from '../formats/formats.js';
import { buildPath, headerSafeUrl, joinPaths } from './path.js';
import { OUTCOMES, type OutcomeRow } from './outcomes.js';
import { applyPolicy } from './policy.js';
import type { Route } from './router.js';
import { emptyQuery, parseQuery, single } from './request.js';
import { createDeadlines, type Timed } from './deadlines.js';
import { compileProjection, type Projection } from './projection.js';
import { jsonSchemaOf } from './standard-schema.js';
import { createSettings, type RuntimeOptions, type Settings } from './settings.js';
import { reportAside, runSteps, stepsOf, type Compiled, type Exchange } from './steps.js';

/**
 * Running a request: an endpoint prepared once (its steps, serializer and projection), the steps run
 * until one waits, the status policy and serialization of a success, and the one place where any
 * failure becomes a problem response.
 */

/** The settings of an API, and the two things every request needs: run an endpoint, and turn a failure into a response. */
export interface Runtime {
  settings: Settings;
  /** The response, or its promise when a step had to wait. Never throws, and the promise never rejects. */
  run(compiled: Compiled, rawParams: Record<string, string>, search: string, headers: HeaderRecord, request: ApiRequest): ApiResponse | Promise<ApiResponse>;
  fail(error: unknown, request: ApiRequest, headers: HeaderRecord): ApiResponse;
}

/** Checks the options of an API (or of one endpoint) and prepares its runtime. */
export function createRuntime(options: RuntimeOptions): Runtime {
  const settings = createSettings(options);
  if (settings.timeout !== undefined) {
    settings.deadlines = createDeadlines<Timed>(settings.timeout, (timed) => {
      const exchange = timed as Exchange;
      answerWith(exchange, fail(TIMED_OUT, exchange.ctx.request, exchange.headers));
      exchange.stop?.();
    });
  }

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
    if (instance !== undefined) settings.report(error, { requestId: instance, status: httpError.status, request });
    return { status: httpError.status, headers: responseHeaders, body: head ? undefined : problem, payload };
  }

  function runEndpoint(compiled: Compiled, rawParams: Record<string, string>, search: string, headers: HeaderRecord, request: ApiRequest): ApiResponse | Promise<ApiResponse> {
    const response = run(compiled, rawParams, search, headers, request, settings, fail);
    if (!(response instanceof Promise)) return request.method === 'HEAD' ? withoutBody(response) : response;
    return request.method === 'HEAD' ? response.then(withoutBody) : response;
  }

  return { settings, run: runEndpoint, fail };
}

function withoutBody(response: ApiResponse): ApiResponse {
  response.body = undefined;
  response.payload = undefined;
  return response;
}

/** The answer for a path no route matches: one frozen error, since nothing about it varies. */
export const NO_ROUTE = withoutStack(() => new NotFoundError('No resource matches this path'));


const TIMED_OUT = withoutStack(() => new HttpError(OUTCOMES.timeout.status, { code: OUTCOMES.timeout.code, detail: 'The request did not finish in time', expose: true }));

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
  const { steps, outcomes } = stepsOf(endpoint, template, bodyRules, settings);
  const itemTemplate = endpoint.itemPath === undefined ? undefined : joinPaths(template.slice(0, template.length - endpoint.path.length) || '/', endpoint.itemPath);
  return {
    endpoint,
    template,
    itemTemplate,
    bodyRules,
    steps,
    outcomes,
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
  if (!response.array) return project;
  // A list's items one by one; anything but an array is a masked 500, never a body sent as it is.
  return (value) => {
    if (!Array.isArray(value)) throw new TypeError(`The result of ${endpoint.method} ${endpoint.path} is not the array its item schema needs`);
    return value.map(project);
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
  // A list's result was checked to be an array by its projection, which always runs first.
  return response.array ? (items) => `[${(items as unknown[]).map((entry) => item(entry)).join(',')}]` : item;
}

/** OPTIONS on a path without an OPTIONS endpoint: the policy's status and `Allow`. */
export function optionsResponse(route: Route<Compiled>, settings: Settings): ApiResponse {
  return { status: settings.policy.decide('options'), headers: { allow: route.allow }, body: undefined, payload: undefined };
}

/** The answer of a request that had to wait: its steps' or its deadline's, whichever comes first. */
function answerWith(exchange: Exchange, response: ApiResponse): void {
  exchange.settings.deadlines?.delete(exchange);
  exchange.resolve!(response);
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

function succeed(exchange: Exchange): ApiResponse {
  const { compiled, result, ctx, settings } = exchange;
  const { endpoint } = compiled;
  const operation = endpoint.operation;
  const missing = result === undefined || result === null;
  if ((OUTCOMES[operation] as OutcomeRow).item === true && (missing || (operation === 'remove' && result === false))) throw MISSING_ITEM;
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
    reportAside(exchange, error);
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
