/**
 * Writes BENCHMARKS.md from page.template.md (the fixed text: method, how to reproduce) and the
 * latest results of each benchmark (results/<name>.md, written by the benchmark itself; see
 * lib/report.mjs). bench/run.mjs calls it after every run; run it alone after editing the template:
 *
 *   node bench/page.mjs
 *
 * Markers in the template:
 * - `<!-- results: <name> -->` on a line of its own: that benchmark's results file, or a line
 *   saying how to produce it; `<!-- results: <name>; omit: <title> -->` leaves out each `####`
 *   section whose title starts with <title> (one `; omit:` per section) and links to the full file;
 * - `<!-- took: <name> -->`: how long that benchmark's last run took ("~50 s", "~5 min");
 * - `<!-- machine -->` on a line of its own: the machine the results were measured on.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RESULTS_DIR } from './lib/report.mjs';

const TEMPLATE = fileURLToPath(new URL('./page.template.md', import.meta.url));
const PAGE = fileURLToPath(new URL('../BENCHMARKS.md', import.meta.url));

/**
 * The most bytes the page may hold: the method and the current results, not every table in full.
 *
 * @example
 * statSync('BENCHMARKS.md').size <= PAGE_LIMIT_BYTES; // true after a writePage() that returned
 */
export const PAGE_LIMIT_BYTES = 40_000;

/** A results marker: the benchmark's name, then any `; omit: <title>` parts. */
const RESULTS_MARKER = /^<!-- results: ([\w-]+)((?:; omit: [^;]+?)*) -->$/gm;

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

/**
 * Leaves out the `####` sections of a results body whose titles start with one of `titles`. A
 * section runs to the next `####` heading or to the closing `Settings:` line that lib/report.mjs
 * writes. A title that matches nothing leaves the body as it is: a run may have no such section.
 *
 * @param {string} body
 * @param {string[]} titles
 * @param {string} name the benchmark, for the link to its full results
 * @returns {string}
 */
function omitSections(body, titles, name) {
  if (titles.length === 0) return body;
  /** @type {string[]} */
  const kept = [];
  /** @type {string[]} */
  const omitted = [];
  let omitting = false;
  for (const line of body.split('\n')) {
    if (line.startsWith('#### ')) {
      const title = line.slice('#### '.length);
      omitting = titles.some((prefix) => title.startsWith(prefix));
      if (omitting) omitted.push(title);
    } else if (line.startsWith('Settings: ')) {
      omitting = false;
    }
    if (!omitting) kept.push(line);
  }
  if (omitted.length === 0) return body;
  const link = `[bench/results/${name}.md](bench/results/${name}.md)`;
  const note = `Left out here, in ${link}: ${omitted.map((title) => `"${title}"`).join(', ')}.`;
  const settings = kept.findIndex((line) => line.startsWith('Settings: '));
  if (settings === -1) kept.push('', note);
  else kept.splice(settings, 0, note, '');
  return kept.join('\n').replace(/\n{3,}/g, '\n\n');
}

/** @param {number} seconds */
function approximately(seconds) {
  if (seconds < 90) return `~${Math.max(5, Math.round(seconds / 5) * 5)} s`;
  return `~${Math.round(seconds / 60)} min`;
}

/**
 * Assembles the page and writes it. A page over PAGE_LIMIT_BYTES is still written, then throws, so
 * that the new results reach the page and the overflow still stops the run.
 *
 * @example
 * writePage(); // BENCHMARKS.md now holds the template and the latest results
 *
 * @returns {string} the path written
 */
export function writePage() {
  const template = readFileSync(TEMPLATE, 'utf8');
  const names = [...template.matchAll(RESULTS_MARKER)].map((match) => match[1]);
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
    .replace(RESULTS_MARKER, (_, name, omits) => {
      const results = resultsOf(name);
      if (results === undefined) return `Not measured yet: run \`npm run bench -- ${name}\`.`;
      const titles = omits
        .split('; omit: ')
        .slice(1)
        .map((title) => title.trim());
      return omitSections(bodyOf(results), titles, name);
    })
    .replace(/<!-- took: ([\w-]+) -->/g, (_, name) => {
      const seconds = /Took (\d+) s\.$/m.exec(resultsOf(name) ?? '')?.[1];
      return seconds === undefined ? '' : approximately(Number(seconds));
    });
  const header = '<!-- Written by `npm run bench` (bench/page.mjs) from bench/page.template.md and bench/results/*.md: edit those, not this file. -->\n';
  const text = header + page;
  writeFileSync(PAGE, text);
  const bytes = Buffer.byteLength(text);
  if (bytes > PAGE_LIMIT_BYTES) {
    throw new Error(
      `BENCHMARKS.md is ${bytes} bytes, over its limit of ${PAGE_LIMIT_BYTES}: shorten bench/page.template.md, or leave out a large section of a results file with \`<!-- results: <name>; omit: <title> -->\`.`,
    );
  }
  return PAGE;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`Wrote ${writePage()}`);
}
