/**
 * The examples' database: PGlite (Postgres compiled to WebAssembly, inside the process, nothing to
 * install) by default, or a Postgres server when `DATABASE_URL` names one, behind one small
 * interface. The SQL is written by hand, with parameters, so that what each convention asks of the
 * database stays in sight: a page is a keyset query, an ETag a version column, a precondition a
 * conditional UPDATE.
 */
import { readdir, readFile } from 'node:fs/promises';

/**
 * Opens the database and brings its schema up to date: a Postgres server through `pg` when `url` is
 * given, else PGlite, in memory or in `dataDir`. `listen(channel, message, lost)` LISTENs on a
 * channel: `message(payload)` for each NOTIFY, from any connection; `lost()` if the connection that
 * listens fails (then nothing more comes); it gives the function that stops listening.
 *
 * @example
 * const db = await openDatabase({ url: process.env.DATABASE_URL });
 * const rows = await db.query('select id, name from users where id = $1', [1]);
 */
export async function openDatabase({ url = process.env.DATABASE_URL, dataDir, migrations = new URL('./migrations/', import.meta.url) } = {}) {
  const db = url ? await onServer(url) : await embedded(dataDir);
  await migrate(db, migrations);
  return db;
}

async function onServer(url) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const listener = serverListener(pg, url);
  return {
    kind: 'postgres',
    listen: listener.listen,
    query: async (text, params) => (await pool.query(text, params)).rows,
    // A script runs on one connection, which is rolled back before it goes back to the pool when the script fails.
    exec: async (script) => {
      const client = await pool.connect();
      try {
        await client.query(script);
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => Promise.all([listener.close(), pool.end()]),
  };
}

/**
 * LISTEN on a Postgres server: one connection of its own (a pooled one goes back to the pool, and
 * its LISTEN with it), opened by the first `listen`, shared by every channel and callback. When it
 * fails, each callback's `lost` runs, and the next `listen` opens another.
 */
function serverListener(pg, url) {
  let client;
  const channels = new Map();
  const connect = () => {
    const opened = new pg.Client({ connectionString: url });
    opened.on('notification', ({ channel, payload }) => {
      for (const { message } of channels.get(channel) ?? []) message(payload ?? '');
    });
    opened.on('error', () => {
      if (client === connecting) client = undefined;
      const all = [...channels.values()].flatMap((set) => [...set]);
      channels.clear();
      opened.end().catch(() => {});
      for (const { lost } of all) lost();
    });
    const connecting = opened.connect().then(
      () => opened,
      (error) => {
        if (client === connecting) client = undefined;
        throw error;
      },
    );
    return connecting;
  };
  return {
    listen: async (channel, message, lost = () => {}) => {
      if (!/^[a-z_]+$/.test(channel)) throw new Error(`listen: a channel is lower-case letters and "_": ${JSON.stringify(channel)}`);
      client ??= connect();
      const connection = await client;
      const entry = { message, lost };
      if (!channels.has(channel)) {
        channels.set(channel, new Set());
        await connection.query(`listen ${channel}`);
      }
      channels.get(channel).add(entry);
      return async () => {
        channels.get(channel)?.delete(entry);
      };
    },
    close: async () => {
      const connection = client;
      client = undefined;
      channels.clear();
      if (connection !== undefined) await (await connection.catch(() => undefined))?.end();
    },
  };
}

async function embedded(dataDir) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir);
  return {
    kind: 'pglite',
    // The process's own Postgres: a notification reaches every listener of this process, which is all there is.
    listen: async (channel, message) => db.listen(channel, message),
    query: async (text, params) => (await db.query(text, params)).rows,
    exec: async (script) => {
      try {
        await db.exec(script);
      } catch (error) {
        await db.exec('rollback').catch(() => {});
        throw error;
      }
    },
    close: () => db.close(),
  };
}

/**
 * Applies the `.sql` files of `folder` that the database has not seen, in the order of their names,
 * each in one transaction that records it. Two instances that start at once take turns on an
 * advisory lock; the one that finds a migration applied after the wait goes on.
 *
 * @example
 * await migrate(db, new URL('./migrations/', import.meta.url));
 */
