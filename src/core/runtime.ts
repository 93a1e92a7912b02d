import type { ApiRequest, ApiResponse, HeaderRecord } from './contract.js';
import { RequestContext } from './context.js';
import type { AnyContext } from './endpoint.js';
import { failure, failureOf, problemAnswer, succeed } from './answers.js';
import { HttpError, withoutStack } from './errors.js';
import type { Compiled, Exchange } from './exchange.js';
import { json } from '../formats/formats.js';
import { OUTCOMES } from './outcomes.js';
import { emptyQuery, parseQuery } from './request.js';
import { givenRequestId, requestIdOf } from './request-id.js';
import { createDeadlines, type Timed } from './deadlines.js';
import { createSettings, type RuntimeOptions, type Settings } from './settings.js';
import { runSteps } from './steps.js';
import { closeStream, type Chunks } from './byte-results.js';

const INTERNAL_STATUS = OUTCOMES.internalError.status;

/**
 * Running a request: the steps of its endpoint (built once by compile.ts) run until one waits, then
 * the answer of their outcome (answers.ts), within the request's deadline.
 */

/** The settings of an API, and the two things every request needs: run an endpoint, and turn a failure into a response. */
export interface Runtime {
  settings: Settings;
  /** The response, or its promise when a step had to wait. Never throws, and the promise never rejects. */
  run(compiled: Compiled, rawParams: Record<string, string>, search: string, headers: HeaderRecord, request: ApiRequest): ApiResponse | Promise<ApiResponse>;
  /** The problem of a failure; `id` is the request's, when it has one already. */
  fail(error: unknown, request: ApiRequest, headers: HeaderRecord, id?: string): ApiResponse;
}

