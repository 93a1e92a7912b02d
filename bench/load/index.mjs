/**
 * Load benchmark: 200,000 requests against restcanon's node adapter, mixing reads, creates, 404s,
 * 400s, 405s and 413s (bodies just over a 1 KiB limit), checking that load is held without loss:
 *
 * - zero socket errors and zero timeouts;
 * - every response has the status its request expects (counted per kind of request, and compared
 *   with what was sent: autocannon's `maxConnectionRequests`-style `amount` splits the requests
 *   evenly over the connections, each connection cycles through the kinds in order);
 * - the heap after garbage collection at the end is within BENCH_LOAD_HEAP_SLACK_MIB of the heap
 *   after the warm-up (the server runs with --expose-gc; an IPC message collects and reports).
 *
 * The server runs in its own process pinned to CPU 0; this process (autocannon) re-runs itself
 * pinned to CPU 1. It exits 1 if any check fails. The tables go to bench/results/load.md, failed
 * checks included (see ../lib/report.mjs).
 *
 * Env: BENCH_LOAD_REQUESTS (default 200000), BENCH_LOAD_CONNECTIONS (100), BENCH_LOAD_PIPELINING (1),
 * BENCH_LOAD_HEAP_SLACK_MIB (4), BENCH_CPU_PROF=<folder> (run the server with --cpu-prof and print
 * the functions with the most self time).
 */
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeDist, snapshotDist } from '../lib/dist.mjs';
import { printProfileSummary } from '../lib/profile.mjs';
import { createReport, isOtherBuild } from '../lib/report.mjs';
import { measureLoad, startServer, stopServer } from '../lib/serve.mjs';
import { fixed, mebibytes, rate, thousands } from '../lib/stats.mjs';
import { CAN_PIN, rerunPinned } from '../machine.mjs';

snapshotDist();
rerunPinned(1, import.meta.url);

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));
const BODY_LIMIT = 1024;
const totalRequests = Number(process.env.BENCH_LOAD_REQUESTS ?? 200_000);
const connections = Number(process.env.BENCH_LOAD_CONNECTIONS ?? 100);
const pipelining = Number(process.env.BENCH_LOAD_PIPELINING ?? 1);
const heapSlack = Number(process.env.BENCH_LOAD_HEAP_SLACK_MIB ?? 4) * 1024 * 1024;
const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const PHASES = 4;
const report = createReport('load', { RESTCANON_DIST: isOtherBuild(), BENCH_CPU_PROF: profileDir !== undefined });

const json = { 'content-type': 'application/json' };
/** A valid user body of exactly `size` bytes: a key the schema does not know (zod drops it) pads it. */
const bodyOfSize = (size) => {
  const shell = JSON.stringify({ name: 'Big Body', email: 'big@example.com', padding: '' });
  return JSON.stringify({ name: 'Big Body', email: 'big@example.com', padding: 'x'.repeat(size - shell.length) });
};
const TOO_LARGE = bodyOfSize(BODY_LIMIT + 1);
const AT_LIMIT = bodyOfSize(BODY_LIMIT);
if (Buffer.byteLength(TOO_LARGE) !== BODY_LIMIT + 1 || Buffer.byteLength(AT_LIMIT) !== BODY_LIMIT) throw new Error('body sizes are off');

/** The kinds of request, sent in this order by every connection, over and over. */
const KINDS = [
  { name: 'read', method: 'GET', path: '/users/1', status: 200 },
  { name: 'read with a query', method: 'GET', path: '/users/2?fields=name', status: 200 },
  { name: 'create', method: 'POST', path: '/users', headers: json, body: '{"name":"Grace Hopper","email":"grace@example.com"}', status: 201 },
  { name: 'create at the limit', method: 'POST', path: '/users', headers: json, body: AT_LIMIT, status: 201 },
  { name: 'missing item', method: 'GET', path: '/users/999', status: 404 },
  { name: 'no route', method: 'GET', path: '/orders/7', status: 404 },
  { name: 'invalid id', method: 'GET', path: '/users/abc', status: 400 },
  { name: 'invalid body', method: 'POST', path: '/users', headers: json, body: '{"name":"","email":"x"}', status: 400 },
  { name: 'malformed JSON', method: 'POST', path: '/users', headers: json, body: '{"name":', status: 400 },
  { name: 'body over the limit', method: 'POST', path: '/users', headers: json, body: TOO_LARGE, status: 413 },
  { name: 'wrong method', method: 'DELETE', path: '/users/1', status: 405 },
];
const cycle = connections * KINDS.length;
if (pipelining > KINDS.length) throw new Error(`BENCH_LOAD_PIPELINING must be at most ${KINDS.length}`);
// A whole number of cycles per connection, so that every kind is sent equally often: 200,000 requests
// become 4 phases of 50,600 (46 cycles of 11 kinds on each of 100 connections).
const perPhase = Math.max(cycle, Math.ceil(totalRequests / PHASES / cycle) * cycle);
const warmupRequests = Math.max(cycle, Math.round(perPhase / 5 / cycle) * cycle);

