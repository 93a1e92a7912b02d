import type { AnyContext, Endpoint } from '../../core/endpoint.js';
import { checkFunction, checkOptions } from '../../core/options.js';
import { memoryStore } from '../../store/memory.js';
import type { Store } from '../../store/store.js';

/**
 * The options of `idempotency()` and what an endpoint declares for it, each checked once: a mistake
 * throws with a sentence that names it and the fix.
 */

/**
 * What `idempotency()` takes; every member is optional.
 *
 * @example
 * const options: IdempotencyOptions = { store: memoryStore(), required: true, retention: 3_600_000 };
 */
export interface IdempotencyOptions {
  /**
   * Where keys and the answers they keep live: one store for every instance of the API. By default a
   * `memoryStore()` of its own, which serves one process only.
   */
  store?: Store;
  /** Whether an endpoint that declares nothing needs a key (`'required'`) or takes one (`'optional'`, the default). */
  required?: boolean;
  /** The methods whose endpoints take a key: POST and PATCH by default; PUT may be added. */
  methods?: readonly ('POST' | 'PATCH' | 'PUT')[];
  /** The longest key, in characters (255 by default, as Stripe's). */
  maxKeyLength?: number;
  /** How long an answer is kept and replayed, in milliseconds (24 hours by default); the OpenAPI document states it. */
  retention?: number;
  /**
   * How long a key stays reserved while its first request runs, in milliseconds (60 s by default): a
   * retry within it is a 409; once it lapses (the instance that ran it died) a retry runs again.
   */
  lock?: number;
  /** How long the store may take to answer one call, in milliseconds (1 s by default); slower is a 503. */
  timeout?: number;
  /**
   * Who a key belongs to: the same key from two callers is two keys. By default the principal's `id`
   * (or its `sub`); undefined for an anonymous caller, whose key is refused with a 401.
   */
  scope?: (ctx: AnyContext) => string | number | undefined;
  /**
   * Keep and replay every answer of a request that reached its handler, a thrown error or a 500 too,
   * as Stripe does (but a 429 or a 503, which say to come back later); by default only the answer of a handler that returned is kept, and any other
   * key is released for a fixed retry.
   */
  keepFailures?: boolean;
}

/** The options, checked, with their defaults. */
export interface IdempotencyRules {
  readonly store: Store;
  readonly required: boolean;
  readonly methods: ReadonlySet<string>;
  readonly maxKeyLength: number;
  readonly retention: number;
  readonly lock: number;
  readonly timeout: number;
  readonly scope: ((ctx: AnyContext) => string | number | undefined) | undefined;
  readonly keepFailures: boolean;
}

const OPTIONS = ['store', 'required', 'methods', 'maxKeyLength', 'retention', 'lock', 'timeout', 'scope', 'keepFailures'];
const UNSAFE = ['POST', 'PATCH', 'PUT'];
/** A day, in milliseconds: how long Stripe keeps a key. */
export const DAY = 86_400_000;
/** setTimeout's longest delay: a lock or a store's wait beyond it would fire at once. */
const LONGEST = 2_147_483_647;

/**
 * The options of `idempotency()`, checked.
 *
 * @example
 * rulesOf({ store, retention: 3_600_000 }); // { retention: 3600000, lock: 60000, ... }
 */
export function rulesOf(options: IdempotencyOptions | undefined): IdempotencyRules {
  const where = 'idempotency()';
  checkOptions(where, options, OPTIONS);
  const given = options ?? {};
  const { store } = given;
  if (store !== undefined && (typeof store !== 'object' || store === null || ['setIfAbsent', 'get', 'set', 'delete'].some((name) => typeof (store as unknown as Record<string, unknown>)[name] !== 'function'))) {
    throw new TypeError(`${where}: "store" must be a Store, with setIfAbsent, get, set and delete, such as memoryStore()`);
  }
  if (given.required !== undefined && typeof given.required !== 'boolean') throw new TypeError(`${where}: "required" must be true or false`);
  if (given.keepFailures !== undefined && typeof given.keepFailures !== 'boolean') throw new TypeError(`${where}: "keepFailures" must be true or false`);
  const methods = given.methods ?? ['POST', 'PATCH'];
  if (!Array.isArray(methods) || methods.length === 0 || methods.some((method) => !UNSAFE.includes(method as string))) {
    throw new TypeError(`${where}: "methods" must be a list of POST, PATCH and PUT; GET, HEAD, DELETE and OPTIONS are idempotent already and take no key`);
  }
  checkFunction(given.scope, `${where}: "scope"`, '(ctx) => the id of the caller, or undefined for none');
  return {
    store: store ?? memoryStore(),
    required: given.required ?? false,
    methods: new Set(methods),
    maxKeyLength: milliseconds(given.maxKeyLength, 255, `${where}: "maxKeyLength"`, 'characters', 8192),
    retention: milliseconds(given.retention, DAY, `${where}: "retention"`, 'milliseconds', Number.MAX_SAFE_INTEGER),
    lock: milliseconds(given.lock, 60_000, `${where}: "lock"`, 'milliseconds', LONGEST),
    timeout: milliseconds(given.timeout, 1000, `${where}: "timeout"`, 'milliseconds', LONGEST),
    scope: given.scope,
    keepFailures: given.keepFailures ?? false,
  };
}

function milliseconds(value: unknown, fallback: number, what: string, unit: string, most: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > most) throw new TypeError(`${what} must be a whole number of ${unit} from 1 to ${most}; got ${String(value)}`);
  return value;
}

/** Whether an endpoint's requests need a key, may carry one, or take none. */
export type Mode = 'required' | 'optional' | false;

/**
 * What an endpoint asks of idempotency, from what it declares (`conventions: { idempotency }`) and
 * the options: a value other than `'required'`, `'optional'` or `false`, a declaration on a method
 * that takes no key, or one where no caller can own a key (a public endpoint, or an API without
 * `authenticate`, unless `scope` names callers) throws, naming the endpoint.
 *
 * @example
 * modeOf(createOrder, undefined, rules, 'POST /orders', true); // 'optional'
 */
export function modeOf(endpoint: Endpoint, declared: unknown, rules: IdempotencyRules, where: string, authenticates: boolean): Mode {
  if (declared !== undefined && declared !== 'required' && declared !== 'optional' && declared !== false) {
    throw new TypeError(`${where}: conventions.idempotency must be 'required', 'optional' or false; got ${typeof declared === 'string' ? JSON.stringify(declared) : String(declared)}`);
  }
  if (declared === false) return false;
  const takesKey = rules.methods.has(endpoint.method);
  if (declared !== undefined && !takesKey) {
    throw new TypeError(`${where}: conventions.idempotency is for ${[...rules.methods].join(' and ')} endpoints; a ${endpoint.method} takes no Idempotency-Key, so drop the declaration${endpoint.method === 'PUT' ? " (or add 'PUT' to idempotency({ methods }))" : ''}`);
  }
  if (!takesKey) return false;
  const mode: Mode = declared ?? (rules.required ? 'required' : 'optional');
  const ownerless = rules.scope === undefined && (endpoint.public || !authenticates);
  if (!ownerless) return mode;
  // Where nobody signs in, a key would be everybody's: another caller could replay an answer.
  if (declared === undefined && mode === 'optional') return false;
  throw new TypeError(
    `${where}: an Idempotency-Key is kept per caller, and ${endpoint.public ? 'this endpoint is public' : 'this API has no "authenticate"'}; give idempotency({ scope: (ctx) => ... }) to name its callers, or declare conventions: { idempotency: false }`,
  );
}
