/**
 * Server processes and load runs, shared by the http and load benchmarks: start a server script in
 * its own process pinned to CPU 0, run autocannon against it from this process, and measure what the
 * server spent (from /proc) and what the load generator spent (this process).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { pinnedNode } from '../machine.mjs';
import { processCpuMicros } from './proc.mjs';

/**
 * @typedef {{ port: number, pid: number, child: import('node:child_process').ChildProcess, url: string, exited: Promise<number | null> }} ServerProcess
 */

/**
 * Starts `node [nodeArgs] script [args]` pinned to CPU 0 and waits for the JSON line `{ port, pid }`
 * it prints once it listens.
 *
 * @param {string} script
 * @param {string[]} args
 * @param {{ nodeArgs?: string[], ipc?: boolean, env?: Record<string, string> }} [options] `env`: variables set for this server only
 * @returns {Promise<ServerProcess>}
 */
export async function startServer(script, args, options = {}) {
  const [command, commandArgs] = pinnedNode([...(options.nodeArgs ?? []), script, ...args], 0);
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit', ...(options.ipc ? ['ipc'] : [])], env: { ...process.env, ...options.env } });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout });
  const first = await Promise.race([
    new Promise((resolve) => lines.once('line', resolve)),
    exited.then((code) => {
      throw new Error(`server ${args.join(' ')} exited (${code}) before listening`);
    }),
  ]);
  // Anything else the server prints goes on to this process's stderr, not into a table.
  lines.on('line', (line) => process.stderr.write(`[server] ${line}\n`));
  const { port, pid } = JSON.parse(/** @type {string} */ (first));
  return { port, pid, child, url: `http://127.0.0.1:${port}`, exited };
}

/** Stops a server with SIGTERM (it exits cleanly, which writes a --cpu-prof profile) and waits for it. */
export async function stopServer(server) {
  if (server.child.exitCode === null) server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
  await server.exited;
  clearTimeout(timer);
}

/**
 * A latency histogram with 10 µs buckets up to 5 s: autocannon's own keeps whole milliseconds,
 * too coarse for the p99 of a `-p 1` run (a few ms).
 */
function latencyHistogram() {
  const BUCKET_MS = 0.01;
  const buckets = new Uint32Array(500_000);
  let count = 0;
  return {
    /** @param {number} ms */
    record(ms) {
      const index = Math.min(buckets.length - 1, Math.floor(ms / BUCKET_MS));
      buckets[index]++;
      count++;
    },
    /** @param {number} fraction @returns {number} ms */
    percentile(fraction) {
      const wanted = Math.ceil(count * fraction);
      let seen = 0;
      for (let index = 0; index < buckets.length; index++) {
        seen += buckets[index];
        if (seen >= wanted && seen > 0) return (index + 1) * BUCKET_MS;
      }
      return Number.NaN;
    },
  };
}

/**
 * @typedef {object} LoadResult
 * @property {number} requests responses received in the window
 * @property {number} seconds the window's wall time
 * @property {number} requestsPerSecond
 * @property {number} serverCpuMicrosPerRequest user + system CPU of the server process over the window, per response
 * @property {number} serverCpuPercent
 * @property {number} loadgenCpuPercent this process's CPU over the window (autocannon's work), of one CPU
 * @property {number} p50 ms
 * @property {number} p99 ms
 * @property {number} errors socket errors, timeouts included
 * @property {number} timeouts
 * @property {number} non2xx
 * @property {Record<string, { count: number }>} statusCodeStats
 */

/**
 * Runs autocannon against a server and measures the window.
 *
 * @param {ServerProcess} server
 * @param {import('autocannon').Options & { path?: string }} options autocannon options; `path` is appended to the server's URL
 * @returns {Promise<LoadResult>}
 */
export async function measureLoad(server, options) {
  const histogram = latencyHistogram();
  const serverBefore = processCpuMicros(server.pid);
  const selfBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await new Promise((resolve, reject) => {
    const { path = '/', ...rest } = options;
    const instance = autocannon({ url: server.url + path, ...rest }, (error, value) => (error ? reject(error) : resolve(value)));
    instance.on('response', (_client, _status, _bytes, responseTime) => histogram.record(responseTime));
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const self = process.cpuUsage(selfBefore);
  const serverMicros = processCpuMicros(server.pid) - serverBefore;
  const requests = result.requests.total;
  return {
    requests,
    seconds,
    requestsPerSecond: requests / seconds,
    serverCpuMicrosPerRequest: serverMicros / requests,
    serverCpuPercent: (serverMicros / 1e4) / seconds,
    loadgenCpuPercent: ((self.user + self.system) / 1e4) / seconds,
    p50: histogram.percentile(0.5),
    p99: histogram.percentile(0.99),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodeStats: result.statusCodeStats,
  };
}
