/**
 * Peers benchmark: the same small API (api.mjs) on restcanon and on the stacks a user would pick
 * instead (servers.mjs), over real HTTP, measured as server CPU time per request.
 *
 * 1. This process re-runs itself pinned to CPU 1 (it is the load generator: autocannon's API runs
 *    here); every server runs in its own process pinned to CPU 0, with NODE_ENV=production.
 * 2. Correctness gate: a fresh process of each server answers the requests of api.mjs's CHECKS
 *    (read, missing item, invalid id, create, invalid create); a server that gives another status,
 *    media type, success body or Location, or a problem body without the same `type`, `title` and
 *    `status`, is reported and not timed.
 * 3. Rounds: in each round every server gets a fresh process, one server at a time, in the order of
 *    servers.mjs and then reversed in the next round. Each process takes a warm-up on the mixed
 *    workload, then one window of each workload (the order of the two also alternating), then
 *    stops. Every answer of a window is counted by status: a socket error, or a status or mix other
 *    than the workload's, marks the window invalid.
 * 4. Tables: per workload and server, the median over rounds of the server's CPU µs per request
 *    (from /proc/<pid>/stat), the best round and the spread, req/s, and the ratio to
 *    restcanon/node; written to bench/results/peers.md with a bar chart, peers.svg.
 *
 * Env: BENCH_ROUNDS (default 5), BENCH_PEERS_SECONDS (per window, default 5),
 * BENCH_PEERS_WARMUP_SECONDS (default 5), BENCH_PEERS_CONNECTIONS (default 50),
 * BENCH_PEERS_PIPELINING (default 1), BENCH_PEERS_SERVERS (a comma list of server names; default
 * all; restcanon/node is always added, as the baseline).
 */
import { isDeepStrictEqual } from 'node:util';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { barChart } from '../lib/chart.mjs';
import { snapshotDist } from '../lib/dist.mjs';
import { envList, envNumber } from '../lib/env.mjs';
import { CLOCK_TICKS, HAS_PROC_STAT } from '../lib/proc.mjs';
import { createReport, isOtherBuild } from '../lib/report.mjs';
import { measureLoad, startServer, stopServer } from '../lib/serve.mjs';
import { fixed, median, rate, times } from '../lib/stats.mjs';
import { CAN_PIN, rerunPinned } from '../machine.mjs';
import { CHECKS, CREATED_SLOTS, FIRST_CREATED_ID, WORKLOADS } from './api.mjs';
import { BASELINE, SERVERS } from './servers.mjs';
import { describeVersion, nodeEngines } from './versions.mjs';

snapshotDist();
rerunPinned(1, import.meta.url);

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url));
const rounds = envNumber('BENCH_ROUNDS', 5);
const seconds = envNumber('BENCH_PEERS_SECONDS', 5);
const warmupSeconds = envNumber('BENCH_PEERS_WARMUP_SECONDS', 5);
const connections = envNumber('BENCH_PEERS_CONNECTIONS', 50);
const pipelining = envNumber('BENCH_PEERS_PIPELINING', 1);
const serverFilter = envList('BENCH_PEERS_SERVERS');
/** Above this, the load generator is the limit of req/s: the round is flagged. */
const LOADGEN_LIMIT = 90;
const started = Date.now();

for (const name of serverFilter ?? []) {
  if (!SERVERS.some((server) => server.name === name)) {
    console.error(`BENCH_PEERS_SERVERS: no server "${name}"; the servers are: ${SERVERS.map((server) => server.name).join(', ')}`);
    process.exit(2);
  }
}
const selected = serverFilter === undefined ? SERVERS : SERVERS.filter((server) => server.name === BASELINE || serverFilter.includes(server.name));

if (!HAS_PROC_STAT) console.log('WARNING: /proc/<pid>/stat is not readable here: no server CPU figures.');
if (!CAN_PIN) console.log('WARNING: no taskset: the servers and the load generator are not pinned.');

const report = createReport('peers', { RESTCANON_DIST: isOtherBuild(), BENCH_PEERS_SERVERS: serverFilter !== undefined });

