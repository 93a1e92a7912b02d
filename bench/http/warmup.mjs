/**
 * How long a fresh server takes to settle: each server of servers.mjs is started cold and loaded
 * alone, window after window, and its CPU per request is printed per window. This is how the
 * http benchmark's warm-up was chosen: the figures of a window that still holds the JIT's work say
 * more about V8 compiling than about the server.
 *
 *   node bench/http/warmup.mjs "node:http" "restcanon/node" "fastify (plugin)" "restcanon/fastify"
 *
 * BENCH_AB_PIPELINING (default 10), BENCH_HTTP_SECONDS (per window, default 2), BENCH_WARMUP_WINDOWS
 * (default 8), BENCH_WARMUP_STARTS (cold starts per server, default 2), BENCH_HTTP_CONNECTIONS
 * (default 100).
 */
import { fileURLToPath } from 'node:url';
import { rerunPinned } from '../machine.mjs';
import { serverAndDist, snapshotDist } from '../lib/dist.mjs';
import { argsOrUsage, envNumber } from '../lib/env.mjs';
import { measureLoad, startServer, stopServer } from '../lib/serve.mjs';
import { fixed } from '../lib/stats.mjs';

rerunPinned(1, import.meta.url);

const names = argsOrUsage('node bench/http/warmup.mjs <server>[@dist] ...');
const SERVER_SCRIPT = fileURLToPath(new URL('./server.mjs', import.meta.url));
const pipelining = envNumber('BENCH_AB_PIPELINING', 10);
const seconds = envNumber('BENCH_HTTP_SECONDS', 2);
const windows = envNumber('BENCH_WARMUP_WINDOWS', 8);
const starts = envNumber('BENCH_WARMUP_STARTS', 2);
const connections = envNumber('BENCH_HTTP_CONNECTIONS', 100);
const defaultDist = snapshotDist();

console.log(`| server | start | ${Array.from({ length: windows }, (_, index) => `${index * seconds}-${(index + 1) * seconds} s`).join(' | ')} |`);
console.log(`|---|---:|${'---:|'.repeat(windows)}`);
for (const spec of names) {
  const [name, dist] = serverAndDist(spec, defaultDist);
  for (let start = 1; start <= starts; start++) {
    const server = await startServer(SERVER_SCRIPT, [name], { env: { RESTCANON_DIST: dist } });
    const cells = [];
    try {
      for (let window = 0; window < windows; window++) {
        const result = await measureLoad(server, { path: '/users/1', connections, pipelining, duration: seconds });
        if (result.errors > 0 || result.non2xx > 0) throw new Error(`${spec}: ${result.errors} socket errors and ${result.non2xx} non-2xx answers in window ${window + 1}`);
        cells.push(fixed(result.serverCpuMicrosPerRequest));
      }
    } finally {
      await stopServer(server);
    }
    console.log(`| ${spec} | ${start} | ${cells.join(' | ')} |`);
  }
}
console.log(`\nServer CPU µs per request (every thread, from /proc/<pid>/stat) in consecutive ${seconds} s windows of -c ${connections} -p ${pipelining} from a cold start, one server at a time.`);
