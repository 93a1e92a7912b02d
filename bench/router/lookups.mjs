/**
 * Runs one router's lookups a fixed number of times and prints its hits, for
 * bench/router/instructions.mjs to count under callgrind:
 *
 *   node bench/router/lookups.mjs <competitor> <suite> <passes> <constant|fresh>
 *
 * A pass looks up every request of the suite once. Before the counted passes come WARMUP_PASSES
 * passes and, with `--expose-gc` (as instructions.mjs runs it), a garbage collection: the same for
 * every run, so that two runs differ only by the passes asked for.
 */
import { competitorNamed } from './competitors.mjs';
import { checkLookup } from './gate.mjs';
import { suiteNamed } from './routes.mjs';

const WARMUP_PASSES = 40_000;

const [competitorName, suiteName, passesArg, kind] = process.argv.slice(2);
if (kind !== 'constant' && kind !== 'fresh') {
  console.error('usage: node bench/router/lookups.mjs <competitor> <suite> <passes> <constant|fresh>');
  process.exit(2);
}
const suite = suiteNamed(suiteName);
const { lookup } = await competitorNamed(competitorName).create(suite.routes);
const mismatches = checkLookup(lookup, suite);
if (mismatches.length > 0) {
  for (const line of mismatches) console.error(`${competitorName}: ${line}`);
  process.exit(1);
}

const methods = suite.requests.map((request) => request.method);
const paths = suite.requests.map((request) => request.path);
// As in worker.mjs: a new string per lookup is built from bytes, as Node's HTTP parser builds it.
const pathBytes = paths.map((path) => Buffer.from(path, 'latin1'));
const fresh = kind === 'fresh';

/** Module-level, so the params each lookup builds escape and cannot be optimized away. */
export const sink = { handler: /** @type {string | undefined} */ (undefined), params: {} };

/** @param {number} passes */
function run(passes) {
  let hits = 0;
  for (let pass = 0; pass < passes; pass++) {
    for (let index = 0; index < paths.length; index++) {
      lookup(methods[index], fresh ? pathBytes[index].toString('latin1') : paths[index], sink);
      if (sink.handler !== undefined) hits++;
    }
  }
  return hits;
}

run(WARMUP_PASSES);
globalThis.gc?.();
console.log(run(Number(passesArg)));
