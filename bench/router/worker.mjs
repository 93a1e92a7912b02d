/**
 * Times one router on one route suite in this process, then prints one JSON line:
 * `{ competitor, suite, lookupsPerSecond, batches, elapsedMs }`, lookupsPerSecond being the median of
 * about 10 ms batches.
 *
 *   node bench/router/worker.mjs <competitor> [suite]
 *
 * One process per competitor keeps each router's JIT state its own: timed side by side in one
 * process, find-my-way moved by 1.8x depending on what ran before it. Spawned with an IPC channel
 * (as index.mjs does), the process stays alive and measures on request; run by hand, it warms up,
 * measures once and prints.
 * Env: BENCH_WARMUP_MS (default 250), BENCH_MEASURE_MS (default 500), BENCH_FRESH_PATHS=1 (a new
 * path string per lookup, as a server sees, instead of the same string constants).
 */
import { competitorNamed } from './competitors.mjs';
import { suiteNamed } from './routes.mjs';
import { checkLookup } from './gate.mjs';

const BATCH_TARGET_MS = 10;

const [competitorName, suiteName = 'rest'] = process.argv.slice(2);
if (competitorName === undefined) {
  console.error('usage: node bench/router/worker.mjs <competitor> [suite]');
  process.exit(2);
}
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 250);
const measureMs = Number(process.env.BENCH_MEASURE_MS ?? 500);
const freshPaths = process.env.BENCH_FRESH_PATHS === '1';

const competitor = competitorNamed(competitorName);
const suite = suiteNamed(suiteName);
const { lookup } = await competitor.create(suite.routes);

const mismatches = checkLookup(lookup, suite);
if (mismatches.length > 0) {
  for (const line of mismatches) console.error(`${competitor.name}: ${line}`);
  process.exit(1);
}

const methods = suite.requests.map((request) => request.method);
const paths = suite.requests.map((request) => request.path);
const expectedHits = suite.requests.filter((request) => request.expected !== null).length;

/** Module-level, so the params each lookup builds escape and cannot be optimized away. */
export const sink = { handler: /** @type {string | undefined} */ (undefined), params: {} };

/**
 * Runs the request list `passes` times; returns the number of hits so the loop's result is used.
 * @param {number} passes
 */
function runConstantPaths(passes) {
  let hits = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (let index = 0; index < paths.length; index++) {
      lookup(methods[index], paths[index], sink);
      if (sink.handler !== undefined) hits++;
    }
  }
  return hits;
}

// A server gets a new path string per request. A string literal is internalized with its hash cached,
// so `path === '/user'` is a pointer comparison and `map.get(path)` hashes nothing: constant paths
// flatter the routers that compare or look up the whole path.
const pathBytes = paths.map((path) => Buffer.from(path, 'latin1'));

/**
 * Like runConstantPaths, with a new string per lookup, built from bytes as the HTTP parser does.
 * @param {number} passes
 */
function runFreshPaths(passes) {
  let hits = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (let index = 0; index < paths.length; index++) {
      lookup(methods[index], pathBytes[index].toString('latin1'), sink);
      if (sink.handler !== undefined) hits++;
    }
  }
  return hits;
}

const run = freshPaths ? runFreshPaths : runConstantPaths;

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

// Calibrate a batch to about BATCH_TARGET_MS so the clock is read rarely against the work timed.
let passes = 1;
for (;;) {
  const started = nowMs();
  run(passes);
  if (nowMs() - started >= BATCH_TARGET_MS / 4 || passes >= 1 << 24) break;
  passes *= 2;
}

/** Runs batches for `spanMs` and returns the median batch rate, in lookups per second. */
function measure(spanMs) {
  // The median of ~10 ms batches, not the total: on a shared machine a batch that another process
  // preempted is an outlier to drop, not time to average in.
  const batchRates = [];
  let elapsedMs = 0;
  while (elapsedMs < spanMs) {
    const started = nowMs();
    const hits = run(passes);
    const batchMs = nowMs() - started;
    elapsedMs += batchMs;
    batchRates.push((passes * paths.length * 1000) / batchMs);
    if (hits !== passes * expectedHits) {
      console.error(`${competitor.name}: ${hits} hits in ${passes} passes, expected ${passes * expectedHits}`);
      process.exit(1);
    }
  }
  batchRates.sort((a, b) => a - b);
  return { lookupsPerSecond: batchRates[batchRates.length >> 1], batches: batchRates.length, elapsedMs };
}

/** Warms up for `spanMs`, then sizes the batches to about BATCH_TARGET_MS. */
function warmUp(spanMs) {
  const warmupEnd = nowMs() + spanMs;
  while (nowMs() < warmupEnd) run(passes);
  const started = nowMs();
  run(passes);
  passes = Math.max(1, Math.round((passes * BATCH_TARGET_MS) / Math.max(nowMs() - started, 0.001)));
}

if (process.send === undefined) {
  warmUp(warmupMs);
  console.log(JSON.stringify({ competitor: competitor.name, suite: suite.name, ...measure(measureMs) }));
} else {
  // Driven over IPC by index.mjs, which keeps one process per competitor alive and asks each in turn
  // for short spans: `{ warmup: ms }`, `{ measure: ms }` (answered with the figures), `{ exit: true }`.
  process.on('message', (message) => {
    if (message.exit) process.exit(0);
    if (message.warmup !== undefined) {
      warmUp(message.warmup);
      process.send({ ready: true });
    } else {
      process.send({ competitor: competitor.name, suite: suite.name, ...measure(message.measure) });
    }
  });
  process.send({ started: true });
}
