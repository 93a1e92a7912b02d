import type { ApiResponse } from '../../core/contract.js';
import type { Endpoint } from '../../core/endpoint.js';
import { HttpError, ServiceUnavailableError } from '../../core/errors.js';
import type { Exchange } from '../../core/exchange.js';
import { checkFunction, checkOptions } from '../../core/options.js';
import { OUTCOMES, type Outcome } from '../../core/outcomes.js';
import { reportAside } from '../../core/report.js';
import type { Convention, EndpointBuild, EndpointParts } from '../../core/seam.js';
import type { Hit, Store } from '../../store/store.js';
import { HIT_NOW, memoryStore, type HitsNow } from '../../store/memory.js';
import { withTimeout } from '../../store/store.js';
import { rateLimitPart } from './openapi.js';
import { addressKey, callerKey, carriesCredentials, NO_ADDRESS, type Partition } from './partition.js';
import { checkPolicies, limitItem, policiesOf, policyField, secondsLeft, type NamedPolicy, type RateLimitDeclaration, type RateLimitPolicy } from './policies.js';

/**
 * Rate limits as a module: named quota policies counted per caller or per client address in a
 * shared store, a 429 over quota before the handler runs, and the `RateLimit-Policy` and
 * `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers-10 on every answer a policy covers.
 */

/**
 * The options of {@link rateLimit}.
 *
 * @example
 * const options: RateLimitOptions = { policies: { default: { quota: 100, window: 60 } }, partition: 'caller' };
 */
export interface RateLimitOptions {
  /** The policies of every endpoint, by name; an endpoint adds, leaves out or exempts through `conventions: { rateLimit }`. */
  policies: Record<string, RateLimitPolicy>;
  /** Whose count a request joins: `'caller'` (the default), `'ip'`, or a function of the request's context. */
  partition?: Partition;
  /** Where counts are kept: a `memoryStore()` of this process when omitted; a shared one (Redis) across instances. */
  store?: Store;
  /** What a request gets when the store fails or is late: `'allow'` (the default) lets it through, reported; `'deny'` answers 503. */
  onStoreError?: 'allow' | 'deny';
  /** Milliseconds a given store has to answer before it counts as failed (100 when omitted); the default in-memory store is never late. */
  storeTimeout?: number;
}

/** The problem type of draft-ietf-httpapi-ratelimit-headers-10 for a request over quota. */
export const QUOTA_EXCEEDED = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

const OPTIONS = ['policies', 'partition', 'store', 'onStoreError', 'storeTimeout'];

/**
 * A rate limit for `createApi({ use })`: each request of an endpoint a policy covers is counted in
 * the store, atomically, before its handler; one over quota is answered 429 with `Retry-After` and
 * the quota-exceeded problem. Anonymous requests are counted by address before `authenticate` runs;
 * a signed-in caller by `principal.id` once it is known. Every option is checked now.
 *
 * @example
 * import { rateLimit } from 'restcanon/rate-limit';
 * const api = createApi({
 *   authenticate,
 *   use: [rateLimit({ policies: { default: { quota: 100, window: 60 } } })],
 *   endpoints: [endpoint('POST', '/uploads', { conventions: { rateLimit: { uploads: { quota: 10, window: 3600 } } }, handle })],
 * });
 */
