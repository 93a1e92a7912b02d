/**
 * The store of one process: a Map of entries beside a heap of the same entries ordered by when they
 * expire (expiry-heap.ts). The heap serves both ends of an entry's life without a timer per key: a
 * write first takes out a few entries whose time has passed (a bounded sweep, so that no request pays
 * for a whole store expiring at once), a read drops the entry it finds expired, and when a bound is
 * reached the entry that expires soonest goes first. Evicting by expiry rather than by last use needs
 * no second structure, and the entry it takes is the one that had the least life left: a window about
 * to reset, an idempotency record about to lapse.
 *
 * Every operation runs to its end synchronously (an async function runs until its first await, and
 * these have none), so two requests racing on one key are served one after the other: of two
 * setIfAbsent calls exactly one sets the key.
 */
import { checkCost, checkDuration, checkText } from './checks.js';
import { ExpiryHeap } from './expiry-heap.js';
import { StoreUnavailableError, type Hit, type Store } from './store.js';

/** How many entries the memory store holds at most, when `maxEntries` is not given. */
export const DEFAULT_MAX_ENTRIES = 10_000;
/** How many bytes of keys and values the memory store holds at most, when `maxBytes` is not given (16 MiB). */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
/** The most expired entries one write takes out before it writes. */
const SWEEP = 16;

/** The options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /** The most entries held at once; the entry that expires soonest is evicted to make room. Default 10 000. */
  readonly maxEntries?: number;
  /**
   * The most bytes of keys and values held at once, each string counted at 2 bytes per UTF-16 code
   * unit (what a JavaScript string may take); a value larger than this on its own is refused with a
   * StoreUnavailableError. Default 16 MiB.
   */
  readonly maxBytes?: number;
  /** The clock, in milliseconds: `Date.now` unless a test moves time itself. */
  readonly now?: () => number;
}

/**
 * The in-memory store, with what it holds in sight.
 *
 * @example
 * const store = memoryStore({ maxEntries: 100 });
 * await store.set('k', 'v', 1_000);
 * store.size; // 1
 */
export interface MemoryStore extends Store {
  /** Entries held, expired ones not yet swept out included: never more than `maxEntries`. */
  readonly size: number;
  /** Bytes of keys and values held, counted as `maxBytes` counts them: never more than `maxBytes`. */
  readonly bytes: number;
}

interface Entry {
  readonly key: string;
  value: string;
  bytes: number;
  /** The value as a number when a hit wrote it, so that the next hit need not parse it. */
  count: number | undefined;
  expiresAt: number;
  slot: number;
}

/**
 * The key of a store's synchronous `hit`, for restcanon's own conventions: a store whose operations
 * never wait (this one) counts a request without a promise, so a request that was synchronous stays
 * so. Registered globally, so that the ESM and CommonJS builds find one another's.
 */
export const HIT_NOW: unique symbol = Symbol.for('restcanon.store.hitNow');

/**
 * A store that can count a hit at once: `store[HIT_NOW](key, windowMs, cost)` is its `hit`, returned
 * or thrown rather than resolved or rejected.
 *
 * @example
 * const now = (store as Partial<HitsNow>)[HIT_NOW];
 * const hit = now === undefined ? await store.hit(key, 60_000) : now(key, 60_000);
 */
export interface HitsNow {
  readonly [HIT_NOW]: (key: string, windowMs: number, cost?: number) => Hit;
}

const OPTIONS = new Set(['maxEntries', 'maxBytes', 'now']);
/** The form of a count INCRBY accepts: an integer without a sign of plus or leading zeros. */
const COUNT = /^(?:0|-?[1-9]\d*)$/;

function checkOptions(options: MemoryStoreOptions): void {
  for (const name of Object.keys(options)) {
    if (!OPTIONS.has(name)) throw new TypeError(`memoryStore has no option "${name}"; its options are maxEntries, maxBytes and now`);
  }
  for (const name of ['maxEntries', 'maxBytes'] as const) {
    const bound = options[name];
    if (bound !== undefined && (!Number.isSafeInteger(bound) || bound < 1)) {
      throw new RangeError(`memoryStore's ${name} must be a whole number, 1 or more; it is ${String(bound)}`);
    }
  }
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('memoryStore\'s now must be a function that returns the time in milliseconds, such as Date.now');
}

