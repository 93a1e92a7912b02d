import type { ApiResponse, HeaderRecord } from './contract.js';
import type { StandardSchema } from './standard-schema.js';
import { BODY_METHODS } from './http.js';
import { checkContentEncoding, checkContentLength, checkMediaType, declaredLength, inspectBody, isRawBody, parseBodyText, readBody, type BodyRules } from './body.js';
import { readsBody, type AnyContext, type Authorize, type CurrentItem, type Endpoint, type ListConventions, type ResultFilter } from './endpoint.js';
import { contextWith } from './context.js';
import {
  BadRequestError,
  FORBIDDEN_ITEM,
  ForbiddenError,
  MISSING_ITEM,
  isHttpError,
  NotAcceptableError,
  statusOf,
  UnauthorizedError,
  withoutStack,
  type InputIssue,
} from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import type { Serializer } from '../formats/formats.js';
import { single } from './request.js';
import { checkCredentials } from './credentials.js';
import type { Timed } from './deadlines.js';
import { OUTCOMES, type Outcome, type OutcomeRow } from './outcomes.js';
import { evaluate, requireCondition, validatorsOf } from '../conventions/conditional/conditions.js';
import { checkListFields, readList, type ListRequest } from '../conventions/lists/lists.js';
import { mergePatch, writableOf } from '../conventions/merge-patch/merge-patch.js';
import type { Projection } from '../conventions/projection/projection.js';
import type { Settings } from './settings.js';
import { addIssues, invalidInput, partValidator, type IssueList, type PartResult, type PartSchema } from './validation.js';

/**
 * The steps of one request, from a matched endpoint to its result, in the order `stepsOf` lists
 * them: authentication, negotiation, the body, validation, authorization, guards, the handler and
 * the result filters. Each step is synchronous unless it has to wait.
 */

/** An endpoint prepared once, when the API is built. */
export interface Compiled {
  endpoint: Endpoint;
  template: string;
  itemTemplate: string | undefined;
  bodyRules: BodyRules | undefined;
  steps: readonly Step[];
  /** Every outcome the endpoint can answer: what its documentation lists. */
  outcomes: readonly Outcome[];
  /** Its operation acts on one item: a result of nothing is a missing item (the outcome table's `item`). */
  item: boolean;
  /** The success outcomes its handler may choose with `ctx.outcome`: its operation's and those it declares. */
  choices: ReadonlySet<string>;
  /** The statuses of its outcomes, as the policy gives them. */
  statuses: ReadonlySet<number>;
  /** The error statuses it answered without declaring them, each reported once. */
  undeclared: Set<number>;
  /** The endpoint's JSON serializer, compiled from its response schema by `serializerCompiler`. */
  stringify: ((value: unknown) => string) | undefined;
  /** Drops what the response schema does not declare from a result, before any format writes it. */
  project: Projection | undefined;
}

/**
 * One request on its way through its endpoint's steps: what the steps read, and what each leaves for
 * the next. A plain object of one shape, so that every step reads it the same way.
 */
export interface Exchange extends Timed {
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
  /** The item the URL names, once loaded before the handler (ownership, preconditions, merge patch). */
  item: unknown;
  /** The request is answered: the steps left do not run (a 304, a scoped list with no caller). */
  done: boolean;
  /** Its preconditions say the client's copy is current: a 304. */
  notModified: boolean;
  /** What the request asked of a list: its page, order and filter. */
  list: ListRequest | undefined;
  /** Stops the reading of the body, set while it is being read: a request out of time lets go of it. */
  stop: (() => void) | undefined;
  /** Settles the request's promise, once a step had to wait; the first answer wins. */
  resolve: ((response: ApiResponse) => void) | undefined;
  /** When its time runs out, and its place in the line of running requests (`Timed`). */
  dueAt: number;
  older: Timed | undefined;
  newer: Timed | undefined;
}

