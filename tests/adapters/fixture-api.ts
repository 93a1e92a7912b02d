/**
 * The users/orders API that every adapter serves in the conformance suite: a users collection with zod
 * bodies and numeric ids, nested orders with ownership (written by a serializer compiled from their
 * item schema), bearer tokens, a public health check, a handler that fails with a secret, and a body
 * limit small enough to test 413 cheaply.
 */
import fastJson from 'fast-json-stringify';
import { z } from 'zod';
import { collection, createApi, endpoint, UnauthorizedError, type Api, type ApiRequest, type Context, type Endpoint } from '../../src/index.js';

/** A secret that a masked 500 must never reveal. */
export const SECRET = 'db-password=hunter2';

/** Small enough that a 413 costs a couple of KiB. */
export const BODY_LIMIT = 1024;

export interface Caller {
  name: string;
  userId: number | undefined;
  admin: boolean;
}

const CALLERS: Readonly<Record<string, Caller>> = {
  alice: { name: 'alice', userId: 1, admin: false },
  bob: { name: 'bob', userId: 2, admin: false },
  admin: { name: 'admin', userId: undefined, admin: true },
};

export interface User {
  id: number;
  name: string;
  email: string;
}

export interface Order {
  id: number;
  userId: number;
  item: string;
  quantity: number;
  /** Kept by the store, never sent: the orders' `item` schema, compiled by fast-json-stringify, leaves it out. */
  warehouseNote?: string;
}

const NewUser = z.object({ name: z.string().min(1), email: z.email() });
const UserPatch = NewUser.partial();
const NewOrder = z.object({ item: z.string().min(1), quantity: z.number().int().positive() });
const Id = z.coerce.number().int().positive();
/** An order as the API sends it. */
const OrderItem = z.object({ id: z.number().int(), userId: z.number().int(), item: z.string(), quantity: z.number().int() });

/** An in-memory store: alice is user 1 with order 1, bob is user 2 with order 2. */
export class Store {
  readonly users = new Map<number, User>();
  readonly orders = new Map<number, Order>();
  nextUserId = 3;
  nextOrderId = 3;

  constructor() {
    this.reset();
  }

  reset(): void {
    this.users.clear();
    this.orders.clear();
    this.nextUserId = 3;
    this.nextOrderId = 3;
    this.users.set(1, { id: 1, name: 'Alice', email: 'alice@example.com' });
    this.users.set(2, { id: 2, name: 'Bob', email: 'bob@example.com' });
    this.orders.set(1, { id: 1, userId: 1, item: 'book', quantity: 1, warehouseNote: 'shelf 4' });
    this.orders.set(2, { id: 2, userId: 2, item: 'lamp', quantity: 2, warehouseNote: 'fragile' });
  }
}

/** Finds the caller from `Authorization: Bearer <token>`: none without the header, 401 for an unknown token. */
export function authenticate(request: ApiRequest): Caller | undefined {
  const header = request.headers?.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer (\S+)$/i.exec(Array.isArray(header) ? header.join(', ') : header);
  const found = match === null ? undefined : CALLERS[match[1]!];
  if (found === undefined) throw new UnauthorizedError('The token is not valid');
  return found;
}

/** Only an admin or the user themself may see a user's orders. */
function ownsUser(ctx: Context<{ userId: number }, any, any, any, any>): boolean {
  const caller = ctx.principal as Caller;
  return caller.admin || caller.userId === ctx.params.userId;
}

function find(endpoints: readonly Endpoint[], method: string, path: string): Endpoint {
  const found = endpoints.find((candidate) => candidate.method === method && candidate.path === path);
  if (found === undefined) throw new Error(`The fixture has no ${method} ${path}`);
  return found;
}

/** The fixture's resources and endpoints, over one store. */
export function createResources(store: Store) {
  const users = collection('users', {
    id: Id,
    body: NewUser,
    patch: UserPatch,
    list: () => [...store.users.values()],
    read: (ctx) => store.users.get(ctx.params.id),
    create: (ctx) => {
      const user = { id: store.nextUserId++, ...ctx.body };
      store.users.set(user.id, user);
      return user;
    },
    replace: (ctx) => {
      if (!store.users.has(ctx.params.id)) return undefined;
      const user = { id: ctx.params.id, ...ctx.body };
      store.users.set(user.id, user);
      return user;
    },
    update: (ctx) => {
      const existing = store.users.get(ctx.params.id);
      if (existing === undefined) return undefined;
      const user: User = { ...existing };
      if (ctx.body.name !== undefined) user.name = ctx.body.name;
      if (ctx.body.email !== undefined) user.email = ctx.body.email;
      store.users.set(user.id, user);
      return user;
    },
    remove: (ctx) => {
      const user = store.users.get(ctx.params.id);
      store.users.delete(ctx.params.id);
      return user;
    },
  });
  // Below /users/:userId: a missing user is 404 (the collection loads it first), someone else's 403.
  users.collection('orders', {
    id: Id,
    body: NewOrder,
    item: OrderItem,
    authorize: ownsUser,
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
  });
  const readHealth = endpoint('GET', '/health', { public: true, handle: () => ({ status: 'ok' }) });
  const readReports = endpoint('GET', '/reports', {
    handle: () => {
      throw new Error(`connection refused: ${SECRET}`);
    },
  });
  return {
    users,
    readHealth,
    readReports,
    readUser: find(users.endpoints, 'GET', '/users/:id'),
    createUser: find(users.endpoints, 'POST', '/users'),
  };
}

/** A fixture API with its own store, and the errors its `onError` saw. */
export interface Fixture {
  api: Api;
  store: Store;
  endpoints: ReturnType<typeof createResources>;
  errors: unknown[];
}

/**
 * Builds the fixture API.
 *
 * @example
 * const { api, store } = createFixture({ basePath: '/v1' });
 */
export function createFixture(options: { basePath?: string } = {}): Fixture {
  const store = new Store();
  const endpoints = createResources(store);
  const errors: unknown[] = [];
  const api = createApi({
    ...options,
    resources: [endpoints.users],
    endpoints: [endpoints.readHealth, endpoints.readReports],
    authenticate,
    bodyLimit: BODY_LIMIT,
    serializerCompiler: fastJson,
    onError: (error) => errors.push(error),
  });
  return { api, store, endpoints, errors };
}

/** Options for the single-endpoint wrappers (`expressHandler`, `fastifyHandler`, `nodeHandler`), as the fixture API has them. */
export const handlerOptions = { authenticate, bodyLimit: BODY_LIMIT };
