/**
 * Short-lived state that the instances of an API share: what the conventions that must remember
 * across requests (idempotency keys, rate limits) keep. Every method is one atomic operation, so
 * that two instances racing on one key never both win; an implementation on a server (Redis) makes
 * each one round trip.
 */

/**
 * The result of counting one request in a window.
 *
 * @example
 * const { count, resetMs } = await store.hit('rate:203.0.113.9', 60_000);
 */
export interface Hit {
  /** The window's count, this hit included. */
  readonly count: number;
  /** Milliseconds until the window ends and its count starts again from zero. */
  readonly resetMs: number;
}

/**
 * A store of short-lived shared state. Keys and values are strings; every entry expires. A store
 * that fails or does not answer rejects with a {@link StoreUnavailableError}: the convention that
 * calls it decides what that means for the request (see each convention's `onStoreError`). A
 * caller's mistake rejects otherwise, before the store is touched: a key or value that is not a
 * string with a TypeError, a `ttlMs` or `windowMs` that is not a whole number of milliseconds, 1 or
 * more, or a `cost` that is not a whole number, 0 or more, with a RangeError.
 *
 * @example
 * const store: Store = memoryStore();
 * const held = await store.setIfAbsent('idem:alice:k1', 'running', 60_000);
 * if (held === undefined) { run(); await store.set('idem:alice:k1', answer, 86_400_000); }
 */
export interface Store {
  /**
   * Sets `key` to `value` for `ttlMs` milliseconds unless it holds a value: resolves to undefined
   * when this call set it, and to the value it holds otherwise (leaving it and its time to live as
   * they were), in one atomic step: of concurrent calls on one key, exactly one resolves undefined.
   */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<string | undefined>;
  /** The value of `key`, or undefined when it has none (never set, deleted or expired). */
  get(key: string): Promise<string | undefined>;
  /** Sets `key` to `value` for `ttlMs` milliseconds, whatever it held. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Removes `key`; removing a key that holds nothing is no mistake. */
  delete(key: string): Promise<void>;
  /**
   * Adds `cost` (1 when omitted) to the count of `key` in its current window and gives the count
   * after it, in one atomic step: the first hit opens a fixed window of `windowMs` milliseconds,
   * which later hits neither move nor replace (their `windowMs` is not read), and the count starts
   * from zero once it ends. The count is the key's value (`get` gives it as a string); a key that
   * holds something other than a count rejects with a StoreUnavailableError.
   */
  hit(key: string, windowMs: number, cost?: number): Promise<Hit>;
}

/**
 * Thrown (as a rejection) when a store does not answer within the time a convention gives it, or
 * answers something a store cannot: a convention treats it as a store that failed.
 *
 * @example
 * try { await withTimeout(store.get(key), 50); } catch (error) { if (error instanceof StoreUnavailableError) answer503(); }
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/**
 * Settles as `operation` does, or rejects with a {@link StoreUnavailableError} once `ms`
 * milliseconds pass first: a slow store costs a request at most that long.
 *
 * @example
 * const held = await withTimeout(store.setIfAbsent(key, 'running', 60_000), 100);
 */
export function withTimeout<Value>(operation: Promise<Value>, ms: number): Promise<Value> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StoreUnavailableError(`the store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([operation, late]).finally(() => clearTimeout(timer));
}
