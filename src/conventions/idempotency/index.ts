import type { ApiResponse } from '../../core/contract.js';
import type { Endpoint } from '../../core/endpoint.js';
import type { Exchange, SettleHook, Step } from '../../core/exchange.js';
import { parseTarget } from '../../core/request.js';
import type { Convention, EndpointBuild, EndpointParts } from '../../core/seam.js';
import { withTimeout, type Store } from '../../store/store.js';
import { canonicalBody, digestOf } from './fingerprint.js';
import { keyOf } from './key.js';
import { idempotencyPart } from './openapi.js';
import { modeOf, rulesOf, type IdempotencyOptions, type IdempotencyRules, type Mode } from './options.js';
import { IN_USE, malformed, MISSING, REUSED, UNSCOPED, unavailable } from './problems.js';
import { keptRecord, recordOf, replayOf, runningRecord } from './record.js';

/**
 * Idempotency keys (draft-ietf-httpapi-idempotency-key-header) as a module: a POST or PATCH sent
 * again with the same `Idempotency-Key` by the same caller gets the first answer again instead of
 * running twice. The key is read among validation; once the caller is authenticated and authorized,
 * it is reserved in the store in one atomic step, and the answer the request ends with is kept for
 * the retries to replay.
 */

/** What one request keeps for its later steps, under `exchange.notes.idempotency`. */
interface Note {
  key: string;
  /** The canonical text of what the fingerprint covers, until it is digested. */
  request: string;
  storeKey: string;
  fingerprint: string;
  /** This request holds the key: its answer is kept, or the key released. */
  reserved: boolean;
  /** The request reached the handler's phase: with `keepFailures`, what it ends with is kept, failures too. */
  started: boolean;
  /** The handler returned: what the request ends with is the operation's answer. */
  ran: boolean;
}

/**
 * The idempotency module for `createApi({ use })`. Every POST and PATCH endpoint of the API takes an
 * `Idempotency-Key` (`required: true` makes it needed); an endpoint or a collection operation says
 * otherwise with `conventions: { idempotency: 'required' | 'optional' | false }`. A key belongs to
 * its caller and its endpoint; a retry with the same request replays the answer with
 * `Idempotent-Replayed: true`, one with another request is a 422, one while the first still runs a
 * 409, and a store that fails a 503 that runs nothing.
 *
 * @example
 * import { idempotency } from 'restcanon/idempotency';
 * const api = createApi({ resources: [orders], authenticate, use: [idempotency()] });
 */
export function idempotency(options?: IdempotencyOptions): Convention {
  const rules = rulesOf(options);
  const modes = new WeakMap<Endpoint, Mode>();
  return Object.freeze({
    name: 'idempotency',
    // A page that retries a create must tell a replay from a first answer.
    exposes: ['Idempotent-Replayed'],
    openapi: idempotencyPart(modes, rules),
    endpoint(endpoint: Endpoint, declared: unknown, build: EndpointBuild): EndpointParts | undefined {
      const mode = modeOf(endpoint, declared, rules, build.where, build.settings.authenticate !== undefined);
      modes.set(endpoint, mode);
      if (mode === false) return undefined;
      const { store } = rules;
      return {
        steps: [
          { phase: 'input', run: readKey(mode === 'required', rules, build.where), outcomes: ['badRequest'] },
          { phase: 'access', run: reserve(store, rules), outcomes: rules.scope === undefined ? ['conflict', 'unprocessable', 'unavailable'] : ['unauthorized', 'conflict', 'unprocessable', 'unavailable'] },
          { phase: 'handler', run: markStarted },
          { phase: 'result', run: markRan },
        ],
        settle: keep(store, rules),
      };
    },
  } satisfies Convention);
}

function noteOf(exchange: Exchange): Note | undefined {
  return exchange.notes?.idempotency as Note | undefined;
}

/**
 * Reads the key among validation, with the request it comes with: its params, query, media type and
 * body as parsed, before a schema changes the body.
 */
function readKey(required: boolean, rules: IdempotencyRules, where: string): Step {
  return (exchange) => {
    const header = exchange.headers['idempotency-key'];
    if (header === undefined) {
      if (required) throw MISSING;
      return undefined;
    }
    const read = keyOf(header, rules.maxKeyLength);
    if ('mistake' in read) throw malformed(read.mistake);
    const { ctx, rawParams, mediaType } = exchange;
    const search = parseTarget(ctx.request.url)?.search ?? '';
    const note: Note = { key: read.key, request: JSON.stringify([where, rawParams, search, mediaType ?? '', canonicalBody(ctx.body)]), storeKey: '', fingerprint: '', reserved: false, started: false, ran: false };
    (exchange.notes ??= {}).idempotency = note;
    return undefined;
  };
}

