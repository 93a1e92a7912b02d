import type { ApiRequest, HeaderRecord, QueryRecord } from './contract.js';
import type { Reply, ChosenOutcome } from './endpoint.js';
import { checkHeader } from './http.js';

/**
 * The context a handler receives, as one class: what `ctx.set` and `ctx.outcome` record lives on
 * the context itself, and their code on the prototype, so that a request allocates nothing for them
 * until a handler uses them.
 */

/** Headers a handler may not set: the answer's framing, its media type and its coding are restcanon's (it writes the body as it is). */
const RESERVED = new Set(['content-type', 'content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection']);

export class RequestContext {
  params: unknown;
  query: unknown;
  headers: unknown;
  body: unknown;
  principal: unknown;
  request: ApiRequest;
  item: unknown;
  page: unknown;
  sort: unknown;
  filter: unknown;
  reply: Reply | undefined;
  /** The outcomes `outcome()` may choose; undefined allows every one (a test context). */
  readonly choices: ReadonlySet<string> | undefined;

  constructor(params: unknown, query: QueryRecord, headers: HeaderRecord, request: ApiRequest, choices: ReadonlySet<string> | undefined) {
    this.params = params;
    this.query = query;
    this.headers = headers;
    this.body = undefined;
    this.principal = undefined;
    this.request = request;
    this.item = undefined;
    this.page = undefined;
    this.sort = undefined;
    this.filter = undefined;
    this.reply = undefined;
    this.choices = choices;
  }

  set(name: string, value: string): void {
    checkHeader('ctx.set', name, value);
    const lower = name.toLowerCase();
    if (RESERVED.has(lower)) throw new TypeError(`ctx.set: "${lower}" is set by restcanon, not by a handler`);
    if (lower.startsWith('access-control-')) throw new TypeError(`ctx.set: "${lower}" is a CORS grant, which the API's "cors" option gives`);
    (this.reply ??= { headers: {}, outcome: undefined }).headers[lower] = value;
  }

  outcome(outcome: ChosenOutcome): void {
    if (this.choices !== undefined && !this.choices.has(outcome)) {
      throw new TypeError(`ctx.outcome: "${String(outcome)}" is not an outcome of this endpoint; declare it in "outcomes" (it may choose ${[...this.choices].join(', ')})`);
    }
    (this.reply ??= { headers: {}, outcome: undefined }).outcome = outcome;
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
  return Object.assign(Object.create(Object.getPrototypeOf(ctx) as object | null) as Ctx, ctx, { reply: undefined }, changes);
}