/**
 * One step of a request. It returns nothing when it finished, and a promise only when it has to
 * wait: a request whose every step is synchronous (a sync schema and handler, say) is answered
 * without a single promise, while an async step costs one tick and no more.
 */
export type Step = (exchange: Exchange) => Promise<unknown> | undefined;

/** The steps of one endpoint, and every outcome they can reach. */
export interface Plan {
  steps: Step[];
  /** Each success and error the endpoint can answer, in the order of the outcome table. */
  outcomes: Outcome[];
}

/**
 * The steps of one endpoint, in order, chosen once from what it declares and what the API sets,
 * each with the outcomes it can end the request with. The caller is known before anything of the
 * request is parsed beyond its path: an anonymous caller of a protected endpoint costs no work on
 * `Accept`, `Content-Type` or the body.
 */
export function stepsOf(endpoint: Endpoint, template: string, bodyRules: BodyRules | undefined, settings: Settings): Plan {
  const steps: Step[] = [];
  const reached = new Set<Outcome>();
  const take = (step: Step, ...outcomes: (Outcome | false)[]): void => {
    steps.push(step);
    for (const outcome of outcomes) if (outcome !== false) reached.add(outcome);
  };
  const rules = endpoint.list?.rules;
  const bodySchema = readsBody(endpoint) && endpoint.body !== 'unvalidated' ? (endpoint.body as StandardSchema) : undefined;
  const validates = endpoint.params !== undefined || endpoint.query !== undefined || endpoint.headers !== undefined || bodySchema !== undefined || rules !== undefined;
  // Routing decodes path params before any step: a malformed percent-escape is a 400.
  if (template.includes(':')) reached.add('badRequest');
  if (settings.authenticate !== undefined) take(authenticateCaller, 'badRequest', !endpoint.public && 'unauthorized');
  take(negotiateFormat, settings.policy.unacceptable === 'reject' && 'notAcceptable');
  if (bodyRules !== undefined) {
    take(checkBodyHeaders, 'unsupportedMediaType', 'payloadTooLarge');
    take(readRequestBody, 'badRequest', 'payloadTooLarge');
  } else if (BODY_METHODS.has(endpoint.method) && endpoint.body !== 'ignored') take(refuseBody, 'badRequest');
  if (endpoint.params !== undefined) take(validation('params', endpoint.params, 'path'));
  // A list's own parameters (page, sort, filter) are taken out before a query schema sees the rest.
  if (rules !== undefined) {
    // A list's items are its response's: a sort or cursor key the item schema hides would tell it.
    if (endpoint.response?.array === true) checkListFields(rules, endpoint.response.schema, `${endpoint.method} ${template}`);
    take((exchange) => settled(readList(rules, exchange.ctx.query), exchange, keepList));
  }
  if (endpoint.query !== undefined) take(validation('query', endpoint.query, 'query'));
  if (endpoint.headers !== undefined) take(validation('headers', endpoint.headers, 'header'));
  if (bodySchema !== undefined) {
    take(requireBody, 'badRequest');
    take(validation('body', bodySchema, 'body'));
  }
  if (validates) take(rejectInvalidInput, 'badRequest');
  // The API's rule covers protected requests: a public endpoint answers every caller alike, signed in or not.
  if (settings.authorize !== undefined && !endpoint.public) take(authorization(settings.authorize), 'forbidden');
  for (const rule of endpoint.authorize) take(authorization(rule), 'forbidden');
  // Guards load parents and check owners: a missing one is a 404, someone else's a 403.
  for (const guard of endpoint.guards) take((exchange) => settled(guard(exchange.ctx), exchange, ignore), 'forbidden', 'notFound');
  // The owner's scope keeps a list's query to the caller's items.
  const scope = endpoint.list?.scope;
  if (scope !== undefined) take(scoping(scope), rules?.filter !== undefined && 'forbidden');
  const current = endpoint.current;
  const safe = endpoint.method === 'GET' || endpoint.method === 'HEAD';
  if (current !== undefined) {
    // A missing item is a 404 and someone else's a 403 before anything about preconditions.
    take(loading(current), 'notFound', current.owner !== undefined && 'forbidden');
    if (current.requireCondition && !safe) take(requirePrecondition, 'preconditionRequired');
    if (endpoint.validators !== undefined) take(preconditions, 'preconditionFailed', safe && 'notModified');
    if (current.merge !== undefined) take(merging(current.merge, `${endpoint.method} ${template}`, settings.maxDepth), 'badRequest');
  }
  // An item named by its URL may be missing: a result of nothing is a 404.
  const row: OutcomeRow = OUTCOMES[endpoint.operation];
  take(current?.isHandler === true ? keepLoaded : callHandler, endpoint.operation, row.mayBeEmpty === true && 'empty', row.item === true && template.includes(':') && 'notFound', 'internalError');
  // What the handler declares: the successes it may choose, the errors it throws.
  for (const outcome of endpoint.outcomes ?? []) reached.add(outcome);
  for (const outcome of Object.keys(endpoint.errors ?? {}) as Outcome[]) reached.add(outcome);
  // A list's filter drops items; any other result it refuses is someone else's item.
  for (const filter of endpoint.filters) take(resultFilter(filter), endpoint.operation !== 'list' && 'forbidden');
  if (settings.timeout !== undefined) reached.add('timeout');
  return { steps, outcomes: (Object.keys(OUTCOMES) as Outcome[]).filter((outcome) => reached.has(outcome)) };
}