/** Per kind: how many were sent and which statuses came back. */
const tally = KINDS.map(() => ({ sent: 0, awaited: 0, statuses: new Map() }));

/**
 * How many requests of a kind a connection waits for the answer to. autocannon stops a connection once
 * it has written its share of requests and one more answer arrives: with pipelining p, the last
 * p - 1 requests are still in flight and their answers never read (with -p 1, none are lost).
 * @param {number} share requests written per connection
 * @param {number} kind the kind's index in KINDS
 */
function awaitedPerConnection(share, kind) {
  const answered = share - (pipelining - 1);
  return Math.floor(answered / KINDS.length) + (kind < answered % KINDS.length ? 1 : 0);
}
let counting = false;
const requests = KINDS.map((kind, index) => ({
  method: kind.method,
  path: kind.path,
  headers: kind.headers,
  body: kind.body,
  onResponse: (status) => {
    if (!counting) return;
    const statuses = tally[index].statuses;
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  },
}));

if (profileDir !== undefined) mkdirSync(profileDir, { recursive: true });
const nodeArgs = ['--expose-gc', ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`])];
const server = await startServer(SERVER, [String(BODY_LIMIT)], { nodeArgs, ipc: true });

/** @returns {Promise<{ heapUsed: number, heapTotal: number, rss: number, external: number, arrayBuffers: number, connections: number }>} */
function heapAfterGc() {
  return new Promise((done, fail) => {
    server.child.once('message', (message) => (message.error ? fail(new Error(message.error)) : done(message)));
    server.child.send('heap');
  });
}

const run = (amount) => measureLoad(server, { requests, amount, connections, pipelining, timeout: 10 });

// Warm-up: the JIT settles and the heap reaches its working size.
const warmup = await run(warmupRequests);
const heaps = [{ label: `after the warm-up (${thousands(warmupRequests)} requests)`, ...(await heapAfterGc()) }];

const phases = [];
counting = true;
for (let phase = 1; phase <= PHASES; phase++) {
  const result = await run(perPhase);
  phases.push(result);
  for (let index = 0; index < KINDS.length; index++) {
    tally[index].sent += perPhase / KINDS.length;
    tally[index].awaited += awaitedPerConnection(perPhase / connections, index) * connections;
  }
  heaps.push({ label: `after ${thousands(phase * perPhase)} requests`, ...(await heapAfterGc()) });
  process.stderr.write(`load: ${thousands(phase * perPhase)} requests done\n`);
}
counting = false;
await stopServer(server);

// Tables.
const failures = [];
const sent = phases.length * perPhase;
const errors = phases.reduce((sum, result) => sum + result.errors, 0);
const timeouts = phases.reduce((sum, result) => sum + result.timeouts, 0);
const seconds = phases.reduce((sum, result) => sum + result.seconds, 0);
const cpuMicros = phases.reduce((sum, result) => sum + result.serverCpuMicrosPerRequest * result.requests, 0);
const received = phases.reduce((sum, result) => sum + result.requests, 0);
if (warmup.errors > 0) failures.push(`${warmup.errors} socket errors during the warm-up`);

report.log(`\n#### ${thousands(sent)} mixed requests against restcanon/node, -c ${connections} -p ${pipelining}, body limit ${BODY_LIMIT} bytes${isOtherBuild() ? ` (restcanon from ${describeDist()})` : ''}\n`);
report.log(`| request | sent | ${pipelining > 1 ? 'awaited | ' : ''}expected | received | by status | ok |`);
report.log(`|---|---:|${pipelining > 1 ? '---:|' : ''}---:|---:|---|---|`);
for (let index = 0; index < KINDS.length; index++) {
  const kind = KINDS[index];
  const { sent: kindSent, awaited, statuses } = tally[index];
  const kindReceived = [...statuses.values()].reduce((sum, count) => sum + count, 0);
  const good = statuses.get(kind.status) ?? 0;
  const ok = good === awaited && kindReceived === awaited;
  if (!ok) failures.push(`${kind.name}: sent ${kindSent}, awaited ${awaited}, ${good} answered ${kind.status}, ${kindReceived} answered in all`);
  const byStatus = [...statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}: ${thousands(count)}`)
    .join(', ');
  report.log(`| ${kind.name}: ${kind.method} ${kind.path}${kind.body === undefined ? '' : ` (${Buffer.byteLength(kind.body)} B body)`} | ${thousands(kindSent)} | ${pipelining > 1 ? `${thousands(awaited)} | ` : ''}${kind.status} | ${thousands(kindReceived)} | ${byStatus} | ${ok ? 'yes' : 'NO'} |`);
}
if (errors > 0 || timeouts > 0) failures.push(`${errors} socket errors, ${timeouts} of them timeouts`);
const awaitedTotal = tally.reduce((sum, kind) => sum + kind.awaited, 0);
if (received !== awaitedTotal) failures.push(`autocannon counted ${received} responses for ${awaitedTotal} requests awaited`);

report.log('');
report.log('| total | value |');
report.log('|---|---:|');
report.log(`| requests sent / answers awaited / received | ${thousands(sent)} / ${thousands(awaitedTotal)} / ${thousands(received)} |`);
report.log(`| socket errors / timeouts | ${errors} / ${timeouts} |`);
report.log(`| req/s (over the ${PHASES} timed phases) | ${rate(received / seconds)} |`);
report.log(`| server CPU µs/request | ${fixed(cpuMicros / received)} |`);
report.log(`| p99 latency, highest phase | ${fixed(Math.max(...phases.map((result) => result.p99)), 2)} ms |`);
report.log(`| autocannon CPU, highest phase | ${fixed(Math.max(...phases.map((result) => result.loadgenCpuPercent)), 0)}% |`);

report.log('\n| heap after GC | heapUsed | change | heapTotal | rss | open connections |');
report.log('|---|---:|---:|---:|---:|---:|');
for (const heap of heaps) {
  const change = heap.heapUsed - heaps[0].heapUsed;
  report.log(`| ${heap.label} | ${mebibytes(heap.heapUsed)} | ${change >= 0 ? '+' : ''}${mebibytes(change)} | ${mebibytes(heap.heapTotal)} | ${mebibytes(heap.rss)} | ${heap.connections} |`);
}
const growth = heaps.at(-1).heapUsed - heaps[0].heapUsed;
if (growth > heapSlack) failures.push(`the heap grew by ${mebibytes(growth)} (allowed: ${mebibytes(heapSlack)})`);

report.log('');
report.aside(`- Each of ${connections} connections sends the ${KINDS.length} kinds in order, the same number of each; ${PHASES} phases of ${thousands(perPhase)} requests after a warm-up of ${thousands(warmupRequests)} (not counted).`);
if (pipelining > 1) report.log(`- With -p ${pipelining}, autocannon closes each connection with its last ${pipelining - 1} requests in flight: their answers are not awaited.`);
report.aside(`- Heap: process.memoryUsage().heapUsed in the server after 4 x gc() (--expose-gc), once the load generator has closed its connections; allowed growth ${mebibytes(heapSlack)}.`);
report.aside(`- ${CAN_PIN ? 'Server pinned to CPU 0, autocannon to CPU 1' : 'Not pinned (no taskset)'}.`);
for (const failure of failures) report.log(`- FAILED: ${failure}`);
if (failures.length === 0) report.log(`- Every check passed: no socket error, no timeout, every status as expected, heap ${growth >= 0 ? '+' : ''}${mebibytes(growth)}.`);

report.finish();

if (profileDir !== undefined) {
  const newest = readdirSync(profileDir)
    .filter((file) => file.endsWith('.cpuprofile'))
    .map((file) => join(profileDir, file))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (newest === undefined) console.log(`\nNo .cpuprofile in ${profileDir}.`);
  else printProfileSummary(newest);
}
process.exit(failures.length === 0 ? 0 : 1);
