/**
 * Each store against a model, on sequences of operations that fast-check writes: set, setIfAbsent,
 * get, delete, hit, and time that passes. The model is a Map of values with the span in which each
 * expires. On the memory store's clock that span is one instant and every answer is exact; on a real
 * Redis, where time runs while the test talks to it, an entry whose end falls within an operation's
 * own span may be there or gone: the model accepts either answer and follows the one it got.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../src/store/memory.js';
import { redisStore } from '../../src/store/redis.js';
import { StoreUnavailableError, type Store } from '../../src/store/store.js';
import { findRedisServer, REDIS_SKIPPED, startRedisServer, type RedisServer } from '../helpers/redis-server.js';

type Operation =
  | { kind: 'set'; key: string; value: string; ttlMs: number }
  | { kind: 'setIfAbsent'; key: string; value: string; ttlMs: number }
  | { kind: 'get'; key: string }
  | { kind: 'delete'; key: string }
  | { kind: 'hit'; key: string; windowMs: number; cost: number }
  | { kind: 'advance'; ms: number };

interface ModelEntry {
  value: string;
  /** Before this the entry certainly lives. */
  livesUntil: number;
  /** From this on it is certainly gone. */
  goneFrom: number;
}

/** What INCRBY takes for a count: an integer, no plus sign, no leading zero. */
const isCount = (value: string) => /^(?:0|-?[1-9]\d*)$/.test(value);

/**
 * The model of a store. `marginMs` widens every expiry's span for a server's clock; `mayEvict`
 * lets any entry be gone, for a store whose bounds are smaller than what the sequence writes.
 */
class Model {
  readonly entries = new Map<string, ModelEntry>();
  constructor(
    private readonly marginMs: number,
    private readonly mayEvict = false,
  ) {}

  /** The entry of `key` as an operation from `start` to `end` may find it. */
  find(key: string, start: number, end: number): { entry: ModelEntry | undefined; certain: boolean } {
    const entry = this.entries.get(key);
    if (entry === undefined) return { entry, certain: true };
    if (start >= entry.goneFrom) {
      this.entries.delete(key);
      return { entry: undefined, certain: true };
    }
    return { entry, certain: end < entry.livesUntil && !this.mayEvict };
  }

  write(key: string, value: string, ttlMs: number, start: number, end: number): void {
    this.entries.set(key, { value, livesUntil: start + ttlMs - this.marginMs, goneFrom: end + ttlMs + this.marginMs });
  }
}

const KEYS = ['a', 'b', 'c'];

function operations(durations: number[], advances: number[]): fc.Arbitrary<Operation[]> {
  const key = fc.constantFrom(...KEYS);
  const value = fc.oneof(fc.string({ maxLength: 8 }), fc.integer({ min: -50, max: 500 }).map(String));
  const duration = fc.constantFrom(...durations);
  const operation: fc.Arbitrary<Operation> = fc.oneof(
    fc.record({ kind: fc.constant('set' as const), key, value, ttlMs: duration }),
    fc.record({ kind: fc.constant('setIfAbsent' as const), key, value, ttlMs: duration }),
    fc.record({ kind: fc.constant('get' as const), key }),
    fc.record({ kind: fc.constant('delete' as const), key }),
    fc.record({ kind: fc.constant('hit' as const), key, windowMs: duration, cost: fc.integer({ min: 0, max: 10 }) }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(...advances) }),
  );
  return fc.array(operation, { maxLength: 30 });
}

/** Runs `sequence` on `store` and on the model, and fails at the first answer the model cannot give. */
async function check(store: Store, model: Model, sequence: Operation[], now: () => number, advance: (ms: number) => Promise<void>): Promise<void> {
  for (const operation of sequence) {
    if (operation.kind === 'advance') {
      await advance(operation.ms);
      continue;
    }
    const start = now();
    const settled = await run(store, operation).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const end = now();
    const { entry, certain } = model.find(operation.key, start, end);
    const context = JSON.stringify({ operation, entry, certain, settled: 'error' in settled ? String(settled.error) : settled.value });
    if (operation.kind === 'set') {
      expect(settled, context).toEqual({ value: undefined });
      model.write(operation.key, operation.value, operation.ttlMs, start, end);
    } else if (operation.kind === 'delete') {
      expect(settled, context).toEqual({ value: undefined });
      model.entries.delete(operation.key);
    } else if (operation.kind === 'get') {
      const allowed = certain ? [entry?.value] : [entry!.value, undefined];
      expect(allowed, context).toContain((settled as { value: unknown }).value);
      if ((settled as { value: unknown }).value === undefined) model.entries.delete(operation.key);
    } else if (operation.kind === 'setIfAbsent') {
      const { value } = settled as { value: unknown };
      const allowed = certain ? [entry?.value] : [entry!.value, undefined];
      expect(allowed, context).toContain(value);
      if (value === undefined) model.write(operation.key, operation.value, operation.ttlMs, start, end);
    } else {
      checkHit(model, operation, entry, certain, settled, start, end, context);
    }
  }
}

