/**
 * Runs every benchmark below, each in its own process, each printing its own tables.
 *
 *   npm run bench             # build, then every benchmark
 *   npm run bench -- router   # only the benchmarks whose name contains "router"
 *
 * To add a benchmark, add a `{ name, file }` entry: `file` is relative to bench/ and exits non-zero
 * when its correctness gate fails.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describeMachine } from './machine.mjs';

const BENCHMARKS = [{ name: 'router', file: 'router/index.mjs' }];

const filter = process.argv[2];
const selected = filter === undefined ? BENCHMARKS : BENCHMARKS.filter((benchmark) => benchmark.name.includes(filter));
if (selected.length === 0) {
  console.error(`No benchmark matches "${filter}"; the benchmarks are: ${BENCHMARKS.map((benchmark) => benchmark.name).join(', ')}`);
  process.exit(2);
}

console.log(`Machine: ${describeMachine()}`);
let failures = 0;
for (const { name, file } of selected) {
  console.log(`\n## ${name}\n`);
  const child = spawnSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' });
  if (child.status !== 0) {
    console.error(`benchmark ${name} failed (exit ${child.status ?? child.signal})`);
    failures++;
  }
}
process.exit(failures === 0 ? 0 : 1);
