/**
 * Instructions per lookup of routers of competitors.mjs, counted by valgrind's callgrind: a check of
 * the timed router tables that other processes cannot disturb. For each competitor, suite and kind of
 * path string, lookups.mjs runs twice under callgrind, once with no counted passes and once with
 * PASSES; the difference, divided by the lookups of those passes, is one lookup's work (startup,
 * route table and warm-up cancel out).
 *
 *   node bench/router/instructions.mjs                          # restcanon, rou3-compiled, find-my-way
 *   node bench/router/instructions.mjs restcanon rou3-compiled
 *
 * Each count takes about half a minute (callgrind runs Node some 50 times slower); the default set
 * takes about a quarter of an hour. The router loads restcanon from dist/ (`npm run build` first).
 * A new path string per lookup costs about 1,100 instructions to build, in every column of "new".
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { thousands } from '../lib/stats.mjs';
import { suiteNamed } from './routes.mjs';

const PASSES = 20_000;
const SUITES = ['rest', 'classic'];
const KINDS = ['constant', 'fresh'];
const LOOKUPS_SCRIPT = fileURLToPath(new URL('./lookups.mjs', import.meta.url));

const competitors = process.argv.length > 2 ? process.argv.slice(2) : ['restcanon', 'rou3-compiled', 'find-my-way'];
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}

/** Instructions of one whole run of lookups.mjs. @param {string[]} args @returns {number} */
function countRun(args) {
  const folder = mkdtempSync(join(tmpdir(), 'restcanon-callgrind-'));
  const out = join(folder, 'out');
  try {
    execFileSync(
      'valgrind',
      ['--tool=callgrind', '--smc-check=all-non-file', `--callgrind-out-file=${out}`, process.execPath, '--single-threaded', '--predictable-gc-schedule', '--expose-gc', LOOKUPS_SCRIPT, ...args],
      { stdio: 'ignore' },
    );
    const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(out, 'utf8'));
    if (totals === null) throw new Error(`${args.join(' ')}: no totals in the callgrind dump`);
    return Number(totals[1]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const columns = SUITES.flatMap((suite) => KINDS.map((kind) => ({ suite, kind })));
console.log(`| competitor | ${columns.map(({ suite, kind }) => `${suite}, ${kind === 'fresh' ? 'new' : 'constant'} strings`).join(' | ')} |`);
console.log(`|---|${columns.map(() => '---:').join('|')}|`);
for (const competitor of competitors) {
  const cells = columns.map(({ suite, kind }) => {
    const lookups = PASSES * suiteNamed(suite).requests.length;
    const perLookup = (countRun([competitor, suite, String(PASSES), kind]) - countRun([competitor, suite, '0', kind])) / lookups;
    console.error(`${competitor}, ${suite}, ${kind}: ${thousands(perLookup)} instructions per lookup`);
    return thousands(perLookup);
  });
  console.log(`| ${competitor} | ${cells.join(' | ')} |`);
}
