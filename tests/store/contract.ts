/**
 * The contract of a Store, one suite that every store runs (memory.test.ts, redis.test.ts): what a
 * convention may rely on whichever store it is given. `open` gives each test a store of its own
 * (a fresh memory store, or a fresh key prefix on one Redis) and a way to let time pass: the memory
 * store's clock moves at once, Redis's by waiting.
 */
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError, type Store } from '../../src/store/store.js';

export interface StoreUnderTest {
  store: Store;
  /** Lets `ms` milliseconds pass for the store. */
  advance(ms: number): Promise<void>;
}

/**
 * How far a store's idea of the time may stray from the test's: 0 for a clock the test moves,
 * a few milliseconds for a server whose time runs while the test talks to it.
 */
export interface ContractOptions {
  slackMs: number;
}

export function runStoreContract(open: () => Promise<StoreUnderTest>, { slackMs }: ContractOptions): void {
  // Short enough for a real clock, long enough that a test's own round trips stay well inside it.
  const TTL = 300;

  describe('setIfAbsent, get, set, delete', () => {
    it('setIfAbsent on an empty key sets it and resolves undefined; get gives the value', async () => {
      const { store } = await open();
      expect(await store.setIfAbsent('k', 'first', 60_000)).toBeUndefined();
      expect(await store.get('k')).toBe('first');
    });

    it('setIfAbsent on a held key resolves the value it holds and leaves it as it was', async () => {
      const { store, advance } = await open();
      await store.set('k', 'held', TTL);
      expect(await store.setIfAbsent('k', 'second', 60_000)).toBe('held');
      expect(await store.get('k')).toBe('held');
      await advance(TTL + slackMs + 5);
      // The losing call gave the key no new time to live.
      expect(await store.get('k')).toBeUndefined();
    });

    it('get of a key never set resolves undefined', async () => {
      const { store } = await open();
      expect(await store.get('never')).toBeUndefined();
    });

    it('set replaces whatever the key held, and its time to live', async () => {
      const { store, advance } = await open();
      await store.set('k', 'old', TTL);
      await store.set('k', 'new', 60_000);
      expect(await store.get('k')).toBe('new');
      await advance(TTL + slackMs + 5);
      expect(await store.get('k')).toBe('new');
    });

    it('delete removes the key; deleting a key that holds nothing resolves', async () => {
      const { store } = await open();
      await store.set('k', 'v', 60_000);
      await store.delete('k');
      expect(await store.get('k')).toBeUndefined();
      await expect(store.delete('k')).resolves.toBeUndefined();
      expect(await store.setIfAbsent('k', 'again', 60_000)).toBeUndefined();
    });

    it('keeps keys apart, the empty key included', async () => {
      const { store } = await open();
      await store.set('a', '1', 60_000);
      await store.set('', 'empty', 60_000);
      await store.set('a:b', '2', 60_000);
      expect([await store.get('a'), await store.get(''), await store.get('a:b'), await store.get('b')]).toEqual(['1', 'empty', '2', undefined]);
    });

    it('gives back values as they were written: empty, unicode, JSON, long', async () => {
      const { store } = await open();
      const values = ['', 'é ü 日本 🎉', JSON.stringify({ status: 201, body: { id: 1 } }), 'x'.repeat(10_000)];
      for (const [index, value] of values.entries()) await store.set(`v${index}`, value, 60_000);
      for (const [index, value] of values.entries()) expect(await store.get(`v${index}`)).toBe(value);
    });
  });

  describe('expiry', () => {
    it('an entry lives for its ttlMs, then get resolves undefined and setIfAbsent sets it again', async () => {
      const { store, advance } = await open();
      await store.setIfAbsent('k', 'first', TTL);
      await advance(TTL / 2);
      expect(await store.get('k')).toBe('first');
      await advance(TTL / 2 + slackMs + 5);
      expect(await store.get('k')).toBeUndefined();
      expect(await store.setIfAbsent('k', 'second', TTL)).toBeUndefined();
      expect(await store.get('k')).toBe('second');
    });
  });

  describe('hit', () => {
    it('the first hit opens a window of windowMs with count 1; later hits count on in it', async () => {
      const { store } = await open();
      const first = await store.hit('rate', 60_000);
      expect(first.count).toBe(1);
      expect(first.resetMs).toBeLessThanOrEqual(60_000);
      expect(first.resetMs).toBeGreaterThanOrEqual(60_000 - slackMs - 5);
      expect((await store.hit('rate', 60_000)).count).toBe(2);
      expect((await store.hit('rate', 60_000)).count).toBe(3);
    });

    it('adds the cost: 1 when omitted, 0 counts nothing, 5 counts five', async () => {
      const { store } = await open();
      expect((await store.hit('rate', 60_000, 5)).count).toBe(5);
      expect((await store.hit('rate', 60_000, 0)).count).toBe(5);
      expect((await store.hit('rate', 60_000)).count).toBe(6);
      expect((await store.hit('fresh', 60_000, 0)).count).toBe(0);
    });

    it('is a fixed window: a later hit neither moves its end nor takes a windowMs of its own', async () => {
      const { store, advance } = await open();
      await store.hit('rate', TTL);
      await advance(TTL / 2);
      const later = await store.hit('rate', 60_000);
      expect(later.count).toBe(2);
      expect(later.resetMs).toBeLessThanOrEqual(TTL / 2 + slackMs);
      expect(later.resetMs).toBeGreaterThanOrEqual(0);
      await advance(TTL / 2 + slackMs + 5);
      expect((await store.hit('rate', TTL)).count).toBe(1);
    });

    it('starts again from zero once the window ends', async () => {
      const { store, advance } = await open();
      await store.hit('rate', TTL);
      await store.hit('rate', TTL);
      await advance(TTL + slackMs + 5);
      const next = await store.hit('rate', TTL);
      expect(next.count).toBe(1);
      expect(next.resetMs).toBeGreaterThan(TTL - slackMs - 5);
    });

    it('get of a hit key gives its count as a string, and delete ends its window', async () => {
      const { store } = await open();
      await store.hit('rate', 60_000, 3);
      expect(await store.get('rate')).toBe('3');
      await store.delete('rate');
      expect((await store.hit('rate', 60_000)).count).toBe(1);
    });

    it('rejects with a StoreUnavailableError on a key that holds a value that is not a count', async () => {
      const { store } = await open();
      await store.set('k', 'running', 60_000);
      await expect(store.hit('k', 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await store.get('k')).toBe('running');
    });

    it.each(['007', '+5', '5e2', ' 5', '5 ', '0x10', '1.0', '-0', ''])('counts on from a value only as INCRBY reads integers: %j is no count', async (value) => {
      const { store } = await open();
      await store.set('k', value, 60_000);
      await expect(store.hit('k', 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await store.get('k')).toBe(value);
    });

    it.each([
      ['0', 1],
      ['41', 42],
      ['-3', -2],
    ])('counts on from a value set as the integer %j', async (value, count) => {
      const { store } = await open();
      await store.set('k', value, 60_000);
      expect((await store.hit('k', 60_000)).count).toBe(count);
    });
  });

  describe('a caller’s mistakes', () => {
    it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects a ttlMs or windowMs of %s with a RangeError and stores nothing', async (ms) => {
      const { store } = await open();
      await expect(store.set('k', 'v', ms)).rejects.toThrow(new RangeError(`ttlMs must be a whole number of milliseconds, 1 or more; it is ${String(ms)}`));
      await expect(store.setIfAbsent('k', 'v', ms)).rejects.toThrow(RangeError);
      await expect(store.hit('h', ms)).rejects.toThrow(/^windowMs must be a whole number/);
      expect([await store.get('k'), await store.get('h')]).toEqual([undefined, undefined]);
    });

    it.each([-1, 0.5, Number.NaN])('rejects a hit cost of %s with a RangeError', async (cost) => {
      const { store } = await open();
      await expect(store.hit('h', 60_000, cost)).rejects.toThrow(RangeError);
      expect(await store.get('h')).toBeUndefined();
    });

    it('rejects a key or value that is not a string with a TypeError that names it', async () => {
      const { store } = await open();
      const key = (type: string) => new TypeError(`a store's key must be a string; it is ${type}`);
      const value = (type: string) => new TypeError(`a store's value must be a string; it is ${type}`);
      await expect(store.get(1 as unknown as string)).rejects.toThrow(key('number'));
      await expect(store.set(1 as unknown as string, 'v', 60_000)).rejects.toThrow(key('number'));
      await expect(store.set('k', { answer: 1 } as unknown as string, 60_000)).rejects.toThrow(value('object'));
      await expect(store.setIfAbsent(1 as unknown as string, 'v', 60_000)).rejects.toThrow(key('number'));
      await expect(store.setIfAbsent('k', undefined as unknown as string, 60_000)).rejects.toThrow(value('undefined'));
      await expect(store.setIfAbsent('k', 'v', 0)).rejects.toThrow(new RangeError('ttlMs must be a whole number of milliseconds, 1 or more; it is 0'));
      await expect(store.delete(null as unknown as string)).rejects.toThrow(key('object'));
      await expect(store.hit([] as unknown as string, 60_000)).rejects.toThrow(key('object'));
      expect(await store.get('k')).toBeUndefined();
    });
  });

  describe('concurrent requests', () => {
    it('of 100 concurrent setIfAbsent on one key, exactly one sets it and the others get its value', async () => {
      const { store } = await open();
      const results = await Promise.all(Array.from({ length: 100 }, (_, index) => store.setIfAbsent('idem', `request ${index}`, 60_000)));
      const winners = results.flatMap((result, index) => (result === undefined ? [index] : []));
      expect(winners).toHaveLength(1);
      const winner = `request ${winners[0]!}`;
      expect(results.filter((result) => result !== undefined && result !== winner)).toEqual([]);
      expect(await store.get('idem')).toBe(winner);
    });

    it('500 concurrent hits on one key count 1 to 500, each once', async () => {
      const { store } = await open();
      const hits = await Promise.all(Array.from({ length: 500 }, () => store.hit('rate', 60_000)));
      expect(hits.map((hit) => hit.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 500 }, (_, index) => index + 1));
    });
  });
}