/** @param {import('./servers.mjs').PeerServer} server */
const start = (server) => startServer(SERVER, [server.name], { nodeArgs: server.nodeArgs ?? [], env: { NODE_ENV: 'production' } });

// 1. Versions.
const restcanonVersion = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const packages = [...new Set(selected.flatMap((server) => server.packages))];
report.log(`Node ${process.version}; restcanon ${restcanonVersion} (this repository's build); ${packages.map(describeVersion).join(', ')}; load generator ${describeVersion('autocannon')}.`);
for (const server of selected) {
  if (server.note !== undefined) report.log(`\n- ${server.name}: ${server.note}.`);
}
const engines = packages.map((name) => [name, nodeEngines(name)]).filter(([, range]) => range !== undefined);
report.log(`\nNode ranges the packages declare (\`engines\`): ${engines.map(([name, range]) => `${name} \`${range}\``).join(', ')}; the others declare none.`);

// 2. The correctness gate.
/**
 * Sends one request of CHECKS and compares the answer with what it must be.
 * @param {string} url @param {(typeof CHECKS)[number]} check
 */
async function answerOf(url, check) {
  const response = await fetch(url + check.path, { method: check.method, headers: check.headers, body: check.body });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const location = response.headers.get('location');
  const [media, ...parameters] = type.split(';').map((part) => part.trim().toLowerCase());
  const mismatches = [];
  if (response.status !== check.status) mismatches.push(`status ${response.status}, expected ${check.status}`);
  if (media !== check.media) mismatches.push(`Content-Type "${type}", expected ${check.media}`);
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  if (charset !== undefined && charset !== 'charset=utf-8') mismatches.push(`Content-Type "${type}": not UTF-8`);
  if ((check.location ?? null) !== location) mismatches.push(`Location ${location}, expected ${check.location ?? 'none'}`);
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    mismatches.push(`a body that is not JSON: ${text.slice(0, 120)}`);
  }
  if (check.json !== undefined && !isDeepStrictEqual(body, check.json)) mismatches.push(`body ${text.slice(0, 200)}, expected ${JSON.stringify(check.json)}`);
  for (const [member, value] of Object.entries(check.problem ?? {})) {
    if (body?.[member] !== value) mismatches.push(`problem member "${member}": ${JSON.stringify(body?.[member])}, expected ${JSON.stringify(value)}`);
  }
  return { status: response.status, type, bytes: Buffer.byteLength(text), mismatches };
}

/** @type {Map<string, Awaited<ReturnType<typeof answerOf>>[]>} */
const gate = new Map();
/** @type {Map<string, string>} server -> why it could not be checked */
const unstartable = new Map();
for (const server of selected) {
  let running;
  try {
    running = await start(server);
    const answers = [];
    for (const check of CHECKS) answers.push(await answerOf(running.url, check));
    gate.set(server.name, answers);
  } catch (error) {
    unstartable.set(server.name, String(error?.message ?? error).split('\n')[0]);
  } finally {
    if (running !== undefined) await stopServer(running);
  }
}
const passed = (name) => gate.has(name) && gate.get(name).every((answer) => answer.mismatches.length === 0);
const timed = selected.filter((server) => passed(server.name));
const failed = selected.filter((server) => !passed(server.name));

report.log('\n#### Correctness gate\n');
report.log(`Each server's answers, from a fresh process, in this order (status, body bytes):\n`);
report.log(`| server | ${CHECKS.map((check) => `${check.name}: \`${check.method} ${check.path}\``).join(' | ')} | verdict |`);
report.log(`|---|${CHECKS.map(() => '---:|').join('')}---|`);
for (const server of selected) {
  const answers = gate.get(server.name);
  if (answers === undefined) {
    report.log(`| ${server.name} | ${CHECKS.map(() => '-').join(' | ')} | did not start: ${unstartable.get(server.name)} |`);
    continue;
  }
  const cells = answers.map((answer) => `${answer.mismatches.length === 0 ? '' : '✗ '}${answer.status}, ${answer.bytes} B`);
  report.log(`| ${server.name} | ${cells.join(' | ')} | ${passed(server.name) ? 'passed' : 'failed: not timed'} |`);
}
report.log('');
const baselineTypes = gate.get(BASELINE)?.map((answer) => answer.type);
for (const server of selected) {
  const answers = gate.get(server.name) ?? [];
  answers.forEach((answer, index) => {
    for (const mismatch of answer.mismatches) report.log(`- MISMATCH ${server.name}, ${CHECKS[index].name}: ${mismatch}`);
  });
}
const sameTypes = timed.every((server) => isDeepStrictEqual(gate.get(server.name).map((answer) => answer.type), baselineTypes));
report.log(
  `Every request must get: ${CHECKS.map((check) => `${check.name} ${check.status} ${check.media}${check.location ? ` with \`Location: ${check.location}\`` : ''}`).join('; ')}. Success bodies must be the same JSON as restcanon's; problem bodies must hold the same \`type\`, \`title\` and \`status\`. ${
    sameTypes ? `Every server that passed sends the same \`Content-Type\` header values as ${BASELINE} (\`charset=utf-8\` included).` : 'Some servers send other `Content-Type` parameters than restcanon/node (see the MISMATCH lines).'
  }`,
);
if (!passed(BASELINE)) {
  console.error(`${BASELINE}, the baseline, failed the correctness gate: no timing was run.`);
  process.exit(1);
}
if (failed.length > 0) report.log(`\nNot timed (failed the gate): ${failed.map((server) => server.name).join(', ')}.`);

// 3. Rounds.
/** @type {Map<string, Map<string, import('../lib/serve.mjs').LoadResult[]>>} workload -> server -> one result per round */
const results = new Map(WORKLOADS.map((workload) => [workload.name, new Map(timed.map((server) => [server.name, []]))]));
const problems = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? timed : [...timed].reverse();
  const workloads = round % 2 === 0 ? WORKLOADS : [...WORKLOADS].reverse();
  for (const server of order) {
    const running = await start(server);
    try {
      await measureLoad(running, { requests: WORKLOADS.at(-1).requests, connections, pipelining, duration: warmupSeconds });
      for (const workload of workloads) {
        const result = await measureLoad(running, { requests: workload.requests, connections, pipelining, duration: seconds });
        const wrong = wrongAnswers(result, workload);
        if (wrong !== undefined) problems.push(`round ${round + 1}, ${server.name}, ${workload.name}: ${wrong}`);
        results.get(workload.name).get(server.name).push(result);
      }
    } finally {
      await stopServer(running);
    }
  }
  process.stderr.write(`peers: round ${round + 1}/${rounds} done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

