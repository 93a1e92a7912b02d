/**
 * A CPU profile of one server of the peers set under one kind of request: the server runs pinned
 * to CPU 0 under `node --cpu-prof` (NODE_ENV=production), this process (autocannon) sends a
 * warm-up and then the profiled load, stops the server (which writes its profile) and prints the
 * self time by part and by function (bench/lib/profile.mjs). The profile covers the warm-up too:
 * keep it short beside the load.
 *
 *   node bench/peers/profile.mjs "restcanon/node" [create|read] [profile folder]
 *
 * Env: BENCH_PROFILE_SECONDS (the profiled load, default 20), BENCH_PROFILE_WARMUP_SECONDS
 * (default 3), BENCH_PROFILE_ROWS (default 25), BENCH_PEERS_CONNECTIONS (default 50).
 * Prints its tables; writes nothing to bench/results/.
 */
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotDist } from '../lib/dist.mjs';
import { envNumber } from '../lib/env.mjs';
import { printProfileSummary } from '../lib/profile.mjs';
import { measureLoad, startServer, stopServer } from '../lib/serve.mjs';
import { fixed, rate } from '../lib/stats.mjs';
import { rerunPinned } from '../machine.mjs';
import { CREATE_REQUEST } from './api.mjs';
import { serverNamed } from './servers.mjs';

snapshotDist();
rerunPinned(1, import.meta.url);

const [name, kind = 'create', folderArgument] = process.argv.slice(2);
if (name === undefined || (kind !== 'create' && kind !== 'read')) {
  console.error('usage: node bench/peers/profile.mjs <server> [create|read] [profile folder]');
  process.exit(2);
}
const server = serverNamed(name);
const seconds = envNumber('BENCH_PROFILE_SECONDS', 20);
const warmupSeconds = envNumber('BENCH_PROFILE_WARMUP_SECONDS', 3);
const rows = envNumber('BENCH_PROFILE_ROWS', 25);
const connections = envNumber('BENCH_PEERS_CONNECTIONS', 50);
const folder = folderArgument === undefined ? mkdtempSync(join(tmpdir(), 'restcanon-peers-profile-')) : resolve(folderArgument);
mkdirSync(folder, { recursive: true });
const request = kind === 'create' ? CREATE_REQUEST : { method: 'GET', path: '/users/1' };

const before = new Set(readdirSync(folder));
const running = await startServer(fileURLToPath(new URL('./server.mjs', import.meta.url)), [name], {
  nodeArgs: [...(server.nodeArgs ?? []), '--cpu-prof', `--cpu-prof-dir=${folder}`],
  env: { NODE_ENV: 'production' },
});
let result;
try {
  await measureLoad(running, { requests: [request], connections, duration: warmupSeconds });
  result = await measureLoad(running, { requests: [request], connections, duration: seconds });
} finally {
  await stopServer(running);
}
const written = readdirSync(folder).filter((file) => file.endsWith('.cpuprofile') && !before.has(file));
if (written.length !== 1) throw new Error(`expected one new profile in ${folder}, found ${written.length}`);
const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => `${count} x ${status}`).join(', ');
console.log(`${name}, ${request.method} ${request.path}: ${statuses}, ${result.errors} errors; ${fixed(result.serverCpuMicrosPerRequest)} µs of server CPU per request, ${rate(result.requestsPerSecond)} req/s (profiler on).`);
printProfileSummary(join(folder, written[0]), rows);
