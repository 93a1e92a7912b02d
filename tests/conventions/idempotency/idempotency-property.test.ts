/**
 * A property of idempotency keys over any interleaving of first requests, retries, retries with
 * another body, retries while the first still runs, handlers that fail and the passing of time: the
 * API answers as a model of the draft says, and each handler runs exactly as often as the model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../../src/index.js';
import { IDEMPOTENCY_PROBLEMS } from '../../../src/idempotency.js';
import { memoryStore } from '../../../src/store/memory.js';
import { createOrder, gate, ordersApi } from './orders.js';

const RETENTION = 1000;

type Operation =
  | { kind: 'send'; key: string; quantity: number }
  | { kind: 'overlap'; key: string; quantity: number; retry: number }
  | { kind: 'fail'; key: string; quantity: number }
  | { kind: 'wait'; ms: number };

const keyArb = fc.constantFrom('"k1"', '"k2"', 'k1');
const quantityArb = fc.constantFrom(1, 2);
const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('send' as const), key: keyArb, quantity: quantityArb }),
  fc.record({ kind: fc.constant('overlap' as const), key: keyArb, quantity: quantityArb, retry: quantityArb }),
  fc.record({ kind: fc.constant('fail' as const), key: keyArb, quantity: quantityArb }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(1, 400, RETENTION - 1, RETENTION, 5000) }),
);

/** What the model keeps per key: the body of the request that ran, its answer and when it expires. */
interface Model {
  quantity: number;
  payload: unknown;
  expiresAt: number;
}

describe('idempotency: any interleaving of retries, expiries and changed bodies', () => {
  it('answers as the model says, and runs each request the model runs, once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operationArb, { maxLength: 12 }), async (operations) => {
        let now = 1_000_000;
        const orders = ordersApi({ store: memoryStore({ now: () => now }), retention: RETENTION });
        orders.reported.length = 0;
        const model = new Map<string, Model>();
        let runs = 0;
        // `"k1"` and `k1` are one key: the quoted and the bare form.
        const kept = (key: string): Model | undefined => {
          const found = model.get(key.replaceAll('"', ''));
          return found !== undefined && found.expiresAt > now ? found : undefined;
        };
        const expectKnown = (response: ApiResponse, found: Model, quantity: number) => {
          if (found.quantity !== quantity) {
            expect(response.status).toBe(422);
            return;
          }
          expect(response.status).toBe(201);
          expect(response.headers['idempotent-replayed']).toBe('true');
          expect(response.payload).toBe(found.payload);
        };
        for (const operation of operations) {
          if (operation.kind === 'wait') {
            now += operation.ms;
            continue;
          }
          const { key, quantity } = operation;
          const body = { item: 'tea', quantity };
          const found = kept(key);
          if (found !== undefined) {
            expectKnown(await orders.api.handle(createOrder(key, body)), found, quantity);
            continue;
          }
          if (operation.kind === 'fail') {
            orders.fault = () => {
              throw new Error('fault');
            };
            const failed = await orders.api.handle(createOrder(key, body));
            orders.fault = undefined;
            runs++;
            expect(failed.status).toBe(500);
            continue;
          }
          let retried: Promise<{ status: number; body: unknown }> | undefined;
          if (operation.kind === 'overlap') {
            orders.hold = gate();
            const first = orders.api.handle(createOrder(key, body));
            while (orders.runs.create === runs) await new Promise((resolve) => setTimeout(resolve, 1));
            retried = orders.api.handle(createOrder(key, { item: 'tea', quantity: operation.retry }));
            const during = await retried;
            expect(during.status).toBe(operation.retry === quantity ? 409 : 422);
            expect((during.body as { type: string }).type).toBe(operation.retry === quantity ? IDEMPOTENCY_PROBLEMS.inUse : IDEMPOTENCY_PROBLEMS.reused);
            orders.hold.open();
            orders.hold = undefined;
            const created = await first;
            runs++;
            expect(created.status).toBe(201);
            model.set(key.replaceAll('"', ''), { quantity, payload: created.payload, expiresAt: now + RETENTION });
            continue;
          }
          const created = await orders.api.handle(createOrder(key, body));
          runs++;
          expect(created.status).toBe(201);
          expect(created.headers['idempotent-replayed']).toBeUndefined();
          model.set(key.replaceAll('"', ''), { quantity, payload: created.payload, expiresAt: now + RETENTION });
        }
        expect(orders.runs.create).toBe(runs);
      }),
      { numRuns: 60 },
    );
  });
});
