/**
 * What a benchmark prints is what the benchmarks page shows. Every line a benchmark reports goes to
 * stdout and, when a run completes, into `bench/results/<name>.md`, which bench/page.mjs assembles
 * into BENCHMARKS.md. So running one benchmark refreshes its part of the page and nothing else.
 *
 * A run that measures something other than the page's subject (another build of restcanon, a subset
 * of the servers, a control run, a profiled server) prints its tables and writes nothing. A run with
 * shorter or longer settings (BENCH_ROUNDS, BENCH_HTTP_SECONDS, ...) does write, and its results say
 * which settings it used.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine } from '../machine.mjs';
import { loadWatch } from './stats.mjs';

/** The folder of the results files, committed with the page. */
export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

/** Variables that only the benchmark machinery sets, never a reader. */
const INTERNAL = new Set(['BENCH_PINNED_CPU']);

/**
 * True when RESTCANON_DIST names a build given by the reader, not the copy of dist/ the run took.
 */
export function isOtherBuild() {
  const folder = process.env.RESTCANON_DIST;
  return folder !== undefined && folder !== '' && !folder.includes('restcanon-bench-');
}

/** @returns {string} the BENCH_* variables of this run, or "defaults" */
function settings() {
  const set = Object.entries(process.env)
    .filter(([name, value]) => name.startsWith('BENCH_') && !INTERNAL.has(name) && value !== undefined && value !== '')
    .map(([name, value]) => `\`${name}=${value}\``)
    .sort();
  return set.length === 0 ? 'defaults' : set.join(', ');
}

/**
 * Starts the report of one benchmark.
 *
 * @example
 * const report = createReport('pipeline', { BENCH_ALT_DIST: altDist() !== undefined });
 * report.log('| case | ops/s |');
 * report.finish();
 *
 * @param {string} name the benchmark's name in bench/run.mjs, and its results file's
 * @param {Record<string, boolean>} [exploring] per variable, whether it makes this run exploratory
 * @param {{ timed?: boolean }} [options] `timed: false` for a measurement that other processes
 *   cannot move (a size): its results leave out the load average
 */
export function createReport(name, exploring = {}, { timed = true } = {}) {
  const started = Date.now();
  const load = loadWatch();
  /** @type {string[]} */
  const lines = [];
  const reasons = Object.entries(exploring)
    .filter(([, explores]) => explores)
    .map(([variable]) => variable);
  /** Prints a line of the results, and keeps it for the results file. */
  const log = (text = '') => {
    console.log(text);
    lines.push(text);
  };
  return {
    log,
    /**
     * Prints a line that explains the tables without being a result (what a column means, how the
     * cases are built): the benchmarks page holds the same in its method text, so the results file
     * does not repeat it.
     */
    aside(text = '') {
      console.log(text);
    },
    /**
     * Prints the run's settings, load average and duration, then writes the results file and any
     * other `files` (name to content, beside it) unless the run was exploratory.
     *
     * @param {Record<string, string>} [files]
     */
    finish(files = {}) {
      const { atStart, atEnd, highest } = load.averages();
      const seconds = (Date.now() - started) / 1000;
      // A timed process keeps one CPU busy: a 1-minute load average well above 1 on a 2-CPU machine
      // means other processes shared the CPUs with it.
      const shared = highest > 1.5 ? ': other processes shared the CPUs, so the ratios, measured side by side, say more than the absolute figures' : '';
      const loadAverage = timed ? ` Load average (1 min): ${atStart.toFixed(2)} at start, ${atEnd.toFixed(2)} at end, ${highest.toFixed(2)} at most${shared}.` : '';
      log(`\nSettings: ${settings()}.${loadAverage} Took ${Math.round(seconds)} s.`);
      if (reasons.length > 0) {
        console.log(`\n(${reasons.join(', ')} set: an exploratory run, so bench/results/ and the page are left as they were.)`);
        return;
      }
      mkdirSync(RESULTS_DIR, { recursive: true });
      const header = [
        `<!-- Written by \`npm run bench -- ${name}\`; regenerated on every run, not edited by hand. -->`,
        `<!-- machine: ${describeMachine()} -->`,
      ];
      writeFileSync(join(RESULTS_DIR, `${name}.md`), `${[...header, ...trimBlankEdges(lines)].join('\n')}\n`);
      for (const [file, content] of Object.entries(files)) writeFileSync(join(RESULTS_DIR, file), content);
    },
  };
}

/** @param {string[]} lines @returns {string[]} without blank lines at the start and the end */
function trimBlankEdges(lines) {
  let first = 0;
  let last = lines.length;
  while (first < last && lines[first].trim() === '') first++;
  while (last > first && lines[last - 1].trim() === '') last--;
  return lines.slice(first, last);
}
