/**
 * Writes BENCHMARKS.md from page.template.md (the fixed text: method, how to reproduce) and the
 * latest results of each benchmark (results/<name>.md, written by the benchmark itself; see
 * lib/report.mjs). bench/run.mjs calls it after every run; run it alone after editing the template:
 *
 *   node bench/page.mjs
 *
 * Markers in the template:
 * - `<!-- results: <name> -->` on a line of its own: that benchmark's results file, or a line
 *   saying how to produce it;
 * - `<!-- took: <name> -->`: how long that benchmark's last run took ("~50 s", "~5 min");
 * - `<!-- machine -->` on a line of its own: the machine the results were measured on.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RESULTS_DIR } from './lib/report.mjs';

const TEMPLATE = fileURLToPath(new URL('./page.template.md', import.meta.url));
const PAGE = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));

/**
 * @param {string} name
 * @returns {string | undefined} the benchmark's results file, as written
 */
function resultsOf(name) {
  const file = `${RESULTS_DIR}${name}.md`;
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** @param {string} results @returns {string | undefined} the machine line its header records */
const machineOf = (results) => /^<!-- machine: (.*) -->$/m.exec(results)?.[1];

/** @param {string} results @returns {string} the results without their header comments */
const bodyOf = (results) =>
  results
    .split('\n')
    .filter((line) => !/^<!-- .* -->$/.test(line))
    .join('\n')
    .trim();

/** @param {number} seconds */
function approximately(seconds) {
  if (seconds < 90) return `~${Math.max(5, Math.round(seconds / 5) * 5)} s`;
  return `~${Math.round(seconds / 60)} min`;
}

/**
 * Assembles the page and writes it.
 *
 * @example
 * writePage(); // BENCHMARKS.md now holds the template and the latest results
 *
 * @returns {string} the path written
 */
export function writePage() {
  const template = readFileSync(TEMPLATE, 'utf8');
  const names = [...template.matchAll(/^<!-- results: ([\w-]+) -->$/gm)].map((match) => match[1]);
  /** @type {Map<string, string>} benchmark -> machine */
  const machines = new Map();
  for (const name of names) {
    const results = resultsOf(name);
    const machine = results === undefined ? undefined : machineOf(results);
    if (machine !== undefined) machines.set(name, machine);
  }
  const distinct = [...new Set(machines.values())];
  const machineText =
    distinct.length === 0
      ? 'No results yet: run `npm run bench`.'
      : distinct.length === 1
        ? `Every result below: ${distinct[0]}.`
        : [...machines].map(([name, machine]) => `- ${name}: ${machine}`).join('\n');

  const page = template
    .replace(/^<!-- machine -->$/m, () => machineText)
    .replace(/^<!-- results: ([\w-]+) -->$/gm, (_, name) => {
      const results = resultsOf(name);
      return results === undefined ? `Not measured yet: run \`npm run bench -- ${name}\`.` : bodyOf(results);
    })
    .replace(/<!-- took: ([\w-]+) -->/g, (_, name) => {
      const seconds = /Took (\d+) s\.$/m.exec(resultsOf(name) ?? '')?.[1];
      return seconds === undefined ? '' : approximately(Number(seconds));
    });
  const header = '<!-- Written by `npm run bench` (bench/page.mjs) from bench/page.template.md and bench/results/*.md: edit those, not this file. -->\n';
  writeFileSync(PAGE, header + page);
  return PAGE;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`Wrote ${writePage()}`);
}
