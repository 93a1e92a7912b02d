/**
 * Instructions per request of servers of the peers set (servers.mjs), counted by valgrind's
 * callgrind, for the create path by default: `POST /users` with a valid 51-byte JSON body, each
 * answered 201. The method is bench/http/instructions.mjs's (bench/lib/callgrind-run.mjs): each
 * server runs under callgrind with a fixed GC schedule; after a warm-up its counters are zeroed, a
 * fixed number of requests is sent from this process (outside valgrind), and the count is dumped
 * and divided by them. The table compares the main thread, where the requests run; all threads are given beside it.
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
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { CONNECTIONS, countServers, lastRunFunctions, printCountTable, printFunctions, serverSpecs, settings } from '../lib/callgrind-run.mjs';
import { envChoice } from '../lib/env.mjs';
import { thousands } from '../lib/stats.mjs';
import { CREATE_REQUEST } from './api.mjs';
import { serverNamed } from './servers.mjs';

const names = serverSpecs('node bench/peers/instructions.mjs <server>[@dist] ...');
const kind = envChoice('BENCH_INSTRUCTION_REQUEST', ['create', 'read']);
const REQUEST = kind === 'create' ? CREATE_REQUEST : { method: 'GET', path: '/users/1' };
const EXPECTED = kind === 'create' ? 201 : 200;

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

const rows = await countServers(names, {
  script: fileURLToPath(new URL('./server.mjs', import.meta.url)),
  load,
  nodeArgs: (name) => serverNamed(name).nodeArgs ?? [],
  env: { NODE_ENV: 'production' },
});
printCountTable(rows);
console.log(`\n${REQUEST.method} ${REQUEST.path}${REQUEST.body ? ` with ${REQUEST.body}` : ''}, ${thousands(settings.warmup)} requests of warm-up, then ${thousands(settings.requests)} counted; ${CONNECTIONS} connections, -p 1; the server process only, NODE_ENV=production.`);

if (settings.functionRows > 0 && process.env.BENCH_INSTRUCTION_DUMP) {
  const dump = Object.fromEntries(lastRunFunctions(rows).map(({ spec, functions }) => [spec, Object.fromEntries(functions)]));
  writeFileSync(process.env.BENCH_INSTRUCTION_DUMP, `${JSON.stringify(dump, null, 1)}\n`);
  console.log(`\nEvery function's main-thread instructions per request, per server: ${process.env.BENCH_INSTRUCTION_DUMP}`);
}
if (settings.functionRows > 0) printFunctions(rows);