/**
 * A hit either counts on in the entry's window or opens a window of its own. Where the model cannot
 * tell whether the window had ended, either answer passes; where both fit, the model keeps the count
 * and widens the span to cover both ends.
 */
function checkHit(model: Model, operation: Extract<Operation, { kind: 'hit' }>, entry: ModelEntry | undefined, certain: boolean, settled: { value: unknown } | { error: unknown }, start: number, end: number, context: string): void {
  const answer = 'value' in settled ? (settled.value as { count: number; resetMs: number }) : undefined;
  const fresh = answer !== undefined && answer.count === operation.cost && answer.resetMs === operation.windowMs;
  let counted = false;
  if (entry !== undefined) {
    counted = isCount(entry.value)
      ? answer !== undefined && answer.count === Number(entry.value) + operation.cost && answer.resetMs >= Math.max(0, entry.livesUntil - end) && answer.resetMs <= entry.goneFrom - start
      : 'error' in settled && settled.error instanceof StoreUnavailableError;
  }
  if (entry === undefined || !certain ? !(fresh || counted) : !counted) expect.fail(`the store's answer fits no state the model allows: ${context}`);
  if (!fresh || (entry !== undefined && certain)) {
    if (answer !== undefined) entry!.value = String(answer.count);
    return;
  }
  const before = counted ? entry : undefined;
  model.write(operation.key, String(operation.cost), operation.windowMs, start, end);
  if (before !== undefined) {
    const written = model.entries.get(operation.key)!;
    written.livesUntil = Math.min(written.livesUntil, before.livesUntil);
    written.goneFrom = Math.max(written.goneFrom, before.goneFrom);
  }
}

function run(store: Store, operation: Exclude<Operation, { kind: 'advance' }>): Promise<unknown> {
  switch (operation.kind) {
    case 'set':
      return store.set(operation.key, operation.value, operation.ttlMs);
    case 'setIfAbsent':
      return store.setIfAbsent(operation.key, operation.value, operation.ttlMs);
    case 'get':
      return store.get(operation.key);
    case 'delete':
      return store.delete(operation.key);
    case 'hit':
      return store.hit(operation.key, operation.windowMs, operation.cost);
  }
}

describe('memoryStore against the model', () => {
  it('answers as the model does, exactly, on a clock the test moves', async () => {
    await fc.assert(
      fc.asyncProperty(operations([1, 5, 20, 60_000], [0, 1, 4, 5, 19, 20, 21, 100]), async (sequence) => {
        let time = 1_000_000;
        const store = memoryStore({ now: () => time });
        await check(store, new Model(0), sequence, () => time, async (ms) => void (time += ms));
      }),
      { numRuns: 300 },
    );
  });

  it('with bounds smaller than what it writes, stays within them and never answers a value the model does not hold', async () => {
    await fc.assert(
      fc.asyncProperty(operations([1, 5, 20, 60_000], [0, 1, 5, 20]), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 20, max: 60 }), async (sequence, maxEntries, maxBytes) => {
        let time = 1_000_000;
        const store = memoryStore({ now: () => time, maxEntries, maxBytes });
        // Keys of one character and values of at most 8 never exceed 20 bytes: no entry is refused for its size.
        await check(store, new Model(0, true), sequence, () => time, async (ms) => void (time += ms));
        expect(store.size).toBeLessThanOrEqual(maxEntries);
        expect(store.bytes).toBeLessThanOrEqual(maxBytes);
      }),
      { numRuns: 300 },
    );
  });
});

const binary = findRedisServer();
if (binary === undefined) console.log(REDIS_SKIPPED);

describe.skipIf(binary === undefined)('redisStore against the model', () => {
  let server: RedisServer;
  let client: Redis;

  beforeAll(async () => {
    server = await startRedisServer(binary!);
    client = new Redis({ port: server.port, host: '127.0.0.1' });
  }, 20_000);

  afterAll(async () => {
    client?.disconnect();
    await server?.close();
  });

  it('answers as the model does, with windows of tens of milliseconds on a clock that runs', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(operations([10, 25, 60_000], [0, 5, 15, 30]), async (sequence) => {
        const store = redisStore({ client, prefix: `properties:${++run}:` });
        // Redis's expiry reads the same clock as Date.now, in whole milliseconds.
        await check(store, new Model(2), sequence, Date.now, (ms) => new Promise((resolve) => setTimeout(resolve, ms)));
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
