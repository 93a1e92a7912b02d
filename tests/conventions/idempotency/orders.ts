/**
 * The API the idempotency tests share: orders created (POST) and changed (PATCH) by signed-in
 * callers, each run of a handler counted, and a gate that holds the handler while a test sends
 * retries.
 */
import { z } from 'zod';
import { collection, createApi, endpoint, type Api, type CorsOptions } from '../../../src/index.js';
import { idempotency, type IdempotencyOptions } from '../../../src/idempotency.js';

export const ALICE = 'Bearer alice';
export const BOB = 'Bearer bob';

/** A promise a test opens when it chooses. */
export interface Gate {
  readonly wait: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

export interface Orders {
  api: Api;
  /** How often each handler ran. */
  runs: { create: number; update: number; submit: number };
  /** While set, the create handler waits for it. */
  hold: Gate | undefined;
  /** What the create handler does besides answering: throw, say. */
  fault: (() => void) | undefined;
  /** Every error the API reported. */
  reported: unknown[];
}

export function ordersApi(options: IdempotencyOptions = {}, more: { timeout?: number; cors?: CorsOptions } = {}): Orders {
  const state: Orders = { api: undefined as unknown as Api, runs: { create: 0, update: 0, submit: 0 }, hold: undefined, fault: undefined, reported: [] };
  let next = 1;
  const orders = collection('orders', {
    id: z.coerce.number().int(),
    body: z.object({ item: z.string(), quantity: z.number().int().positive() }),
    patch: z.object({ quantity: z.number().int().positive() }),
    create: async (ctx) => {
      state.runs.create++;
      if (state.hold !== undefined) await state.hold.wait;
      state.fault?.();
      ctx.set('Set-Cookie', 'recent=order');
      ctx.set('X-Order-Run', String(state.runs.create));
      return { id: next++, owner: (ctx.principal as { id: string }).id, ...ctx.body };
    },
    read: (ctx) => ({ id: ctx.params.id, item: 'tea', quantity: 1 }),
    update: (ctx) => {
      state.runs.update++;
      return { id: ctx.params.id, item: 'tea', quantity: ctx.body.quantity };
    },
  });
  const refunds = endpoint('POST', '/refunds', {
    body: z.object({ order: z.number() }),
    conventions: { idempotency: 'required' },
    handle: (ctx) => {
      state.runs.submit++;
      return { refunded: ctx.body.order };
    },
  });
  state.api = createApi({
    resources: [orders],
    endpoints: [refunds],
    authenticate: (request) => {
      const authorization = request.headers?.authorization;
      if (authorization === ALICE) return { id: 'alice' };
      if (authorization === BOB) return { id: 'bob' };
      return undefined;
    },
    ...(more.timeout === undefined ? {} : { timeout: more.timeout }),
    ...(more.cors === undefined ? {} : { cors: more.cors }),
    onError: (error) => {
      state.reported.push(error);
    },
    use: [idempotency(options)],
  });
  return state;
}

/** A create of one order by a caller, with a key. */
export function createOrder(key: string | undefined, body: unknown = { item: 'tea', quantity: 2 }, authorization = ALICE) {
  const headers: Record<string, string> = { authorization, 'content-type': 'application/json' };
  if (key !== undefined) headers['idempotency-key'] = key;
  return { method: 'POST', url: '/orders', headers, body: JSON.stringify(body) };
}
