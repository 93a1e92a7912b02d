/**
 * Idempotency keys in memory, through `api.handle`: what a first request, its retries, a retry with
 * another request and a retry while the first still runs are answered, and what runs.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError, createApi, endpoint, extension, TooManyRequestsError } from '../../../src/index.js';
import { IDEMPOTENCY_PROBLEMS, idempotency } from '../../../src/idempotency.js';
import { memoryStore } from '../../../src/store/memory.js';
import { ALICE, BOB, createOrder, gate, ordersApi } from './orders.js';

const KEY = '"8e03978e-40d5-43e8-bc93-6894a57f9324"';

describe('idempotency: a key sent again', () => {
  it('replays the first answer, with Idempotent-Replayed: true, and runs the handler once', async () => {
    const { api, runs } = ordersApi();
    const first = await api.handle(createOrder(KEY));
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await api.handle(createOrder(KEY));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toEqual(first.body);
    expect(again.payload).toBe(first.payload);
    expect(runs.create).toBe(1);
  });

  it('a bare key is the same key as its quoted form', async () => {
    const { api, runs } = ordersApi();
    await api.handle(createOrder('"order-7"'));
    const bare = await api.handle(createOrder('order-7'));
    expect(bare.headers['idempotent-replayed']).toBe('true');
    expect(runs.create).toBe(1);
  });

  it('the same JSON with other spacing and member order is the same request', async () => {
    const { api, runs } = ordersApi();
    await api.handle({ ...createOrder(KEY), body: '{"item":"tea","quantity":2}' });
    const reordered = await api.handle({ ...createOrder(KEY), body: '{ "quantity": 2,\n  "item": "tea" }' });
    expect(reordered.status).toBe(201);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(runs.create).toBe(1);
  });

  it('with another body is a 422 of its own type, and runs nothing', async () => {
    const { api, runs } = ordersApi();
    await api.handle(createOrder(KEY));
    const other = await api.handle(createOrder(KEY, { item: 'tea', quantity: 3 }));
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.reused, status: 422, title: 'Idempotency-Key is already used' });
    expect(runs.create).toBe(1);
  });

  it('on another item of the same endpoint is a 422', async () => {
    const { api, runs } = ordersApi();
    const patch = (id: number) => ({ method: 'PATCH', url: `/orders/${id}`, headers: { authorization: ALICE, 'content-type': 'application/json', 'idempotency-key': KEY }, body: '{"quantity":5}' });
    expect((await api.handle(patch(1))).status).toBe(200);
    expect((await api.handle(patch(2))).body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.reused });
    expect((await api.handle(patch(1))).headers['idempotent-replayed']).toBe('true');
    expect(runs.update).toBe(1);
  });

  it('while the first request still runs is a 409 of its own type with Retry-After; once answered, a replay', async () => {
    const orders = ordersApi();
    orders.hold = gate();
    const first = orders.api.handle(createOrder(KEY));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const early = await orders.api.handle(createOrder(KEY));
    expect(early.status).toBe(409);
    expect(early.headers['retry-after']).toBe('1');
    expect(early.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.inUse, title: 'A request is outstanding for this Idempotency-Key' });
    // Another request under the key while it runs is still the wrong request: 422 before 409.
    expect((await orders.api.handle(createOrder(KEY, { item: 'cake', quantity: 1 }))).status).toBe(422);
    orders.hold.open();
    expect((await first).status).toBe(201);
    expect((await orders.api.handle(createOrder(KEY))).headers['idempotent-replayed']).toBe('true');
    expect(orders.runs.create).toBe(1);
  });

  it('keys that differ only in case are two keys', async () => {
    const { api, runs } = ordersApi();
    await api.handle(createOrder('"Order-A"'));
    const lower = await api.handle(createOrder('"order-a"'));
    expect(lower.headers['idempotent-replayed']).toBeUndefined();
    expect(runs.create).toBe(2);
  });
});

describe('idempotency: whose key', () => {
  it('the same key from two callers is two keys: neither replays the other\'s answer', async () => {
    const { api, runs } = ordersApi();
    const alice = await api.handle(createOrder(KEY, { item: 'tea', quantity: 2 }, ALICE));
    const bob = await api.handle(createOrder(KEY, { item: 'tea', quantity: 2 }, BOB));
    expect(bob.status).toBe(201);
    expect(bob.headers['idempotent-replayed']).toBeUndefined();
    expect(bob.body).toMatchObject({ owner: 'bob' });
    expect(alice.body).toMatchObject({ owner: 'alice' });
    expect(runs.create).toBe(2);
    expect((await api.handle(createOrder(KEY, { item: 'tea', quantity: 2 }, BOB))).body).toMatchObject({ owner: 'bob' });
  });

  it('the same key on two endpoints is two keys', async () => {
    const { api, runs } = ordersApi();
    await api.handle(createOrder(KEY));
    const refund = await api.handle({ method: 'POST', url: '/refunds', headers: { authorization: ALICE, 'content-type': 'application/json', 'idempotency-key': KEY }, body: '{"order":1}' });
    expect(refund.status).toBe(200);
    expect(refund.headers['idempotent-replayed']).toBeUndefined();
    expect(runs).toMatchObject({ create: 1, submit: 1 });
  });

  it('an anonymous caller gets the 401 before any key is read', async () => {
    const { api, runs } = ordersApi();
    const anonymous = await api.handle(createOrder(KEY, undefined, 'Bearer nobody'));
    expect(anonymous.status).toBe(401);
    expect(runs.create).toBe(0);
  });
});

describe('idempotency: what is kept', () => {
  it('a required key that is missing is the draft\'s 400, of its own type', async () => {
    const { api, runs } = ordersApi();
    const missing = await api.handle({ method: 'POST', url: '/refunds', headers: { authorization: ALICE, 'content-type': 'application/json' }, body: '{"order":1}' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.missing, title: 'Idempotency-Key is missing' });
    expect(runs.submit).toBe(0);
  });

  it('an optional key that is missing runs the request every time', async () => {
    const { api, runs } = ordersApi();
    await api.handle(createOrder(undefined));
    await api.handle(createOrder(undefined));
    expect(runs.create).toBe(2);
  });

  it('a body that fails its schema is a 400 that keeps nothing: the fixed request runs', async () => {
    const { api, runs } = ordersApi();
    expect((await api.handle(createOrder(KEY, { item: 'tea', quantity: -1 }))).status).toBe(400);
    const fixed = await api.handle(createOrder(KEY, { item: 'tea', quantity: 1 }));
    expect(fixed.status).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(runs.create).toBe(1);
  });

  it('a handler that throws releases the key: the retry runs', async () => {
    const orders = ordersApi();
    orders.fault = () => {
      throw new Error('database went away');
    };
    expect((await orders.api.handle(createOrder(KEY))).status).toBe(500);
    orders.fault = undefined;
    const retry = await orders.api.handle(createOrder(KEY));
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(orders.runs.create).toBe(2);
    expect(orders.reported).toHaveLength(1);
  });

  it('an error the handler throws releases the key too: the retry runs; with keepFailures it is kept', async () => {
    for (const keepFailures of [false, true]) {
      const orders = ordersApi({ keepFailures });
      orders.fault = () => {
        throw new ConflictError('The order exists already');
      };
      const conflict = await orders.api.handle(createOrder(KEY));
      expect(conflict.status).toBe(409);
      orders.fault = undefined;
      const retry = await orders.api.handle(createOrder(KEY));
      expect(retry.status).toBe(keepFailures ? 409 : 201);
      expect(retry.headers['idempotent-replayed']).toBe(keepFailures ? 'true' : undefined);
      expect(orders.runs.create).toBe(keepFailures ? 1 : 2);
    }
  });

  it('a request that ends before its handler (an extension\'s 429) keeps nothing, whatever the order of use', async () => {
    let refuse = true;
    const limit = extension({ name: 'limit', before: () => { if (refuse) throw new TooManyRequestsError(undefined, { retryAfter: 1 }); }, outcomes: ['tooManyRequests'] });
    for (const order of ['idempotency first', 'extension first']) {
      refuse = true;
      let runs = 0;
      const payments = endpoint('POST', '/payments', { body: 'unvalidated', handle: () => ({ run: ++runs }) });
      const module = idempotency();
      const api = createApi({ endpoints: [payments], authenticate: () => ({ id: 'alice' }), use: order === 'idempotency first' ? [module, limit] : [limit, module] });
      const pay = () => api.handle({ method: 'POST', url: '/payments', headers: { 'content-type': 'application/json', 'idempotency-key': KEY }, body: '{}' });
      expect((await pay()).status, order).toBe(429);
      refuse = false;
      const retry = await pay();
      expect(retry.status, order).toBe(200);
      expect(retry.headers['idempotent-replayed'], order).toBeUndefined();
      expect(runs, order).toBe(1);
    }
  });

  it('with keepFailures, a 500 is kept and replayed, as Stripe does', async () => {
    const orders = ordersApi({ keepFailures: true });
    orders.fault = () => {
      throw new Error('database went away');
    };
    const failed = await orders.api.handle(createOrder(KEY));
    orders.fault = undefined;
    const retry = await orders.api.handle(createOrder(KEY));
    expect(retry.status).toBe(500);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(failed.body);
    expect(orders.runs.create).toBe(1);
  });

  it('an answer is kept for the retention, then the key runs again', async () => {
    let now = 1_000_000;
    const store = memoryStore({ now: () => now });
    const { api, runs } = ordersApi({ store, retention: 60_000 });
    await api.handle(createOrder(KEY));
    now += 59_999;
    expect((await api.handle(createOrder(KEY))).headers['idempotent-replayed']).toBe('true');
    now += 1;
    const after = await api.handle(createOrder(KEY, { item: 'cake', quantity: 1 }));
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(runs.create).toBe(2);
  });

  it('a replay carries the headers of the first answer but its Set-Cookie', async () => {
    const { api } = ordersApi();
    const handled = await api.handle(createOrder(KEY));
    expect(handled.headers['set-cookie']).toEqual(['recent=order']);
    const again = await api.handle(createOrder(KEY));
    expect(again.headers['x-order-run']).toBe('1');
    expect(again.headers['set-cookie']).toBeUndefined();
  });
});

describe('idempotency: CORS', () => {
  const APP = 'https://app.example';

  it('a page of an allowed origin may read Idempotent-Replayed on a first answer and on its replay', async () => {
    const { api } = ordersApi({}, { cors: { origins: [APP] } });
    const create = createOrder(KEY);
    const withOrigin = { ...create, headers: { ...create.headers, origin: APP } };
    const first = await api.handle(withOrigin);
    const again = await api.handle(withOrigin);
    expect(first.headers['access-control-expose-headers']).toBe('ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition, Accept-Ranges, Content-Range, Idempotent-Replayed');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['access-control-expose-headers']).toBe(first.headers['access-control-expose-headers']);
  });
});