export function rateLimit(options: RateLimitOptions): Convention {
  if (typeof options !== 'object' || options === null) throw new TypeError('rateLimit(): give its options, such as { policies: { default: { quota: 100, window: 60 } } }');
  checkOptions('rateLimit()', options, OPTIONS);
  const api = checkPolicies(options.policies, 'rateLimit()').policies;
  if (api.length === 0) throw new TypeError('rateLimit(): "policies" is empty; give at least one, such as { default: { quota: 100, window: 60 } }');
  const { partition = 'caller', onStoreError = 'allow', storeTimeout = 100 } = options;
  if (partition !== 'caller' && partition !== 'ip') checkFunction(partition, 'rateLimit(): "partition"', "'caller', 'ip', or (ctx) => the key of the request's count");
  if (typeof partition !== 'function' && partition !== 'caller' && partition !== 'ip') throw new TypeError(`rateLimit(): "partition" must be 'caller', 'ip' or (ctx) => a key, got ${JSON.stringify(partition)}`);
  if (onStoreError !== 'allow' && onStoreError !== 'deny') throw new TypeError(`rateLimit(): "onStoreError" must be 'allow' (let requests through when the store fails) or 'deny' (answer 503), got ${JSON.stringify(onStoreError)}`);
  if (!Number.isSafeInteger(storeTimeout) || storeTimeout < 1) throw new TypeError(`rateLimit(): "storeTimeout" must be a whole number of milliseconds of at least 1, got ${String(storeTimeout)}`);
  const given = checkStore(options.store);
  const store = given ?? memoryStore();
  // The process's own memory cannot be late: only a store given is raced against a timer.
  const timeout = given === undefined ? undefined : storeTimeout;
  const known = new Map<string, NamedPolicy>();
  const outcomes: Outcome[] = onStoreError === 'deny' ? ['tooManyRequests', 'unavailable'] : ['tooManyRequests'];

  function parts(policies: readonly NamedPolicy[], authenticates: boolean, unauthorized: number): EndpointParts {
    const { count, peek, charge } = counting(policies, store, timeout, onStoreError);
    const policy = policyField(policies);
    const addFields = (exchange: Exchange, response: ApiResponse): void => {
      // Every answer of a counted request carries the fields of its count, whatever ended it (a 429, a handler's 404).
      const limit = exchange.notes?.rateLimit as string | undefined;
      if (limit === undefined) return;
      response.headers['ratelimit-policy'] = policy;
      response.headers.ratelimit = limit;
    };
    if (partition === 'ip' || (partition === 'caller' && !authenticates)) return { steps: [{ phase: 'request', run: (exchange) => count(exchange, addressKey(exchange.ctx.request)), outcomes }], finish: addFields };
    if (typeof partition === 'function') return { steps: [{ phase: 'caller', run: (exchange) => count(exchange, ownKey(partition, exchange)), outcomes }], finish: addFields };
    return {
      steps: [
        {
          phase: 'request',
          // Without credentials there is nothing for authentication to read: the address's count comes first, so an anonymous flood costs no `authenticate`.
          // With credentials, an address whose refused credentials used up a quota is refused before `authenticate` too: guessing tokens costs no lookup past the quota.
          run: (exchange) => (carriesCredentials(exchange.ctx.request) ? peek(exchange, refusedKey(exchange)) : count(exchange, addressKey(exchange.ctx.request))),
          outcomes,
        },
        {
          phase: 'caller',
          run: (exchange) => {
            const { ctx } = exchange;
            if (!carriesCredentials(ctx.request)) return undefined;
            return count(exchange, ctx.principal === undefined ? addressKey(ctx.request) : callerKey(ctx.principal));
          },
          outcomes,
        },
      ],
      finish: (exchange, response) => {
        // Credentials that authentication refused reach no caller's count: they join their address's count of refused credentials, after the answer.
        if (response.status === unauthorized && exchange.notes?.rateLimit === undefined && carriesCredentials(exchange.ctx.request)) charge(exchange, refusedKey(exchange));
        else addFields(exchange, response);
      },
    };
  }

  return Object.freeze({
    name: 'rateLimit',
    rank: 5,
    exposes: ['RateLimit', 'RateLimit-Policy'],
    endpoint(_endpoint: Endpoint, declared: unknown, build: EndpointBuild) {
      const policies = policiesOf(api, declared as RateLimitDeclaration | undefined, build.where, known);
      if (policies.length === 0) return undefined;
      return parts(policies, build.settings.authenticate !== undefined, build.settings.policy.decide('unauthorized'));
    },
    openapi: rateLimitPart(api),
  });
}

function checkStore(store: unknown): Store | undefined {
  if (store === undefined) return undefined;
  const candidate = store as Partial<Store> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.hit !== 'function') throw new TypeError('rateLimit(): "store" must be a store with a hit(key, windowMs, cost) method, such as memoryStore() or redisStore(client)');
  return store as Store;
}

/**
 * The counts of one endpoint's policies: `count` adds a request to a key's count, then lets it on or
 * answers 429; `peek` reads a key's count without adding to it, and answers 429 when it is used up;
 * `charge` adds to a key's count after the answer, for nothing but the requests to come.
 */