/** Keeps what a request asked of a list; a query schema then validates only the other parameters. */
function keepList(exchange: Exchange, { list, issues }: { list: ListRequest; issues: InputIssue[] }): void {
  if (issues.length > 0) exchange.issues = addIssues(exchange.issues, { issues });
  const { ctx } = exchange;
  exchange.list = list;
  if (list.page !== undefined) ctx.page = list.page;
  ctx.sort = list.sort;
  ctx.filter = list.filter;
  if (exchange.compiled.endpoint.list!.rules!.openQuery) ctx.query = list.rest;
}

/**
 * The owner's scope on top of the filter, so that the handler asks its store for the caller's items
 * only. A filter that asks for someone else's is a 403; with no caller (a public list) the list is
 * empty and the handler is not asked.
 */
function scoping(scope: NonNullable<ListConventions['scope']>): Step {
  return (exchange) => {
    const { ctx } = exchange;
    const filter = (ctx.filter ?? {}) as Record<string, unknown>;
    ctx.filter = filter;
    if (ctx.principal === undefined) {
      exchange.result = [];
      exchange.done = true;
      return undefined;
    }
    const values: unknown = scope(ctx.principal);
    if (typeof values !== 'object' || values === null) throw new TypeError('The "scope" of an owner must return the filter values of the caller\'s items, such as { userId: principal.id }');
    for (const [name, value] of Object.entries(values)) {
      if (name in filter && !Object.is(filter[name], value)) throw OTHERS_ITEMS;
      filter[name] = value;
    }
    return undefined;
  };
}

const OTHERS_ITEMS = withoutStack(() => new ForbiddenError('This list holds only your own items'));

/** Whether a request carries a precondition. */
function hasPreconditions(headers: HeaderRecord): boolean {
  return headers['if-match'] !== undefined || headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined || headers['if-unmodified-since'] !== undefined;
}

function requirePrecondition(exchange: Exchange): undefined {
  requireCondition(exchange.headers, exchange.compiled.endpoint.validators?.lastModified !== undefined);
  return undefined;
}

/**
 * Loads the item the URL names, as `ctx.item`: nothing is a 404, someone else's a 403. A loader that
 * is the handler (a collection's read) gets the request's own context, so what it sets reaches the
 * answer.
 */
