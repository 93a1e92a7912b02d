/**
 * The memory store: the shared contract on a clock the test moves, then what only it has: its
 * options checked when it is made, its bounds in entries and bytes, which entry it evicts, and the
 * sweep that keeps expired entries from piling up without a timer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpiryHeap } from '../../src/store/expiry-heap.js';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, memoryStore } from '../../src/store/memory.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { runStoreContract } from './contract.js';

function clock(start = 1_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
}

describe('memoryStore: the store contract', () => {
  runStoreContract(
    async () => {
      const time = clock();
      return { store: memoryStore({ now: time.now }), advance: async (ms) => time.advance(ms) };
    },
    { slackMs: 0 },
  );
});

describe('memoryStore options', () => {
  it('states its defaults: 10 000 entries and 16 MiB', () => {
    expect([DEFAULT_MAX_ENTRIES, DEFAULT_MAX_BYTES]).toEqual([10_000, 16 * 1024 * 1024]);
  });

  it.each([
    [{ maxEntrys: 10 }, new TypeError('memoryStore has no option "maxEntrys"; its options are maxEntries, maxBytes and now')],
    [{ maxEntries: 0 }, new RangeError("memoryStore's maxEntries must be a whole number, 1 or more; it is 0")],
    [{ maxBytes: 1.5 }, new RangeError("memoryStore's maxBytes must be a whole number, 1 or more; it is 1.5")],
    [{ maxBytes: Number.POSITIVE_INFINITY }, new RangeError("memoryStore's maxBytes must be a whole number, 1 or more; it is Infinity")],
    [{ now: 5 }, new TypeError("memoryStore's now must be a function that returns the time in milliseconds, such as Date.now")],
  ])('refuses %o when it is made', (options, error) => {
    expect(() => memoryStore(options as never)).toThrow(error);
  });

  it('reads Date.now when no clock is given', async () => {
    const store = memoryStore();
    await store.set('k', 'v', 60_000);
    expect(await store.get('k')).toBe('v');
    const { resetMs } = await store.hit('rate', 60_000);
    expect(resetMs).toBe(60_000);
  });
});

describe('memoryStore bounds', () => {
  it('at maxEntries, evicts the entry that expires soonest, whatever order they were written in', async () => {
    const time = clock();
    const store = memoryStore({ maxEntries: 3, now: time.now });
    await store.set('b', '2', 300);
    await store.set('a', '1', 100);
    await store.set('c', '3', 200);
    await store.set('d', '4', 400);
    expect(store.size).toBe(3);
    expect(await Promise.all(['a', 'b', 'c', 'd'].map((key) => store.get(key)))).toEqual([undefined, '2', '3', '4']);
    await store.setIfAbsent('e', '5', 50);
    expect(await Promise.all(['b', 'c', 'd', 'e'].map((key) => store.get(key)))).toEqual(['2', undefined, '4', '5']);
  });

  it('overwriting a key takes no second place: 3 entries stay 3 however often one is set', async () => {
    const store = memoryStore({ maxEntries: 3, now: clock().now });
    for (const key of ['a', 'b', 'c']) await store.set(key, key, 60_000);
    for (let round = 0; round < 10; round++) await store.set('b', `b${round}`, 60_000 + round);
    expect(await Promise.all(['a', 'b', 'c'].map((key) => store.get(key)))).toEqual(['a', 'b9', 'c']);
  });

  it('at maxBytes, counts keys and values at 2 bytes a code unit and evicts until the new entry fits', async () => {
    const time = clock();
    const store = memoryStore({ maxBytes: 40, now: time.now });
    await store.set('k1', 'abcdefgh', 100); // 20 bytes
    await store.set('k2', 'abcdefgh', 200); // 20 bytes
    expect(store.bytes).toBe(40);
    await store.set('k3', 'ab', 300); // 8 bytes: k1 goes
    expect([await store.get('k1'), await store.get('k2'), await store.get('k3')]).toEqual([undefined, 'abcdefgh', 'ab']);
    expect(store.bytes).toBe(28);
    await store.hit('k3x', 500, 1234567); // 20 bytes: k2 goes, k3 stays
    expect([await store.get('k2'), await store.get('k3'), store.bytes]).toEqual([undefined, 'ab', 28]);
  });

  it('refuses with a StoreUnavailableError an entry larger than maxBytes on its own, and evicts nothing for it', async () => {
    const store = memoryStore({ maxBytes: 20, now: clock().now });
    await store.set('k', 'v', 60_000);
    await expect(store.set('big', 'x'.repeat(8), 60_000)).rejects.toThrow(new StoreUnavailableError('the memory store holds at most 20 bytes, and this entry takes 22'));
    await expect(store.setIfAbsent('big', 'x'.repeat(8), 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect([await store.get('k'), await store.get('big'), store.size]).toEqual(['v', undefined, 1]);
  });

  it('takes an entry of exactly maxBytes, evicting every other to make room', async () => {
    const store = memoryStore({ maxBytes: 20, now: clock().now });
    await store.set('a', 'v', 60_000);
    await store.set('k', 'x'.repeat(9), 60_000);
    expect([await store.get('a'), await store.get('k'), store.bytes]).toEqual([undefined, 'x'.repeat(9), 20]);
  });

  it('names the mistake when a hit finds a value that is not a count', async () => {
    const store = memoryStore({ now: clock().now });
    await store.set('k', 'running', 60_000);
    await expect(store.hit('k', 60_000)).rejects.toThrow(new StoreUnavailableError('the key holds a value that is not a count, so it cannot be hit'));
  });

  it('a hit whose count grows a digit is counted in bytes too', async () => {
    const store = memoryStore({ now: clock().now });
    await store.hit('r', 60_000, 9);
    expect(store.bytes).toBe(4);
    await store.hit('r', 60_000);
    expect(store.bytes).toBe(6);
  });

  it('a flood of one-use keys stays within maxEntries and maxBytes after every write', async () => {
    const time = clock();
    const store = memoryStore({ maxEntries: 100, maxBytes: 4_000, now: time.now });
    for (let index = 0; index < 5_000; index++) {
      await store.hit(`rate:198.51.100.${index}`, 60_000 + (index % 7));
      if (index % 3 === 0) await store.set(`idem:${index}`, 'x'.repeat(index % 50), 1_000 + index);
      expect(store.size).toBeLessThanOrEqual(100);
      expect(store.bytes).toBeLessThanOrEqual(4_000);
    }
  });

  it('sweeps expired entries out on writes, without a timer: 10 000 entries that expired leave in a few hundred writes', async () => {
    const time = clock();
    const store = memoryStore({ maxEntries: 20_000, now: time.now });
    for (let index = 0; index < 10_000; index++) await store.set(`old${index}`, 'v', 10 + (index % 100));
    expect(store.size).toBe(10_000);
    time.advance(1_000);
    for (let index = 0; index < 700; index++) await store.set('live', String(index), 60_000);
    expect(store.size).toBe(1);
    expect(store.bytes).toBe(2 * ('live'.length + '699'.length));
  });

  it('takes out 16 expired entries a write, no more, those that expire at that very instant included', async () => {
    const time = clock();
    const store = memoryStore({ now: time.now });
    for (let index = 0; index < 40; index++) await store.set(`old${index}`, 'v', 10);
    time.advance(10);
    await store.set('live', 'v', 60_000);
    expect(store.size).toBe(40 - 16 + 1);
    await store.set('live', 'w', 60_000);
    expect(store.size).toBe(40 - 32 + 1);
    await store.setIfAbsent('other', 'v', 60_000);
    expect(store.size).toBe(2);
  });

  it('drops an expired entry on read, and counts it no more', async () => {
    const time = clock();
    const store = memoryStore({ now: time.now });
    await store.set('k', 'v', 10);
    time.advance(10);
    expect(await store.get('k')).toBeUndefined();
    expect([store.size, store.bytes]).toEqual([0, 0]);
  });
});

describe('ExpiryHeap', () => {
  it('always gives the entry that expires soonest, through pushes, updates and removals', () => {
    type Node = { expiresAt: number; slot: number; id: number };
    // Pushes outweigh removals, so that the heap grows deep enough for a wrong turn to show.
    const operation = fc.oneof(
      { arbitrary: fc.record({ kind: fc.constant('push' as const), expiresAt: fc.integer({ min: 0, max: 50 }) }), weight: 4 },
      fc.record({ kind: fc.constant('update' as const), pick: fc.nat(), expiresAt: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
      // As the store's sweep and eviction do: the entry that expires soonest.
      fc.record({ kind: fc.constant('removeSoonest' as const) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), (operations) => {
        const heap = new ExpiryHeap<Node>();
        const held: Node[] = [];
        for (const [id, op] of operations.entries()) {
          if (op.kind === 'push') {
            const node = { expiresAt: op.expiresAt, slot: -1, id };
            heap.push(node);
            held.push(node);
          } else if (op.kind === 'removeSoonest') {
            const soonest = heap.peek();
            if (soonest !== undefined) {
              heap.remove(soonest);
              held.splice(held.indexOf(soonest), 1);
            }
          } else if (held.length > 0) {
            const node = held[op.pick % held.length]!;
            if (op.kind === 'update') {
              node.expiresAt = op.expiresAt;
              heap.update(node);
            } else {
              heap.remove(node);
              held.splice(held.indexOf(node), 1);
              expect(node.slot).toBe(-1);
            }
          }
          expect(heap.size).toBe(held.length);
          const soonest = Math.min(...held.map((node) => node.expiresAt));
          expect(heap.peek()?.expiresAt).toBe(held.length === 0 ? undefined : soonest);
        }
      }),
      { numRuns: 300 },
    );
  });
});
