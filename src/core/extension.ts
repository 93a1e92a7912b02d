import type { Promisable } from 'type-fest' with { 'resolution-mode': 'import' };
import type { ApiRequest, ApiResponse } from './contract.js';
import type { AnyContext, State } from './endpoint.js';
import { settled, type Exchange, type Step } from './exchange.js';
import { checkFunction, checkOptions } from './options.js';
import { ERROR_OUTCOMES, type ErrorOutcome } from './outcomes.js';
import { newRequestId } from './request-id.js';
import { withLowerCaseHeaders } from './request.js';
import type { ApiBuild, Convention, PhaseStep, Responder } from './seam.js';

/**
 * The public extension point: a user's cross-cutting concern as a module on the same seam as
 * restcanon's conventions, composed once when the API is built.
 */

/**
 * What happened to one request, as an extension's `observe` sees it once its answer is built.
 *
 * @example
 * const observe = ({ request, response, route, duration }: Observation) => metrics.record(request.method, route, response.status, duration);
 */
export interface Observation {
  readonly request: ApiRequest;
  /** The answer as it goes out: its headers a frozen copy, its body and payload copies made when read. */
  readonly response: Readonly<ApiResponse>;
  /** The template of the route the request matched (`/api/users/:id`), or undefined: no route. */
  readonly route: string | undefined;
  /** Milliseconds from the request reaching the API to its answer. */
  readonly duration: number;
}

/**
 * What an extension does, each part optional, at fixed phases of every request of the API.
 *
 * @example
 * const options: ExtensionOptions = { name: 'tenants', state: (request) => ({ tenant: tenantOf(request) }) };
 */
export interface ExtensionOptions {
  /** A lower-case word that names it in messages; unique within an API. */
  name: string;
  /**
   * Before authentication: values for `ctx.state` (a database handle, the tenant), merged into what
   * earlier extensions set, or undefined for none. Throwing an `HttpError` ends the request.
   */
  state?: (request: ApiRequest) => Promisable<Partial<State> | undefined>;
  /**
   * Just before the handler, once the request is authenticated, validated and authorized: a check
   * that ends the request by throwing an `HttpError` (a 403, a 429), or returns to let it go on.
   */
  before?: (ctx: AnyContext) => Promisable<void>;
  /** The error outcomes that `state` and `before` may end a request with, so that every endpoint's documentation lists them. */
  outcomes?: readonly ErrorOutcome[];
  /**
   * Sees every answer of the API (404s, preflights and errors too) once it is built: for metrics and
   * audit logs. It never changes the answer; what it throws or rejects with goes to `onError`.
   */
  observe?: (observation: Observation) => unknown;
}

const OPTIONS = ['name', 'state', 'before', 'outcomes', 'observe'];

/**
 * A module of your own for `createApi({ use })`: per-request state on `ctx.state`, a check before
 * every handler, an observer of every answer. Declare the type of `ctx.state` once through
 * `Register`. Every option is checked now.
 *
 * @example
 * declare module 'restcanon' {
 *   interface Register { state: { tenant: string } }
 * }
 * const tenants = extension({
 *   name: 'tenants',
 *   state: (request) => ({ tenant: String(request.headers?.['x-tenant'] ?? 'public') }),
 *   before: (ctx) => { if (ctx.state.tenant === 'blocked') throw new ForbiddenError(); },
 *   outcomes: ['forbidden'],
 * });
 * const api = createApi({ endpoints, use: [tenants] });
 */
export function extension(options: ExtensionOptions): Convention {
  if (typeof options !== 'object' || options === null) throw new TypeError('extension(): give its options, such as { name, before }');
  // A name of another type (a BigInt, which JSON cannot write) is refused below by the name rule.
  const where = `extension(${typeof options.name === 'string' ? JSON.stringify(options.name) : String(options.name)})`;
  checkOptions(where, options, OPTIONS);
  const { name, state, before, observe } = options;
  if (typeof name !== 'string' || !/^[a-z][A-Za-z0-9-]*$/.test(name)) throw new TypeError(`${where}: "name" is a lower-case word such as "audit" or "tenants"`);
  checkFunction(state, `${where}: "state"`, '(request) => the values of ctx.state');
  checkFunction(before, `${where}: "before"`, '(ctx) => void, throwing an HttpError to end the request');
  checkFunction(observe, `${where}: "observe"`, '({ request, response, route, duration }) => void');
  const outcomes = checkOutcomes(options.outcomes, where);
  if (state === undefined && before === undefined && observe === undefined) throw new TypeError(`${where}: it does nothing; give it "state", "before" or "observe"`);
  if (outcomes.length > 0 && state === undefined && before === undefined) throw new TypeError(`${where}: "outcomes" are what "state" and "before" may end a request with, and it has neither; an observer ends no request`);
  const steps: PhaseStep[] = [];
  if (state !== undefined) steps.push({ phase: 'request', run: stateStep(state, where), outcomes });
  if (before !== undefined) steps.push({ phase: 'handler', run: (exchange) => settled(before(exchange.ctx), exchange, goOn), outcomes });
  const module: { -readonly [K in keyof Convention]: Convention[K] } = { name };
  if (steps.length > 0) module.endpoint = () => ({ steps });
  if (observe !== undefined) module.api = (_options, build) => (respond) => observing(respond, observe, build);
  return Object.freeze(module);
}

