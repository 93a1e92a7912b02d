import type { ApiRequest, HeaderRecord, Logger, QueryRecord, ResponseHeaders } from './contract.js';
import { cookiesOf, setCookieLine, type CookieOptions } from './cookies.js';
import type { Reply, ChosenOutcome } from './endpoint.js';
import { answerHeader, checkHeader } from './http.js';
import { contentDisposition } from './disposition.js';
import { parseLastEventId } from './events.js';
import { single } from './request.js';
import { newRequestId } from './request-id.js';

/**
 * The context a handler receives, as one class: what `ctx.set`, `ctx.append` and `ctx.outcome`
 * record lives on the context itself, and their code on the prototype, so that a request allocates
 * nothing for them until a handler uses them; its cookies are parsed the first time it reads them.
 */

/** The state of a request that no extension gave any: one frozen object, so that a request allocates none. */
const NO_STATE: object = Object.freeze({});

/** What `address` holds until `ip` is first read. */
const UNREAD: unique symbol = Symbol('unread');

export class RequestContext {
  // `declare`: the constructor gives every field its value, so none is defined twice per request.
  declare params: unknown;
  declare query: unknown;
  declare headers: unknown;
  declare body: unknown;
  declare files: unknown;
  declare principal: unknown;
  declare request: ApiRequest;
  declare item: unknown;
  declare state: object;
  declare host: unknown;
  declare log: Logger;
  declare reply: Reply | undefined;
  /** The media type negotiated for a success answer, once `Accept` was read. */
  declare responseType: string;
  /** The outcomes `outcome()` may choose; undefined allows every one (a test context). */
  declare readonly choices: ReadonlySet<string> | undefined;
  /**
   * The client's address once `ip` was read or set: an adapter reads it from the host (a trust-proxy
   * rule, the socket) only when asked, and most requests never ask.
   */
  declare private address: string | undefined | typeof UNREAD;
  /**
   * The request's id: the host's or a trusted header's, else one of its own, made when first read: a
   * new UUID costs more than the rest of a small request's context, and most answers never carry it.
   */
  declare private givenId: string | undefined;
  /** The request's cookies, once `cookies` was read. */
  declare private parsedCookies: Readonly<Record<string, string>> | undefined;
  /** What aborts `signal`, once it was read. */
  declare private controller: AbortController | undefined;

  constructor(params: unknown, query: QueryRecord, headers: HeaderRecord, request: ApiRequest, choices: ReadonlySet<string> | undefined, id: string | undefined, log: Logger) {
    this.params = params;
    this.query = query;
    this.headers = headers;
    this.body = undefined;
    this.files = undefined;
    this.principal = undefined;
    this.request = request;
    this.item = undefined;
    this.state = NO_STATE;
    this.host = request.host;
    this.address = UNREAD;
    this.givenId = id;
    this.log = log;
    this.reply = undefined;
    this.responseType = 'application/json';
    this.choices = choices;
    this.parsedCookies = undefined;
    this.controller = undefined;
  }

  get id(): string {
    return (this.givenId ??= newRequestId());
  }

  set id(id: string) {
    this.givenId = id;
  }

  get signal(): AbortSignal {
    let controller = this.controller;
    if (controller === undefined) {
      const made = new AbortController();
      controller = this.controller = made;
      const request = this.request;
      // The adapter's hook is asked only now: a request that never reads the signal pays nothing.
      if (typeof request.onClose === 'function') request.onClose(() => made.abort(new ClientGoneError()));
    }
    return controller.signal;
  }

  /** Aborts `signal`, if anyone read it, with the reason: the deadline passed. */
  abort(reason: unknown): void {
    this.controller?.abort(reason);
  }

  get lastEventId(): string | undefined {
    // The request's own headers: `ctx.headers` is what a headers schema made of them.
    return parseLastEventId(single(this.request.headers?.['last-event-id']));
  }

  attachment(filename?: string): void {
    (this.reply ??= { headers: {}, outcome: undefined }).headers['content-disposition'] = contentDisposition(filename);
  }

  get ip(): string | undefined {
    const address = this.address;
    return address === UNREAD ? (this.address = this.request.ip) : address;
  }

  set ip(address: string | undefined) {
    this.address = address;
  }

  get cookies(): Readonly<Record<string, string>> {
    return (this.parsedCookies ??= cookiesOf(this.request.headers));
  }