export async function migrate(db, folder) {
  await db.exec('create table if not exists schema_migrations (name text primary key)');
  const applied = async () => new Set((await db.query('select name from schema_migrations')).map((row) => row.name));
  const done = await applied();
  for (const name of (await readdir(folder)).filter((file) => file.endsWith('.sql')).sort()) {
    if (done.has(name)) continue;
    if (!/^[\w.-]+$/.test(name)) throw new Error(`migrate: a migration's file name is letters, digits, "_", "-" and ".": ${JSON.stringify(name)}`);
    const script = await readFile(new URL(name, folder), 'utf8');
    try {
      await db.exec(`begin; select pg_advisory_xact_lock(7411); ${script}; insert into schema_migrations (name) values ('${name}'); commit;`);
    } catch (error) {
      if (!(await applied()).has(name)) throw error;
    }
  }
}

/**
 * A query's parameters, numbered as they are added: `value` gives the placeholder of one, cast to
 * its SQL type so that Postgres never has to guess it.
 *
 * @example
 * const params = parameters();
 * const where = `user_id = ${params.value(1, 'integer')}`;
 * await db.query(`select * from orders where ${where}`, params.list);
 */
export function parameters() {
  const list = [];
  return {
    list,
    value: (value, type) => {
      list.push(value);
      return `$${list.length}::${type}`;
    },
  };
}

/**
 * One page of a keyset list, from the `ctx.sort` and `ctx.page` that restcanon gives a list handler:
 * its ORDER BY (the sort fields, then the key, in the direction of the last sort field), the WHERE
 * of where it starts (after `ctx.page.after`, or before `ctx.page.before`, read backwards), and its
 * LIMIT. `columns` maps each field a list may be sorted by, and the key, to its column and type: no
 * other name ever reaches the SQL. The rows of a page read backwards come in reverse: `reverse`
 * says to turn them round.
 *
 * @example
 * const params = parameters();
 * const page = keysetPage(ctx, { id: { column: 'id', type: 'integer' }, item: { column: 'item', type: 'text' } }, params);
 * const rows = await db.query(`select * from orders where user_id = ${params.value(1, 'integer')} ${page.and} order by ${page.orderBy} limit ${page.limit}`, params.list);
 */
export function keysetPage({ sort, page }, columns, params) {
  const key = page.key ?? 'id';
  const fields = [...sort.map(({ field, direction }) => ({ field, descending: direction === 'desc' }))];
  fields.push({ field: key, descending: fields.at(-1)?.descending ?? false });
  const backwards = page.before !== undefined;
  const order = fields.map(({ field, descending }) => {
    const column = columns[field];
    if (column === undefined) throw new Error(`keysetPage: no column for the field "${field}"`);
    return { ...column, field, descending: descending !== backwards };
  });
  const orderBy = order.map(({ column, descending }) => `${column} ${descending ? 'desc' : 'asc'}`).join(', ');
  const limit = params.value(page.limit, 'integer');
  const position = page.after ?? page.before;
  if (position === undefined) return { and: '', orderBy, limit, reverse: false };
  const value = ({ field, type }) => params.value(position[field], type);
  // Every column in one direction: a row comparison, which an index on those columns answers as one range.
  if (order.every(({ descending }) => descending === order[0].descending)) {
    const start = `(${order.map(({ column }) => column).join(', ')}) ${order[0].descending ? '<' : '>'} (${order.map(value).join(', ')})`;
    return { and: `and ${start}`, orderBy, limit, reverse: backwards };
  }
  const alternatives = order.map((part, index) => {
    const equal = order.slice(0, index).map((before) => `${before.column} = ${value(before)}`);
    return `(${[...equal, `${part.column} ${part.descending ? '<' : '>'} ${value(part)}`].join(' and ')})`;
  });
  return { and: `and (${alternatives.join(' or ')})`, orderBy, limit, reverse: backwards };
}
