/**
 * Router benchmark: restcanon's router against find-my-way, rou3 (plain and compiled) and Hono's
 * routers, on each route suite of routes.mjs.
 *
 * 1. Correctness gate: every router must return the expected handler id and params for every
 *    request, or the run prints the mismatches and exits 1 before timing anything.
 * 2. Timing: per suite and kind of path string (a new string per lookup, then the same string
 *    constants), every competitor runs in its own `worker.mjs` process, all at once, pinned to CPU 0
 *    with `taskset` where it exists; after a warm-up each, they take turns measuring short spans, the
 *    order alternating between rounds (A B C, then C B A). Then again with fresh processes.
 * 3. One table per suite: per kind of path string, the median lookups/s over the spans, and the
 *    median ratio of each span to find-my-way's span of the same round. Written to
 *    bench/results/router.md (see ../lib/report.mjs).
 *
 * Env: BENCH_ROUNDS (rounds per set of processes, default 5), BENCH_ROUTER_PROCESSES (sets, default
 * 3), BENCH_WARMUP_MS (default 250), BENCH_MEASURE_MS (span, default 200); BENCH_FRESH_PATHS=1 times
 * only new path strings, BENCH_FRESH_PATHS=0 only constants (either run leaves bench/results/ alone).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createReport } from '../lib/report.mjs';
import { median } from '../lib/stats.mjs';
import { pinnedNode } from '../machine.mjs';
import { BASELINE, COMPETITORS } from './competitors.mjs';
import { checkLookup } from './gate.mjs';
import { SUITES } from './routes.mjs';

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const processSets = Number(process.env.BENCH_ROUTER_PROCESSES ?? 3);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 250);
const spanMs = Number(process.env.BENCH_MEASURE_MS ?? 200);
/**
 * The kinds of path string, each a value of BENCH_FRESH_PATHS for the workers (see worker.mjs). A
 * server gets a new string per request; constant strings are what published router benchmarks time.
 */
const ALL_PATH_MODES = [
  { fresh: '1', label: 'a new path string per lookup', column: 'new strings' },
  { fresh: '0', label: 'constant path strings', column: 'constant strings' },
];
const onlyMode = process.env.BENCH_FRESH_PATHS;
const PATH_MODES = onlyMode === undefined || onlyMode === '' ? ALL_PATH_MODES : ALL_PATH_MODES.filter((mode) => mode.fresh === (onlyMode === '1' ? '1' : '0'));
const report = createReport('router', { BENCH_FRESH_PATHS: PATH_MODES.length !== ALL_PATH_MODES.length });

/**
 * @typedef {{ suite: import('./routes.mjs').RouteSuite, runnable: string[], notes: string[], samples: Map<string, Map<string, number[]>> }} SuitePlan
 * `samples`: per kind of path string (its BENCH_FRESH_PATHS value), per competitor, one rate per span.
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
  }
  for (const mode of PATH_MODES) plan.samples.set(mode.fresh, new Map(plan.runnable.map((name) => [name, []])));
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
report.log(`Correctness gate passed: ${plans.map((plan) => `${plan.suite.requests.length} requests x ${plan.runnable.length} routers (${plan.suite.name})`).join(', ')}.`);

/**
 * Starts a worker for one competitor and suite that stays alive and measures on request (see
 * worker.mjs), pinned to CPU 0 like every other worker; it sits idle while another one measures.
 */
async function startWorker(name, suiteName, fresh) {
  const [command, args] = pinnedNode([WORKER, name, suiteName]);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env: { ...process.env, BENCH_FRESH_PATHS: fresh } });
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
for (const mode of PATH_MODES) {
  for (const plan of plans) {
    const samples = plan.samples.get(mode.fresh);
    for (let set = 0; set < processSets; set++) {
      const workers = new Map();
      try {
        for (const name of plan.runnable) workers.set(name, await startWorker(name, plan.suite.name, mode.fresh));
        for (const worker of workers.values()) await worker.ask({ warmup: warmupMs });
        for (let round = 0; round < rounds; round++) {
          const order = (set * rounds + round) % 2 === 0 ? plan.runnable : [...plan.runnable].reverse();
          for (const name of order) {
            const result = await workers.get(name).ask({ measure: spanMs });
            samples.get(name).push(result.lookupsPerSecond);
          }
        }
      } finally {
        for (const worker of workers.values()) await worker.stop();
      }
      process.stderr.write(`router: ${plan.suite.name}, ${mode.label}, process set ${set + 1}/${processSets} done\n`);
    }
  }
}

/** @param {number} perSecond */
const millions = (perSecond) => `${(perSecond / 1e6).toFixed(2)} M`;

for (const plan of plans) {
  const baseline = (fresh) => plan.samples.get(fresh).get(BASELINE);
  const rows = plan.runnable.map((name) => ({
    name,
    modes: PATH_MODES.map((mode) => {
      const samples = plan.samples.get(mode.fresh).get(name);
      // Each span against the baseline's span of the same round, taken next to it.
      const ratio = median(samples.map((value, index) => value / baseline(mode.fresh)[index]));
      return { median: median(samples), ratio, min: Math.min(...samples), max: Math.max(...samples) };
    }),
  }));
  // Ordered by the first kind of path string: a new string per lookup, as a server sees them.
  rows.sort((a, b) => b.modes[0].ratio - a.modes[0].ratio);
  report.log(`\n#### ${plan.suite.title}\n`);
  report.log(`| competitor | ${PATH_MODES.map((mode) => `${mode.column}: lookups/s | vs ${BASELINE} | min-max`).join(' | ')} |`);
  report.log(`|---|${PATH_MODES.map(() => '---:|---:|---:|').join('')}`);
  for (const row of rows) {
    report.log(`| ${row.name} | ${row.modes.map((mode) => `${millions(mode.median)} | ${mode.ratio.toFixed(2)}x | ${millions(mode.min)} - ${millions(mode.max)}`).join(' | ')} |`);
  }
  if (plan.notes.length > 0) report.log('');
  for (const note of plan.notes) report.log(`- ${note}`);
}

report.log('\nEach lookup: the handler for the method and path, and a plain params object (built, not lazy).');
for (const competitor of COMPETITORS) report.log(`- ${competitor.name}: ${competitor.description}`);
report.log(
  `\nMedians of ${rounds * processSets} spans of ${spanMs} ms per competitor and kind of path string (${processSets} sets of processes x ${rounds} rounds, one pinned process per competitor in each set, taking turns); "vs ${BASELINE}": the median of each span over the baseline's span of the same round.`,
);
report.finish();
