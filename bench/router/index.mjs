/**
 * Router benchmark: restcanon's router against find-my-way, rou3 (plain and compiled) and Hono's
 * routers, on each route suite of routes.mjs.
 *
 * 1. Correctness gate: every router must return the expected handler id and params for every
 *    request, or the run prints the mismatches and exits 1 before timing anything.
 * 2. Timing: per suite, every competitor runs in its own `worker.mjs` process, all at once, pinned to
 *    CPU 0 with `taskset` where it exists; after a warm-up each, they take turns measuring short spans,
 *    the order alternating between rounds (A B C, then C B A). Then again with fresh processes.
 * 3. One table per suite: the median lookups/s over the spans, and the median ratio of each span to
 *    find-my-way's span of the same round.
 *
 * Env: BENCH_ROUNDS (rounds per set of processes, default 5), BENCH_ROUTER_PROCESSES (sets, default
 * 3), BENCH_WARMUP_MS (default 250), BENCH_MEASURE_MS (span, default 200); BENCH_FRESH_PATHS is
 * passed to the workers (see worker.mjs).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { pinnedNode } from '../machine.mjs';
import { BASELINE, COMPETITORS } from './competitors.mjs';
import { checkLookup } from './gate.mjs';
import { SUITES } from './routes.mjs';

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const processSets = Number(process.env.BENCH_ROUTER_PROCESSES ?? 3);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 250);
const spanMs = Number(process.env.BENCH_MEASURE_MS ?? 200);
const pathMode = process.env.BENCH_FRESH_PATHS === '1' ? 'a new path string per lookup' : 'constant path strings';
const started = Date.now();
const loadAtStart = loadavg()[0];

/**
 * @typedef {{ suite: import('./routes.mjs').RouteSuite, runnable: string[], notes: string[], samples: Map<string, number[]> }} SuitePlan
 */

/** @type {SuitePlan[]} */
const plans = [];
let failed = false;
for (const suite of SUITES) {
  /** @type {SuitePlan} */
  const plan = { suite, runnable: [], notes: suite.note === undefined ? [] : [suite.note], samples: new Map() };
  for (const competitor of COMPETITORS) {
    let created;
    try {
      created = await competitor.create(suite.routes);
    } catch (error) {
      // A router that rejects the route table is a result too: report it instead of hiding the suite.
      plan.notes.push(`${competitor.name} is not timed: it rejects this route table (${error?.constructor?.name ?? 'Error'}: ${error?.message}).`);
      continue;
    }
    const mismatches = checkLookup(created.lookup, suite);
    for (const line of mismatches) console.error(`MISMATCH [${suite.name}] ${competitor.name}: ${line}`);
    if (mismatches.length > 0) failed = true;
    if (created.note !== undefined) plan.notes.push(`${competitor.name}: ${created.note}.`);
    plan.runnable.push(competitor.name);
    plan.samples.set(competitor.name, []);
  }
  if (!plan.runnable.includes(BASELINE)) {
    console.error(`[${suite.name}] the baseline ${BASELINE} cannot run this suite`);
    failed = true;
  }
  plans.push(plan);
}
if (failed) {
  console.error('Correctness gate failed: no timing was run.');
  process.exit(1);
}
console.log(`Correctness gate passed: ${plans.map((plan) => `${plan.suite.requests.length} requests x ${plan.runnable.length} routers (${plan.suite.name})`).join(', ')}.`);

/**
 * Starts a worker for one competitor and suite that stays alive and measures on request (see
 * worker.mjs), pinned to CPU 0 like every other worker; it sits idle while another one measures.
 */
async function startWorker(name, suiteName) {
  const [command, args] = pinnedNode([WORKER, name, suiteName]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: process.env });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const next = () =>
    Promise.race([
      new Promise((resolve) => child.once('message', resolve)),
      exited.then((code) => {
        throw new Error(`worker ${name} ${suiteName} exited (${code})`);
      }),
    ]);
  await next();
  return {
    /** Sends a request and resolves to the worker's answer. */
    ask(message) {
      const answer = next();
      child.send(message);
      return answer;
    },
    stop() {
      child.send({ exit: true });
      return exited;
    },
  };
}

// The competitors of a suite run side by side, one process each, and take turns in short spans
// (A B C, then C B A, ...): this VM's speed drifts by 20% within seconds, and spans taken seconds
// apart (one process per competitor and round, as this benchmark first did) compared the drift as
// much as the routers. Fresh processes BENCH_ROUTER_PROCESSES times, because a router's speed can
// differ from one process to the next (the JIT's choices), and each set is a sample of that too.
for (const plan of plans) {
  for (let set = 0; set < processSets; set++) {
    const workers = new Map();
    try {
      for (const name of plan.runnable) workers.set(name, await startWorker(name, plan.suite.name));
      for (const worker of workers.values()) await worker.ask({ warmup: warmupMs });
      for (let round = 0; round < rounds; round++) {
        const order = (set * rounds + round) % 2 === 0 ? plan.runnable : [...plan.runnable].reverse();
        for (const name of order) {
          const result = await workers.get(name).ask({ measure: spanMs });
          plan.samples.get(name).push(result.lookupsPerSecond);
        }
      }
    } finally {
      for (const worker of workers.values()) await worker.stop();
    }
    process.stderr.write(`router: ${plan.suite.name}, process set ${set + 1}/${processSets} done\n`);
  }
}

/** @param {number[]} values */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** @param {number} perSecond */
const millions = (perSecond) => `${(perSecond / 1e6).toFixed(2)} M`;

for (const plan of plans) {
  const baseline = plan.samples.get(BASELINE);
  const rows = plan.runnable
    .map((name) => {
      const samples = plan.samples.get(name);
      // Each span against the baseline's span of the same round, taken next to it.
      const ratio = median(samples.map((value, index) => value / baseline[index]));
      return { name, median: median(samples), ratio, min: Math.min(...samples), max: Math.max(...samples) };
    })
    .sort((a, b) => b.ratio - a.ratio);
  console.log(`\n### Router lookups: ${plan.suite.title}; ${pathMode}\n`);
  console.log(`| competitor | lookups/s (median of ${rounds * processSets}) | vs ${BASELINE} | spans min-max |`);
  console.log('|---|---:|---:|---:|');
  for (const row of rows) {
    console.log(`| ${row.name} | ${millions(row.median)} | ${row.ratio.toFixed(2)}x | ${millions(row.min)} - ${millions(row.max)} |`);
  }
  if (plan.notes.length > 0) console.log('');
  for (const note of plan.notes) console.log(`- ${note}`);
}

console.log('\nEach lookup: the handler for the method and path, and a plain params object (built, not lazy).');
for (const competitor of COMPETITORS) console.log(`- ${competitor.name}: ${competitor.description}`);
const loadAtEnd = loadavg()[0];
// A timed worker is one busy process; a 1-minute load average well above 1 means others shared the CPUs.
if (Math.max(loadAtStart, loadAtEnd) > 1.5) {
  console.log(`\nWARNING: load average ${loadAtStart.toFixed(2)} at start, ${loadAtEnd.toFixed(2)} at end: other processes competed for the CPUs; trust the ratios more than the absolute numbers, and rerun on a quiet machine.`);
}
console.log(`\nrouter: ${processSets} sets of processes x ${rounds} rounds of ${spanMs} ms spans, one pinned process per competitor and suite in each set, taking turns; \"vs ${BASELINE}\" is the median of each span over the baseline's span of the same round; ${((Date.now() - started) / 1000).toFixed(1)} s`);
