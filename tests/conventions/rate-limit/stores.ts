/**
 * Stores for the rate limit's tests: one whose clock the test moves, and ones that fail or never
 * answer, each on the `Store` interface.
 */
import type { Hit, Store } from '../../../src/store/store.js';

/** A clock a test moves by hand. */
export interface Clock {
  now: number;
}

/**
 * A fixed-window store whose clock is `clock.now`: a window opens on its key's first hit and ends
 * `windowMs` later; each `hit` is one synchronous step, as one Redis command is.
 */
export function clockedStore(clock: Clock): Store & { hits: number } {
  const windows = new Map<string, { count: number; endsAt: number }>();
  const store = {
    hits: 0,
    setIfAbsent: () => Promise.reject(new Error('not used')),
    get: () => Promise.reject(new Error('not used')),
    set: () => Promise.reject(new Error('not used')),
    delete: () => Promise.reject(new Error('not used')),
    hit(key: string, windowMs: number, cost = 1): Promise<Hit> {
      store.hits++;
      let window = windows.get(key);
      if (window === undefined || window.endsAt <= clock.now) {
        window = { count: 0, endsAt: clock.now + windowMs };
        windows.set(key, window);
      }
      window.count += cost;
      return Promise.resolve({ count: window.count, resetMs: window.endsAt - clock.now });
    },
  };
  return store;
}

/** A store whose every hit fails, as a store that lost its connection. */
export function failingStore(): Store {
  const fail = () => Promise.reject(new Error('the store is down'));
  return { setIfAbsent: fail, get: fail, set: fail, delete: fail, hit: fail };
}

/** A store that never answers. */
export function silentStore(): Store {
  const never = () => new Promise<never>(() => {});
  return { setIfAbsent: never, get: never, set: never, delete: never, hit: never };
}