/** Reserves the key once the caller is known and allowed, or ends the request with its replay or its problem. */
function reserve(store: Store, rules: IdempotencyRules): Step {
  return (exchange) => {
    const note = noteOf(exchange);
    if (note === undefined) return undefined;
    const owner = scopeOf(exchange, rules);
    const where = exchange.compiled.template;
    return Promise.all([digestOf([exchange.compiled.endpoint.method, where, owner, note.key]), digestOf([note.request])]).then(([storeKey, fingerprint]) => {
      note.storeKey = `idempotency:${storeKey}`;
      note.fingerprint = fingerprint;
      note.request = '';
      return withTimeout(store.setIfAbsent(note.storeKey, runningRecord(fingerprint), rules.lock), rules.timeout).then(
        (held) => found(exchange, note, held),
        (error: unknown) => {
          throw unavailable(error);
        },
      );
    });
  };
}

/** What the store held under the key, if anything: go on, replay, or refuse. */
function found(exchange: Exchange, note: Note, held: string | undefined): void {
  if (held === undefined) {
    note.reserved = true;
    return;
  }
  const record = recordOf(held);
  if (record === undefined) throw unavailable(new TypeError(`The store holds a value under ${note.storeKey} that is no idempotency record`));
  if (record.fingerprint !== note.fingerprint) throw REUSED;
  if (record.state === 'running') throw IN_USE;
  exchange.response = replayOf(record);
  exchange.done = true;
}

/**
 * The caller a key belongs to, as a string: `scope` where given, else the principal's `id` or `sub`.
 * An anonymous caller is refused; a principal with neither is a fault of the API (a 500, reported):
 * a key must never be shared by callers it cannot tell apart.
 */
function scopeOf(exchange: Exchange, rules: IdempotencyRules): string {
  const { ctx } = exchange;
  if (rules.scope !== undefined) {
    const owner: unknown = rules.scope(ctx);
    if (owner === undefined || owner === null || owner === '') throw UNSCOPED;
    if (typeof owner !== 'string' && !(typeof owner === 'number' && Number.isFinite(owner))) throw new TypeError(`idempotency(): "scope" returned ${typeof owner}; return the caller's id as a string or a number, or undefined for none`);
    return `${typeof owner}:${owner}`;
  }
  const principal = ctx.principal as Record<string, unknown> | undefined;
  if (principal === undefined) throw UNSCOPED;
  for (const name of ['id', 'sub']) {
    const id = principal[name];
    if (typeof id === 'string' && id !== '') return `${typeof id}:${id}`;
    if ((typeof id === 'number' && Number.isFinite(id)) || typeof id === 'bigint') return `${typeof id}:${String(id)}`;
  }
  throw new TypeError('idempotency(): the principal has no "id" or "sub" to keep its keys under; give idempotency({ scope: (ctx) => ... }) the id of the caller');
}

function markStarted(exchange: Exchange): undefined {
  const note = noteOf(exchange);
  if (note !== undefined) note.started = true;
  return undefined;
}

function markRan(exchange: Exchange): undefined {
  const note = noteOf(exchange);
  if (note !== undefined) note.ran = true;
  return undefined;
}

/**
 * Once the request is answered: its answer kept for the key's retention where its handler returned
 * (and the answer is no 400 or 5xx), or the key released, so that a fixed retry runs: a request that
 * ended before its handler (a missing item, a 412) or whose handler threw did not do its work. With
 * `keepFailures`, every answer of a request that reached its handler's phase is kept but a 429 or a
 * 503, as Stripe keeps what follows the start of an endpoint's execution. A stream answer (a
 * download) is never kept: its key is released, and the answer goes out. The answer waits for the store, so that a client
 * that retries once it has its answer finds it kept.
 */
function keep(store: Store, rules: IdempotencyRules): SettleHook {
  return (exchange, response: ApiResponse) => {
    const note = noteOf(exchange);
    if (note === undefined || !note.reserved) return undefined;
    note.reserved = false;
    const { status } = response;
    // A 429 or a 503 says to come back later: kept, it would say so until the retention ends. A
    // stream cannot be kept without reading it whole: its key is released, and a retry runs again.
    if (response.stream === undefined && (rules.keepFailures ? note.started && status !== 429 && status !== 503 : note.ran && status !== 400 && status < 500)) {
      return withTimeout(store.set(note.storeKey, keptRecord(note.fingerprint, response), rules.retention), rules.timeout);
    }
    return withTimeout(store.delete(note.storeKey), rules.timeout);
  };
}

export { IDEMPOTENCY_PROBLEMS } from './problems.js';
export type { IdempotencyOptions } from './options.js';
