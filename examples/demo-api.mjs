/**
 * The demo API: users and their orders, bearer tokens for two users and an admin, ownership,
 * validation with zod, and an in-memory store. `npm start` serves it with the node adapter.
 */
import { collection, createApi, endpoint, UnauthorizedError } from 'restcanon';
import { openApi } from 'restcanon/openapi';
import { z } from 'zod';

/** The demo's callers. In a real API these come from a token store or an identity provider. */
export const DEMO_TOKENS = {
  'alice-token': { id: 1, name: 'Alice', role: 'user' },
  'bob-token': { id: 2, name: 'Bob', role: 'user' },
  'admin-token': { id: 3, name: 'Ada', role: 'admin' },
};

const UserId = z.coerce.number().int().positive();
const NewUser = z.object({ name: z.string().min(1).max(100), email: z.email() });
const NewOrder = z.object({ item: z.string().min(1).max(200), quantity: z.number().int().min(1).max(99) });
/** A user and an order as the API sends them: the success bodies in the OpenAPI document. */
const User = z.object({ id: z.number().int(), name: z.string(), email: z.string() });
const Order = z.object({ id: z.number().int(), userId: z.number().int(), item: z.string(), quantity: z.number().int() });

const isAdmin = (principal) => principal?.role === 'admin';

/** Reads `Authorization: Bearer <token>`; no header is an anonymous caller, an unknown token a 401. */
function authenticate(request) {
  const header = request.headers?.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer (\S+)$/.exec(String(header));
  const caller = match ? DEMO_TOKENS[match[1]] : undefined;
  if (caller === undefined) throw new UnauthorizedError('The token is not valid');
  return caller;
}

/** A fresh store with Alice, Bob and the admin, and one order each for Alice and Bob. */
export function createDemoStore() {
  return {
    users: new Map([
      [1, { id: 1, name: 'Alice', email: 'alice@example.com' }],
      [2, { id: 2, name: 'Bob', email: 'bob@example.com' }],
      [3, { id: 3, name: 'Ada', email: 'ada@example.com' }],
    ]),
    orders: new Map([
      [1, { id: 1, userId: 1, item: 'Notebook', quantity: 2 }],
      [2, { id: 2, userId: 2, item: 'Pencil', quantity: 10 }],
    ]),
    nextUserId: 4,
    nextOrderId: 3,
  };
}

/** Builds the demo API over a store. */
export function createDemoApi(store = createDemoStore(), options = {}) {
  const users = collection('users', {
    id: UserId,
    body: NewUser,
    patch: NewUser.partial(),
    item: User,
    owner: (user, principal) => isAdmin(principal) || user.id === principal.id,
    list: (ctx) => (isAdmin(ctx.principal) ? [...store.users.values()] : [store.users.get(ctx.principal.id)].filter(Boolean)),
    read: (ctx) => store.users.get(ctx.params.id),
    create: {
      authorize: (ctx) => isAdmin(ctx.principal),
      handle: (ctx) => {
        const user = { id: store.nextUserId++, ...ctx.body };
        store.users.set(user.id, user);
        return user;
      },
    },
    replace: (ctx) => {
      const user = { id: ctx.params.id, ...ctx.body };
      store.users.set(user.id, user);
      return user;
    },
    update: (ctx) => {
      const user = { ...store.users.get(ctx.params.id), ...ctx.body };
      store.users.set(user.id, user);
      return user;
    },
    remove: {
      authorize: (ctx) => isAdmin(ctx.principal),
      handle: (ctx) => {
        const user = store.users.get(ctx.params.id);
        store.users.delete(ctx.params.id);
        for (const order of store.orders.values()) if (order.userId === ctx.params.id) store.orders.delete(order.id);
        return user;
      },
    },
  });

  users.collection('orders', {
    id: z.coerce.number().int().positive(),
    body: NewOrder,
    patch: NewOrder.partial(),
    item: Order,
    owner: (order, principal) => isAdmin(principal) || order.userId === principal.id,
    list: (ctx) => [...store.orders.values()].filter((order) => order.userId === ctx.params.userId),
    read: (ctx) => {
      const order = store.orders.get(ctx.params.id);
      return order?.userId === ctx.params.userId ? order : undefined;
    },
    create: (ctx) => {
      const order = { id: store.nextOrderId++, userId: ctx.params.userId, ...ctx.body };
      store.orders.set(order.id, order);
      return order;
    },
    update: (ctx) => {
      const order = { ...store.orders.get(ctx.params.id), ...ctx.body };
      store.orders.set(order.id, order);
      return order;
    },
    remove: (ctx) => {
      const order = store.orders.get(ctx.params.id);
      store.orders.delete(ctx.params.id);
      return order;
    },
  });

  const health = endpoint('GET', '/health', { public: true, response: z.object({ status: z.literal('ok') }), handle: () => ({ status: 'ok' }) });

  return createApi({
    resources: [users],
    endpoints: [health],
    authenticate,
    openapi: openApi({ info: { title: 'restcanon demo', version: '1.0.0' } }),
    onError: (error, { requestId }) => console.error(`[${requestId}]`, error),
    ...options,
  });
}