/** Checks the options of an API (or of one endpoint) and prepares its runtime. */
export function createRuntime(options: RuntimeOptions): Runtime {
  const settings = createSettings(options);
  if (settings.timeout !== undefined) {
    settings.deadlines = createDeadlines<Timed>(settings.timeout, (timed) => {
      const exchange = timed as Exchange;
      answerWith(exchange, fail(TIMED_OUT, exchange.ctx.request, exchange.headers, exchange.ctx.id));
      exchange.stop?.();
      (exchange.ctx as unknown as RequestContext).abort(TIMED_OUT);
    });
  }

  const fail = (error: unknown, request: ApiRequest, headers: HeaderRecord, id?: string): ApiResponse => failure(settings, error, request, headers, id);

  /**
   * A failure of an endpoint's steps. Outside production, a 4xx the endpoint's outcomes do not list
   * (a handler's undeclared `ConflictError`, say) is reported once per endpoint and status, so that
   * its documentation can be completed; the client's answer is the same either way.
   */
  function failEndpoint(error: unknown, request: ApiRequest, headers: HeaderRecord, compiled: Compiled, id: string | undefined): ApiResponse {
    const answered = failureOf(settings, error);
    // One id for the problem's `instance` and the report, made here when the request had none yet.
    const instance = id ?? requestIdOf(request, headers, settings.requestIdFrom);
    const response = problemAnswer(settings, answered, request, headers, instance);
    const { status } = response;
    if (settings.development && status < 500 && !compiled.statuses.has(status) && !compiled.undeclared.has(status)) {
      compiled.undeclared.add(status);
      const { method, path } = compiled.endpoint;
      // The error's own code: the body may be the API's own (`problemBody`), without one.
      const { code } = answered.facts;
      settings.report(
        new Error(`${method} ${path} answered ${status} (${code}), which it does not declare: add it to the endpoint's "errors" (or, when an extension throws it, to the extension's "outcomes") so that its documentation lists it`),
        { requestId: instance, status, request },
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
  const { stream } = response;
  if (stream !== undefined) {
    // HEAD: the headers of a GET, and the source closed unread.
    response.stream = undefined;
    void closeStream(stream);
  }
  return response;
}


const TIMED_OUT = /* @__PURE__ */ withoutStack(() => new HttpError(OUTCOMES.timeout.status, { code: OUTCOMES.timeout.code, detail: 'The request did not finish in time', expose: true }));

/**
 * The answer of a request that had to wait: its steps' or its deadline's, whichever comes first. A
 * stream that comes too late is closed unread.
 */
function answerWith(exchange: Exchange, response: ApiResponse): void {
  exchange.settings.deadlines?.delete(exchange);
  const { resolve } = exchange;
  exchange.resolve = undefined;
  const answer = finished(exchange, response);
  if (resolve !== undefined) resolve(answer);
  else if (answer.stream !== undefined) void closeStream(answer.stream);
}

/** An answer of the endpoint as its conventions' finish hooks leave it; one that throws is reported. */
function finished(exchange: Exchange, response: ApiResponse): ApiResponse {
  const { finish } = exchange.compiled;
  if (finish === undefined) return response;
  try {
    finish(exchange, response);
  } catch (error) {
    exchange.settings.report(error, { requestId: exchange.ctx.id, status: response.status, request: exchange.ctx.request });
  }
  return response;
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
  fail: (error: unknown, request: ApiRequest, headers: HeaderRecord, compiled: Compiled, id: string | undefined) => ApiResponse,
): ApiResponse | Promise<ApiResponse> {
  let id: string | undefined;
  let exchange: Exchange | undefined;
  try {
    // The id the request comes with: `ctx.id` makes one of its own only when read.
    id = givenRequestId(request, headers, settings.requestIdFrom);
    exchange = {
      compiled,
      settings,
      headers,
      rawParams,
      ctx: new RequestContext(rawParams, search === '' ? emptyQuery() : parseQuery(search), headers, request, compiled.choices, id, request.log ?? settings.logger) as unknown as AnyContext,
      format: json,
      mediaType: undefined,
      issues: undefined,
      result: undefined,
      item: undefined,
      done: false,
      response: undefined,
      notes: undefined,
      stop: undefined,
      resolve: undefined,
      dueAt: 0,
      older: undefined,
      newer: undefined,
    };
    const walking = exchange;
    const pending = runSteps(walking, 0);
    let ready: ApiResponse | undefined;
    if (pending === undefined) {
      ready = succeed(walking);
      // A response that is already there has nothing left to wait for, nor to time out; a stream's first chunk has.
      if (ready.stream === undefined || request.method === 'HEAD') return concluded(walking, ready);
    }
    return waited(walking, pending, ready, request, fail);
  } catch (error) {
    const response = fail(error, request, headers, compiled, exchange === undefined ? id : exchange.ctx.id);
    return exchange === undefined ? response : concluded(exchange, response);
  }
}

/**
 * The answer of a request that waits: for a step, or for the first chunk of its stream answer
 * (`ready`). Apart from `run`, so that a request answered at once allocates none of its closures.
 */
function waited(
  walking: Exchange,
  pending: Promise<unknown> | undefined,
  ready: ApiResponse | undefined,
  request: ApiRequest,
  fail: (error: unknown, request: ApiRequest, headers: HeaderRecord, compiled: Compiled, id: string | undefined) => ApiResponse,
): Promise<ApiResponse> {
  const { headers, compiled, settings } = walking;
  // One promise per request, settled by its steps or by its deadline, whichever comes first.
  const answer = new Promise<ApiResponse>((resolve) => (walking.resolve = resolve));
  settings.deadlines?.add(walking);
  const answerSettled = (response: ApiResponse): void => {
    const settling = settle(walking, response);
    if (settling instanceof Promise) settling.then((settledResponse) => answerWith(walking, settledResponse));
    else answerWith(walking, settling);
  };
  // Only a stream answer pays for one closure more: the answer to a failure of its first chunk.
  if (ready !== undefined) startStream(walking, ready, answerSettled, (error) => answerSettled(fail(error, request, headers, compiled, walking.ctx.id)));
  else {
    pending!.then(
      () => {
        let response: ApiResponse;
        try {
          response = succeed(walking);
        } catch (error) {
          response = fail(error, request, headers, compiled, walking.ctx.id);
        }
        if (response.stream === undefined || request.method === 'HEAD') answerSettled(response);
        else startStream(walking, response, answerSettled, (error) => answerSettled(fail(error, request, headers, compiled, walking.ctx.id)));
      },
      (error: unknown) => answerSettled(fail(error, request, headers, compiled, walking.ctx.id)),
    );
  }
  return answer;
}

/**
 * A stream answer once its first chunk is read, before the answer starts: a source that fails at
 * once is answered by `failed`; from then on its errors are reported as a 500 of the request.
 */
function startStream(exchange: Exchange, response: ApiResponse, answer: (response: ApiResponse) => void, failed: (error: unknown) => void): void {
  const { settings, ctx } = exchange;
  const stream = response.stream as Chunks;
  // A source still quiet when the deadline answers is closed then: its first chunk may never come.
  exchange.stop = () => void stream.return();
  const report = (error: unknown): void => settings.report(error, { requestId: ctx.id, status: INTERNAL_STATUS, request: ctx.request });
  // Once the deadline answered, what the closed source throws is nobody's failure.
  stream.start(report).then(() => answer(response), (error: unknown) => exchange.resolve === undefined || failed(error));
}

/** The answer of a walk that did not wait: seen by the settle hooks, then by the finish hooks. */
function concluded(exchange: Exchange, response: ApiResponse): ApiResponse | Promise<ApiResponse> {
  const settled = settle(exchange, response);
  return settled instanceof Promise ? settled.then((seen) => finished(exchange, seen)) : finished(exchange, settled);
}

/**
 * The answer once the endpoint's conventions have seen it (`settle`): at once when none waits, else
 * when what they wait for settles. What they throw or reject with is reported; the answer stands.
 */
function settle(exchange: Exchange, response: ApiResponse): ApiResponse | Promise<ApiResponse> {
  const hook = exchange.compiled.settle;
  if (hook === undefined) return response;
  const { settings, ctx } = exchange;
  const report = (error: unknown): ApiResponse => {
    settings.report(error, { requestId: ctx.id, status: response.status, request: ctx.request });
    return response;
  };
  let waiting: unknown;
  try {
    waiting = hook(exchange, response);
  } catch (error) {
    return report(error);
  }
  if (waiting === undefined || waiting === null) return response;
  return Promise.resolve(waiting).then(() => response, report);
}
