/**
 * Instructions per request of servers of the peers set (servers.mjs), counted by valgrind's
 * callgrind, for the create path by default: `POST /users` with a valid 51-byte JSON body, each
 * answered 201. The method is bench/http/instructions.mjs's: each server runs under callgrind with
 * a fixed GC schedule; after a warm-up its counters are zeroed, a fixed number of requests is sent
 * from this process (outside valgrind), and the count is dumped and divided by them. The table
 * compares the main thread, where the requests run; all threads are given beside it.
 *
 *   node bench/peers/instructions.mjs "restcanon/node" "Fastify + JSON Schema (ajv)"
 *   BENCH_INSTRUCTION_FUNCTIONS=40 node bench/peers/instructions.mjs "restcanon/node" "Fastify + JSON Schema (ajv)"
 *
 * A name may end in `@<dist folder>` to load restcanon from another build. BENCH_INSTRUCTION_RUNS
 * (default 3), BENCH_INSTRUCTION_WARMUP (default 30000), BENCH_INSTRUCTION_REQUESTS (default 15000)
 * set the runs and request counts; BENCH_INSTRUCTION_REQUEST=read counts `GET /users/1` instead;
 * BENCH_INSTRUCTION_FUNCTIONS=<n> lists the n functions whose main-thread instructions per request
 * differ most from the first server's (from each server's last run, generated code named through
 * `--perf-basic-prof`), and BENCH_INSTRUCTION_DUMP=<file.json> also writes every function's count
 * per server to that file. Under callgrind a server runs about 50 times slower: two to three minutes
 * per run. Prints its tables; writes nothing to bench/results/.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { dumpTotal, selfByFunction } from '../lib/callgrind.mjs';
import { serverAndDist, snapshotDist } from '../lib/dist.mjs';
import { median, thousands } from '../lib/stats.mjs';
import { CREATE_REQUEST } from './api.mjs';
import { serverNamed } from './servers.mjs';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node bench/peers/instructions.mjs <server>[@dist] ...');
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
const functionRows = Number(process.env.BENCH_INSTRUCTION_FUNCTIONS ?? 0);
const kind = process.env.BENCH_INSTRUCTION_REQUEST ?? 'create';
if (kind !== 'create' && kind !== 'read') {
  console.error(`BENCH_INSTRUCTION_REQUEST is "create" (the default) or "read", not "${kind}"`);
  process.exit(2);
}
const REQUEST = kind === 'create' ? CREATE_REQUEST : { method: 'GET', path: '/users/1' };
const EXPECTED = kind === 'create' ? 201 : 200;
const defaultDist = snapshotDist();
/** See bench/http/instructions.mjs: without it, a timer-started full GC lands in some counted windows and not others. */
const V8_FLAGS = ['--predictable-gc-schedule'];
const CONNECTIONS = 10;

/**
 * Sends `amount` requests, one at a time per connection, and checks that every one got EXPECTED.
 * @param {string} url @param {number} amount
 */
async function load(url, amount) {
  const result = await autocannon({ url, amount, connections: CONNECTIONS, requests: [REQUEST] });
  const ok = result.statusCodeStats?.[EXPECTED]?.count ?? 0;
  if (ok !== amount || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${ok} of ${amount} requests got a ${EXPECTED} (${JSON.stringify(result.statusCodeStats)}, ${result.errors} errors, ${result.timeouts} timeouts)`);
  }
}

/**
 * @typedef {{ main: number, all: number, functions?: Map<string, number> }} Count
 * @param {string} spec a server name, or `name@dist folder` @returns {Promise<Count>}
 */
async function countOnce(spec) {
  const [name, dist] = serverAndDist(spec, defaultDist);
  const server = serverNamed(name);
  const folder = mkdtempSync(join(tmpdir(), 'restcanon-callgrind-'));
  // --perf-basic-prof also turns on V8's log, which would leave an isolate-*.log in the working folder.
  const nodeFlags = functionRows > 0 ? [...V8_FLAGS, '--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(folder, 'v8.log')}`] : V8_FLAGS;
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${join(folder, 'out.%p')}`, process.execPath, ...(server.nodeArgs ?? []), ...nodeFlags, SERVER_SCRIPT, name],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, RESTCANON_DIST: dist, NODE_ENV: 'production' } },
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
console.log(`\n${REQUEST.method} ${REQUEST.path}${REQUEST.body ? ` with ${REQUEST.body}` : ''}, ${thousands(warmup)} requests of warm-up, then ${thousands(requests)} counted; ${CONNECTIONS} connections, -p 1; the server process only, NODE_ENV=production.`);

if (functionRows > 0 && process.env.BENCH_INSTRUCTION_DUMP) {
  const dump = Object.fromEntries(rows.map(({ spec, counts }) => [spec, Object.fromEntries(/** @type {Map<string, number>} */ (counts.at(-1)?.functions))]));
  writeFileSync(process.env.BENCH_INSTRUCTION_DUMP, `${JSON.stringify(dump, null, 1)}\n`);
  console.log(`\nEvery function's main-thread instructions per request, per server: ${process.env.BENCH_INSTRUCTION_DUMP}`);
}
if (functionRows > 0) printFunctions(rows.map(({ spec, counts }) => ({ spec, functions: /** @type {Map<string, number>} */ (counts.at(-1)?.functions) })));

/**
 * The functions whose instructions differ most from the first server's, largest difference first.
 * @param {{ spec: string, functions: Map<string, number> }[]} servers
 */
function printFunctions(servers) {
  const [first, ...others] = servers;
  const all = new Set(servers.flatMap(({ functions }) => [...functions.keys()]));
  const spread = (name) => Math.max(...others.map(({ functions }) => Math.abs((functions.get(name) ?? 0) - (first.functions.get(name) ?? 0))));
  const chosen = [...all].sort((a, b) => spread(b) - spread(a)).slice(0, functionRows);
  console.log(`\nMain-thread instructions per request spent in each function itself, last run of each server; the ${functionRows} that differ most from ${first.spec}:\n`);
  console.log(`| function | ${servers.map(({ spec }) => spec).join(' | ')} |`);
  console.log(`|---|${servers.map(() => '---:').join('|')}|`);
  for (const name of chosen) {
    const values = servers.map(({ functions }) => thousands(functions.get(name) ?? 0));
    console.log(`| ${name.replaceAll('|', '\\|')} | ${values.join(' | ')} |`);
  }
}
