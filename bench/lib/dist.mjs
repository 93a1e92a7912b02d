/**
 * Where the benchmarks load restcanon from. Other processes may rebuild dist/ while a benchmark
 * runs (a half-written chunk would fail an import or time a different build), so a run copies dist/
 * once into a temp folder and every process of the run loads that copy.
 *
 * RESTCANON_DIST=/path/to/dist points every benchmark at another build, such as a patched copy:
 *   RESTCANON_DIST=/tmp/patched/dist node bench/run.mjs http
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PROJECT_DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/**
 * Copies dist/ into a temp folder and points RESTCANON_DIST at it (children inherit it), unless
 * RESTCANON_DIST is already set. The copy is removed when this process exits.
 *
 * @returns {string} the folder restcanon is loaded from
 */
export function snapshotDist() {
  const given = process.env.RESTCANON_DIST;
  if (given !== undefined && given !== '') return given;
  if (!existsSync(join(PROJECT_DIST, 'index.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (or `npm run bench`, which builds first)');
  }
  const folder = mkdtempSync(join(tmpdir(), 'restcanon-bench-'));
  const copy = join(folder, 'dist');
  cpSync(PROJECT_DIST, copy, { recursive: true });
  process.env.RESTCANON_DIST = copy;
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  return copy;
}

/**
 * Imports one entry of restcanon's build (`index.js`, `node.js`, `fastify.js`, ...) from
 * RESTCANON_DIST, or from the project's dist/ when it is not set.
 *
 * @param {string} entry
 * @param {string} [from] another build's folder
 * @returns {Promise<any>}
 */
export function importRestcanon(entry, from) {
  const folder = from || process.env.RESTCANON_DIST || PROJECT_DIST;
  return import(pathToFileURL(join(folder, entry)).href);
}

/** @returns {string} a short description of where restcanon is loaded from, for the output */
export function describeDist() {
  const folder = process.env.RESTCANON_DIST;
  return folder === undefined || folder === '' ? 'dist/' : folder.includes('restcanon-bench-') ? 'a copy of dist/ taken at the start of the run' : folder;
}

/**
 * A second build to time side by side with the first, in the same run and the same interleaved
 * rounds: BENCH_ALT_DIST=/tmp/patched/dist adds a "(alt)" row next to every restcanon row of the
 * pipeline and http benchmarks, so that a change is measured against the build it changes.
 *
 * @returns {string | undefined}
 */
export function altDist() {
  const folder = process.env.BENCH_ALT_DIST;
  return folder === undefined || folder === '' ? undefined : folder;
}

/** The suffix of the rows that load the BENCH_ALT_DIST build. */
export const ALT_SUFFIX = ' (alt)';

/**
 * A server name from the command line of the A/B tools, which may end in `@<dist folder>`: the
 * server, and the build of restcanon it loads (`fallback` without a folder).
 *
 * @param {string} spec such as `restcanon/node@/tmp/before/dist`
 * @param {string} fallback
 * @returns {[name: string, dist: string]}
 */
export function serverAndDist(spec, fallback) {
  const at = spec.lastIndexOf('@');
  return at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, fallback];
}
