/**
 * An A/B of two servers of servers.mjs: both pinned to CPU 0 and loaded at the same time (so that
 * both see the machine's drift), each one's CPU per request read over the same window. Prints each
 * round and the median throughput per CPU of B against A. A name may end in `@<dist folder>` to load
 * restcanon for that server from another build: this is how a change to src/ is measured.
 *
 *   node bench/http/ab.mjs "restcanon/node@/tmp/before/dist" "restcanon/node"
 *   BENCH_AB_PIPELINING=1 node bench/http/ab.mjs "node:http" "node:http (answer in a microtask)"
 *
 * BENCH_AB_PIPELINING (default 10), BENCH_AB_SETS (fresh pairs of processes, default 2),
 * BENCH_ROUNDS (2 s windows per set, default 5), BENCH_HTTP_CONNECTIONS (per server, default 50),
 * BENCH_HTTP_WARMUP_SECONDS (both servers loaded before the rounds, default 6).
 */
import { fileURLToPath } from 'node:url';
import { rerunPinned } from '../machine.mjs';
import { measureLoad, startServer, stopServer } from '../lib/serve.mjs';
import { serverAndDist, snapshotDist } from '../lib/dist.mjs';
import { envNumber } from '../lib/env.mjs';
import { median } from '../lib/stats.mjs';

rerunPinned(1, import.meta.url);

const [first, second] = process.argv.slice(2);
if (first === undefined || second === undefined) {
  console.error('usage: node bench/http/ab.mjs <server A>[@dist] <server B>[@dist]');
  process.exit(2);
}
const SERVER_SCRIPT = fileURLToPath(new URL('./server.mjs', import.meta.url));
const pipelining = envNumber('BENCH_AB_PIPELINING', 10);
const sets = envNumber('BENCH_AB_SETS', 2);
const rounds = envNumber('BENCH_ROUNDS', 5);
const connections = envNumber('BENCH_HTTP_CONNECTIONS', 50);
// As in index.mjs: CPU per request of a fresh server settles only after its first 4-6 s under load.
const warmupSeconds = envNumber('BENCH_HTTP_WARMUP_SECONDS', 6);
const defaultDist = snapshotDist();

/** @param {string} spec a server name, or `name@dist folder` */
function start(spec) {
  const [name, dist] = serverAndDist(spec, defaultDist);
  return startServer(SERVER_SCRIPT, [name], { env: { RESTCANON_DIST: dist } });
}

/** What a server answers to the timed request: both must answer alike before anything is timed. */
async function answerOf(server) {
  const response = await fetch(`${server.url}/users/1`);
  return `${response.status} ${response.headers.get('content-type')} ${await response.text()}`;
}

const ratios = [];
for (let set = 1; set <= sets; set++) {
  // Started in turns: a Fastify server started first reads 15-20% more CPU per request than the same
  // server started second, so a fixed order would decide a Fastify A/B.
  const servers = set % 2 === 1 ? [await start(first), await start(second)] : [await start(second), await start(first)].reverse();
  const [answerA, answerB] = await Promise.all(servers.map(answerOf));
  if (answerA !== answerB) {
    console.error(`The two servers answer GET /users/1 differently:\n  A: ${answerA}\n  B: ${answerB}`);
    await Promise.all(servers.map(stopServer));
    process.exit(1);
  }
  const loadBoth = (duration) => Promise.all(servers.map((server) => measureLoad(server, { path: '/users/1', connections, pipelining, duration })));
  await loadBoth(warmupSeconds);
  for (let round = 1; round <= rounds; round++) {
    const [a, b] = await loadBoth(2);
    const ratio = a.serverCpuMicrosPerRequest / b.serverCpuMicrosPerRequest;
    ratios.push(ratio);
    console.log(`set ${set} round ${round}: A ${a.serverCpuMicrosPerRequest.toFixed(1)} µs/req, B ${b.serverCpuMicrosPerRequest.toFixed(1)} µs/req, B/A throughput per CPU ${(ratio * 100).toFixed(1)}%`);
  }
  await Promise.all(servers.map(stopServer));
}
const percent = (value) => `${(value * 100).toFixed(1)}%`;
console.log(
  `B (${second}) has ${percent(median(ratios))} of A's (${first}) throughput per CPU at -c ${connections} -p ${pipelining}, median of ${ratios.length} rounds (min ${percent(Math.min(...ratios))}, max ${percent(Math.max(...ratios))})`,
);
