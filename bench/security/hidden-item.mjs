/**
 * Someone else's item and a missing one: under `createStatusPolicy({ forbidden: 404 })` a collection
 * with an `owner` rule answers a request for another user's item with the same 404 as a request for
 * an id that does not exist. This benchmark checks that the two answers are the same, then whether
 * they cost the same: if one took longer, timing would tell a client which ids exist.
 *
 * 1. This process re-runs itself pinned to CPU 1 (it is the HTTP client); the in-memory rounds and
 *    the servers run in their own processes pinned to CPU 0 (hidden-item-worker.mjs).
 * 2. Correctness gate, in memory and over HTTP: for GET and DELETE, someone else's item and a missing
 *    id both answer 404 with byte-identical headers and bodies (over HTTP, Node's `Date` header
 *    aside); without the policy, someone else's item answers 403 (so the ids timed as "someone
 *    else's" do exist) and the caller's own item 200. Any difference exits 1 before timing.
 * 3. In memory: BENCH_ROUNDS processes, each timing `api.handle` for the four cases (GET and DELETE,
 *    someone else's id and a missing id) with mitata, the two cases of an operation taking turns.
 * 4. Over loopback: BENCH_ROUNDS fresh servers (`toNodeListener`), each sent the four cases in turn,
 *    one request at a time on one keep-alive connection, every request's latency recorded.
 * 5. Tables, written to bench/results/hidden-item.md (see ../lib/report.mjs), and a verdict per row: "within noise" when the median over rounds of each round's
 *    difference (someone else's item minus the missing id, both measured in that round) is no
 *    larger than the spread of those differences (max - min). The spread of one case between
 *    rounds is shown too, but not used: it holds the machine's drift between rounds, which moves
 *    both cases together and can exceed a difference that every round shows.
 *
 * Env: BENCH_ROUNDS (default 5); BENCH_HIDDEN_CONTROL=1, an A/A run: the "someone else's item"
 * case asks for other missing ids, so every difference it shows is the method's own; BENCH_HIDDEN_REQUESTS, measured requests per case and round over
 * loopback (default 2500); BENCH_MEASURE_MS and BENCH_SLICES go to the in-memory workers.
 */
import { spawnSync } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { describeDist, importRestcanon, snapshotDist } from '../lib/dist.mjs';
import { createReport, isOtherBuild } from '../lib/report.mjs';
import { startServer, stopServer } from '../lib/serve.mjs';
import { fixed, median, times } from '../lib/stats.mjs';
import { CAN_PIN, pinnedNode, rerunPinned } from '../machine.mjs';
import { CASES, CONFIGS, CONTROL, createProjectsApi, OWN_ID, PROJECT_COUNT, requestsOf } from './hidden-item-worker.mjs';

snapshotDist();
rerunPinned(1, import.meta.url);

