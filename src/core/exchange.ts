import type { ApiResponse, HeaderRecord } from './contract.js';
import type { BodyRules } from './body.js';
import type { ByteBody } from './byte-results.js';
import type { AnyContext, Endpoint } from './endpoint.js';
import type { IssueList } from './validation.js';
import type { Outcome } from './outcomes.js';
import type { Serializer } from '../formats/formats.js';
import type { Settings } from './settings.js';
import type { Timed } from './deadlines.js';

/**
 * The records a request's walk reads: its endpoint as built once, and the request on its way through
 * that endpoint's steps. The engine's steps and every convention's read the same two shapes.
 */

/**
 * Adds to a success answer before it is written: headers (a validator, `Link`), and the body it
 * sends, which it returns (a page around a list's items). Runs once the status is decided.
 *
 * @example
 * const stamp: AnswerHook = (exchange, headers, body) => { headers['x-served-by'] = 'api-1'; return body; };
 */
export type AnswerHook = (exchange: Exchange, headers: Record<string, string>, body: unknown, status: number) => unknown;

/**
 * Sees the answer of an endpoint as it goes out, whatever its status (a deadline's 503 too), after
 * the settle hooks, and may add headers to it (the fields of a rate limit on a 404). It is
 * synchronous and must not throw: what it throws is reported, and the answer goes out as it is.
 *
 * @example
 * const mark: FinishHook = (exchange, response) => { response.headers['x-counted'] = '1'; };
 */
export type FinishHook = (exchange: Exchange, response: ApiResponse) => void;

/**
 * Sees the answer a request's walk through its endpoint came to (a success, a step's own answer, or
 * the problem of a failure), once, before any module's wrapper of respond. A promise it returns holds
 * the answer back until it settles; what it rejects with is reported, and the answer goes out as it
 * is. It runs even where the request's deadline answered first, with what the steps came to later.
 *
 * @example
 * const record: SettleHook = (exchange, response) => audit.write(exchange.compiled.template, response.status);
 */
export type SettleHook = (exchange: Exchange, response: ApiResponse) => PromiseLike<unknown> | undefined | void;

/**
 * Writes a success of one negotiated media type itself (server-sent events): gives the answer, or
 * undefined for a result it does not write, which the engine then answers as bytes. `headers` are
 * the answer's so far (the handler's, `Vary`); the engine adds the cookies.
 *
 * @example
 * const writeCsv: BodyWriter = (exchange, status, headers, body) => (Array.isArray(body) ? csvAnswer(status, headers, body) : undefined);
 */
export type BodyWriter = (exchange: Exchange, status: number, headers: Record<string, string>, body: unknown) => ApiResponse | undefined;

/**
 * Sees a success answered with bytes or a stream under a type of `produces`, its headers complete,
 * and gives the answer that goes out: that one, changed or not, or another (a 206 of a `Range`);
 * what it throws is answered as a problem (a 416). `result` is what the handler returned, `bytes`
 * what the engine made of it (a payload or a stream, and its length where known).
 *
 * @example
 * const stamp: ByteHook = (exchange, response) => ((response.headers['x-bytes'] = '1'), response);
 */
export type ByteHook = (exchange: Exchange, response: ApiResponse, result: unknown, bytes: ByteBody) => ApiResponse;

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
  /** The formats of its `produces` (a stand-in for each type no API format writes); undefined without one. */
  produced: readonly Serializer[] | undefined;
  /** The writers of its conventions by the format of `produced` each writes; undefined when none does. */
  writers: ReadonlyMap<Serializer, BodyWriter> | undefined;
  /** What its conventions do to a byte answer, in order; undefined when none does. */
  bytes: ByteHook | undefined;
  /** Negotiates `Accept` against `produced`; undefined where the API's formats are negotiated. */
  negotiator: { content(accept: string | undefined): Serializer | undefined } | undefined;
  /** The endpoint's JSON serializer, compiled from its response schema by `serializerCompiler`. */
  stringify: ((value: unknown) => string) | undefined;
  /** What its conventions add to a success answer, in order; undefined when none does. */
  answer: AnswerHook | undefined;
  /** Cuts a result down before any format writes it (what a response schema hides); undefined when nothing does. */
  project: ((value: unknown) => unknown) | undefined;
  /** What its conventions see of every answer, errors too, in order; undefined when none does. */
  finish: FinishHook | undefined;
  /** What its conventions see of each answer of its walk, in order; undefined when none does. */
  settle: SettleHook | undefined;
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
  /** What the handler returned, after the steps that follow it. */
  result: unknown;
  /** The item the URL names, once loaded before the handler. */
  item: unknown;
  /** The request is answered: the steps left do not run. */
  done: boolean;
  /** The answer a step made itself (a 304), sent as it is once the request is done. */
  response: ApiResponse | undefined;
  /** What a convention keeps for the rest of one request (a list's page request), by its name; created on first use. */
  notes: Record<string, unknown> | undefined;
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

/**
 * Hands a step's value to `next`: at once when it is there, or once it settles, with the promise of
 * that for the engine to wait on. `next` takes the exchange, so that a step that does not wait
 * allocates no closure.
 *
 * @example
 * const step: Step = (exchange) => settled(load(exchange.ctx), exchange, keepItem);
 */
export function settled<Value>(value: Value | PromiseLike<Value>, exchange: Exchange, next: (exchange: Exchange, value: Value) => void): Promise<void> | undefined {
  if (isThenable(value)) return Promise.resolve(value).then((resolved) => next(exchange, resolved));
  next(exchange, value as Value);
  return undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
