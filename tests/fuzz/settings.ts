/**
 * How long and with which seed the fuzz properties run. `npm test` runs them with a fixed seed and a
 * bounded number of runs; `npm run fuzz` (scripts/fuzz.mjs) sets these variables for long runs:
 *
 * | variable        | meaning                                                                    |
 * |-----------------|----------------------------------------------------------------------------|
 * | `FUZZ_SEED`     | the seed of every property (default {@link FIXED_SEED})                      |
 * | `FUZZ_RUNS`     | runs per target, instead of the defaults below                             |
 * | `FUZZ_DURATION` | seconds for all selected targets together; then runs are unbounded        |
 * | `FUZZ_TARGET`   | `all` or one of {@link TARGETS}                                              |
 * | `FUZZ_PATH`     | a counterexample path that fast-check printed, to replay it directly       |
 * | `FUZZ_REPORT`   | a file that gets one JSON line per property: its target, runs and outcome   |
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

/** The seed of `npm test`: a failure there reproduces on every machine. */
export const FIXED_SEED = 20_260_517;

/** What the request properties run against: the in-memory pipeline, then each adapter over HTTP. */
export const TARGETS = ['handle', 'node', 'express5', 'express4', 'fastify', 'fetch'] as const;
export type Target = (typeof TARGETS)[number];

/** Runs per target in `npm test`: enough to reach every branch the generators aim at, in a few seconds. */
const DEFAULT_RUNS: Readonly<Record<Target, number>> = { handle: 1000, node: 400, express5: 400, express4: 400, fastify: 400, fetch: 400 };

const env = process.env;
const seed = env.FUZZ_SEED === undefined ? FIXED_SEED : Number(env.FUZZ_SEED);
const durationMs = env.FUZZ_DURATION === undefined ? undefined : Number(env.FUZZ_DURATION) * 1000;
const runsOverride = env.FUZZ_RUNS === undefined ? undefined : Number(env.FUZZ_RUNS);
const selected = env.FUZZ_TARGET === undefined || env.FUZZ_TARGET === 'all' ? [...TARGETS] : env.FUZZ_TARGET.split(',');

for (const [name, value] of [['FUZZ_SEED', seed], ['FUZZ_DURATION', durationMs], ['FUZZ_RUNS', runsOverride]] as const) {
  if (value !== undefined && !Number.isSafeInteger(Math.round(value))) throw new TypeError(`${name} must be a number, got ${JSON.stringify(env[name])}`);
}
for (const name of selected) {
  if (!(TARGETS as readonly string[]).includes(name)) throw new TypeError(`FUZZ_TARGET must be "all" or one of ${TARGETS.join(', ')}, got "${name}"`);
}

/** The seed of this run: {@link FIXED_SEED} unless `FUZZ_SEED` says otherwise. */
export function runSeed(): number {
  return seed;
}

/** Whether this run fuzzes a target. */
export function isSelected(target: Target): boolean {
  return selected.includes(target);
}

/**
 * How often, in runs, the full `@fast-check/poisoning` check runs (it is slow): every run in
 * `npm test`, every 20th in a long run, where the cheap check of the built-in prototypes still runs
 * after every request and pollution, once there, stays for the next full check to name it.
 */
export function poisoningInterval(): number {
  return durationMs === undefined ? 1 : 20;
}

/** The vitest timeout of one target's test: its time budget plus room for start-up and shrinking. */
export function testTimeout(): number {
  return durationMs === undefined ? 60_000 : budgetMs() + 120_000;
}

function budgetMs(): number {
  return Math.max(1000, Math.floor((durationMs ?? 0) / selected.length));
}

/** The fast-check parameters of one target: fixed runs, or a time budget (its share of the duration). */
export function parametersFor(target: Target): fc.Parameters<unknown> {
  const parameters: fc.Parameters<unknown> = { seed, endOnFailure: false };
  if (env.FUZZ_PATH !== undefined) parameters.path = env.FUZZ_PATH;
  if (durationMs !== undefined) {
    parameters.numRuns = Number.MAX_SAFE_INTEGER;
    parameters.plugins = [fc.interruptAfterTimeLimit(budgetMs())];
  } else {
    parameters.numRuns = runsOverride ?? DEFAULT_RUNS[target];
  }
  return parameters;
}

/** What one target's property did, for scripts/fuzz.mjs to print. */
export interface TargetReport {
  target: Target;
  seed: number;
  runs: number;
  requests: number;
  failed: boolean;
  counterexamplePath?: string | null;
  message?: string;
}

/** Appends a report line when `FUZZ_REPORT` names a file; `npm test` sets none. */
export function report(line: TargetReport): void {
  if (env.FUZZ_REPORT === undefined) return;
  appendFileSync(env.FUZZ_REPORT, JSON.stringify(line) + '\n');
}

/**
 * Runs a property with the target's parameters, reports it, and throws fast-check's own report (with
 * the seed and the counterexample path) when it fails. `requests` counts what was actually sent,
 * shrinking included.
 */
export async function checkTarget<Ts extends unknown[]>(target: Target, property: fc.IAsyncPropertyWithHooks<Ts>, requests: () => number): Promise<void> {
  const details = await fc.check(property, parametersFor(target));
  const failure = details.errorInstance instanceof Error ? `${details.errorInstance.message}\n` : details.failed ? `${String(details.errorInstance)}\n` : '';
  const message = details.failed ? `${failure}${fc.defaultReportMessage(details) ?? ''}` : undefined;
  report({
    target,
    seed: details.seed,
    runs: details.numRuns,
    requests: requests(),
    failed: details.failed,
    counterexamplePath: details.counterexamplePath,
    ...(message === undefined ? {} : { message }),
  });
  if (details.failed) throw new Error(message, { cause: details.errorInstance });
}
