/**
 * Instructions per request of servers of servers.mjs, counted by valgrind's callgrind: a check of
 * the timed figures that no other process on the machine can disturb (this VM exposes no hardware
 * counters). Each server runs under callgrind; after a warm-up its counters are zeroed, a fixed
 * number of requests is sent, and the count is dumped and divided by them. Only the server process
 * is counted: autocannon runs in this process, outside valgrind.
 *
 *   node bench/http/instructions.mjs "node:http" "restcanon/node" "restcanon/node@/tmp/before/dist"
 *
 * A name may end in `@<dist folder>` to load restcanon from another build. Under callgrind a server
 * runs about 50 times slower, so each run takes two to three minutes. Servers run with a fixed GC
 * schedule (see V8_FLAGS); when V8 compiles still moves a count from run to run, so each server
 * runs BENCH_INSTRUCTION_RUNS times (default 3) and the table reads the median.
 * BENCH_INSTRUCTION_WARMUP (default 30000) and BENCH_INSTRUCTION_REQUESTS (default 15000) set the
 * request counts, BENCH_AB_PIPELINING (default 1) the pipelining.
 *
 * Each thread is counted on its own. The main thread does the requests; V8's helper threads compile
 * and collect garbage beside it (under callgrind they were still compiling after 250,000 requests),
 * so the table compares the main thread and gives all threads beside it. BENCH_INSTRUCTION_FUNCTIONS=<n> also lists
 * the n functions whose main-thread instructions per request differ most from the first server's
 * (from each server's last run, its generated code named through `--perf-basic-prof`):
 *
 *   BENCH_INSTRUCTION_FUNCTIONS=30 node bench/http/instructions.mjs "fastify (plugin)" restcanon/fastify
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { dumpTotal, selfByFunction } from '../lib/callgrind.mjs';
import { serverAndDist, snapshotDist } from '../lib/dist.mjs';
import { median, thousands } from '../lib/stats.mjs';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node bench/http/instructions.mjs <server>[@dist] ...');
  process.exit(2);
}
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}

const SERVER_SCRIPT = fileURLToPath(new URL('./server.mjs', import.meta.url));
const runs = Number(process.env.BENCH_INSTRUCTION_RUNS ?? 3);
const warmup = Number(process.env.BENCH_INSTRUCTION_WARMUP ?? 30_000);
const requests = Number(process.env.BENCH_INSTRUCTION_REQUESTS ?? 15_000);
const pipelining = Number(process.env.BENCH_AB_PIPELINING ?? 1);
const functionRows = Number(process.env.BENCH_INSTRUCTION_FUNCTIONS ?? 0);
const defaultDist = snapshotDist();
/**
 * Under callgrind a server runs about 50 times slower, and V8's memory reducer, which starts on
 * timers, then runs a full mark-compact inside the counted window of some runs and not others
 * (25,000 more instructions per request for restcanon/fastify in those runs). A fixed GC schedule
 * (no heap growing heuristics, idle or memory-reducing collections) keeps the counts to the
 * request's own work, as a server under real load sees it.
 */
const V8_FLAGS = ['--predictable-gc-schedule'];
const PATH = '/users/1';

const CONNECTIONS = 10;

/**
 * Sends `amount` requests and checks that every one was a 200. With pipelining, autocannon stops
 * once it has sent `amount` and does not wait for the answers still on their way: up to
 * `pipelining - 1` of them per connection go uncounted, though the server did their work.
 * @param {string} url @param {number} amount
 */
