/**
 * What the core bundle would weigh without each of its two largest optional-looking parts: the
 * naming check (with its word lists) and the issue vocabulary. Each module is replaced by a stub with
 * the same exports in an esbuild bundle of `src/` (minified, gzip -9, as tests/size.test.ts measures
 * `dist/`). A measurement for the 12 KB discussion in BENCHMARKS.md, not a build option.
 *
 *   node bench/size.mjs
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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

/** @param {string[]} stubbed module names (without `.ts`) under src/core to replace */
async function coreSize(stubbed) {
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
          builder.onLoad({ filter: /[\\/]src[\\/]core[\\/][a-z-]+\.ts$/ }, (args) => {
            const name = /([a-z-]+)\.ts$/.exec(args.path)?.[1];
            return name !== undefined && stubbed.includes(name) ? { contents: STUBS[name].contents, loader: 'js' } : undefined;
          });
        },
      },
    ],
  });
  return gzipSync(result.outputFiles[0].contents, { level: 9 }).byteLength;
}

const rows = [
  ['as shipped', []],
  ...Object.entries(STUBS).map(([name, { label }]) => [`without ${label}`, [name]]),
  ['without both', Object.keys(STUBS)],
];
console.log('| core bundle (createApi, endpoint, collection; from src/, minified, gzip -9) | bytes |');
console.log('|---|---:|');
for (const [label, stubbed] of rows) console.log(`| ${label} | ${(await coreSize(stubbed)).toLocaleString('en-US')} |`);
