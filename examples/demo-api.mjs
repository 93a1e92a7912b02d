/**
 * The demo API: users and their orders, bearer tokens for two users and an admin, ownership,
 * validation with zod, entity tags and merge patches on users, paged and sortable orders, avatars
 * (examples/avatars.mjs), an event stream of new orders (examples/order-events.mjs), CORS for a
 * page on http://localhost:5173, idempotency keys on creates and changes and a rate limit per caller,
 * on Postgres (PGlite in the process unless DATABASE_URL names a server) and, for the keys and the
 * counts, in memory (or on the Redis server REDIS_URL names). `npm start` serves it with the node
 * adapter.
 */
import { collection, createApi, endpoint, PreconditionFailedError, UnauthorizedError } from 'restcanon';
import { idempotency } from 'restcanon/idempotency';
import { openApi } from 'restcanon/openapi';
import { rateLimit } from 'restcanon/rate-limit';
import { memoryStore } from 'restcanon/store';
import { z } from 'zod';
import { avatarEndpoints } from './avatars.mjs';
import { keysetPage, openDatabase, parameters } from './database.mjs';
import { announced, DEMO_STREAMS, orderEventsEndpoint } from './order-events.mjs';

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

/** The row a conditional UPDATE changed; none means the version moved since the preconditions were checked. */
function changed(rows) {
  if (rows.length === 0) throw new PreconditionFailedError('The user changed while this request ran; read it again');
  return rows[0];
}

/** Reads `Authorization: Bearer <token>`; no header is an anonymous caller, an unknown token a 401. */
function authenticate(request) {
  const header = request.headers?.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer (\S+)$/.exec(String(header));
  const caller = match ? DEMO_TOKENS[match[1]] : undefined;
  if (caller === undefined) throw new UnauthorizedError('The token is not valid');
  return caller;
}

const USER = 'id, name, email, version';
const ORDER = 'id, user_id as "userId", item, quantity';
/** The fields an order list may be sorted by, and its key: their columns and types. */
const ORDER_COLUMNS = { id: { column: 'id', type: 'integer' }, item: { column: 'item', type: 'text' }, quantity: { column: 'quantity', type: 'integer' } };

/**
 * Empties the demo's tables and writes Alice, Bob and the admin, and one order each for Alice and
 * Bob, numbering from 1 again.
 *
 * @example
 * await resetDemoData(db);
 */
export async function resetDemoData(db) {
  await db.exec(`begin;
    truncate users, orders, avatars restart identity cascade;
    insert into users (name, email) values ('Alice', 'alice@example.com'), ('Bob', 'bob@example.com'), ('Ada', 'ada@example.com');
    insert into orders (user_id, item, quantity) values (1, 'Notebook', 2), (2, 'Pencil', 10), (1, 'Eraser', 1);
    commit;`);
}

/**
 * The demo's database (`examples/database.mjs`: PGlite, or Postgres when DATABASE_URL is set) with
 * its schema, and its data written when it has none.
 *
 * @example
 * const api = createDemoApi(await openDemoDatabase());
 */
export async function openDemoDatabase(options) {
  const db = await openDatabase(options);
  if ((await db.query('select count(*)::integer as users from users'))[0].users === 0) await resetDemoData(db);
  return db;
}

/**
 * Where the demo keeps its idempotency keys and rate-limit counts: the Redis server `url` names
 * (REDIS_URL by default), through ioredis, under `prefix`, which every instance of the demo may share;
 * else this process's memory. `close()` ends the connection.
 *
 * @example
 * const { store, close } = await openDemoStore({ url: 'redis://127.0.0.1:6379' });
 * const api = createDemoApi(db, { store });
 */