/**
 * What is wrong with a window's answers, if anything: socket errors, or statuses off the workload's mix.
 * @param {import('../lib/serve.mjs').LoadResult} result @param {(typeof WORKLOADS)[number]} workload
 * @returns {string | undefined}
 */
function wrongAnswers(result, workload) {
  if (result.errors > 0) return `${result.errors} socket errors (${result.timeouts} timeouts)`;
  const counts = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]));
  const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
  // Each connection stops somewhere in its cycle of requests: a status may be off its share of the
  // total by up to one cycle per connection.
  const slack = connections * workload.requests.length;
  for (const [status, count] of Object.entries(counts)) {
    const share = workload.statuses[status];
    if (share === undefined || Math.abs(count - share * total) > slack) return `statuses ${JSON.stringify(counts)}, expected the shares ${JSON.stringify(workload.statuses)}`;
  }
  return undefined;
}

// 4. Tables.
const cpu = (result) => result.serverCpuMicrosPerRequest;
const rowsOf = (workload) =>
  timed.map((server) => {
    const mine = results.get(workload.name).get(server.name);
    const baseline = results.get(workload.name).get(BASELINE);
    const values = mine.map(cpu);
    return {
      name: server.name,
      median: median(values),
      best: Math.min(...values),
      worst: Math.max(...values),
      // Round by round: the rounds of the two servers are minutes apart at most, so slow drift of the machine cancels out.
      ratio: median(mine.map((result, index) => cpu(result) / cpu(baseline[index]))),
      bestRatio: Math.min(...values) / Math.min(...baseline.map(cpu)),
      requestsPerSecond: median(mine.map((result) => result.requestsPerSecond)),
      loadgenHigh: mine.filter((result) => result.loadgenCpuPercent > LOADGEN_LIMIT).length,
      loadgenMax: Math.max(...mine.map((result) => result.loadgenCpuPercent)),
    };
  });

