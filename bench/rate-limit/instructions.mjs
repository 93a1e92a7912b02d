/**
 * What a rate limit costs in main-thread instructions per request, counted by valgrind's callgrind
 * (bench/lib/callgrind-run.mjs), which other processes on the machine cannot move: the servers of
 * this benchmark (server.mjs), `plain` and `limited`, each loaded with `GET /users/1` after a
 * warm-up, every answer a 200. Prints its table; writes nothing to bench/results/.
 *
 *   node bench/rate-limit/instructions.mjs plain limited
 *
 * BENCH_INSTRUCTION_RUNS, BENCH_INSTRUCTION_WARMUP, BENCH_INSTRUCTION_REQUESTS and
 * BENCH_INSTRUCTION_FUNCTIONS as in bench/http/instructions.mjs.
 */
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { CONNECTIONS, countServers, printCountTable, printFunctions, serverSpecs, settings } from '../lib/callgrind-run.mjs';

const names = serverSpecs('node bench/rate-limit/instructions.mjs plain limited');

/** Sends `amount` reads, one at a time per connection, and checks every one got a 200. @param {string} url @param {number} amount */
async function load(url, amount) {
  const result = await autocannon({ url: `${url}/users/1`, amount, connections: CONNECTIONS });
  const ok = result['2xx'];
  if (ok !== amount || result.errors > 0 || result.timeouts > 0) throw new Error(`${url}: ${ok} of ${amount} requests got a 2xx`);
}

const rows = await countServers(names, { script: fileURLToPath(new URL('./server.mjs', import.meta.url)), load, env: { NODE_ENV: 'production' } });
printCountTable(rows);
if (settings.functionRows > 0) printFunctions(rows);
