/**
 * The demo's event stream of orders: `GET /users/:userId/orders/events` sends each order created for
 * that user, on any instance, as a server-sent event (`event: order`, `id` the order's id, `data` its
 * JSON): the statement that creates an order announces it with `pg_notify` ({@link announced}), and
 * each instance LISTENs. A client that comes back with `Last-Event-ID` first gets the orders it
 * missed, from the table.
 *
 * Bounded: each instance serves at most `perUser` streams of one user (a 429 past it) and `total`
 * streams in all (a 503), and keeps at most `QUEUE` orders for a client that reads slower than they
 * come: past that its stream ends, and its `EventSource` comes back with the `Last-Event-ID` of the
 * last order it got, and reads the rest from the table. Nothing is lost, nothing waits in memory.
 */
import { endpoint, NotFoundError, ServiceUnavailableError, TooManyRequestsError } from 'restcanon';
import { z } from 'zod';

/** The streams an instance serves by default: per user, and in all. */
export const DEMO_STREAMS = { perUser: 3, total: 100 };

/** The orders kept for one stream whose client reads slower than they come; past it the stream ends. */
const QUEUE = 100;
/** The orders read from the table at a time when a client resumes. */
const PAGE = 100;
/** How long an `EventSource` waits before it comes back: the first frame of every stream. */
const RETRY = 2000;

const ORDER = 'id, user_id as "userId", item, quantity';

/**
 * The SELECT of the orders in `rows` (a CTE of `id`, `"userId"`, `item`, `quantity`) that announces
 * each on the channel "orders", as its JSON: Postgres sends it when the statement's transaction
 * commits, to every connection that listens, whichever instance made it. Orders written otherwise
 * (a bulk load) are not announced: a stream sends the orders the API creates.
 *
 * @example
 * await db.query(`with created as (insert into orders (user_id, item, quantity) values (1, 'Pen', 1) returning id, user_id as "userId", item, quantity) ${announced('created')}`);
 */
export const announced = (rows) => `select o.* from ${rows} as o cross join lateral (select pg_notify('orders', row_to_json(o)::text)) as announcement`;

/**
 * The order streams of one instance over its database: `subscribe(userId)` gives a queue of that
 * user's new orders, fed by one LISTEN that opens with the first stream.
 */
function orderFeed(db) {
  const queues = new Map();
  let listening;
  const end = () => {
    // The LISTEN failed: every stream ends, and its client resumes with its Last-Event-ID.
    listening = undefined;
    for (const set of queues.values()) for (const queue of set) queue.end();
  };
  const deliver = (payload) => {
    let order;
    try {
      order = JSON.parse(payload);
    } catch {
      return;
    }
    for (const queue of queues.get(order.userId) ?? []) queue.push(order);
  };
  return {
    count: (userId) => queues.get(userId)?.size ?? 0,
    total: () => [...queues.values()].reduce((sum, set) => sum + set.size, 0),
    async subscribe(userId) {
      const queue = boundedQueue(() => {
        queues.get(userId)?.delete(queue);
        if (queues.get(userId)?.size === 0) queues.delete(userId);
      });
      if (!queues.has(userId)) queues.set(userId, new Set());
      queues.get(userId).add(queue);
      try {
        listening ??= db.listen('orders', deliver, end).catch((error) => {
          listening = undefined;
          throw error;
        });
        await listening;
      } catch (error) {
        queue.close();
        throw error;
      }
      return queue;
    },
  };
}

/** A queue of at most QUEUE orders; one more ends it once those are taken, as `end()` does. `close()` empties it and leaves the feed. */
function boundedQueue(leave) {
  const orders = [];
  let ended = false;
  let wake;
  const rouse = () => {
    wake?.();
    wake = undefined;
  };
  return {
    push(order) {
      if (ended) return;
      if (orders.length >= QUEUE) ended = true;
      else orders.push(order);
      rouse();
    },
    end() {
      ended = true;
      rouse();
    },
    close() {
      ended = true;
      // Its client has gone: what was kept for it goes too.
      orders.length = 0;
      rouse();
      leave();
    },
    /** The next order, or undefined once the queue has ended and is empty. */
    async take() {
      while (orders.length === 0 && !ended) await new Promise((resolve) => (wake = resolve));
      return orders.shift();
    },
  };
}

/**
 * The stream of one user's orders after `after` (0: only those to come): the orders it missed, from
 * the table, then each new one once. It leaves the feed when it ends, however it ends: its client
 * leaves (`signal`), its `return()` (a HEAD, an adapter that stops writing), its queue overflows.
 */
function orderEvents(db, queue, userId, after, signal) {
  const stop = () => queue.close();
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  const events = (async function* () {
    try {
      yield { retry: RETRY };
      let last = after;
      // Subscribed before this read: an order created meanwhile is in the queue, and skipped there if read here.
      while (after > 0) {
        const missed = await db.query(`select ${ORDER} from orders where user_id = $1 and id > $2 order by id limit ${PAGE}`, [userId, last]);
        for (const order of missed) {
          last = order.id;
          yield eventOf(order);
        }
        if (missed.length < PAGE) break;
      }
      for (let order = await queue.take(); order !== undefined; order = await queue.take()) {
        if (order.id <= last) continue;
        last = order.id;
        yield eventOf(order);
      }
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
    }
  })();
  // Closed before it starts (a HEAD), a generator runs no `finally`: the queue is left here as well.
  const iterator = { next: () => events.next(), return: (value) => (stop(), events.return(value)) };
  return { [Symbol.asyncIterator]: () => iterator };
}

const eventOf = (order) => ({ event: 'order', id: String(order.id), data: order });

/**
 * The event stream endpoint of the demo. `isAdmin(principal)` says who reads anyone's; `limits`
 * bounds the streams of this instance (DEMO_STREAMS by default).
 *
 * @example
 * const api = createApi({ endpoints: [orderEventsEndpoint(db, (principal) => principal?.role === 'admin')] });
 */
export function orderEventsEndpoint(db, isAdmin, limits = DEMO_STREAMS) {
  const feed = orderFeed(db);
  return endpoint('GET', '/users/:userId/orders/events', {
    params: { userId: z.coerce.number().int().positive() },
    headers: z.object({ 'last-event-id': z.string().regex(/^\d{1,9}$/).optional() }),
    produces: ['text/event-stream'],
    summary: "The user's new orders as server-sent events (event: order, id: the order's id); Last-Event-ID resumes after that order",
    authorize: (ctx) => isAdmin(ctx.principal) || ctx.principal.id === ctx.params.userId,
    errors: { tooManyRequests: `At most ${limits.perUser} streams of one user on each instance`, unavailable: `At most ${limits.total} streams on each instance` },
    handle: async (ctx) => {
      const { userId } = ctx.params;
      if ((await db.query('select id from users where id = $1', [userId])).length === 0) throw new NotFoundError('No such user');
      if (feed.count(userId) >= limits.perUser) throw new TooManyRequestsError(`This user has ${limits.perUser} streams open on this instance; close one`, { retryAfter: 5 });
      if (feed.total() >= limits.total) throw new ServiceUnavailableError('This instance serves as many streams as it can; try again', { retryAfter: 5 });
      const queue = await feed.subscribe(userId);
      return orderEvents(db, queue, userId, Number(ctx.headers['last-event-id'] ?? 0), ctx.signal);
    },
  });
}