const settingsNote = `autocannon \`-c ${connections} -p ${pipelining}\`, ${seconds} s per window after a ${warmupSeconds} s warm-up on the mix, ${rounds} rounds, a fresh process per server and round`;
report.log('\n#### Summary\n');
report.log(`Server CPU per request as a multiple of ${BASELINE}'s (median of the rounds' ratios), and the median µs per request; lower is better. ${settingsNote}.\n`);
report.log(`| stack | ${WORKLOADS.map((workload) => workload.name).join(' | ')} |`);
report.log(`|---|${WORKLOADS.map(() => '---:|').join('')}`);
const tables = new Map(WORKLOADS.map((workload) => [workload.name, rowsOf(workload)]));
for (const server of timed) {
  const cells = WORKLOADS.map((workload) => {
    const row = tables.get(workload.name).find((candidate) => candidate.name === server.name);
    return `${fixed(row.ratio, 2)} (${fixed(row.median)} µs)`;
  });
  report.log(`| ${server.name} | ${cells.join(' | ')} |`);
}

for (const workload of WORKLOADS) {
  const requests = workload.requests.map((request) => `${request.method} ${request.path}`);
  report.log(`\n#### ${workload.name}\n`);
  report.log(`Each connection sends, over and over: ${requests.join(', ')}${workload.requests.some((request) => request.body) ? ' (a 51-byte JSON body)' : ''}.\n`);
  report.log(`| stack | CPU µs/req, median | best round | rounds min-max | vs ${BASELINE}, median | vs ${BASELINE}, best rounds | req/s, median | autocannon CPU, max |`);
  report.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of tables.get(workload.name)) {
    const flag = row.loadgenHigh > 0 ? ` ⚠ ${row.loadgenHigh} of ${rounds} rounds above ${LOADGEN_LIMIT}%` : '';
    report.log(
      `| ${row.name} | ${fixed(row.median)} | ${fixed(row.best)} | ${fixed(row.best)}-${fixed(row.worst)} | ${times(row.ratio)} | ${times(row.bestRatio)} | ${rate(row.requestsPerSecond)} | ${fixed(row.loadgenMax, 0)}%${flag} |`,
    );
  }
}

report.aside('');
report.aside(`- Server CPU: utime + stime of the server process (every thread, GC included) from /proc/<pid>/stat (${CLOCK_TICKS} ticks/s) over the window, divided by the responses received.`);
report.aside(`- "vs ${BASELINE}, median": the median over rounds of the server's figure over ${BASELINE}'s of the same round; "best rounds": the best round of each, one over the other.`);
report.aside(`- autocannon CPU: the load generator's own CPU over a window (this process, pinned to CPU 1), the highest of the rounds; ⚠ above ${LOADGEN_LIMIT}%: req/s is then partly autocannon's limit, server CPU per request is not.`);
report.aside(`- Creates take the ids ${FIRST_CREATED_ID}-${FIRST_CREATED_ID + CREATED_SLOTS - 1} in turn, overwriting, so the store of a server holds at most ${CREATED_SLOTS + 2} users.`);
if (problems.length > 0) report.log('');
for (const line of problems) report.log(`- INVALID WINDOW: ${line}`);

const chart = barChart({
  title: 'Server CPU per request, same API on each stack',
  subtitle: `median of ${rounds} rounds; -c ${connections} -p ${pipelining}; Node ${process.version}`,
  unit: 'µs per request',
  series: WORKLOADS.map((workload, index) => ({ name: workload.name, color: ['#4c78a8', '#f58518'][index % 2] })),
  groups: [
    {
      name: 'stack',
      rows: timed.map((server) => ({ label: server.name, values: WORKLOADS.map((workload) => tables.get(workload.name).find((row) => row.name === server.name).median) })),
    },
  ],
});
report.finish({ 'peers.svg': chart });
if (problems.length > 0) process.exit(1);
