import type { HeaderRecord } from '../../core/contract.js';
import { checkedReply } from '../../core/context.js';
import type { Endpoint } from '../../core/endpoint.js';
import type { AnswerHook, Exchange, Step } from '../../core/exchange.js';
import { addVary } from '../../core/http.js';
import { OUTCOMES } from '../../core/outcomes.js';
import { reportAside } from '../../core/report.js';
import type { Convention, EndpointParts } from '../../core/seam.js';
import { CACHE_HEADERS, evaluate, requireCondition, validatorsOf, type Validators } from './conditions.js';
import type { ConditionalDeclaration } from './declare.js';

/**
 * Conditional requests (RFC 9110 section 13) as a convention: against the item an endpoint loads, a
 * change without a required precondition is a 428, a precondition that fails a 412, and a GET whose
 * copy is current a 304, each before the handler runs; a success carries the item's `ETag` and
 * `Last-Modified`.
 */

/** The operations whose answer is the item, and so carries its validators. */
const VALIDATED: ReadonlySet<string> = new Set(['read', 'create', 'replace', 'update']);

/**
 * The `conditional` convention: what `etag`, `lastModified` and `requireIfMatch` of a collection,
 * and `conditional` of an endpoint, ask for.
 *
 * @example
 * const createApi = apiWith([conditional]);
 */
export const conditional: Convention = {
  name: 'conditional',
  rank: 40,
  endpoint(endpoint, declared): EndpointParts | undefined {
    if (declared === undefined) return undefined;
    const { etag, lastModified, requireIfMatch } = declared as ConditionalDeclaration;
    const validators: Validators = { etag, lastModified };
    // Without an item to compare (a create), there are no preconditions: its answer carries the validators of what it made.
    if (endpoint.current === undefined) return { answer: carryValidators(endpoint, validators) };
    const safe = endpoint.method === 'GET' || endpoint.method === 'HEAD';
    const steps = [];
    if (requireIfMatch && !safe) steps.push({ phase: 'item' as const, run: requirePrecondition(lastModified !== undefined), outcomes: ['preconditionRequired' as const] });
    steps.push({ phase: 'item' as const, run: preconditions(validators), outcomes: safe ? (['preconditionFailed', 'notModified'] as const) : (['preconditionFailed'] as const) });
    return { steps, answer: carryValidators(endpoint, validators) };
  },
};

function requirePrecondition(byDate: boolean): Step {
  return (exchange) => {
    requireCondition(exchange.headers, byDate);
    return undefined;
  };
}

/** Whether a request carries a precondition. */
function hasPreconditions(headers: HeaderRecord): boolean {
  return headers['if-match'] !== undefined || headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined || headers['if-unmodified-since'] !== undefined;
}

/** The request's preconditions against the loaded item (RFC 9110 section 13.2.2): a 412, or a 304 for a GET whose copy is current. */
function preconditions(validators: Validators): Step {
  return (exchange) => {
    // The item is loaded by now: the step runs at the item phase, after a missing one was a 404.
    if (!hasPreconditions(exchange.headers)) return undefined;
    if (evaluate(exchange.ctx.request.method, exchange.headers, validatorsOf(validators, exchange.item)) === 'notModified') {
      exchange.response = notModified(exchange, validators);
      exchange.done = true;
    }
    return undefined;
  };
}

/**
 * The 304 of a GET whose copy is current: the headers a 200 would carry that RFC 9110 asks of a 304
 * (`ETag`, `Vary`), and `Last-Modified` only without an `ETag`. No body.
 */
function notModified(exchange: Exchange, validators: Validators) {
  const headers: Record<string, string> = {};
  // What the handler set that a 200 would carry and RFC 9110 section 15.4.5 asks of a 304 (a read that loaded the item set them).
  const { reply } = exchange.ctx;
  if (reply !== undefined) {
    const set = checkedReply(reply, exchange.compiled.choices).headers;
    for (const name of CACHE_HEADERS) if (set[name] !== undefined) headers[name] = set[name];
  }
  if (exchange.settings.vary) addVary(headers, 'Accept');
  addValidators(exchange, validators, exchange.item, headers, true);
  return { status: exchange.settings.policy.decide('notModified'), headers, body: undefined, payload: undefined };
}

/**
 * A read's validators are the loaded item's (an endpoint may answer a part of it); a change's are its
 * result's, the item as changed. A 304 the handler chose (`ctx.outcome('notModified')`) carries them
 * as the precondition's own 304 does, whatever the handler returned: RFC 9110 section 15.4.5 asks of
 * a 304 the `ETag` a 200 would carry.
 */
function carryValidators(endpoint: Endpoint, validators: Validators): AnswerHook | undefined {
  if (!VALIDATED.has(endpoint.operation)) return undefined;
  const answersItem = endpoint.current === undefined || endpoint.current.answersItem;
  return (exchange, headers, body, status) => {
    const { result } = exchange;
    const notModified = status === OUTCOMES.notModified.status;
    if (!notModified && (result === undefined || result === null)) return body;
    const item = endpoint.operation === 'read' ? exchange.item : answersItem ? result : undefined;
    if (item !== undefined) addValidators(exchange, validators, item, headers, notModified);
    return body;
  };
}

/**
 * `ETag` and `Last-Modified` of the item an answer carries. A validator that fails on a success (the
 * item changed already) is left out and reported.
 */
function addValidators(exchange: Exchange, validators: Validators, item: unknown, headers: Record<string, string>, notModified: boolean): void {
  try {
    const { etag, lastModified } = validatorsOf(validators, item);
    if (etag !== undefined) headers.etag = etag;
    if (lastModified !== undefined && (!notModified || etag === undefined)) headers['last-modified'] = lastModified;
  } catch (error) {
    reportAside(exchange, error);
  }
}
