/**
 * Stores for the rate limit's tests: the in-memory one on a clock the test moves, and ones that fail
 * or never answer.
 */
import { memoryStore } from '../../../src/store/memory.js';
import type { Store } from '../../../src/store/store.js';

/** A clock a test moves by hand. */
export interface Clock {
  now: number;
}

/** The in-memory store on a clock the test moves. */
export function clockedStore(clock: Clock): Store {
  return memoryStore({ now: () => clock.now });
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