async function load(url, amount) {
  const result = await autocannon({ url, amount, connections: CONNECTIONS, pipelining });
  const ok = result['2xx'];
  if (ok > amount || ok < amount - CONNECTIONS * (pipelining - 1) || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${ok} of ${amount} requests got a 2xx (${result.errors} errors, ${result.timeouts} timeouts)`);
  }
}

/**
 * @typedef {{ main: number, all: number, functions?: Map<string, number> }} Count
 * @param {string} spec a server name, or `name@dist folder` @returns {Promise<Count>}
 */
async function countOnce(spec) {
  const [name, dist] = serverAndDist(spec, defaultDist);
  const folder = mkdtempSync(join(tmpdir(), 'restcanon-callgrind-'));
  // --perf-basic-prof also turns on V8's log, which would leave an isolate-*.log in the working folder.
  const nodeFlags = functionRows > 0 ? [...V8_FLAGS, '--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(folder, 'v8.log')}`] : V8_FLAGS;
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${join(folder, 'out.%p')}`, process.execPath, ...nodeFlags, SERVER_SCRIPT, name],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, RESTCANON_DIST: dist } },
  );
  let perfMap;
  try {
    const first = await new Promise((resolve, reject) => {
      createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`${spec} exited (${code}) before listening`)));
    });
    const { port, pid } = JSON.parse(/** @type {string} */ (first));
    perfMap = `/tmp/perf-${pid}.map`;
    const url = `http://127.0.0.1:${port}${PATH}`;
    await load(url, warmup);
    execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
    await load(url, requests);
    execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
    // One file per thread: out.<pid>.<dump>-<thread>, the main thread first.
    const dumps = readdirSync(folder)
      .filter((file) => /^out\.\d+\.\d+-\d+$/.test(file))
      .sort()
      .map((file) => join(folder, file));
    if (dumps.length === 0) throw new Error(`${spec}: callgrind wrote no dump`);
    const totals = dumps.map(dumpTotal);
    const count = { main: totals[0] / requests, all: totals.reduce((sum, total) => sum + total, 0) / requests };
    return functionRows > 0 ? { ...count, functions: selfByFunction(dumps[0], perfMap, requests) } : count;
  } finally {
    child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
    if (perfMap !== undefined) rmSync(perfMap, { force: true });
  }
}

const rows = [];
for (const spec of names) {
  const counts = [];
  for (let run = 0; run < runs; run++) counts.push(await countOnce(spec));
  rows.push({ spec, counts });
  console.error(`${spec}: ${counts.map((count) => thousands(count.main)).join(', ')} instructions per request on the main thread`);
}

const baseline = median(rows[0].counts.map((count) => count.main));
console.log(`\n| server | main thread, per request (median of ${runs}) | vs ${rows[0].spec} | all threads | runs (main thread) |`);
console.log('|---|---:|---:|---:|---|');
for (const { spec, counts } of rows) {
  const main = median(counts.map((count) => count.main));
  const all = median(counts.map((count) => count.all));
  console.log(`| ${spec} | ${thousands(main)} | ${(main / baseline).toFixed(3)}x | ${thousands(all)} | ${counts.map((count) => thousands(count.main)).join(', ')} |`);
}
console.log(`\nGET ${PATH}, ${thousands(warmup)} requests of warm-up, then ${thousands(requests)} counted; 10 connections, -p ${pipelining}; the server process only.`);

if (functionRows > 0) printFunctions(rows.map(({ spec, counts }) => ({ spec, functions: /** @type {Map<string, number>} */ (counts.at(-1)?.functions) })));

/**
 * The functions whose instructions differ most from the first server's, largest difference first.
 * @param {{ spec: string, functions: Map<string, number> }[]} servers
 */
function printFunctions(servers) {
  const [first, ...others] = servers;
  const names = new Set(servers.flatMap(({ functions }) => [...functions.keys()]));
  const spread = (name) => Math.max(...others.map(({ functions }) => Math.abs((functions.get(name) ?? 0) - (first.functions.get(name) ?? 0))));
  const chosen = [...names].sort((a, b) => spread(b) - spread(a)).slice(0, functionRows);
  console.log(`\nMain-thread instructions per request spent in each function itself, last run of each server; the ${functionRows} that differ most from ${first.spec}:\n`);
  console.log(`| function | ${servers.map(({ spec }) => spec).join(' | ')} |`);
  console.log(`|---|${servers.map(() => '---:').join('|')}|`);
  for (const name of chosen) {
    const values = servers.map(({ functions }) => thousands(functions.get(name) ?? 0));
    console.log(`| ${name.replaceAll('|', '\\|')} | ${values.join(' | ')} |`);
  }
}
