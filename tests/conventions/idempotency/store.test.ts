/**
 * Idempotency keys against their store: fifty retries at once, and a store that fails, answers late
 * or holds what no record is. A store that cannot be trusted answers 503 and runs nothing.
 */
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_PROBLEMS } from '../../../src/idempotency.js';
import { memoryStore } from '../../../src/store/memory.js';
import { StoreUnavailableError, type Store } from '../../../src/store/store.js';
import { createOrder, gate, ordersApi } from './orders.js';

const KEY = '"order-1"';

/** A memory store whose calls fail, or never answer, while a test says so. */
function faultyStore() {
  const inner = memoryStore();
  const faults: { fail: Set<keyof Store>; hang: Set<keyof Store> } = { fail: new Set(), hang: new Set() };
  const keys = new Set<string>();
  const call = <T>(name: keyof Store, run: () => Promise<T>): Promise<T> => {
    if (faults.fail.has(name)) return Promise.reject(new StoreUnavailableError(`${name} failed`));
    if (faults.hang.has(name)) return new Promise<T>(() => {});
    return run();
  };
  const store: Store = {
    setIfAbsent: (key, value, ttl) => call('setIfAbsent', () => (keys.add(key), inner.setIfAbsent(key, value, ttl))),
    get: (key) => call('get', () => inner.get(key)),
    set: (key, value, ttl) => call('set', () => inner.set(key, value, ttl)),
    delete: (key) => call('delete', () => inner.delete(key)),
    hit: (key, window, cost) => call('hit', () => inner.hit(key, window, cost)),
  };
  return { store, inner, faults, keys };
}

describe('idempotency: fifty retries at once', () => {
  it('run the handler once: one 201, and 49 409s while it runs; every retry after it is the 201 replayed', async () => {
    // A store call past its timeout is a 503 and leaves the key to a later retry: a machine busy enough
    // to stall the event loop for a second must not make another retry the first.
    const orders = ordersApi({ timeout: 60_000 });
    orders.hold = gate();
    const answers = Array.from({ length: 50 }, () => orders.api.handle(createOrder(KEY)));
    // The 49 that found the key running are answered while the first one waits at its gate.
    const [first, ...others] = answers;
    const early = await Promise.all(others);
    expect(early.map((response) => response.status)).toEqual(Array(49).fill(409));
    for (const response of early) expect(response.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.inUse });
    orders.hold.open();
    const created = await first!;
    expect(created.status).toBe(201);
    const later = await Promise.all(Array.from({ length: 50 }, () => orders.api.handle(createOrder(KEY))));
    for (const response of later) {
      expect(response.status).toBe(201);
      expect(response.headers['idempotent-replayed']).toBe('true');
      expect(response.payload).toBe(created.payload);
    }
    expect(orders.runs.create).toBe(1);
  });
});

describe('idempotency: a store that fails', () => {
  it('when reserving the key: a 503 of its own type, reported, and the handler does not run', async () => {
    const { store, faults } = faultyStore();
    faults.fail.add('setIfAbsent');
    const orders = ordersApi({ store });
    const response = await orders.api.handle(createOrder(KEY));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.unavailable, title: 'Idempotency-Key cannot be checked' });
    expect(orders.runs.create).toBe(0);
    expect(orders.reported).toHaveLength(1);
  });

  it('that does not answer in time: a 503 once the timeout passes, and the handler does not run', async () => {
    const { store, faults } = faultyStore();
    faults.hang.add('setIfAbsent');
    const orders = ordersApi({ store, timeout: 20 });
    const started = performance.now();
    const response = await orders.api.handle(createOrder(KEY));
    expect(response.status).toBe(503);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(orders.runs.create).toBe(0);
  });

  it('when keeping the answer: the client gets it, the fault is reported, and a retry is a 409, never a second run', async () => {
    const { store, faults } = faultyStore();
    faults.fail.add('set');
    const orders = ordersApi({ store });
    const created = await orders.api.handle(createOrder(KEY));
    expect(created.status).toBe(201);
    expect(orders.reported.map(String)).toEqual(['StoreUnavailableError: set failed']);
    faults.fail.clear();
    expect((await orders.api.handle(createOrder(KEY))).status).toBe(409);
    expect(orders.runs.create).toBe(1);
  });

  it('that holds what no record is under the key: a 503, and nothing runs', async () => {
    const { store, inner, keys } = faultyStore();
    const orders = ordersApi({ store });
    await orders.api.handle(createOrder(KEY));
    expect(keys.size).toBe(1);
    // The store's key names neither the caller nor the key as sent: a digest of a fixed size.
    expect([...keys][0]).toMatch(/^idempotency:[0-9a-f]{64}$/);
    await inner.set([...keys][0]!, '{"state":"kept"', 60_000);
    const response = await orders.api.handle(createOrder(KEY));
    expect(response.status).toBe(503);
    expect(orders.runs.create).toBe(1);
  });

  it('a request past the API\'s deadline keeps the answer its handler gives later: the retry replays it', async () => {
    const orders = ordersApi({}, { timeout: 30 });
    orders.hold = gate();
    const late = await orders.api.handle(createOrder(KEY));
    expect(late.status).toBe(503);
    expect((await orders.api.handle(createOrder(KEY))).status).toBe(409);
    orders.hold.open();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const retry = await orders.api.handle(createOrder(KEY));
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(orders.runs.create).toBe(1);
  });
});