/**
 * The store of one process, bounded in entries and bytes: the default of the conventions that keep
 * state, right for a single instance and for tests. Several instances need a shared store, such as
 * `redisStore` from `restcanon/redis`.
 *
 * @example
 * import { memoryStore } from 'restcanon/store';
 *
 * const store = memoryStore({ maxEntries: 50_000 });
 * const { count, resetMs } = await store.hit('rate:203.0.113.9', 60_000);
 */
export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  checkOptions(options);
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const clock = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const heap = new ExpiryHeap<Entry>();
  let bytes = 0;

  function drop(entry: Entry): void {
    entries.delete(entry.key);
    heap.remove(entry);
    bytes -= entry.bytes;
  }

  /** The entry of `key` while it lives; an expired one is dropped on the way. */
  function live(key: string, now: number): Entry | undefined {
    const entry = entries.get(key);
    if (entry === undefined || entry.expiresAt > now) return entry;
    drop(entry);
    return undefined;
  }

  /** Takes out a few entries whose time has passed. */
  function sweep(now: number): void {
    for (let swept = 0; swept < SWEEP; swept++) {
      const soonest = heap.peek();
      if (soonest === undefined || soonest.expiresAt > now) break;
      drop(soonest);
    }
  }

  function write(key: string, value: string, expiresAt: number, now: number, count?: number): void {
    const size = 2 * (key.length + value.length);
    if (size > maxBytes) throw new StoreUnavailableError(`the memory store holds at most ${maxBytes} bytes, and this entry takes ${size}`);
    const held = entries.get(key);
    if (held !== undefined) drop(held);
    sweep(now);
    // Not empty while either bound is reached: the entry alone fits within maxBytes.
    while (entries.size >= maxEntries || bytes + size > maxBytes) drop(heap.peek()!);
    const entry: Entry = { key, value, bytes: size, count, expiresAt, slot: -1 };
    entries.set(key, entry);
    heap.push(entry);
    bytes += size;
  }

  function hitNow(key: string, windowMs: number, cost = 1): Hit {
    checkText('key', key);
    checkDuration('windowMs', windowMs);
    checkCost(cost);
    const now = clock();
    const held = live(key, now);
    if (held === undefined) {
      write(key, String(cost), now + windowMs, now, cost);
      return { count: cost, resetMs: windowMs };
    }
    const count = (held.count ?? (COUNT.test(held.value) ? Number(held.value) : Number.NaN)) + cost;
    if (!Number.isSafeInteger(count)) throw new StoreUnavailableError('the key holds a value that is not a count, so it cannot be hit');
    const value = String(count);
    const size = 2 * (key.length + value.length);
    // A live entry keeps its expiry, and so its place in the heap: it takes its new count where it stands, unless that needs room.
    if (bytes - held.bytes + size <= maxBytes) {
      sweep(now);
      held.value = value;
      held.count = count;
      bytes += size - held.bytes;
      held.bytes = size;
    } else write(key, value, held.expiresAt, now, count);
    return { count, resetMs: held.expiresAt - now };
  }

  const store: MemoryStore & HitsNow = {
    get size() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
    async setIfAbsent(key: string, value: string, ttlMs: number): Promise<string | undefined> {
      checkText('key', key);
      checkText('value', value);
      checkDuration('ttlMs', ttlMs);
      const now = clock();
      const held = live(key, now);
      if (held !== undefined) return held.value;
      write(key, value, now + ttlMs, now);
      return undefined;
    },
    async get(key: string): Promise<string | undefined> {
      checkText('key', key);
      return live(key, clock())?.value;
    },
    async set(key: string, value: string, ttlMs: number): Promise<void> {
      checkText('key', key);
      checkText('value', value);
      checkDuration('ttlMs', ttlMs);
      const now = clock();
      write(key, value, now + ttlMs, now);
    },
    async delete(key: string): Promise<void> {
      checkText('key', key);
      const entry = entries.get(key);
      if (entry !== undefined) drop(entry);
    },
    async hit(key: string, windowMs: number, cost = 1): Promise<Hit> {
      return hitNow(key, windowMs, cost);
    },
    [HIT_NOW]: hitNow,
  };
  return store;
}