export async function openDemoStore({ url = process.env.REDIS_URL, prefix = 'restcanon-demo:' } = {}) {
  if (!url) return { kind: 'memory', store: memoryStore(), close: async () => {} };
  const [{ Redis }, { redisStore }] = await Promise.all([import('ioredis'), import('restcanon/redis')]);
  // One retry per command: while Redis is down, a request fails within the store's timeout rather than queueing.
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  return {
    kind: 'redis',
    store: redisStore({ client, prefix }),
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** The rate limit of `npm start`: 300 requests a minute for each caller (or, signed out, each address). */
export const DEMO_RATE_LIMIT = { quota: 300, window: 60 };

/** The first row of a statement, or undefined: a missing item is restcanon's 404. */
const first = (rows) => rows[0];

/**
 * Builds the demo API over its database. `store` keeps the idempotency keys and the rate-limit counts
 * (`openDemoStore()`; each module's own memory when omitted); `rateLimit` is the quota and window of
 * each caller (DEMO_RATE_LIMIT by default), or false for none; `streams` bounds the order event
 * streams of this instance (DEMO_STREAMS by default); the other options are createApi's.
 *
 * @example
 * const api = createDemoApi(db, { store: (await openDemoStore()).store, rateLimit: { quota: 10, window: 1 } });
 *
 * @param {Omit<import('restcanon').ApiOptions, 'resources' | 'endpoints'> & { store?: import('restcanon/store').Store, rateLimit?: { quota: number, window: number } | false, streams?: { perUser: number, total: number } }} [demoOptions]
 */
export function createDemoApi(db, demoOptions = {}) {
  const { store, rateLimit: quota = DEMO_RATE_LIMIT, streams = DEMO_STREAMS, ...rest } = demoOptions;
  // As the API's type sees them: none of them changes its routes, which the typed client reads.
  const options = /** @type {{}} */ (rest);
  const users = collection('users', {
    id: UserId,
    body: NewUser,
    item: User,
    // Each user sees and changes only themself; the admin everyone. The scope keeps the list's query to the caller.
    owner: { rule: (user, principal) => isAdmin(principal) || user.id === principal.id, scope: (principal) => (isAdmin(principal) ? {} : { id: principal.id }) },
    etag: (user) => String(user.version),
    list: (ctx) => (ctx.filter.id === undefined ? db.query(`select ${USER} from users order by id`) : db.query(`select ${USER} from users where id = $1 order by id`, [ctx.filter.id])),
    read: async (ctx) => first(await db.query(`select ${USER} from users where id = $1`, [ctx.params.id])),
    create: {
      authorize: (ctx) => isAdmin(ctx.principal),
      handle: async (ctx) => first(await db.query(`insert into users (name, email) values ($1, $2) returning ${USER}`, [ctx.body.name, ctx.body.email])),
    },
    // A change applies to the version the preconditions were checked against, in one statement: a
    // change that came in between makes it a 412 rather than a lost update.
    replace: async (ctx) => changed(await db.query(`update users set name = $2, email = $3, version = version + 1 where id = $1 and version = $4 returning ${USER}`, [ctx.params.id, ctx.body.name, ctx.body.email, ctx.item.version])),
    // A JSON merge patch, applied to the user as read gives it; ctx.body is the result, checked against NewUser.
    update: {
      merge: true,
      handle: async (ctx) => changed(await db.query(`update users set name = $2, email = $3, version = version + 1 where id = $1 and version = $4 returning ${USER}`, [ctx.params.id, ctx.body.name, ctx.body.email, ctx.item.version])),
    },
    remove: {
      authorize: (ctx) => isAdmin(ctx.principal),
      // The user's orders go with them (on delete cascade).
      handle: async (ctx) => first(await db.query(`delete from users where id = $1 returning ${USER}`, [ctx.params.id])),
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
    filter: { item: z.string().min(1).max(200) },
    // A keyset page: as fast for the thousandth page as for the first.
    list: async (ctx) => {
      const params = parameters();
      const owner = params.value(ctx.params.userId, 'integer');
      const item = ctx.filter.item === undefined ? '' : `and item = ${params.value(ctx.filter.item, 'text')}`;
      const page = keysetPage(ctx, ORDER_COLUMNS, params);
      const rows = await db.query(`select ${ORDER} from orders where user_id = ${owner} ${item} ${page.and} order by ${page.orderBy} limit ${page.limit}`, params.list);
      return page.reverse ? rows.reverse() : rows;
    },
    read: async (ctx) => first(await db.query(`select ${ORDER} from orders where id = $1 and user_id = $2`, [ctx.params.id, ctx.params.userId])),
    // Announced to the event streams of every instance as it is written.
    create: async (ctx) => first(await db.query(`with created as (insert into orders (user_id, item, quantity) values ($1, $2, $3) returning ${ORDER}) ${announced('created')}`, [ctx.params.userId, ctx.body.item, ctx.body.quantity])),
    update: async (ctx) =>
      first(await db.query(`update orders set item = coalesce($3, item), quantity = coalesce($4, quantity) where id = $1 and user_id = $2 returning ${ORDER}`, [ctx.params.id, ctx.params.userId, ctx.body.item ?? null, ctx.body.quantity ?? null])),
    remove: async (ctx) => first(await db.query(`delete from orders where id = $1 and user_id = $2 returning ${ORDER}`, [ctx.params.id, ctx.params.userId])),
  });

  // A load balancer's probes count against nobody's quota, and are never refused one.
  const health = endpoint('GET', '/health', { public: true, response: z.object({ status: z.literal('ok') }), conventions: quota === false ? undefined : { rateLimit: false }, handle: () => ({ status: 'ok' }) });
  const shared = store === undefined ? {} : { store };

  return createApi({
    // The orders are listed too, so that their routes are in the API's type (restcanon/client reads it).
    resources: [users, orders],
    endpoints: [health, ...avatarEndpoints(db, isAdmin), orderEventsEndpoint(db, isAdmin, streams)],
    authenticate,
    // A single-page application on the Vite dev server's origin may call the API from the browser.
    cors: { origins: ['http://localhost:5173'] },
    openapi: openApi({ info: { title: 'restcanon demo', version: '1.0.0' } }),
    // Every POST and PATCH takes an optional Idempotency-Key: a retried create replays its 201 instead of adding an order.
    use: [idempotency(shared), ...(quota === false ? [] : [rateLimit({ policies: { default: quota }, ...shared })])],
    onError: (error, { requestId }) => console.error(`[${requestId}]`, error),
    ...options,
  });
}