function loading(current: CurrentItem): Step {
  const owner = current.owner;
  const keep = (exchange: Exchange, item: unknown): void => {
    if (current.isHandler && (item instanceof Error || isHttpError(item))) throw item;
    // A read that chose its outcome and gave nothing answers that outcome: there is no item to check or compare.
    if (current.isHandler && (item === undefined || item === null) && exchange.ctx.reply?.outcome !== undefined) {
      exchange.done = true;
      return;
    }
    if (item === undefined || item === null || item instanceof Error) throw MISSING_ITEM;
    if (owner !== undefined && (exchange.ctx.principal === undefined || owner(item, exchange.ctx.principal) !== true)) throw FORBIDDEN_ITEM;
    exchange.item = item;
    exchange.ctx.item = item;
  };
  return (exchange) => {
    const { ctx } = exchange;
    return settled(current.load(current.isHandler ? ctx : contextWith(ctx, { body: undefined })), exchange, keep);
  };
}

/** The request's preconditions against the loaded item (RFC 9110 section 13.2.2): a 412, or a 304 for a GET whose copy is current. */
function preconditions(exchange: Exchange): undefined {
  if (exchange.item === undefined || !hasPreconditions(exchange.headers)) return undefined;
  const verdict = evaluate(exchange.ctx.request.method, exchange.headers, validatorsOf(exchange.compiled.endpoint.validators!, exchange.item));
  if (verdict === 'notModified') {
    exchange.notModified = true;
    exchange.result = exchange.item;
    exchange.done = true;
  }
  return undefined;
}

/** A merge patch (RFC 7396) applied to the loaded item; the handler receives the result, once it passes the schema. */
function merging(schema: StandardSchema, where: string, maxDepth: number): Step {
  const validate = partValidator(schema, 'body');
  // What the schema does not name (an id, an owner) is dropped before validation, even where a loose
  // schema takes other keys: the schema checks only what a client may write, never the item's own fields.
  const writable = writableOf(schema, where, maxDepth);
  return (exchange) => {
    const patch = exchange.ctx.body;
    if (patch === undefined) throw new BadRequestError('The request needs a body: a JSON merge patch of the item', { code: ERROR_CODES.MALFORMED_BODY });
    return settled(validate(writable(mergePatch(exchange.item, patch))), exchange, keepMerged);
  };
}

function keepMerged(exchange: Exchange, result: PartResult): void {
  if (!result.ok) throw withoutStack(() => invalidInput(result.issues, result.omitted));
  exchange.ctx.body = result.value;
}

/** A collection's read loaded the item as its handler: the item is the result. */
function keepLoaded(exchange: Exchange): undefined {
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
    if (statusOf(error) !== OUTCOMES.unauthorized.status) throw error;
    // A bad token on a public endpoint leaves the caller anonymous; anywhere else it is the 401 it says.
    if (isPublic) return;
    throw error;
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
  // Not a function either: `authenticate: (request) => tokens.find` forgot to call its lookup.
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
    throw statusOf(error) === OUTCOMES.payloadTooLarge.status ? UNEXPECTED_BODY : error;
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

/** A rule that must say `true`. */
function authorization(rule: Authorize): Step {
  return (exchange) => settled(rule(exchange.ctx), exchange, allowOrForbid);
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
  return (exchange) => settled(filter(exchange.result, exchange.ctx, (error) => reportAside(exchange, error)), exchange, keepFiltered);
}

/**
 * Reports something an operator should see while the request still succeeds (a list item dropped by
 * `owner`, a `location` that failed): with an id of its own and the status the request gets.
 *
 * @example
 * reportAside(exchange, new TypeError('The location returned a number'));
 */
export function reportAside(exchange: Exchange, error: unknown): void {
  const { settings } = exchange;
  settings.report(error, { requestId: `urn:uuid:${globalThis.crypto.randomUUID()}`, status: settings.policy.decide(exchange.compiled.endpoint.operation), request: exchange.ctx.request });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

