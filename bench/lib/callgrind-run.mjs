/**
 * Instructions per request of server processes, counted by valgrind's callgrind, for
 * bench/http/instructions.mjs and bench/peers/instructions.mjs. Each server runs under callgrind
 * (`node [nodeArgs] <V8_FLAGS> <server script> <name>`, the script printing `{ port, pid }` once it
 * listens); after a warm-up its counters are zeroed, a fixed number of requests is sent from this
 * process (outside valgrind), and the count is dumped and divided by them. Each thread is counted
 * on its own: the main thread does the requests, V8's helper threads compile and collect garbage
 * beside it.
 *
 * Env: BENCH_INSTRUCTION_RUNS (runs per server, default 3; the table reads the median),
 * BENCH_INSTRUCTION_WARMUP (default 30000), BENCH_INSTRUCTION_REQUESTS (counted, default 15000),
 * BENCH_INSTRUCTION_FUNCTIONS (default 0: the n functions that differ most, from each server's last
 * run, its generated code named through `--perf-basic-prof`).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { dumpTotal, selfByFunction } from './callgrind.mjs';
import { serverAndDist, snapshotDist } from './dist.mjs';
import { argsOrUsage, envNumber } from './env.mjs';
import { median, thousands } from './stats.mjs';

export const settings = {
  runs: envNumber('BENCH_INSTRUCTION_RUNS', 3),
  warmup: envNumber('BENCH_INSTRUCTION_WARMUP', 30_000),
  requests: envNumber('BENCH_INSTRUCTION_REQUESTS', 15_000),
  functionRows: envNumber('BENCH_INSTRUCTION_FUNCTIONS', 0),
};

/** Connections of the load sent to a server under callgrind. */
export const CONNECTIONS = 10;

/**
 * Under callgrind a server runs about 50 times slower, and V8's memory reducer, which starts on
 * timers, then runs a full mark-compact inside the counted window of some runs and not others
 * (25,000 more instructions per request for restcanon/fastify in those runs). A fixed GC schedule
 * (no heap growing heuristics, idle or memory-reducing collections) keeps the counts to the
 * request's own work, as a server under real load sees it.
 */
const V8_FLAGS = ['--predictable-gc-schedule'];

/**
 * The server specs of the command line (`name` or `name@dist folder`); exits 2 with the usage line
 * when there are none, and when valgrind is not installed.
 * @param {string} usage @returns {string[]}
 */
export function serverSpecs(usage) {
  const specs = argsOrUsage(usage);
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    console.error('valgrind is not installed (Debian: apt-get install valgrind)');
    process.exit(2);
  }
  return specs;
}

/**
 * @typedef {{ main: number, all: number, functions?: Map<string, number> }} Count
 * @typedef {{ spec: string, counts: Count[] }} Row
 * @typedef {object} CountOptions
 * @property {string} script the server script, run with the server's name
 * @property {(url: string, amount: number) => Promise<void>} load sends `amount` requests to the server at `url` (`http://127.0.0.1:<port>`) and checks their answers
 * @property {(name: string) => string[]} [nodeArgs] options of the server's node process, before V8_FLAGS
 * @property {Record<string, string>} [env] variables set for the server process
 */

/**
 * @param {string} spec a server name, or `name@dist folder` @param {string} defaultDist
 * @param {CountOptions} options @returns {Promise<Count>}
 */
async function countOnce(spec, defaultDist, options) {
  const { requests, warmup, functionRows } = settings;
  const [name, dist] = serverAndDist(spec, defaultDist);
  const nodeArgs = options.nodeArgs?.(name) ?? [];
  const folder = mkdtempSync(join(tmpdir(), 'restcanon-callgrind-'));
  // --perf-basic-prof also turns on V8's log, which would leave an isolate-*.log in the working folder.
  const nodeFlags = functionRows > 0 ? [...V8_FLAGS, '--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(folder, 'v8.log')}`] : V8_FLAGS;
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${join(folder, 'out.%p')}`, process.execPath, ...nodeArgs, ...nodeFlags, options.script, name],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, RESTCANON_DIST: dist, ...options.env } },
  );
  let perfMap;
  try {
    const first = await new Promise((resolve, reject) => {
      createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`${spec} exited (${code}) before listening`)));
    });
    const { port, pid } = JSON.parse(/** @type {string} */ (first));
    perfMap = `/tmp/perf-${pid}.map`;
    const url = `http://127.0.0.1:${port}`;
    await options.load(url, warmup);
    execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
    await options.load(url, requests);
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

/**
 * Counts every server `settings.runs` times, one run after the other, and prints each server's
 * main-thread counts to stderr as they come.
 * @param {string[]} specs @param {CountOptions} options @returns {Promise<Row[]>}
 */
export async function countServers(specs, options) {
  const defaultDist = snapshotDist();
  const rows = [];
  for (const spec of specs) {
    const counts = [];
    for (let run = 0; run < settings.runs; run++) counts.push(await countOnce(spec, defaultDist, options));
    rows.push({ spec, counts });
    console.error(`${spec}: ${counts.map((count) => thousands(count.main)).join(', ')} instructions per request on the main thread`);
  }
  return rows;
}

/** The table of main-thread and all-thread medians, against the first server. @param {Row[]} rows */
export function printCountTable(rows) {
  const baseline = median(rows[0].counts.map((count) => count.main));
  console.log(`\n| server | main thread, per request (median of ${settings.runs}) | vs ${rows[0].spec} | all threads | runs (main thread) |`);
  console.log('|---|---:|---:|---:|---|');
  for (const { spec, counts } of rows) {
    const main = median(counts.map((count) => count.main));
    const all = median(counts.map((count) => count.all));
    console.log(`| ${spec} | ${thousands(main)} | ${(main / baseline).toFixed(3)}x | ${thousands(all)} | ${counts.map((count) => thousands(count.main)).join(', ')} |`);
  }
}

/**
 * Each server's main-thread instructions per request by function, from its last run (with
 * BENCH_INSTRUCTION_FUNCTIONS above 0).
 * @param {Row[]} rows @returns {{ spec: string, functions: Map<string, number> }[]}
 */
export const lastRunFunctions = (rows) => rows.map(({ spec, counts }) => ({ spec, functions: /** @type {Map<string, number>} */ (counts.at(-1)?.functions) }));

/**
 * The BENCH_INSTRUCTION_FUNCTIONS functions whose instructions differ most from the first server's,
 * largest difference first, from each server's last run.
 * @param {Row[]} rows
 */
export function printFunctions(rows) {
  const { functionRows } = settings;
  const servers = lastRunFunctions(rows);
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
