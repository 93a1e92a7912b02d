/**
 * Runs every benchmark below, each in its own process, then writes BENCHMARKS.md (page.mjs). Each
 * benchmark prints its tables and writes them to results/<name>.md; the page holds the latest
 * results of every benchmark, so running one refreshes its part of the page and nothing else.
 *
 *   npm run bench             # build, then every benchmark, then the page
 *   npm run bench -- router   # only the benchmarks whose name contains "router", then the page
 *   npm run bench -- http     # only the HTTP benchmark, then the page
 *   npm run bench -- peers    # only the peers benchmark (the same API on other stacks), then the page
 *   npm run bench -- types    # only the type-checking cost of a generated API and its client, then the page
 *   npm run bench -- demo     # only the demo on PGlite with 1,000 to 1,000,000 orders, then the page
 *   npm run bench -- streams  # only the 1 GiB upload and download and 1,000 event streams, then the page
 *
 * To add a benchmark, add a `{ name, file }` entry and a `<!-- results: <name> -->` section to
 * page.template.md: `file` is relative to bench/, reports through lib/report.mjs under the same
 * name, and exits non-zero when its correctness gate fails.
 *
 * dist/ is copied once, at the start, into a temp folder that every benchmark of the run loads
 * restcanon from (see lib/dist.mjs), so that a rebuild by another process during the run changes
 * nothing. The router benchmark loads dist/ itself.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describeDist, snapshotDist } from './lib/dist.mjs';
import { describeMachine } from './machine.mjs';
import { writePage } from './page.mjs';

const BENCHMARKS = [
  { name: 'router', file: 'router/index.mjs' },
  { name: 'pipeline', file: 'pipeline/index.mjs' },
  { name: 'http', file: 'http/index.mjs' },
  { name: 'peers', file: 'peers/index.mjs' },
  { name: 'load', file: 'load/index.mjs' },
  { name: 'demo', file: 'demo/index.mjs' },
  { name: 'hidden-item', file: 'security/hidden-item.mjs' },
  { name: 'rate-limit', file: 'rate-limit/index.mjs' },
  { name: 'streams', file: 'streams/index.mjs' },
  { name: 'size', file: 'size.mjs' },
  { name: 'types', file: 'types/index.mjs' },
];

const filter = process.argv[2];
const selected = filter === undefined ? BENCHMARKS : BENCHMARKS.filter((benchmark) => benchmark.name.includes(filter));
if (selected.length === 0) {
  console.error(`No benchmark matches "${filter}"; the benchmarks are: ${BENCHMARKS.map((benchmark) => benchmark.name).join(', ')}`);
  process.exit(2);
}

snapshotDist();
console.log(`Machine: ${describeMachine()}`);
console.log(`restcanon: ${describeDist()} (${process.env.RESTCANON_DIST})`);
let failures = 0;
for (const { name, file } of selected) {
  console.log(`\n## ${name}\n`);
  const child = spawnSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' });
  if (child.status !== 0) {
    console.error(`benchmark ${name} failed (exit ${child.status ?? child.signal})`);
    failures++;
  }
}
console.log(`\nWrote ${writePage()}${failures === 0 ? '' : ' (a benchmark whose correctness gate failed left its previous results in place)'}`);
process.exit(failures === 0 ? 0 : 1);