function counting(policies: readonly NamedPolicy[], store: Store, timeout: number | undefined, onStoreError: 'allow' | 'deny') {
  const single = policies.length === 1 ? policies[0]! : undefined;
  // A peek finds the count before this request: used up when one more would be over.
  const judge = (exchange: Exchange, hits: readonly Hit[], peeking: boolean): void => {
    let retryAfter = -1;
    const violated: string[] = [];
    policies.forEach((each, index) => {
      if (hits[index]!.count + (peeking ? each.cost : 0) <= each.quota) return;
      violated.push(each.name);
      retryAfter = Math.max(retryAfter, secondsLeft(hits[index]!.resetMs));
    });
    if (peeking && violated.length === 0) return;
    keep(exchange, policies.map((each, index) => limitItem(each, hits[index]!.count, hits[index]!.resetMs)).join(', '));
    if (violated.length > 0) throw quotaExceeded(violated, retryAfter);
  };
  // One policy counted, the common case, without an array of hits.
  const judgeOne = (exchange: Exchange, hit: Hit): void => {
    keep(exchange, limitItem(single!, hit.count, hit.resetMs));
    if (hit.count > single!.quota) throw quotaExceeded([single!.name], secondsLeft(hit.resetMs));
  };
  const failed = (exchange: Exchange, error: unknown): void => {
    // A 503 is reported as every 5xx is, with the store's error as its cause.
    if (onStoreError === 'deny') throw new ServiceUnavailableError('The rate limit cannot be checked now; try again shortly', { retryAfter: 1, cause: error });
    reportAside(exchange, error);
  };
  const prefixes = policies.map((each) => `rl:${each.name}:`);
  const hitOf = (each: NamedPolicy, key: string, cost: number): Promise<Hit> => {
    const hit = store.hit(`rl:${each.name}:` + key, each.window * 1000, cost);
    return timeout === undefined ? hit : withTimeout(hit, timeout);
  };
  const all = (key: string, peeking: boolean): Promise<Hit[]> => Promise.all(policies.map((each) => hitOf(each, key, peeking ? 0 : each.cost)));
  // A store that never waits (the memory store) counts at once: a request that was synchronous stays so, and it cannot be late.
  const now = (store as Partial<HitsNow>)[HIT_NOW];
  const allNow = now === undefined ? undefined : (key: string, peeking: boolean): Hit[] => policies.map((each, index) => now.call(store, prefixes[index]! + key, each.window * 1000, peeking ? 0 : each.cost));

  let lastKey: string | undefined;
  let lastStoreKey = '';
  return {
    count(exchange: Exchange, key: string): Promise<void> | undefined {
      if (key === NO_ADDRESS) warnNoAddress(exchange);
      if (now !== undefined && single !== undefined) {
        // Consecutive requests mostly come from one client: its store key, hashed once by the store's Map, is used again rather than built anew.
        if (key !== lastKey) {
          lastKey = key;
          lastStoreKey = prefixes[0]! + key;
        }
        let hit: Hit;
        try {
          hit = now.call(store, lastStoreKey, single.window * 1000, single.cost);
        } catch (error) {
          failed(exchange, error);
          return undefined;
        }
        judgeOne(exchange, hit);
        return undefined;
      }
      if (allNow !== undefined) {
        let hits: Hit[];
        try {
          hits = allNow(key, false);
        } catch (error) {
          failed(exchange, error);
          return undefined;
        }
        judge(exchange, hits, false);
        return undefined;
      }
      if (single !== undefined) {
        return hitOf(single, key, single.cost).then(
          (hit) => judgeOne(exchange, hit),
          (error: unknown) => failed(exchange, error),
        );
      }
      return all(key, false).then(
        (hits) => judge(exchange, hits, false),
        (error: unknown) => failed(exchange, error),
      );
    },
    peek(exchange: Exchange, key: string): Promise<void> | undefined {
      if (allNow !== undefined) {
        let hits: Hit[];
        try {
          hits = allNow(key, true);
        } catch (error) {
          failed(exchange, error);
          return undefined;
        }
        judge(exchange, hits, true);
        return undefined;
      }
      return all(key, true).then(
        (hits) => judge(exchange, hits, true),
        (error: unknown) => failed(exchange, error),
      );
    },
    charge(exchange: Exchange, key: string): void {
      if (allNow === undefined) {
        all(key, false).then(undefined, (error: unknown) => reportAside(exchange, error));
        return;
      }
      try {
        allNow(key, false);
      } catch (error) {
        reportAside(exchange, error);
      }
    },
  };
}

function quotaExceeded(violated: readonly string[], retryAfter: number): HttpError {
  return new HttpError(OUTCOMES.tooManyRequests.status, {
    type: QUOTA_EXCEEDED,
    title: 'Quota exceeded',
    detail: `The quota of ${violated.map((name) => `"${name}"`).join(' and ')} is used up; try again in ${retryAfter} seconds`,
    headers: { 'retry-after': String(retryAfter) },
  });
}

const warned = new WeakSet<object>();

/** Said once per API: requests without an address share one count. */
function warnNoAddress(exchange: Exchange): void {
  const { settings } = exchange;
  if (warned.has(settings)) return;
  warned.add(settings);
  settings.logger.warn({ requestId: exchange.ctx.id }, 'rateLimit(): a request without a client address (request.ip) is counted with every other such request, in one shared count; serve the API through an adapter, or give api.handle the request\'s ip');
}

/** The key a `partition` function gives: a string that is not empty, or a mistake (a 500, reported) rather than one count for every request. */
function ownKey(partition: (ctx: Exchange['ctx']) => string, exchange: Exchange): string {
  const key: unknown = partition(exchange.ctx);
  if (typeof key !== 'string' || key === '') throw new TypeError(`rateLimit(): "partition" returned ${key === '' ? 'an empty string' : typeof key}; return the key of the request's count, a string such as a tenant's id`);
  return `key:${key}`;
}

/** The count of the credentials refused from a request's address, apart from its anonymous requests: those never keep a signed-in caller there out. */
function refusedKey(exchange: Exchange): string {
  return `refused:${addressKey(exchange.ctx.request)}`;
}

/** The `RateLimit` value of a request's count, for its answer (whose `RateLimit-Policy` is its endpoint's). */
function keep(exchange: Exchange, limit: string): void {
  (exchange.notes ??= {}).rateLimit = limit;
}

export type { Partition, RateLimitDeclaration, RateLimitPolicy };
