/**
 * Pipeline benchmark: `api.handle` in memory (no HTTP) against a hand-written handler doing the same
 * work, for a GET of an item (zod-coerced id), a POST create (zod body), a 404 and a 405.
 *
 * 1. Correctness gate: both answer every case with the same status, headers and payload, or the run
 *    prints the differences and exits 1 before timing anything.
 * 2. Timing: one worker.mjs process per competitor and round, pinned to CPU 0 with `taskset` where it
 *    exists; the order alternates between rounds.
 * 3. One table: the median operations/s per case over the rounds, and the ratio to the hand-written
 *    handler's median. Written to bench/results/pipeline.md (see ../lib/report.mjs).
 *
 * Env: BENCH_ROUNDS (default 5); BENCH_WARMUP_MS and BENCH_MEASURE_MS go to the workers.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { altDist, describeDist, snapshotDist } from '../lib/dist.mjs';
import { createReport, isOtherBuild } from '../lib/report.mjs';
import { fixed, median, rate, times } from '../lib/stats.mjs';
import { pinnedNode } from '../machine.mjs';
import { BASELINE, CASES, checkCases, COMPETITORS } from './competitors.mjs';

snapshotDist();
const WORKER = fileURLToPath(new URL('./worker.mjs', import.meta.url));
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const report = createReport('pipeline', { RESTCANON_DIST: isOtherBuild(), BENCH_ALT_DIST: altDist() !== undefined });

const handlers = new Map();
for (const competitor of COMPETITORS) handlers.set(competitor.name, await competitor.create());
const mismatches = await checkCases(handlers);
if (mismatches.length > 0) {
  for (const line of mismatches) console.error(`MISMATCH ${line}`);
  console.error('Correctness gate failed: no timing was run.');
  process.exit(1);
}
report.log(`Correctness gate passed: ${CASES.length} cases x ${COMPETITORS.length} competitors give the same status, headers and payload.`);

/** @type {Map<string, Map<string, number[]>>} competitor -> case -> samples */
const samples = new Map(COMPETITORS.map((competitor) => [competitor.name, new Map(CASES.map((testCase) => [testCase.name, []]))]));
const names = COMPETITORS.map((competitor) => competitor.name);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  for (const name of order) {
    const [command, args] = pinnedNode([WORKER, name]);
    const child = spawnSync(command, args, { encoding: 'utf8', env: process.env });
    if (child.status !== 0) {
      console.error(`worker ${name} failed (exit ${child.status}):\n${child.stderr}`);
      process.exit(1);
    }
    const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
    for (const [caseName, { opsPerSecond }] of Object.entries(result.cases)) samples.get(name).get(caseName).push(opsPerSecond);
  }
  process.stderr.write(`pipeline: round ${round + 1}/${rounds} done\n`);
}

report.log(`\n#### api.handle against a hand-written handler${isOtherBuild() ? ` (restcanon from ${describeDist()})` : ''}\n`);
report.log(`| case | competitor | ops/s (median of ${rounds}) | µs/op | vs ${BASELINE} | rounds min-max |`);
report.log('|---|---|---:|---:|---:|---:|');
for (const testCase of CASES) {
  const baseline = median(samples.get(BASELINE).get(testCase.name));
  for (const name of names) {
    const values = samples.get(name).get(testCase.name);
    const value = median(values);
    report.log(`| ${testCase.name} | ${name} | ${rate(value)} | ${fixed(1e6 / value, 2)} | ${times(value / baseline)} | ${rate(Math.min(...values))} - ${rate(Math.max(...values))} |`);
  }
}
report.aside('');
for (const testCase of CASES) report.aside(`- ${testCase.name}: ${testCase.description}.`);
for (const competitor of COMPETITORS) report.aside(`- ${competitor.name}: ${competitor.description}.`);
report.log(`\n${rounds} rounds, one pinned process per competitor and round, the order alternating.`);
report.finish();
