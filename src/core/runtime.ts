import type { ApiRequest, ApiResponse, HeaderRecord } from './contract.js';
import { BODY_METHODS } from './http.js';
import type { BodyRules } from './body.js';
import { RequestContext } from './context.js';
import { readsBody, type AnyContext, type Endpoint } from './endpoint.js';
import { failure, failureOf, problemAnswer, succeed } from './answers.js';
import { HttpError, withoutStack } from './errors.js';
import { json } from '../formats/formats.js';
import { joinPaths } from './path.js';
import { OUTCOMES, type OutcomeRow } from './outcomes.js';
import { emptyQuery, parseQuery } from './request.js';
import { createDeadlines, type Timed } from './deadlines.js';
import { compileProjection, type Projection } from '../conventions/projection/projection.js';
import { jsonSchemaOf } from './standard-schema.js';
import type { Page } from '../conventions/lists/lists.js';
import { createSettings, type RuntimeOptions, type Settings } from './settings.js';
import { runSteps, stepsOf, type Compiled, type Exchange } from './steps.js';

/**
 * Running a request: an endpoint prepared once (its steps, serializer and projection), then its
 * steps run until one waits, and the answer of their outcome (answers.ts), within the request's
 * deadline.
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

  const fail = (error: unknown, request: ApiRequest, headers: HeaderRecord): ApiResponse => failure(settings, error, request, headers);

  /**
   * A failure of an endpoint's steps. Outside production, a 4xx the endpoint's outcomes do not list
   * (a handler's undeclared `ConflictError`, say) is reported once per endpoint and status, so that
   * its documentation can be completed; the client's answer is the same either way.
   */
  function failEndpoint(error: unknown, request: ApiRequest, headers: HeaderRecord, compiled: Compiled): ApiResponse {
    const answered = failureOf(settings, error);
    const response = problemAnswer(settings, answered, request, headers);
    const { status } = response;
    if (settings.development && status < 500 && !compiled.statuses.has(status) && !compiled.undeclared.has(status)) {
      compiled.undeclared.add(status);
      const { method, path } = compiled.endpoint;
      // The error's own code: the body may be the API's own (`problemBody`), without one.
      const { code } = answered.facts;
      settings.report(
        new Error(`${method} ${path} answered ${status} (${code}), which it does not declare: add it to the endpoint's "errors" so that its documentation lists it`),
        { requestId: `urn:uuid:${globalThis.crypto.randomUUID()}`, status, request },
      );
    }
    return response;
  }

  function runEndpoint(compiled: Compiled, rawParams: Record<string, string>, search: string, headers: HeaderRecord, request: ApiRequest): ApiResponse | Promise<ApiResponse> {
    const response = run(compiled, rawParams, search, headers, request, settings, failEndpoint);
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

const TIMED_OUT = withoutStack(() => new HttpError(OUTCOMES.timeout.status, { code: OUTCOMES.timeout.code, detail: 'The request did not finish in time', expose: true }));

/** Prepares an endpoint served at a template: its body rules, and the template of a created item's URL. */
export function compile(endpoint: Endpoint, template: string, settings: Settings): Compiled {
  let bodyRules: BodyRules | undefined;
  if (BODY_METHODS.has(endpoint.method) && readsBody(endpoint)) {
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
    item: (OUTCOMES[endpoint.operation] as OutcomeRow).item === true,
    choices: new Set([endpoint.operation, ...(endpoint.outcomes ?? [])]),
    statuses: new Set(outcomes.map((outcome) => settings.policy.decide(outcome))),
    undeclared: new Set(),
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
  // A page's items one by one, and its links as they are.
  if (response.page === true) return (value) => ({ ...(value as Page), items: (value as Page).items.map(project) });
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
  if (!response.array) return item;
  const list = (items: unknown[]): string => `[${items.map((entry) => item(entry)).join(',')}]`;
  if (response.page !== true) return (items) => list(items as unknown[]);
  return (value) => {
    const page = value as Page;
    return `{"items":${list(page.items)},"next":${JSON.stringify(page.next)},"prev":${JSON.stringify(page.prev)}}`;
  };
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
  fail: (error: unknown, request: ApiRequest, headers: HeaderRecord, compiled: Compiled) => ApiResponse,
): ApiResponse | Promise<ApiResponse> {
  try {
    const exchange: Exchange = {
      compiled,
      settings,
      headers,
      rawParams,
      ctx: new RequestContext(rawParams, search === '' ? emptyQuery() : parseQuery(search), headers, request, compiled.choices) as unknown as AnyContext,
      format: json,
      mediaType: undefined,
      issues: undefined,
      result: undefined,
      item: undefined,
      done: false,
      notModified: false,
      list: undefined,
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
          response = fail(error, request, headers, compiled);
        }
        answerWith(exchange, response);
      },
      (error: unknown) => answerWith(exchange, fail(error, request, headers, compiled)),
    );
    return answer;
  } catch (error) {
    return fail(error, request, headers, compiled);
  }
}