  set(name: string, value: string): void {
    const lower = answerHeader('ctx.set', name, value);
    (this.reply ??= { headers: {}, outcome: undefined }).headers[lower] = lower === 'set-cookie' ? [value] : value;
  }

  append(name: string, value: string): void {
    const lower = answerHeader('ctx.append', name, value);
    appendHeader((this.reply ??= { headers: {}, outcome: undefined }).headers, lower, value);
  }

  cookie(name: string, value: string, options?: CookieOptions): void {
    const line = setCookieLine('ctx.cookie', name, value, options);
    appendHeader((this.reply ??= { headers: {}, outcome: undefined }).headers, 'set-cookie', line);
  }

  outcome(outcome: ChosenOutcome): void {
    if (this.choices !== undefined && !this.choices.has(outcome)) {
      throw new TypeError(`ctx.outcome: "${String(outcome)}" is not an outcome of this endpoint; declare it in "outcomes" (it may choose ${[...this.choices].join(', ')})`);
    }
    (this.reply ??= { headers: {}, outcome: undefined }).outcome = outcome;
  }
}

/**
 * The reason `ctx.signal` is aborted with when the client went away before its answer was complete.
 *
 * @example
 * ctx.signal.reason.name; // 'AbortError'
 */
export class ClientGoneError extends Error {
  override name = 'AbortError';
  constructor() {
    super('The client went away before its answer was complete');
  }
}

/**
 * A copy of a context with some parts changed, for a handler run on another's behalf (a collection's
 * `read` loading an item to check its owner): it keeps `set` and `outcome`, and what it sets stays
 * its own, never reaching the answer of the request.
 *
 * @example
 * const asRead = contextWith(ctx, { body: undefined });
 */
export function contextWith<Ctx extends object>(ctx: Ctx, changes: Partial<Ctx>): Ctx {
  // The request's id made now, so that the copy carries the same one.
  if (ctx instanceof RequestContext) void ctx.id;
  return Object.assign(Object.create(Object.getPrototypeOf(ctx) as object | null) as Ctx, ctx, { reply: undefined }, changes);
}

/**
 * Adds a value to a header: `set-cookie` gets one more line; any other header, whose values form a
 * list (RFC 9110 section 5.3), the value after a comma.
 */
function appendHeader(headers: ResponseHeaders, lower: string, value: string): void {
  const existing = headers[lower];
  if (lower === 'set-cookie') headers['set-cookie'] = existing === undefined ? [value] : [...(existing as string[]), value];
  else headers[lower] = existing === undefined ? value : `${existing as string}, ${value}`;
}

/** What a handler recorded, as {@link checkedReply} gives it: `set-cookie`'s lines apart from the headers of one value each. */
export interface CheckedReply {
  headers: Record<string, string>;
  cookies: string[] | undefined;
  outcome: Reply['outcome'];
}

/**
 * What a handler recorded for its answer, read once and checked again as the answer reads it: a
 * handler can write to `ctx.reply` directly, past the checks of `set`, `append` and `outcome`. A
 * header that `set` would refuse, or an outcome the endpoint may not choose, throws a `TypeError`.
 * `set-cookie` is a string or an array of them, each a line.
 *
 * @example
 * const { headers, cookies, outcome } = checkedReply(ctx.reply, compiled.choices);
 */
export function checkedReply(reply: unknown, choices: ReadonlySet<string>): CheckedReply {
  if (typeof reply !== 'object' || reply === null) throw new TypeError('ctx.reply: a handler replaced it with something that is no object; use ctx.set and ctx.outcome');
  const { headers: given, outcome } = reply as Partial<Reply>;
  if (outcome !== undefined && !choices.has(outcome)) {
    throw new TypeError(`ctx.reply: the outcome "${String(outcome)}" is not one of this endpoint's; declare it in "outcomes" and choose it with ctx.outcome`);
  }
  if (typeof given !== 'object' || given === null) throw new TypeError('ctx.reply: its headers are no object; use ctx.set');
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const name of Object.keys(given)) {
    const value: unknown = given[name];
    if (name.toLowerCase() === 'set-cookie' && Array.isArray(value)) {
      cookies = value.map((line: unknown) => (checkHeader('ctx.reply', name, line), line as string));
    } else {
      const lower = answerHeader('ctx.reply', name, value);
      if (lower === 'set-cookie') cookies = [value as string];
      else headers[lower] = value as string;
    }
  }
  return { headers, cookies, outcome };
}
