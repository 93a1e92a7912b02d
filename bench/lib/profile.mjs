/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and prints where the time went: by part (restcanon,
 * zod, Node's own JavaScript, GC, ...) and the functions with the most self time, overall and in
 * restcanon's code.
 *
 *   node bench/lib/profile.mjs <file.cpuprofile> [how many rows, default 15]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @param {string} url */
function partOf(url, functionName) {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)' || functionName === '(root)') return 'V8 and native code outside JavaScript';
  // A package's own dist/ folder is not restcanon's: look for node_modules first (the last one names the package).
  const inPackage = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (inPackage === 'zod' || inPackage === 'zod43') return 'zod';
  if (inPackage !== undefined) return `package ${inPackage}`;
  const given = process.env.RESTCANON_DIST;
  if (url.includes('restcanon-bench-') || /\/dist\/[^/]+\.js$/.test(url) || (given && url.includes(given))) return 'restcanon';
  if (url.includes('/bench/')) return 'benchmark code';
  if (url.startsWith('node:')) return "Node's JavaScript (node:http, streams, ...)";
  if (url === '') return 'native functions (socket writes, JSON, RegExp, ...)';
  return 'other';
}

/**
 * @param {string} file
 * @returns {{ total: number, parts: [string, number][], functions: { name: string, where: string, part: string, micros: number }[] }}
 */
export function summarizeProfile(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const functions = new Map();
  const parts = new Map();
  let total = 0;
  for (const [id, micros] of self) {
    const { callFrame } = byId.get(id);
    const part = partOf(callFrame.url, callFrame.functionName);
    if (part === 'idle') continue;
    total += micros;
    parts.set(part, (parts.get(part) ?? 0) + micros);
    const where = callFrame.url === '' ? '' : `${basename(callFrame.url)}:${callFrame.lineNumber + 1}`;
    const name = callFrame.functionName || '(anonymous)';
    const key = `${name} ${where}`;
    const entry = functions.get(key) ?? { name, where, part, micros: 0 };
    entry.micros += micros;
    functions.set(key, entry);
  }
  return {
    total,
    parts: [...parts.entries()].sort((a, b) => b[1] - a[1]),
    functions: [...functions.values()].sort((a, b) => b.micros - a.micros),
  };
}

/** @param {string} file @param {number} [rows] */
export function printProfileSummary(file, rows = 15) {
  const { total, parts, functions } = summarizeProfile(file);
  const share = (micros) => `${((micros / total) * 100).toFixed(1)}%`;
  console.log(`\n### CPU profile of the server: ${file}\n`);
  console.log(`${(total / 1e6).toFixed(2)} s of samples, idle excluded.\n`);
  console.log('| part | self time |');
  console.log('|---|---:|');
  for (const [part, micros] of parts) console.log(`| ${part} | ${share(micros)} |`);
  for (const [title, list] of [
    ['Top functions by self time', functions],
    ["Top functions of restcanon's code by self time", functions.filter((entry) => entry.part === 'restcanon')],
  ]) {
    console.log(`\n${title}:\n`);
    console.log('| function | where | part | self time |');
    console.log('|---|---|---|---:|');
    for (const entry of list.slice(0, rows)) console.log(`| ${entry.name} | ${entry.where} | ${entry.part} | ${share(entry.micros)} |`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, rows] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: node bench/lib/profile.mjs <file.cpuprofile> [rows]');
    process.exit(2);
  }
  printProfileSummary(file, rows === undefined ? 15 : Number(rows));
}