function checkOutcomes(outcomes: unknown, where: string): ErrorOutcome[] {
  if (outcomes === undefined) return [];
  if (!Array.isArray(outcomes)) throw new TypeError(`${where}: "outcomes" must be an array of error outcomes, such as ['forbidden']`);
  for (const outcome of outcomes) {
    if (!(ERROR_OUTCOMES as readonly unknown[]).includes(outcome)) throw new TypeError(`${where}: "outcomes" takes error outcomes (${ERROR_OUTCOMES.join(', ')}), got ${JSON.stringify(outcome)}`);
  }
  return outcomes as ErrorOutcome[];
}

function goOn(): void {}

/** The values of `state`, merged into the request's own copy of `ctx.state`. */
function stateStep(state: NonNullable<ExtensionOptions['state']>, where: string): Step {
  const keep = (exchange: Exchange, values: unknown): void => {
    if (values === undefined) return;
    if (typeof values !== 'object' || values === null || Array.isArray(values)) throw new TypeError(`${where}: "state" returned ${Array.isArray(values) ? 'an array' : values === null ? 'null' : typeof values}; return an object of values, or undefined`);
    const { ctx } = exchange;
    // The state of a request without values is one frozen object that every request shares. A
    // `__proto__` key of the values (JSON gives one) is copied as a key: assigned, it would change the
    // prototype of ctx.state.
    if (Object.isFrozen(ctx.state)) ctx.state = { ...values };
    else if (Object.hasOwn(values, '__proto__')) ctx.state = { ...ctx.state, ...values };
    else Object.assign(ctx.state, values);
  };
  return (exchange) => settled(state(exchange.ctx.request), exchange, keep);
}

/** The API's answer, shown to `observe` once built: at once, or when its promise settles. */
function observing(respond: Responder, observe: NonNullable<ExtensionOptions['observe']>, { settings, templateOf }: ApiBuild): Responder {
  const notify = (request: ApiRequest, response: ApiResponse, started: number): void => {
    try {
      const returned: unknown = observe({
        request,
        response: observed(response),
        route: templateOf(request.url),
        duration: performance.now() - started,
      });
      // Any thenable, by Promise's own `then`: a promise of another realm, or one whose `catch` was replaced, must not end the process as an unhandled rejection.
      if (isThenable(returned)) PROMISE_THEN.call(Promise.resolve(returned), undefined, (error: unknown) => settings.report(error, { requestId: newRequestId(), status: response.status, request }));
    } catch (error) {
      settings.report(error, { requestId: newRequestId(), status: response.status, request });
    }
  };
  return (given, passUnmatched, lowerCaseHeaders = false) => {
    const started = performance.now();
    // The header names in lower case, as `state` and every step read them.
    const request = lowerCaseHeaders ? given : withLowerCaseHeaders(given);
    const answer = respond(request, passUnmatched, true);
    if (answer === undefined) return undefined;
    if (!(answer instanceof Promise)) {
      notify(request, answer, started);
      return answer;
    }
    return answer.then((response) => {
      if (response !== undefined) notify(request, response, started);
      return response;
    });
  };
}

const PROMISE_THEN = Promise.prototype.then;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * The answer as an observer sees it. Its body and bytes are the client's own, and may be shared with
 * later answers (a document built once): each is copied when read, so that an observer that changes
 * what it reads changes no answer. An observer that reads neither costs no copy.
 */
function observed(response: ApiResponse): Readonly<ApiResponse> {
  const { body, payload } = response;
  return {
    status: response.status,
    headers: Object.freeze({ ...response.headers }),
    get body() {
      return typeof body === 'object' && body !== null ? structuredClone(body) : body;
    },
    get payload() {
      return payload instanceof Uint8Array ? payload.slice() : payload;
    },
  };
}
