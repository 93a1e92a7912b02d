/**
 * Router benchmark: restcanon's router against find-my-way, rou3 (plain and compiled) and Hono's
 * routers, on each route suite of routes.mjs.
 *
 * 1. Correctness gate: every router must return the expected handler id and params for every
 *    request, or the run prints the mismatches and exits 1 before timing anything.
 * 2. Timing: each competitor runs in its own `worker.mjs` process per suite and round, pinned to
 *    CPU 0 with `taskset` where it exists; the order alternates between rounds (A B C, then C B A).
 * 3. One table per suite: the median lookups/s over the rounds, and its ratio to find-my-way's median.
 *
 * Env: BENCH_ROUNDS (default 5); BENCH_WARMUP_MS, BENCH_MEASURE_MS and BENCH_FRESH_PATHS are passed to
 * the workers (see worker.mjs).
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { pinnedNode } from '../machine.mjs';
import { BASELINE, COMPETITORS } from './competitors.mjs';
import { checkLookup } from './gate.mjs';
import { SUITES } from './routes.mjs';

const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
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

for (let round = 0; round < rounds; round++) {
  for (const plan of plans) {
    const order = round % 2 === 0 ? plan.runnable : [...plan.runnable].reverse();
    for (const name of order) {
      const [command, args] = pinnedNode([WORKER, name, plan.suite.name]);
      const child = spawnSync(command, args, { encoding: 'utf8', env: process.env });
      if (child.status !== 0) {
        console.error(`worker ${name} ${plan.suite.name} failed (exit ${child.status}):\n${child.stderr}`);
        process.exit(1);
      }
      const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
      plan.samples.get(name).push(result.lookupsPerSecond);
    }
  }
  process.stderr.write(`router: round ${round + 1}/${rounds} done\n`);
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
  const baseline = median(plan.samples.get(BASELINE));
  const rows = plan.runnable
    .map((name) => {
      const samples = plan.samples.get(name);
      return { name, median: median(samples), min: Math.min(...samples), max: Math.max(...samples) };
    })
    .sort((a, b) => b.median - a.median);
  console.log(`\n### Router lookups: ${plan.suite.title}; ${pathMode}\n`);
  console.log(`| competitor | lookups/s (median of ${rounds}) | vs ${BASELINE} | rounds min-max |`);
  console.log('|---|---:|---:|---:|');
  for (const row of rows) {
    console.log(`| ${row.name} | ${millions(row.median)} | ${(row.median / baseline).toFixed(2)}x | ${millions(row.min)} - ${millions(row.max)} |`);
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
console.log(`\nrouter: ${rounds} rounds, one pinned process per competitor, suite and round; ${((Date.now() - started) / 1000).toFixed(1)} s`);
