/**
 * HTTP benchmark: each restcanon adapter against the same route written natively for its host, over
 * real HTTP. See servers.mjs for the servers and BENCHMARKS.md for the method.
 *
 * 1. This process re-runs itself pinned to CPU 1 (it is the load generator: autocannon's API runs
 *    here); every server runs in its own process pinned to CPU 0.
 * 2. Correctness gate: every server answers GET /users/1 with the same status, Content-Type and body,
 *    /users/abc with 400 and /users/999 with 404, or the run exits 1 before timing anything.
 * 3. Rounds: one server process per server and round, in an order that alternates between rounds;
 *    each gets a warm-up, then a `-c 100 -p 10` window and a `-c 100 -p 1` window.
 * 4. Tables: per window, the median over rounds of the server's CPU µs per request (from
 *    /proc/<pid>/stat), req/s and p99, and each one's ratio to the native server of the same pair.
 *
 * Env: BENCH_ROUNDS (default 3), BENCH_HTTP_SECONDS (per window, default 3), BENCH_HTTP_WARMUP_SECONDS
 * (default 1), BENCH_HTTP_CONNECTIONS (default 100), BENCH_HTTP_PAIRS (a comma list of pair names,
 * such as `node,fastify`; default all).
 */
import { fileURLToPath } from 'node:url';
import { USER_JSON, JSON_TYPE } from '../lib/app.mjs';
import { ALT_SUFFIX, altDist, describeDist, snapshotDist } from '../lib/dist.mjs';
import { CLOCK_TICKS, HAS_PROC_STAT } from '../lib/proc.mjs';
import { measureLoad, startServer, stopServer } from '../lib/serve.mjs';
import { fixed, loadWatch, median, rate, times } from '../lib/stats.mjs';
import { CAN_PIN, rerunPinned } from '../machine.mjs';
import { GATE, PAIRS } from './servers.mjs';

snapshotDist();
rerunPinned(1, import.meta.url);

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_HTTP_SECONDS ?? 3);
const warmupSeconds = Number(process.env.BENCH_HTTP_WARMUP_SECONDS ?? 1);
const connections = Number(process.env.BENCH_HTTP_CONNECTIONS ?? 100);
const pairFilter = process.env.BENCH_HTTP_PAIRS?.split(',').map((name) => name.trim());
const pairs = pairFilter === undefined ? PAIRS : PAIRS.filter((pair) => pairFilter.includes(pair.name));
if (pairs.length === 0) {
  console.error(`BENCH_HTTP_PAIRS matches no pair; the pairs are: ${PAIRS.map((pair) => pair.name).join(', ')}`);
  process.exit(2);
}
const WINDOWS = [
  { name: '-c 100 -p 10', pipelining: 10 },
  { name: '-c 100 -p 1', pipelining: 1 },
].map((window) => ({ ...window, name: window.name.replace('100', String(connections)) }));
/** Above this, the load generator is the limit of req/s and p99: the row is flagged. */
const LOADGEN_LIMIT = 90;
const started = Date.now();
const load = loadWatch();

if (!HAS_PROC_STAT) console.log('WARNING: /proc/<pid>/stat is not readable here: no server CPU figures.');
if (!CAN_PIN) console.log('WARNING: no taskset: the servers and the load generator are not pinned.');

const alt = altDist();
/** Every row of a pair: the native server, restcanon, and restcanon from BENCH_ALT_DIST if set. */
const rowsOf = (pair) => [pair.baseline, pair.restcanon, ...(alt === undefined ? [] : [pair.restcanon + ALT_SUFFIX])];
const serverNames = pairs.flatMap(rowsOf);

/** Starts a server of servers.mjs; a "(alt)" row is the same server loading restcanon from BENCH_ALT_DIST. */
function start(name) {
  return name.endsWith(ALT_SUFFIX) ? startServer(SERVER, [name.slice(0, -ALT_SUFFIX.length)], { env: { RESTCANON_DIST: alt } }) : startServer(SERVER, [name]);
}

// 1. The correctness gate.
let failed = false;
for (const name of serverNames) {
  const server = await start(name);
  try {
    for (const check of GATE) {
      const response = await fetch(server.url + check.path);
      const body = await response.text();
      const type = response.headers.get('content-type');
      if (response.status !== check.status) {
        console.error(`MISMATCH ${name} GET ${check.path}: status ${response.status}, expected ${check.status}`);
        failed = true;
      }
      if (check.exact && (type !== JSON_TYPE || body !== USER_JSON)) {
        console.error(`MISMATCH ${name} GET ${check.path}: ${type} ${body}, expected ${JSON_TYPE} ${USER_JSON}`);
        failed = true;
      }
    }
  } finally {
    await stopServer(server);
  }
}
if (failed) {
  console.error('Correctness gate failed: no timing was run.');
  process.exit(1);
}
console.log(
  `Correctness gate passed: ${serverNames.length} servers answer GET /users/1 with 200, ${JSON_TYPE} and ${USER_JSON}; /users/abc with 400; /users/999 with 404.`,
);