const WORKER = fileURLToPath(new URL('./hidden-item-worker.mjs', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const requestsPerCase = Number(process.env.BENCH_HIDDEN_REQUESTS ?? 2500);
const WARMUP_REQUESTS = 3000;
if (!Number.isInteger(requestsPerCase / 2) || requestsPerCase <= 0) {
  console.error(`BENCH_HIDDEN_REQUESTS is a positive even number (each case comes twice in a block of eight requests), not ${process.env.BENCH_HIDDEN_REQUESTS}`);
  process.exit(2);
}
const OPERATIONS = ['GET', 'DELETE'];
const started = Date.now();
const report = createReport('hidden-item', { RESTCANON_DIST: isOtherBuild(), BENCH_HIDDEN_CONTROL: CONTROL });
if (!CAN_PIN) console.log('WARNING: no taskset: the client, the servers and the in-memory rounds are not pinned.');
if (CONTROL) console.log('CONTROL RUN (BENCH_HIDDEN_CONTROL=1): the rows of "someone else\'s item" time other missing ids.');

/** @param {string} message */
function fail(message) {
  console.error(message);
  console.error('Correctness gate failed: no timing was run.');
  process.exit(1);
}

// 1. The correctness gate, in memory.
const restcanon = await importRestcanon('index.js');
/** A response as bytes to compare: status, header lines in order, payload. */
const memoryAnswer = (response) => `${response.status}\n${Object.entries(response.headers).map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n${response.payload}`;
for (const config of CONFIGS) {
  const { api, projects } = createProjectsApi(restcanon, { options: config.options });
  for (const method of OPERATIONS) {
    const answers = new Set();
    for (const testCase of CASES.filter((candidate) => candidate.method === method)) {
      for (const request of requestsOf(testCase)) {
        const response = await api.handle(request);
        if (response.status !== 404) fail(`MISMATCH ${config.name}: ${method} ${request.url} (${testCase.name}) answered ${response.status}, not 404`);
        answers.add(memoryAnswer(response));
      }
    }
    if (answers.size !== 1) fail(`MISMATCH ${config.name}: ${method} answers differ between someone else's item and a missing one:\n${[...answers].join('\n---\n')}`);
  }
  const shown = createProjectsApi(restcanon, { hide: false, options: config.options }).api;
  for (const testCase of CASES) {
    const [request] = requestsOf(testCase);
    const expected = testCase.name.endsWith('foreign') && !CONTROL ? 403 : 404;
    const { status } = await shown.handle(request);
    if (status !== expected) fail(`MISMATCH ${config.name}, without the policy: ${request.method} ${request.url} answered ${status}, not ${expected}`);
  }
  const own = await api.handle({ method: 'GET', url: `/projects/${OWN_ID}`, headers: {} });
  if (own.status !== 200 || own.body?.id !== OWN_ID) fail(`MISMATCH ${config.name}: GET /projects/${OWN_ID}, the caller's own, answered ${own.status}, not 200`);
  if (projects.size !== PROJECT_COUNT) fail(`MISMATCH ${config.name}: the gate removed a project`);
}

// 1b. The correctness gate, over HTTP.
/**
 * One request on the keep-alive agent; resolves once the whole response is read.
 *
 * @param {Agent} agent @param {number} port @param {string} method @param {string} path
 * @returns {Promise<{ nanos: number, status: number, head: string, body: string }>}
 */
function send(agent, port, method, path) {
  return new Promise((resolve, reject) => {
    const begin = process.hrtime.bigint();
    const outgoing = httpRequest({ agent, host: '127.0.0.1', port, method, path }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const nanos = Number(process.hrtime.bigint() - begin);
        const lines = [];
        for (let index = 0; index < response.rawHeaders.length; index += 2) {
          if (response.rawHeaders[index].toLowerCase() !== 'date') lines.push(`${response.rawHeaders[index]}: ${response.rawHeaders[index + 1]}`);
        }
        resolve({ nanos, status: response.statusCode, head: lines.join('\n'), body: Buffer.concat(chunks).toString('latin1') });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const newAgent = () => new Agent({ keepAlive: true, maxSockets: 1 });
/** @type {Map<string, string>} method -> the one answer both cases of it must give, bytes as latin1 */
const httpAnswers = new Map();
{
  const server = await startServer(WORKER, ['serve']);
  const agent = newAgent();
  let mismatch;
  try {
    checking: for (const testCase of CASES) {
      for (const request of requestsOf(testCase)) {
        const response = await send(agent, server.port, request.method, request.url);
        const answer = `${response.status}\n${response.head}\n\n${response.body}`;
        const first = httpAnswers.get(request.method);
        if (response.status !== 404) mismatch = `MISMATCH over HTTP: ${request.method} ${request.url} (${testCase.name}) answered ${response.status}, not 404`;
        else if (first !== undefined && first !== answer) mismatch = `MISMATCH over HTTP: ${request.method} answers differ between someone else's item and a missing one:\n${first}\n---\n${answer}`;
        if (mismatch !== undefined) break checking;
        httpAnswers.set(request.method, answer);
      }
    }
    if (mismatch === undefined) {
      const own = await send(agent, server.port, 'GET', `/projects/${OWN_ID}`);
      if (own.status !== 200) mismatch = `MISMATCH over HTTP: GET /projects/${OWN_ID}, the caller's own, answered ${own.status}, not 200`;
    }
  } finally {
    agent.destroy();
    await stopServer(server);
  }
  if (mismatch !== undefined) fail(mismatch);
}
report.log(
  `Correctness gate passed: for GET and DELETE, someone else's item and a missing id answer 404 with byte-identical headers and bodies, in memory (${CONFIGS.map((config) => config.name).join(', ')}) and over HTTP (Date aside); without the policy someone else's item is a ${CONTROL ? '404 (control run)' : '403'} and the caller's own a 200.`,
);

// 2. In memory: one pinned worker per round.
/** @type {Map<string, Map<string, number[]>>} config -> case -> nanoseconds per request, one per round */
const memory = new Map(CONFIGS.map((config) => [config.name, new Map(CASES.map((testCase) => [testCase.name, []]))]));
for (let round = 0; round < rounds; round++) {
  const [command, args] = pinnedNode([WORKER, 'memory', String(round % 2)]);
  const child = spawnSync(command, args, { encoding: 'utf8', env: process.env });
  if (child.status !== 0) {
    console.error(`in-memory round ${round + 1} failed (exit ${child.status ?? child.signal}):\n${child.stderr}`);
    process.exit(1);
  }
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
  for (const [config, cases] of Object.entries(result)) for (const [name, nanos] of Object.entries(cases)) memory.get(config).get(name).push(nanos);
  process.stderr.write(`hidden-item: in-memory round ${round + 1}/${rounds} done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

// 3. Over loopback: a fresh server per round. The order of each block of eight is balanced, so
// that every case follows each operation's other case as often as it precedes it.
const PATTERN = ['GET foreign', 'GET missing', 'DELETE foreign', 'DELETE missing', 'GET missing', 'GET foreign', 'DELETE missing', 'DELETE foreign'].map((name) => {
  const testCase = CASES.find((candidate) => candidate.name === name);
  return { name, requests: requestsOf(testCase) };
});
/** @type {Map<string, { medians: number[], p90s: number[] }>} case -> microseconds, one per round */
const loopback = new Map(CASES.map((testCase) => [testCase.name, { medians: [], p90s: [] }]));
const percentile = (sorted, fraction) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)];
for (let round = 0; round < rounds; round++) {
  const server = await startServer(WORKER, ['serve']);
  const agent = newAgent();
  let changed;
  try {
    const latencies = new Map(CASES.map((testCase) => [testCase.name, new Float64Array(requestsPerCase)]));
    const blocks = WARMUP_REQUESTS / PATTERN.length + requestsPerCase / 2;
    const counts = new Map(CASES.map((testCase) => [testCase.name, 0]));
    measuring: for (let block = 0; block < blocks; block++) {
      const timed = block >= WARMUP_REQUESTS / PATTERN.length;
      for (let step = 0; step < PATTERN.length; step++) {
        const { name, requests } = PATTERN[step];
        const request = requests[(block * 2 + (step >> 2)) & (requests.length - 1)];
        const response = await send(agent, server.port, request.method, request.url);
        if (`${response.status}\n${response.head}\n\n${response.body}` !== httpAnswers.get(request.method)) {
          changed = `${request.method} ${request.url} (${name}) answered differently from the gate during round ${round + 1}: ${response.status} ${response.body}`;
          break measuring;
        }
        if (timed) {
          const count = counts.get(name);
          latencies.get(name)[count] = response.nanos / 1e3;
          counts.set(name, count + 1);
        }
      }
    }
    for (const [name, values] of latencies) {
      const sorted = values.sort();
      loopback.get(name).medians.push(percentile(sorted, 0.5));
      loopback.get(name).p90s.push(percentile(sorted, 0.9));
    }
  } finally {
    agent.destroy();
    await stopServer(server);
  }
  if (changed !== undefined) {
    console.error(changed);
    process.exit(1);
  }
  process.stderr.write(`hidden-item: loopback round ${round + 1}/${rounds} done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
}

// 4. Tables.
const range = (values) => Math.max(...values) - Math.min(...values);
const signed = (value, digits) => `${value >= 0 ? '+' : '−'}${fixed(Math.abs(value), digits)}`;
/**
 * Someone else's item against the missing id, round by round: both were measured in the same round,
 * in turn, so what the machine's drift between rounds does to both cancels out of their difference.
 *
 * @param {number[]} foreign per-round figures of someone else's item
 * @param {number[]} missing per-round figures of the missing id, same rounds
 * @param {number} digits
 */
function compare(foreign, missing, digits) {
  const ratios = foreign.map((value, index) => value / missing[index]);
  const differences = foreign.map((value, index) => value - missing[index]);
  const difference = median(differences);
  return {
    ratio: `${times(median(ratios))} (${times(Math.min(...ratios))} - ${times(Math.max(...ratios))})`,
    difference: `${signed(difference, digits)} (${signed(Math.min(...differences), digits)} - ${signed(Math.max(...differences), digits)})`,
    caseSpread: fixed(Math.max(range(foreign), range(missing)), digits),
    verdict: Math.abs(difference) <= range(differences) ? 'within noise' : `outside noise: ${difference > 0 ? "someone else's item" : 'the missing id'} costs more`,
  };
}

report.log(`\n#### In memory: \`api.handle\`, µs per request${isOtherBuild() ? ` (restcanon from ${describeDist()})` : ''}\n`);
report.log(`| options | operation | someone else's item | missing id | ratio (rounds min - max) | difference (rounds min - max) | a case between rounds | verdict |`);
report.log('|---|---|---:|---:|---:|---:|---:|---|');
for (const config of CONFIGS) {
  for (const method of OPERATIONS) {
    const foreign = memory.get(config.name).get(`${method} foreign`).map((nanos) => nanos / 1e3);
    const missing = memory.get(config.name).get(`${method} missing`).map((nanos) => nanos / 1e3);
    const { ratio, difference, caseSpread, verdict } = compare(foreign, missing, 2);
    report.log(`| ${config.name} | ${method} | ${fixed(median(foreign), 2)} | ${fixed(median(missing), 2)} | ${ratio} | ${difference} | ${caseSpread} | ${verdict} |`);
  }
}

report.log(`\n#### Over loopback: \`toNodeListener\`, default options, µs per request as the client sees it\n`);
report.log(`| operation | someone else's item: median / p90 | missing id: median / p90 | ratio of medians (rounds min - max) | difference of medians (rounds min - max) | a case between rounds | verdict |`);
report.log('|---|---:|---:|---:|---:|---:|---|');
for (const method of OPERATIONS) {
  const foreign = loopback.get(`${method} foreign`);
  const missing = loopback.get(`${method} missing`);
  const { ratio, difference, caseSpread, verdict } = compare(foreign.medians, missing.medians, 1);
  report.log(
    `| ${method} | ${fixed(median(foreign.medians))} / ${fixed(median(foreign.p90s))} | ${fixed(median(missing.medians))} / ${fixed(median(missing.p90s))} | ${ratio} | ${difference} | ${caseSpread} | ${verdict} |`,
  );
}

report.aside('');
report.aside(`- The API: \`collection('projects', { id, owner, read, remove })\` over a Map of 1,000 projects, \`authenticate: () => ({ id: 1 })\`, \`owner: (project, principal) => project.ownerId === principal.id\`, \`createStatusPolicy({ forbidden: 404 })\`. DELETE loads the item through \`read\` before any change; in neither case does \`remove\` run.`);
report.aside(`- Someone else's item: 64 ids that exist and belong to user 2; missing id: 64 ids above the store. All have four digits; each case goes through its ids in turn.`);
report.aside(`- In memory: ${rounds} rounds, one process each pinned to CPU 0; per round and case, the median of ${process.env.BENCH_SLICES ?? 6} mitata measurements (each the median of batches of 256 sequential requests), the two cases of an operation taking turns. Figures: the median over rounds.`);
report.aside(`- Over loopback: ${rounds} rounds, a fresh server pinned to CPU 0 each, the client pinned to CPU 1; per round, ${WARMUP_REQUESTS} requests of warm-up, then ${requestsPerCase} per case, one at a time on one keep-alive connection (node:http Agent), the four cases in a balanced order; latency from the request's start to its response's last byte. Figures: the median over rounds of each round's median and p90.`);
report.aside(
  `- Ratio and difference: someone else's item over (minus) the missing id, round by round, then their median and range over rounds. The two are measured in the same round, in turn, so the machine's drift between rounds cancels out of them. "A case between rounds": the larger of the two cases' spreads (max - min of its per-round figures); it also holds that drift, so it is shown, not used.`,
);
report.aside(`- Verdict: "within noise" when the median difference is no larger than the spread of the rounds' differences (max - min), that is when the rounds do not agree on a difference larger than their own scatter.`);
report.finish();
