/**
 * What a rate limit costs the server: the users API served by the node adapter, once without a rate
 * limit and once with `rateLimit()` of one policy on the in-memory store (a quota no run reaches, so
 * that every answer is the same 200 and only the counting differs), under the same load.
 *
 * 1. Correctness gate: `GET /users/1` answers 200 with the user on both; the limited one carries
 *    `RateLimit-Policy` and `RateLimit`, the plain one neither. Anything else exits 1 before timing.
 * 2. BENCH_ROUNDS rounds (default 5), each a fresh server of each kind pinned to CPU 0, in turns,
 *    loaded by autocannon from this process (CPU 1): 10 connections, BENCH_SECONDS seconds each
 *    (default 5) after 2 seconds of warm-up.
 * 3. The server's CPU (user + system, from /proc) per response, and its ratio limited / plain per
 *    round: the target is a ratio of at most 1.05.
 */
import { describeDist, snapshotDist } from '../lib/dist.mjs';
import { createReport, isOtherBuild } from '../lib/report.mjs';
import { measureLoad, startServer, stopServer } from '../lib/serve.mjs';
import { fixed, median } from '../lib/stats.mjs';
import { CAN_PIN, rerunPinned } from '../machine.mjs';
import { USER_JSON } from '../lib/app.mjs';
import { fileURLToPath } from 'node:url';

snapshotDist();
rerunPinned(1, import.meta.url);

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const KINDS = ['plain', 'limited'];
const report = createReport('rate-limit', { RESTCANON_DIST: isOtherBuild() });
if (!CAN_PIN) console.log('WARNING: no taskset: the client and the servers are not pinned.');

// 1. The gate.
for (const kind of KINDS) {
  const server = await startServer(SERVER, [kind]);
  try {
    const response = await fetch(`${server.url}/users/1`);
    const body = await response.text();
    const fields = [response.headers.get('ratelimit-policy'), response.headers.get('ratelimit')];
    const expected = kind === 'limited' ? ['"default";q=1000000000;w=3600', /^"default";r=999999999;t=36\d\d$/] : [null, null];
    const fieldsOk = kind === 'limited' ? fields[0] === expected[0] && expected[1].test(String(fields[1])) : fields[0] === null && fields[1] === null;
    if (response.status !== 200 || body !== USER_JSON || !fieldsOk) {
      console.error(`MISMATCH ${kind}: ${response.status} ${body} RateLimit-Policy: ${fields[0]} RateLimit: ${fields[1]}`);
      console.error('Correctness gate failed: no timing was run.');
      process.exit(1);
    }
  } finally {
    await stopServer(server);
  }
}
report.log('Correctness gate passed: GET /users/1 answers 200 with the user on both servers; the limited one carries RateLimit-Policy and RateLimit, the plain one neither.');

// 2. Rounds, the two kinds in turns.
/** @type {Record<string, number[]>} µs of server CPU per response, one per round */
const cpu = { plain: [], limited: [] };
/** @type {Record<string, number[]>} */
const rps = { plain: [], limited: [] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? KINDS : [...KINDS].reverse();
  for (const kind of order) {
    const server = await startServer(SERVER, [kind]);
    try {
      await measureLoad(server, { path: '/users/1', connections: 10, duration: 2 });
      const result = await measureLoad(server, { path: '/users/1', connections: 10, duration: seconds });
      if (result.non2xx > 0 || result.errors > 0) {
        console.error(`${kind}: ${result.non2xx} answers that were not 2xx and ${result.errors} errors in round ${round + 1}`);
        process.exit(1);
      }
      cpu[kind].push(result.serverCpuMicrosPerRequest);
      rps[kind].push(result.requestsPerSecond);
    } finally {
      await stopServer(server);
    }
  }
  process.stderr.write(`rate-limit: round ${round + 1}/${rounds} done\n`);
}

// 3. The table.
const ratios = cpu.limited.map((value, index) => value / cpu.plain[index]);
report.log(`\n#### GET /users/1 over loopback, \`toNodeListener\`${isOtherBuild() ? ` (restcanon from ${describeDist()})` : ''}\n`);
report.log('| server | requests/s | server CPU µs per request | ratio to plain (rounds min - max) |');
report.log('|---|---:|---:|---:|');
report.log(`| plain | ${fixed(median(rps.plain), 0)} | ${fixed(median(cpu.plain), 1)} | 1.00 |`);
report.log(`| rateLimit, in-memory store | ${fixed(median(rps.limited), 0)} | ${fixed(median(cpu.limited), 1)} | ${fixed(median(ratios), 3)} (${fixed(Math.min(...ratios), 3)} - ${fixed(Math.max(...ratios), 3)}) |`);
report.aside('');
report.aside(`- ${rounds} rounds; per round a fresh server of each kind pinned to CPU 0, in turns (the order alternates), autocannon with 10 connections for 2 s of warm-up then ${seconds} s measured, from this process on CPU 1.`);
report.aside('- Server CPU: user + system time of the server process over the measured window (/proc), divided by its responses. Ratio: limited over plain, round by round; the figure is their median.');
report.finish();
