/**
 * The demo at scale: the demo API (examples/demo-api.mjs) on PGlite, with 1,000, 100,000 and
 * 1,000,000 orders for one user, and for each size the latency and CPU of:
 *
 * - a first page of a filtered, sorted list: `GET /users/1/orders?item=<one of 10>&sort=-quantity&limit=20`;
 * - a deep page of the same list: its cursor at 90% of the list (a cursor a client writes itself,
 *   as docs/lists.md allows: it only chooses where the page starts);
 * - a create: `POST /users/1/orders`.
 *
 * Requests go through `api.handle` in this process, which runs Postgres too (PGlite): CPU is this
 * process's user + system time over the requests, divided by their number. The correctness gate:
 * every answer has the expected status, and a page holds 20 orders of the filtered item in order.
 * Writes bench/results/demo.md and demo.svg.
 *
 * Env: BENCH_DEMO_SIZES (default 1000,100000,1000000), BENCH_DEMO_REQUESTS (per case, default 200).
 */
import { createDemoApi, openDemoDatabase } from '../../examples/demo-api.mjs';
import { barChart } from '../lib/chart.mjs';
import { createReport } from '../lib/report.mjs';
import { fixed, median, thousands } from '../lib/stats.mjs';

const SIZES = (process.env.BENCH_DEMO_SIZES ?? '1000,100000,1000000').split(',').map(Number);
const REQUESTS = Number(process.env.BENCH_DEMO_REQUESTS ?? 200);
const ITEMS = 10;
/** Requests per case before the measured ones: the first size is measured in a cold process. */
const WARMUP = 500;
const report = createReport('demo');
const alice = { authorization: 'Bearer alice-token' };

const db = await openDemoDatabase();
const api = createDemoApi(db, { onError: (error) => console.error(error) });

/** Adds orders for Alice until she has `size`: ITEMS items in turn, quantities spread over 1-99. */
async function growTo(size) {
  const [{ count }] = await db.query('select count(*)::integer as count from orders where user_id = 1');
  if (count >= size) return;
  await db.query(
    `insert into orders (user_id, item, quantity)
     select 1, 'Item-' || (g % ${ITEMS}), 1 + (g::bigint * 7919) % 99 from generate_series($1::integer, $2::integer) as g`,
    [count + 1, size],
  );
  await db.exec('analyze orders');
}

/** A cursor of the list that starts 90% of the way through it (with a full page after it), in restcanon's cursor form. */
async function deepCursor(url) {
  const first = await api.handle({ method: 'GET', url, headers: alice });
  const cursor = new URL(first.body.next, 'http://demo').searchParams.get('cursor');
  const [sort, filter, direction] = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  const [{ count }] = await db.query(`select count(*)::integer as count from orders where user_id = 1 and item = 'Item-7'`);
  const [row] = await db.query(`select quantity, id from orders where user_id = 1 and item = 'Item-7' order by quantity desc, id desc offset $1 limit 1`, [Math.min(Math.floor(count * 0.9), count - 21)]);
  return Buffer.from(JSON.stringify([sort, filter, direction, [row.quantity, row.id]])).toString('base64url');
}

/** Runs `request` REQUESTS times after WARMUP unmeasured ones; median latency in ms and CPU µs per request. */
async function measure(request, check) {
  for (let index = 0; index < WARMUP; index++) check(await api.handle(request(index)));
  const latencies = [];
  const cpu = process.cpuUsage();
  for (let index = 0; index < REQUESTS; index++) {
    const started = performance.now();
    const response = await api.handle(request(index));
    latencies.push(performance.now() - started);
    check(response);
  }
  const used = process.cpuUsage(cpu);
  return { latency: median(latencies), cpu: (used.user + used.system) / REQUESTS };
}

function expectPage(response) {
  if (response.status !== 200) throw new Error(`a page answered ${response.status}: ${JSON.stringify(response.body)}`);
  const { items } = response.body;
  if (items.length !== 20 || items.some((order) => order.item !== 'Item-7')) throw new Error(`a page is not 20 orders of Item-7: ${JSON.stringify(items)}`);
  for (let index = 1; index < items.length; index++) {
    const [before, after] = [items[index - 1], items[index]];
    if (before.quantity < after.quantity || (before.quantity === after.quantity && before.id < after.id)) throw new Error('a page is out of order');
  }
}

function expectCreated(response) {
  if (response.status !== 201) throw new Error(`a create answered ${response.status}: ${JSON.stringify(response.body)}`);
}

const list = '/users/1/orders?item=Item-7&sort=-quantity&limit=20';
const rows = [];
for (const size of SIZES) {
  const started = performance.now();
  await growTo(size);
  const loaded = (performance.now() - started) / 1000;
  const cursor = await deepCursor(list);
  const first = await measure(() => ({ method: 'GET', url: list, headers: alice }), expectPage);
  const deep = await measure(() => ({ method: 'GET', url: `${list}&cursor=${cursor}`, headers: alice }), expectPage);
  const create = await measure(
    (index) => ({ method: 'POST', url: '/users/1/orders', headers: { ...alice, 'content-type': 'application/json' }, body: JSON.stringify({ item: `Item-${index % ITEMS}`, quantity: 1 + (index % 99) }) }),
    expectCreated,
  );
  rows.push({ size, loaded, first, deep, create });
  console.log(`${thousands(size)} orders loaded in ${fixed(loaded, 1)} s`);
}
await db.close();

report.log(`#### The demo on PGlite: ${REQUESTS} requests per case, through api.handle\n`);
report.log('| orders | first page: median ms | CPU µs | deep page (90%): median ms | CPU µs | create: median ms | CPU µs |');
report.log('|---:|---:|---:|---:|---:|---:|---:|');
for (const { size, first, deep, create } of rows) {
  report.log(`| ${thousands(size)} | ${fixed(first.latency, 2)} | ${fixed(first.cpu)} | ${fixed(deep.latency, 2)} | ${fixed(deep.cpu)} | ${fixed(create.latency, 2)} | ${fixed(create.cpu)} |`);
}
const smallest = rows[0];
const largest = rows.at(-1);
report.log('');
report.log(`From ${thousands(smallest.size)} to ${thousands(largest.size)} orders, a first page takes ${fixed(largest.first.latency / smallest.first.latency, 2)}x the time, a deep page ${fixed(largest.deep.latency / smallest.deep.latency, 2)}x, a create ${fixed(largest.create.latency / smallest.create.latency, 2)}x.`);
report.aside(`- ${ITEMS} items in turn, so a filtered list holds a ${ITEMS}th of the orders; the deep page starts 90% of the way through it.`);
const chart = barChart({
  title: 'The demo on PGlite: median latency per request',
  subtitle: `api.handle in one process with Postgres; ${REQUESTS} requests per case; Node ${process.version}`,
  unit: 'ms per request',
  series: rows.map((row, index) => ({ name: `${thousands(row.size)} orders`, color: ['#4c78a8', '#f58518', '#54a24b', '#b279a2'][index % 4] })),
  groups: [
    {
      name: 'request',
      rows: [
        { label: 'first page', values: rows.map((row) => row.first.latency) },
        { label: 'deep page (90%)', values: rows.map((row) => row.deep.latency) },
        { label: 'create', values: rows.map((row) => row.create.latency) },
      ],
    },
  ],
});
report.finish({ 'demo.svg': chart });
