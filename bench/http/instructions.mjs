/**
 * Instructions per request of servers of servers.mjs, counted by valgrind's callgrind: a check of
 * the timed figures that no other process on the machine can disturb (this VM exposes no hardware
 * counters). Each server runs under callgrind (bench/lib/callgrind-run.mjs); after a warm-up its
 * counters are zeroed, a fixed number of requests is sent, and the count is dumped and divided by
 * them. Only the server process is counted: autocannon runs in this process, outside valgrind.
 *
 *   node bench/http/instructions.mjs "node:http" "restcanon/node" "restcanon/node@/tmp/before/dist"
 *
 * A name may end in `@<dist folder>` to load restcanon from another build. Under callgrind a server
 * runs about 50 times slower, so each run takes two to three minutes. Servers run with a fixed GC
 * schedule (see V8_FLAGS in bench/lib/callgrind-run.mjs); when V8 compiles still moves a count from run to run, so each server
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
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { CONNECTIONS, countServers, printCountTable, printFunctions, serverSpecs, settings } from '../lib/callgrind-run.mjs';
import { envNumber } from '../lib/env.mjs';
import { thousands } from '../lib/stats.mjs';

const names = serverSpecs('node bench/http/instructions.mjs <server>[@dist] ...');
const pipelining = envNumber('BENCH_AB_PIPELINING', 1);
const PATH = '/users/1';

/**
 * Sends `amount` requests and checks that every one was a 200. With pipelining, autocannon stops
 * once it has sent `amount` and does not wait for the answers still on their way: up to
 * `pipelining - 1` of them per connection go uncounted, though the server did their work.
 * @param {string} server @param {number} amount
 */
async function load(server, amount) {
  const url = server + PATH;
  const result = await autocannon({ url, amount, connections: CONNECTIONS, pipelining });
  const ok = result['2xx'];
  if (ok > amount || ok < amount - CONNECTIONS * (pipelining - 1) || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${ok} of ${amount} requests got a 2xx (${result.errors} errors, ${result.timeouts} timeouts)`);
  }
}

const rows = await countServers(names, { script: fileURLToPath(new URL('./server.mjs', import.meta.url)), load });
printCountTable(rows);
console.log(`\nGET ${PATH}, ${thousands(settings.warmup)} requests of warm-up, then ${thousands(settings.requests)} counted; 10 connections, -p ${pipelining}; the server process only.`);
if (settings.functionRows > 0) printFunctions(rows);
