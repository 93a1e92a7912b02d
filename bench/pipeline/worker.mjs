/**
 * Times one competitor on every case of competitors.mjs in this process, then prints one JSON line:
 * `{ competitor, cases: { [case]: { opsPerSecond, batches } } }`, opsPerSecond being the median of
 * about 10 ms batches of sequential `await handle(request)`.
 *
 *   node bench/pipeline/worker.mjs <competitor>
 *
 * Env: BENCH_WARMUP_MS (default 250) and BENCH_MEASURE_MS (default 500), per case.
 */
import { CASES, competitorNamed } from './competitors.mjs';

const BATCH_TARGET_MS = 10;

const competitorName = process.argv[2];
if (competitorName === undefined) {
  console.error('usage: node bench/pipeline/worker.mjs <competitor>');
  process.exit(2);
}
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 250);
const measureMs = Number(process.env.BENCH_MEASURE_MS ?? 500);
const competitor = competitorNamed(competitorName);
const handle = await competitor.create();

/** Module-level, so results escape and cannot be optimized away. */
export const sink = { last: /** @type {unknown} */ (undefined) };

/**
 * Sends the request `count` times, one after the other; returns how many answers had the expected status.
 * @param {import('./competitors.mjs').Request} request
 * @param {number} status
 * @param {number} count
 */
async function run(request, status, count) {
  let ok = 0;
  for (let index = 0; index < count; index++) {
    const response = await handle(request);
    if (response.status === status) ok++;
    sink.last = response.payload;
  }
  return ok;
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

const results = {};
for (const { name, request, status } of CASES) {
  // Calibrate a batch to about BATCH_TARGET_MS so the clock is read rarely against the work timed.
  let count = 1;
  for (;;) {
    const started = nowMs();
    await run(request, status, count);
    if (nowMs() - started >= BATCH_TARGET_MS / 4 || count >= 1 << 22) break;
    count *= 2;
  }
  const warmupEnd = nowMs() + warmupMs;
  while (nowMs() < warmupEnd) await run(request, status, count);
  {
    const started = nowMs();
    await run(request, status, count);
    count = Math.max(1, Math.round((count * BATCH_TARGET_MS) / Math.max(nowMs() - started, 0.001)));
  }
  // The median of ~10 ms batches: a batch another process preempted is an outlier to drop.
  const batchRates = [];
  let elapsedMs = 0;
  while (elapsedMs < measureMs) {
    const started = nowMs();
    const ok = await run(request, status, count);
    const batchMs = nowMs() - started;
    elapsedMs += batchMs;
    batchRates.push((count * 1000) / batchMs);
    if (ok !== count) {
      console.error(`${competitor.name} ${name}: ${count - ok} of ${count} answers without status ${status}`);
      process.exit(1);
    }
  }
  batchRates.sort((a, b) => a - b);
  results[name] = { opsPerSecond: batchRates[batchRates.length >> 1], batches: batchRates.length };
}

console.log(JSON.stringify({ competitor: competitor.name, cases: results }));
