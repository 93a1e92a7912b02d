/**
 * HTTP benchmark: each restcanon adapter against the same route written natively for its host, over
 * real HTTP. See servers.mjs for the servers and BENCHMARKS.md (from bench/page.template.md) for the
 * method.
 *
 * 1. This process re-runs itself pinned to CPU 1 (it is the load generator: autocannon's API runs
 *    here); every server runs in its own process pinned to CPU 0.
 * 2. Correctness gate: every server answers GET /users/1 with the same status, Content-Type and body,
 *    /users/abc with 400 and /users/999 with 404, or the run exits 1 before timing anything.
 * 3. Rounds: the servers of a pair run at the same time, each in its own process pinned to CPU 0,
 *    and after a warm-up take `BENCH_ROUNDS` `-c 100 -p 10` windows, then as many `-c 100 -p 1`
 *    windows, all loaded at once (or taking turns, with BENCH_HTTP_MODE=turns); all of it again
 *    with fresh processes, `BENCH_HTTP_PROCESSES` times.
 * 4. Tables: per window, the median over rounds of the server's CPU µs per request (from
 *    /proc/<pid>/stat), req/s and p99, and the median of each round's ratio to the native server;
 *    written to bench/results/http.md with a bar chart of the CPU per request, http.svg.
 *
 * Env: BENCH_ROUNDS (per process set, default 3), BENCH_HTTP_PROCESSES (default 2),
 * BENCH_HTTP_SECONDS (per window, default 2), BENCH_HTTP_WARMUP_SECONDS (default 6),
 * BENCH_HTTP_CONNECTIONS (per server, default 100), BENCH_HTTP_MODE (`together` or `turns`), BENCH_HTTP_PAIRS (a comma list of pair names, such as
 * `node,fastify`; default all).
 */
import { fileURLToPath } from 'node:url';
import { USER_JSON, JSON_TYPE } from '../lib/app.mjs';
import { ALT_SUFFIX, altDist, snapshotDist } from '../lib/dist.mjs';
import { envChoice, envList, envNumber } from '../lib/env.mjs';
import { CLOCK_TICKS, HAS_PROC_STAT } from '../lib/proc.mjs';
import { measureLoad, startServer, stopServer } from '../lib/serve.mjs';
import { barChart } from '../lib/chart.mjs';
import { createReport, isOtherBuild } from '../lib/report.mjs';
import { fixed, median, rate, times } from '../lib/stats.mjs';
import { CAN_PIN, rerunPinned } from '../machine.mjs';
import { GATE, PAIRS } from './servers.mjs';

snapshotDist();
rerunPinned(1, import.meta.url);

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));
const rounds = envNumber('BENCH_ROUNDS', 3);
const processes = envNumber('BENCH_HTTP_PROCESSES', 2);
const together = envChoice('BENCH_HTTP_MODE', ['together', 'turns']) === 'together';
const seconds = envNumber('BENCH_HTTP_SECONDS', 2);
/**
 * A fresh server spends its first seconds under load compiling: measured window by window from a
 * cold start (2 s windows, -p 10; `bench/http/warmup.mjs`), CPU per request comes down 20-40% over
 * the first two or three windows and then stays within the machine's noise, for the native servers
 * and restcanon alike. A shorter warm-up leaves the -p 10 rounds, which come first, measuring part
 * of the JIT's work.
 */
const warmupSeconds = envNumber('BENCH_HTTP_WARMUP_SECONDS', 6);
const connections = envNumber('BENCH_HTTP_CONNECTIONS', 100);
const pairFilter = envList('BENCH_HTTP_PAIRS');
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

if (!HAS_PROC_STAT) console.log('WARNING: /proc/<pid>/stat is not readable here: no server CPU figures.');
if (!CAN_PIN) console.log('WARNING: no taskset: the servers and the load generator are not pinned.');

const alt = altDist();
const report = createReport('http', {
  RESTCANON_DIST: isOtherBuild(),
  BENCH_ALT_DIST: alt !== undefined,
  BENCH_HTTP_PAIRS: pairFilter !== undefined,
  BENCH_HTTP_MODE: !together,
});
/** Every row of a pair: the native server, restcanon, and restcanon from BENCH_ALT_DIST if set. */
const rowsOf = (pair) => [pair.baseline, pair.restcanon, ...(alt === undefined ? [] : [pair.restcanon + ALT_SUFFIX])];
/** Every server of the run, once (a server may be in two pairs, such as restcanon/fastify). */
const serverNames = [...new Set(pairs.flatMap(rowsOf))];
/** Results are kept per pair: a server in two pairs is measured next to each baseline separately. */
const rowKey = (pair, name) => `${pair.name}\n${name}`;

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
report.log(
  `Correctness gate passed: ${serverNames.length} servers answer GET /users/1 with 200, ${JSON_TYPE} and ${USER_JSON}; /users/abc with 400; /users/999 with 404.`,
);

