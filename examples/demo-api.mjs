/**
 * The demo API: users and their orders, bearer tokens for two users and an admin, ownership,
 * validation with zod, entity tags and merge patches on users, paged and sortable orders, CORS for a
 * page on http://localhost:5173, and an in-memory store. `npm start` serves it with the node adapter.
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

/**
 * One page of items in memory, as a database would give it: ordered by `ctx.sort`, then by id; after
 * or before the cursor's position; `ctx.page.limit` of them.
 */
function pageOf(items, { sort, page }) {
  const order = [...sort, { field: 'id', direction: 'asc' }];
  const compare = (a, b) => {
    for (const { field, direction } of order) {
      if (a[field] !== b[field]) return (a[field] < b[field] ? -1 : 1) * (direction === 'desc' ? -1 : 1);
    }
    return 0;
  };
  const position = page.after ?? page.before;
  const sorted = items.sort(compare);
  if (position === undefined) return sorted.slice(0, page.limit);
  if (page.after !== undefined) return sorted.filter((item) => compare(item, position) > 0).slice(0, page.limit);
  return sorted.filter((item) => compare(item, position) < 0).slice(-page.limit);
}

/** A fresh store with Alice, Bob and the admin, and one order each for Alice and Bob. */
export function createDemoStore() {
  return {
    // `version` counts a user's changes: their ETag. The User schema leaves it out of every answer.
    users: new Map([
      [1, { id: 1, name: 'Alice', email: 'alice@example.com', version: 1 }],
      [2, { id: 2, name: 'Bob', email: 'bob@example.com', version: 1 }],
      [3, { id: 3, name: 'Ada', email: 'ada@example.com', version: 1 }],
    ]),
    orders: new Map([
      [1, { id: 1, userId: 1, item: 'Notebook', quantity: 2 }],
      [2, { id: 2, userId: 2, item: 'Pencil', quantity: 10 }],
      [3, { id: 3, userId: 1, item: 'Eraser', quantity: 1 }],
    ]),
    nextUserId: 4,
    nextOrderId: 4,
  };
}

/** Builds the demo API over a store. */
export function createDemoApi(store = createDemoStore(), options = {}) {
  const users = collection('users', {
    id: UserId,
    body: NewUser,
    item: User,
    // Each user sees and changes only themself; the admin everyone. The scope keeps the list's query to the caller.
    owner: { rule: (user, principal) => isAdmin(principal) || user.id === principal.id, scope: (principal) => (isAdmin(principal) ? {} : { id: principal.id }) },
    etag: (user) => String(user.version),
    list: (ctx) => [...store.users.values()].filter((user) => Object.entries(ctx.filter).every(([field, value]) => user[field] === value)),
    read: (ctx) => store.users.get(ctx.params.id),
    create: {
      authorize: (ctx) => isAdmin(ctx.principal),
      handle: (ctx) => {
        const user = { id: store.nextUserId++, ...ctx.body, version: 1 };
        store.users.set(user.id, user);
        return user;
      },
    },
    replace: (ctx) => {
      const user = { id: ctx.params.id, ...ctx.body, version: ctx.item.version + 1 };
      store.users.set(user.id, user);
      return user;
    },
    // A JSON merge patch, applied to the user as read gives it; ctx.body is the result, checked against NewUser.
    update: {
      merge: true,
      handle: (ctx) => {
        const user = { ...ctx.item, ...ctx.body, version: ctx.item.version + 1 };
        store.users.set(user.id, user);
        return user;
      },
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

  const orders = users.collection('orders', {
    id: z.coerce.number().int().positive(),
    body: NewOrder,
    patch: NewOrder.partial(),
    item: Order,
    owner: (order, principal) => isAdmin(principal) || order.userId === principal.id,
    page: { by: 'cursor', limit: { default: 10, max: 50 } },
    sort: ['item', 'quantity'],
    list: (ctx) => pageOf([...store.orders.values()].filter((order) => order.userId === ctx.params.userId), ctx),
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
    // The orders are listed too, so that their routes are in the API's type (restcanon/client reads it).
    resources: [users, orders],
    endpoints: [health],
    authenticate,
    // A single-page application on the Vite dev server's origin may call the API from the browser.
    cors: { origins: ['http://localhost:5173'] },
    openapi: openApi({ info: { title: 'restcanon demo', version: '1.0.0' } }),
    onError: (error, { requestId }) => console.error(`[${requestId}]`, error),
    ...options,
  });
}
