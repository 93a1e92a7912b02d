/**
 * Large bodies and long streams: a 1 GiB upload streamed to a file and a 1 GiB download, through
 * restcanon/node and restcanon/fastify against node:http with a plain `stream.pipeline` between the
 * socket and the file (the baseline), and 1,000 open server-sent event streams.
 *
 * Each case runs in a new server process (bench/streams/server.mjs), so that its peak RSS (VmHWM)
 * is that case's. Throughput is bytes over the time from the first byte sent to the last byte
 * received, as a ratio to the baseline of the same round; rounds interleave the stacks' order. The
 * correctness gate: every upload leaves a file of exactly 1 GiB, every download gives 1 GiB, every
 * event stream gives its first event.
 *
 * Env: BENCH_STREAMS_ROUNDS (default 3), BENCH_STREAMS_MIB (body size, default 1024),
 * BENCH_STREAMS_CONNECTIONS (event streams, default 1000; 0 leaves them out), BENCH_STREAMS_STACKS (the stacks beside
 * the baseline, default `fastify,restcanon/node,restcanon/fastify`; another list makes the run
 * exploratory). `fastify` is a reference, not restcanon: Fastify with the baseline's plain handlers,
 * what Fastify itself costs, so that restcanon/fastify can be read against it as well.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createReport } from '../lib/report.mjs';
import { fixed, median } from '../lib/stats.mjs';

const ROUNDS = Number(process.env.BENCH_STREAMS_ROUNDS ?? 3);
const MIB = 1024 * 1024;
const SIZE = Number(process.env.BENCH_STREAMS_MIB ?? 1024) * MIB;
const CONNECTIONS = Number(process.env.BENCH_STREAMS_CONNECTIONS ?? 1000);
const STACKS = ['plain', ...(process.env.BENCH_STREAMS_STACKS ?? 'fastify,restcanon/node,restcanon/fastify').split(',').filter(Boolean)];
/** The rows of the stacks that are no restcanon. */
const LABELS = {
  plain: { bodies: 'node:http + stream.pipeline', events: 'node:http, events written by hand' },
  fastify: { bodies: 'Fastify + stream.pipeline (reference, no restcanon)', events: 'Fastify, events written by hand (reference, no restcanon)' },
};
const report = createReport('streams', { BENCH_STREAMS_STACKS: process.env.BENCH_STREAMS_STACKS !== undefined });

const folder = mkdtempSync(join(tmpdir(), 'restcanon-streams-'));
process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
// A sparse file: reading it gives zeros without touching the disk, so the download times the server.
writeFileSync(join(folder, 'download'), '');
truncateSync(join(folder, 'download'), SIZE);

/** Starts a server process; resolves with its port and a way to ask it for VmHWM or VmRSS. */
async function startServer(stack) {
  const child = fork(fileURLToPath(new URL('server.mjs', import.meta.url)), [stack, folder], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${stack} exited with ${code}`)));
    child.stdout.once('data', (data) => resolve(JSON.parse(String(data)).port));
  });
  const ask = (message) =>
    new Promise((resolve) => {
      child.once('message', (answer) => resolve(answer.value));
      child.send(message);
    });
  return { port, ask, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.kill())) };
}

function request(port, options, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent: false, ...options }, resolve);
    req.once('error', reject);
    if (body !== undefined) body(req);
    else req.end();
  });
}

/** Sends SIZE bytes of one reused 64 KiB chunk, as fast as the socket takes them. */
function sendBody(req) {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  const write = () => {
    while (sent < SIZE) {
      sent += chunk.byteLength;
      if (!req.write(chunk)) return void req.once('drain', write);
    }
    req.end();
  };
  write();
}

async function upload(port) {
  const started = performance.now();
  const response = await request(port, { method: 'POST', path: '/upload', headers: { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) } }, sendBody);
  let text = '';
  for await (const chunk of response) text += chunk;
  const seconds = (performance.now() - started) / 1000;
  if (response.statusCode !== 200) throw new Error(`upload answered ${response.statusCode}: ${text}`);
  const { file } = JSON.parse(text);
  const size = statSync(file).size;
  rmSync(file);
  if (size !== SIZE) throw new Error(`upload stored ${size} bytes, not ${SIZE}`);
  return SIZE / MIB / seconds;
}

async function download(port) {
  const started = performance.now();
  const response = await request(port, { method: 'GET', path: '/download' });
  let received = 0;
  for await (const chunk of response) received += chunk.byteLength;
  const seconds = (performance.now() - started) / 1000;
  if (response.statusCode !== 200 || received !== SIZE) throw new Error(`download answered ${response.statusCode} with ${received} bytes, not ${SIZE}`);
  return SIZE / MIB / seconds;
}

/** Opens CONNECTIONS event streams and waits for the first event of each; gives the server's RSS growth per stream. */
async function events(port, ask) {
  const before = await ask('rss');
  const responses = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const response = await request(port, { method: 'GET', path: '/events', headers: { accept: 'text/event-stream' } });
      const first = await new Promise((resolve) => response.once('data', (chunk) => resolve(String(chunk))));
      if (response.statusCode !== 200 || !first.includes('event: tick')) throw new Error(`an event stream answered ${response.statusCode}: ${first}`);
      return response;
    }),
  );
  const after = await ask('rss');
  for (const response of responses) response.destroy();
  return (after - before) / CONNECTIONS;
}

const results = Object.fromEntries(STACKS.map((stack) => [stack, { upload: [], uploadPeak: [], download: [], downloadPeak: [], perStream: [] }]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? STACKS : [...STACKS].reverse();
  for (const stack of order) {
    for (const [name, run] of [['upload', upload], ['download', download]]) {
      const server = await startServer(stack);
      results[stack][name].push(await run(server.port));
      results[stack][`${name}Peak`].push(await server.ask('peak'));
      await server.stop();
    }
    if (CONNECTIONS === 0) continue;
    const server = await startServer(stack);
    results[stack].perStream.push(await events(server.port, server.ask));
    await server.stop();
  }
}

const base = results.plain;
report.log(`Bodies of ${SIZE / MIB} MiB, median of ${ROUNDS} rounds; throughput ratio to node:http with a plain \`stream.pipeline\`; peak RSS of the server process.`);
report.log();
report.log('| stack | upload MiB/s | ratio | peak RSS MiB | download MiB/s | ratio | peak RSS MiB |');
report.log('|---|---|---|---|---|---|---|');
for (const stack of STACKS) {
  const r = results[stack];
  report.log(
    `| ${LABELS[stack]?.bodies ?? stack} | ${fixed(median(r.upload), 0)} | ${fixed(median(r.upload) / median(base.upload), 2)} | ${fixed(Math.max(...r.uploadPeak) / MIB, 0)} | ${fixed(median(r.download), 0)} | ${fixed(median(r.download) / median(base.download), 2)} | ${fixed(Math.max(...r.downloadPeak) / MIB, 0)} |`,
  );
}
if (CONNECTIONS > 0) {
report.log();
report.log(`${CONNECTIONS} open server-sent event streams: the server's RSS growth per stream, median of ${ROUNDS} rounds.`);
report.log();
report.log('| stack | KiB per stream |');
report.log('|---|---|');
for (const stack of STACKS) report.log(`| ${LABELS[stack]?.events ?? stack} | ${fixed(median(results[stack].perStream) / 1024, 1)} |`);
}
report.finish();