// 2. Rounds. This machine's speed drifts by 20% within seconds, so figures taken one after the
// other (one process per server and round, as this benchmark first did) compared the drift more
// than the servers. So the servers of one pair run side by side, each in its own process pinned to
// CPU 0, and by default they are loaded at the same time ("together"): they share the same CPU at the
// same moment, and each one's CPU per request is read over the same window. An A/A run (the same
// server twice) came out at 1.00x-1.02x this way, a server with 2 µs of busy work added at +2.8 µs.
// BENCH_HTTP_MODE=turns loads one at a time instead, taking turns in short windows (A B, then B A),
// which shows each server's req/s and p99 alone on the CPU but is noisier. Each pair gets
// BENCH_HTTP_PROCESSES fresh sets of processes, so that a JIT or GC decision that one process
// happens to make is not the whole sample.
/** @type {Map<string, Map<string, import('../lib/serve.mjs').LoadResult[]>>} window -> server -> one result per round */
const results = new Map(WINDOWS.map((window) => [window.name, new Map(pairs.flatMap((pair) => rowsOf(pair).map((name) => [rowKey(pair, name), []])))]));
/** @type {Map<string, import('../lib/serve.mjs').LoadResult[]>} server -> one warm-up per process set */
const warmups = new Map(pairs.flatMap((pair) => rowsOf(pair).map((name) => [rowKey(pair, name), []])));
const problems = [];
for (const pair of pairs) {
  const names = rowsOf(pair);
  for (let set = 0; set < processes; set++) {
    const servers = new Map();
    try {
      // Started in turns from one process set to the next: a Fastify server started first can read
      // 15-20% more CPU per request than the same server started second.
      for (const name of set % 2 === 0 ? names : [...names].reverse()) servers.set(name, await start(name));
      for (const [name, server] of servers) {
        const check = await fetch(`${server.url}/users/1`);
        if (check.status !== 200 || (await check.text()) !== USER_JSON) throw new Error(`${name} stopped answering GET /users/1 correctly`);
        warmups.get(rowKey(pair, name)).push(await measureLoad(server, { path: '/users/1', connections, pipelining: 10, duration: warmupSeconds }));
      }
      for (const window of WINDOWS) {
        for (let round = 0; round < rounds; round++) {
          const order = (set * rounds + round) % 2 === 0 ? names : [...names].reverse();
          const measure = (name) => measureLoad(servers.get(name), { path: '/users/1', connections, pipelining: window.pipelining, duration: seconds });
          const measured = together ? await Promise.all(order.map(measure)) : await sequentially(order, measure);
          order.forEach((name, index) => {
            const result = measured[index];
            if (result.errors > 0 || result.non2xx > 0) problems.push(`${pair.name}, process set ${set + 1}, round ${round + 1}, ${name}, ${window.name}: ${result.errors} socket errors (${result.timeouts} timeouts), ${result.non2xx} non-2xx answers`);
            results.get(window.name).get(rowKey(pair, name)).push(result);
          });
        }
      }
    } finally {
      for (const server of servers.values()) await stopServer(server);
    }
    process.stderr.write(`http: ${pair.name}, process set ${set + 1}/${processes} done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  }
}

/** Runs `measure` for each name, one after the other. */
async function sequentially(names, measure) {
  const measured = [];
  for (const name of names) measured.push(await measure(name));
  return measured;
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
/** @param {number} ratio */
const percent = (ratio) => `${(ratio * 100).toFixed(0)}%`;

/** Per pair and server, per window: its results, and the baseline's of the same rounds. */
const measured = (pair, name, window) => ({
  mine: results.get(window.name).get(rowKey(pair, name)),
  theirs: results.get(window.name).get(rowKey(pair, pair.baseline)),
  isBaseline: name === pair.baseline,
});

/**
 * The goal's verdict for a restcanon row: restcanon's throughput per CPU (the native server's CPU
 * per request over restcanon's) at least 95% in every window, and, in turns mode only, p99 no more
 * than 10% above the native server's (loaded together, two servers share one CPU and p99 measures
 * the scheduler's time slices).
 */
function verdict(pair, name) {
  if (!pair.goal.startsWith('95%')) return pair.goal;
  const met = WINDOWS.every((window) => {
    const { mine, theirs } = measured(pair, name, window);
    return 1 / pairedRatio(mine, theirs, cpu) >= 0.95 && (together || pairedRatio(mine, theirs, p99) <= 1.1);
  });
  return met ? 'met' : `missed (${pair.goal}${together ? '' : ', p99 within +10%'})`;
}

const settingsNote = `GET /users/1, autocannon -c ${connections} per server, ${seconds} s windows, ${processes * rounds} rounds per window (${processes} sets of fresh processes x ${rounds}), the servers of a pair loaded ${together ? 'together' : 'in turns'}`;
report.log(`\n#### Server CPU per request\n`);
report.log(`${settingsNote}. Throughput per CPU: the native server's CPU per request over restcanon's.${alt === undefined ? '' : ` "${ALT_SUFFIX.trim()}" rows: restcanon from BENCH_ALT_DIST=${alt}.`}\n`);
report.log(`| pair | server | ${WINDOWS.map((window) => `${window.name}: µs/req | vs native | rounds min-max`).join(' | ')} | throughput per CPU | goal |`);
report.log(`|---|---|${WINDOWS.map(() => '---:|---:|---:|').join('')}---:|---|`);
for (const pair of pairs) {
  for (const name of rowsOf(pair)) {
    const cells = WINDOWS.map((window) => {
      const { mine, theirs, isBaseline } = measured(pair, name, window);
      const values = mine.map(cpu);
      return `${fixed(median(values))} | ${isBaseline ? '1.00x' : times(pairedRatio(mine, theirs, cpu))} | ${fixed(Math.min(...values))} - ${fixed(Math.max(...values))}`;
    });
    const isBaseline = name === pair.baseline;
    const perCpu = isBaseline ? '' : WINDOWS.map((window) => {
      const { mine, theirs } = measured(pair, name, window);
      return percent(1 / pairedRatio(mine, theirs, cpu));
    }).join(', ');
    report.log(`| ${pair.name} | ${name} | ${cells.join(' | ')} | ${perCpu} | ${isBaseline ? '' : verdict(pair, name)} |`);
  }
}

report.log(`\n#### Throughput and latency\n`);
report.log(`The same rounds. In parentheses: the median over rounds of the ratio to the native server of the pair, measured next to it in the same round.\n`);
report.log(`| pair | server | ${WINDOWS.map((window) => `${window.name}: req/s | p99 ms`).join(' | ')} | autocannon CPU, highest | warm-up: CPU µs/req (vs native) |`);
report.log(`|---|---|${WINDOWS.map(() => '---:|---:|').join('')}---:|---:|`);
for (const pair of pairs) {
  for (const name of rowsOf(pair)) {
    let loadgen = 0;
    const cells = WINDOWS.map((window) => {
      const { mine, theirs, isBaseline } = measured(pair, name, window);
      loadgen = Math.max(loadgen, ...mine.map((result) => result.loadgenCpuPercent));
      const ratio = (pick) => (isBaseline ? '' : ` (${times(pairedRatio(mine, theirs, pick))})`);
      return `${rate(median(mine.map(throughput)))}${ratio(throughput)} | ${fixed(median(mine.map(p99)), 2)}${ratio(p99)}`;
    });
    const mine = warmups.get(rowKey(pair, name));
    const theirs = warmups.get(rowKey(pair, pair.baseline));
    const warm = `${fixed(median(mine.map(cpu)))}${name === pair.baseline ? '' : ` (${times(pairedRatio(mine, theirs, cpu))})`}`;
    report.log(`| ${pair.name} | ${name} | ${cells.join(' | ')} | ${fixed(loadgen, 0)}%${loadgen > LOADGEN_LIMIT ? ' ⚠' : ''} | ${warm} |`);
  }
}

report.aside('');
report.aside(`- Server CPU: utime + stime of the server process (every thread, GC included) from /proc/<pid>/stat (${CLOCK_TICKS} ticks/s) over the window, divided by the responses received. Lower is better; it does not depend on the load generator.`);
report.aside('- Ratios ("vs native"): the median over rounds of the restcanon figure over the native one measured next to it in the same round; it can differ from the ratio of the two medians shown.');
report.aside(`- autocannon CPU: the load generator's own CPU over the window${together ? ' (one process loading both servers of the pair)' : ''}, the highest of the rounds; ⚠ above ${LOADGEN_LIMIT}%: req/s and p99 are then partly autocannon's limit, server CPU per request is not.`);
report.aside(`- Warm-up: the first ${warmupSeconds} s of each server process at -c ${connections} -p 10, alone on the CPU, while V8 compiles the hot code; not in the other figures.`);
report.aside(`- ${CAN_PIN ? 'Servers pinned to CPU 0 and autocannon to CPU 1 with taskset' : 'Not pinned (no taskset)'}; ${together ? "the servers of a pair run side by side and are loaded together, sharing CPU 0, so p99 includes waiting for the other server's time slice (BENCH_HTTP_MODE=turns shows p99 and req/s alone on the CPU)" : 'the servers of a pair run side by side and take turns, window by window'}.`);
if (problems.length > 0) report.log('');
for (const line of problems) report.log(`- INVALID WINDOW: ${line}`);

const chart = barChart({
  title: 'Server CPU per request, GET /users/1',
  subtitle: `median of ${processes * rounds} rounds per window; Node ${process.version}`,
  unit: 'µs per request',
  series: WINDOWS.map((window, index) => ({ name: `autocannon ${window.name}`, color: ['#4c78a8', '#f58518'][index % 2] })),
  groups: pairs.map((pair) => ({
    name: pair.name,
    rows: rowsOf(pair).map((name) => ({ label: name, values: WINDOWS.map((window) => median(measured(pair, name, window).mine.map(cpu))) })),
  })),
});
report.finish({ 'http.svg': chart });
if (problems.length > 0) process.exit(1);
