/**
 * What the core bundle would weigh without each of its two largest optional-looking parts: the
 * naming check (with its word lists) and the issue vocabulary. Each module is replaced by a stub with
 * the same exports in an esbuild bundle of `src/` (minified, gzip -9, as tests/size.test.ts measures
 * `dist/`): where the bytes of the core go, for the "Bundle size" section of BENCHMARKS.md, not a
 * build option. Written to bench/results/size.md (see lib/report.mjs).
 *
 *   npm run bench -- size
 *   node bench/size.mjs
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createReport } from './lib/report.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STUBS = {
  naming: {
    label: "the naming check and its word lists (naming: 'off' the only mode)",
    contents:
      'export function checkNaming() { return []; } export function lintPath() { return []; } export function lintPaths() { return []; } export class ConventionError extends Error {} export function isConventionError() { return false; }',
  },
  'issue-detail': {
    label: 'the issue vocabulary (every detail "is invalid" or "is required")',
    contents: "export function issueDetail(issue, subject) { return subject?.missing ? 'is required' : 'is invalid'; }",
  },
};

/**
 * @param {string[]} stubbed module names (file names without `.ts`, anywhere under src/) to replace
 * @returns {Promise<{ bytes: number, replaced: Set<string> }>} the gzipped size, and the modules replaced
 */
async function coreSize(stubbed) {
  const replaced = new Set();
  const result = await build({
    stdin: { contents: "export { createApi, endpoint, collection } from './src/index.ts';", resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    write: false,
    external: ['fast-xml-parser'],
    logLevel: 'silent',
    plugins: [
      {
        name: 'stub',
        setup(builder) {
          builder.onLoad({ filter: /[\\/]src[\\/](?:[a-z-]+[\\/])*[a-z-]+\.ts$/ }, (args) => {
            const name = /([a-z-]+)\.ts$/.exec(args.path)?.[1];
            if (name === undefined || !stubbed.includes(name)) return undefined;
            replaced.add(name);
            return { contents: STUBS[name].contents, loader: 'js' };
          });
        },
      },
    ],
  });
  return { bytes: gzipSync(result.outputFiles[0].contents, { level: 9 }).byteLength, replaced };
}

const rows = [
  ['as shipped', []],
  ...Object.entries(STUBS).map(([name, { label }]) => [`without ${label}`, [name]]),
  ['without both', Object.keys(STUBS)],
];
const report = createReport('size', {}, { timed: false });
// The gate: a stub that replaced nothing (its module was renamed or no longer in the core bundle)
// would measure the bundle as shipped under another label.
const measured = [];
for (const [label, stubbed] of rows) {
  const { bytes, replaced } = await coreSize(stubbed);
  const missing = stubbed.filter((name) => !replaced.has(name));
  if (missing.length > 0) {
    console.error(`No module ${missing.map((name) => `src/**/${name}.ts`).join(' or ')} in the core bundle: update STUBS in bench/size.mjs. Nothing was written.`);
    process.exit(1);
  }
  measured.push([label, bytes]);
}
report.log('| core bundle (createApi, endpoint, collection; from src/, minified, gzip -9) | bytes |');
report.log('|---|---:|');
for (const [label, bytes] of measured) report.log(`| ${label} | ${bytes.toLocaleString('en-US')} |`);
report.finish();