// 2. Rounds.
/** @type {Map<string, Map<string, import('../lib/serve.mjs').LoadResult[]>>} window -> server -> one result per round */
const results = new Map(WINDOWS.map((window) => [window.name, new Map(serverNames.map((name) => [name, []]))]));
const problems = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? serverNames : [...serverNames].reverse();
  for (const name of order) {
    const server = await start(name);
    try {
      const check = await fetch(`${server.url}/users/1`);
      if (check.status !== 200 || (await check.text()) !== USER_JSON) throw new Error(`${name} stopped answering GET /users/1 correctly`);
      await measureLoad(server, { path: '/users/1', connections, pipelining: 10, duration: warmupSeconds });
      for (const window of WINDOWS) {
        const result = await measureLoad(server, { path: '/users/1', connections, pipelining: window.pipelining, duration: seconds });
        if (result.errors > 0 || result.non2xx > 0) problems.push(`round ${round + 1}, ${name}, ${window.name}: ${result.errors} socket errors (${result.timeouts} timeouts), ${result.non2xx} non-2xx answers`);
        results.get(window.name).get(name).push(result);
      }
    } finally {
      await stopServer(server);
    }
  }
  process.stderr.write(`http: round ${round + 1}/${rounds} done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

// 3. Tables.
/**
 * The median over rounds of restcanon's figure over the baseline's, each pair measured next to each
 * other in the same round: drift in the machine's load between rounds cancels out.
 * @param {import('../lib/serve.mjs').LoadResult[]} mine
 * @param {import('../lib/serve.mjs').LoadResult[]} theirs
 * @param {(result: import('../lib/serve.mjs').LoadResult) => number} pick
 */
const pairedRatio = (mine, theirs, pick) => median(mine.map((result, index) => pick(result) / pick(theirs[index])));
const cpu = (result) => result.serverCpuMicrosPerRequest;
const throughput = (result) => result.requestsPerSecond;
const p99 = (result) => result.p99;

const summary = [];
for (const window of WINDOWS) {
  const byServer = results.get(window.name);
  console.log(`\n### HTTP, GET /users/1, autocannon ${window.name}, ${seconds} s per window: restcanon adapters vs the native route (restcanon from ${describeDist()})\n`);
  console.log(`| pair | server | server CPU µs/req | CPU vs native | req/s | req/s vs native | p99 ms | p99 vs native | autocannon CPU | CPU µs/req min-max |`);
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const pair of pairs) {
    for (const name of rowsOf(pair)) {
      const mine = byServer.get(name);
      const theirs = byServer.get(pair.baseline);
      const cpuValues = mine.map(cpu);
      const loadgen = Math.max(...mine.map((result) => result.loadgenCpuPercent));
      const isBaseline = name === pair.baseline;
      const ratio = (pick) => (isBaseline ? '1.00x' : times(pairedRatio(mine, theirs, pick)));
      console.log(
        `| ${pair.name} | ${name} | ${fixed(median(cpuValues))} | ${ratio(cpu)} | ${rate(median(mine.map(throughput)))} | ${ratio(throughput)} | ${fixed(median(mine.map(p99)), 2)} | ${ratio(p99)} | ${fixed(loadgen, 0)}%${loadgen > LOADGEN_LIMIT ? ' ⚠' : ''} | ${fixed(Math.min(...cpuValues))} - ${fixed(Math.max(...cpuValues))} |`,
      );
      if (!isBaseline) {
        summary.push({ window: window.name, pair, name, cpu: pairedRatio(mine, theirs, cpu), throughput: pairedRatio(mine, theirs, throughput), p99: pairedRatio(mine, theirs, p99) });
      }
    }
  }
}

console.log('\n### Goals (restcanon against the native route of the same pair)\n');
console.log('Throughput per CPU is the native server CPU per request over restcanon\'s: the figure the load generator does not limit.\n');
console.log('| pair | server | window | throughput per CPU | req/s | p99 | goal |');
console.log('|---|---|---|---:|---:|---:|---|');
for (const row of summary) {
  const perCpu = 1 / row.cpu;
  const hasGoal = row.pair.goal.startsWith('95%');
  const verdict = !hasGoal ? row.pair.goal : perCpu >= 0.95 && row.p99 <= 1.1 ? 'met' : `missed (${row.pair.goal}, p99 within +10%)`;
  console.log(`| ${row.pair.name} | ${row.name} | ${row.window} | ${(perCpu * 100).toFixed(0)}% | ${(row.throughput * 100).toFixed(0)}% | ${row.p99 > 1 ? '+' : ''}${((row.p99 - 1) * 100).toFixed(0)}% | ${verdict} |`);
}

console.log('');
console.log(`- Server CPU: utime + stime of the server process (every thread, GC included) from /proc/<pid>/stat (${CLOCK_TICKS} ticks/s) over the window, divided by the responses received.`);
console.log('- Ratios: the median over rounds of the restcanon figure over the native one measured next to it in the same round. Lower is better for CPU and p99, higher for req/s.');
console.log(`- autocannon CPU: the load generator's own CPU over the window, the highest of the rounds; ⚠ above ${LOADGEN_LIMIT}%: req/s and p99 are then partly autocannon's limit, server CPU per request is not.`);
if (alt !== undefined) console.log(`- "${ALT_SUFFIX.trim()}" rows: the same server with restcanon loaded from BENCH_ALT_DIST=${alt}.`);
console.log(`- ${CAN_PIN ? 'Servers pinned to CPU 0 and autocannon to CPU 1 with taskset' : 'Not pinned (no taskset)'}; a ${warmupSeconds} s -p 10 warm-up per server process.`);
for (const line of problems) console.log(`- INVALID WINDOW: ${line}`);
const warning = load.warning();
if (warning !== undefined) console.log(`\n${warning}`);
console.log(`\nhttp: ${rounds} rounds x ${serverNames.length} servers, one pinned process per server and round; ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (problems.length > 0) process.exit(1);
