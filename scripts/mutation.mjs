/**
 * Mutation testing of the engine: `npm run mutation -- <file or folder>...` runs StrykerJS with the
 * vitest runner over each source file in turn, against the test files that pin it down (TESTS below),
 * in a copy of the repository. Everything it writes goes under `.mutation/` (git-ignored): the
 * reports (`.mutation/reports/<file>.html` and `.json`), the incremental results and the copies.
 *
 *   npm run mutation -- src/conventions/cors/cors.ts                  one file
 *   npm run mutation -- src/core                                      every file of a folder that has tests below
 *   npm run mutation -- --changed                                     the files changed since main (or --changed=<ref>)
 *   npm run mutation -- --incremental src/conventions/cors/cors.ts    re-run only mutants whose code or tests changed
 *   npm run mutation -- --concurrency 1 src/conventions/cors/cors.ts  test processes at once (default 2)
 *
 * It is not part of `npm test` or CI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, '.mutation');

/**
 * The test files that decide whether a source file's mutant lives: those that exercise it through
 * the public API, and no more, so that a run stays short on a small machine. A file without a
 * row uses `tests/<its folder>/<its name>*.test.ts`.
 */
/** The in-memory idempotency tests: the adapters' and Redis's are too slow to run per mutant. */
const IDEMPOTENCY_TESTS = ['tests/conventions/idempotency/idempotency*.test.ts', 'tests/conventions/idempotency/store.test.ts', 'tests/conventions/idempotency/scope.test.ts', 'tests/conventions/idempotency/openapi.test.ts'];

const TESTS = {
  'src/core/credentials.ts': ['tests/core/credentials*.test.ts', 'tests/core/auth.test.ts', 'tests/security/core.test.ts', 'tests/security/adapters-duplicate-headers.test.ts'],
  'src/core/policy.ts': ['tests/core/policy*.test.ts', 'tests/core/outcomes.test.ts', 'tests/core/auth.test.ts', 'tests/core/api.test.ts', 'tests/security/unwritable.test.ts'],
  'src/conventions/conditional/conditions.ts': ['tests/conventions/conditional/*.test.ts', 'tests/security/conventions.test.ts'],
  'src/conventions/conditional/index.ts': ['tests/conventions/conditional/*.test.ts', 'tests/security/conventions.test.ts'],
  'src/conventions/cors/cors.ts': ['tests/conventions/cors/*.test.ts'],
  'src/conventions/cors/index.ts': ['tests/conventions/cors/*.test.ts'],
  'src/conventions/idempotency/index.ts': IDEMPOTENCY_TESTS,
  'src/conventions/idempotency/key.ts': IDEMPOTENCY_TESTS,
  'src/conventions/idempotency/options.ts': IDEMPOTENCY_TESTS,
  'src/conventions/idempotency/fingerprint.ts': IDEMPOTENCY_TESTS,
  'src/conventions/idempotency/record.ts': IDEMPOTENCY_TESTS,
  'src/conventions/idempotency/problems.ts': IDEMPOTENCY_TESTS,
  'src/conventions/idempotency/openapi.ts': IDEMPOTENCY_TESTS,
  'src/definitions/endpoint.ts': ['tests/definitions/*.test.ts', 'tests/core/declared-errors.test.ts'],
  'src/definitions/endpoint-checks.ts': ['tests/definitions/*.test.ts', 'tests/core/declared-errors.test.ts'],
  'src/definitions/collection-checks.ts': ['tests/definitions/*.test.ts', 'tests/core/declared-errors.test.ts'],
  'src/core/outcomes.ts': ['tests/core/outcomes*.test.ts', 'tests/core/policy*.test.ts', 'tests/core/answers-rules.test.ts'],
  'src/conventions/merge-patch/merge-patch.ts': ['tests/conventions/merge-patch/*.test.ts'],
  'src/conventions/merge-patch/index.ts': ['tests/conventions/merge-patch/*.test.ts'],
  'src/conventions/ranges/index.ts': ['tests/conventions/ranges/*.test.ts', 'tests/streams/ranges.test.ts'],
  'src/conventions/ranges/byte-ranges.ts': ['tests/conventions/ranges/*.test.ts', 'tests/streams/ranges.test.ts'],
  'src/conventions/events/index.ts': ['tests/conventions/events/*.test.ts', 'tests/streams/events.test.ts'],
  'src/conventions/events/event-answers.ts': ['tests/conventions/events/*.test.ts', 'tests/streams/events.test.ts'],
  'src/conventions/events/declare.ts': ['tests/conventions/events/*.test.ts', 'tests/streams/events.test.ts'],
  'src/conventions/forms/index.ts': ['tests/conventions/forms/*.test.ts', 'tests/bodies/forms.test.ts'],
  'src/conventions/forms/form-body.ts': ['tests/conventions/forms/*.test.ts', 'tests/bodies/forms.test.ts'],
  'src/conventions/tracing/index.ts': ['tests/conventions/tracing/*.test.ts'],
  'src/conventions/tracing/server-span.ts': ['tests/conventions/tracing/*.test.ts'],
  'src/core/cookies.ts': ['tests/adapters/cookies.test.ts'],
  'src/core/context.ts': ['tests/core/reply.test.ts', 'tests/adapters/cookies.test.ts'],
  'src/conventions/lists/lists.ts': ['tests/conventions/lists/*.test.ts'],
  'src/conventions/lists/index.ts': ['tests/conventions/lists/*.test.ts'],
  'src/core/body.ts': ['tests/core/body*.test.ts'],
  'src/core/router.ts': ['tests/core/router*.test.ts'],
  'src/core/answers.ts': ['tests/core/answers*.test.ts', 'tests/core/api.test.ts', 'tests/core/response.test.ts', 'tests/core/respond.test.ts', 'tests/core/location.test.ts', 'tests/core/problem-body.test.ts', 'tests/core/reply.test.ts', 'tests/core/policy*.test.ts'],
  'src/store/memory.ts': ['tests/store/memory.test.ts', 'tests/store/store-properties.test.ts'],
  'src/store/expiry-heap.ts': ['tests/store/memory.test.ts', 'tests/store/store-properties.test.ts'],
  'src/store/checks.ts': ['tests/store/memory.test.ts'],
  'src/store/redis.ts': ['tests/store/redis.test.ts', 'tests/store/store-properties.test.ts'],
};

function usage(message) {
  console.error(`${message}\nusage: npm run mutation -- [--incremental] [--concurrency N] [--changed[=<ref>]] <file or folder>...`);
  process.exit(2);
}

function parseArguments(args) {
  const options = { incremental: false, concurrency: 2, targets: [], changed: undefined };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--incremental') options.incremental = true;
    else if (arg === '--concurrency') options.concurrency = Number(args[++index]);
    else if (arg.startsWith('--concurrency=')) options.concurrency = Number(arg.slice('--concurrency='.length));
    else if (arg === '--changed') options.changed = 'main';
    else if (arg.startsWith('--changed=')) options.changed = arg.slice('--changed='.length);
    else if (arg.startsWith('-')) usage(`unknown option ${arg}`);
    else options.targets.push(arg);
  }
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) usage('--concurrency takes a whole number of at least 1');
  return options;
}

/** The source files named: a file as it is, a folder's .ts files (declarations aside). */
function sourceFiles(targets) {
  const files = [];
  for (const target of targets) {
    const path = resolve(target);
    if (!existsSync(path)) usage(`${target} does not exist`);
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) {
        if (name.endsWith('.ts') && !name.endsWith('.d.ts') && statSync(join(path, name)).isFile()) files.push(relative(ROOT, join(path, name)));
      }
    } else files.push(relative(ROOT, path));
  }
  return [...new Set(files.map((file) => file.split('\\').join('/')))];
}

function changedFiles(ref) {
  const diff = spawnSync('git', ['diff', '--name-only', ref, '--', 'src'], { cwd: ROOT, encoding: 'utf8' });
  if (diff.status !== 0) usage(`git diff ${ref} failed: ${diff.stderr.trim()}`);
  return diff.stdout.split('\n').filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && existsSync(join(ROOT, file)));
}

/** The test files a glob of TESTS names: a folder, then a file name in which `*` stands for any text. */
function testFilesOf(glob) {
  const folder = join(ROOT, dirname(glob));
  if (!existsSync(folder)) return [];
  const name = new RegExp(`^${glob.slice(dirname(glob).length + 1).split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return readdirSync(folder).filter((entry) => name.test(entry));
}

function testGlobs(file) {
  if (TESTS[file] !== undefined) return TESTS[file];
  const match = /^src\/(.*?)([^/]+)\.ts$/.exec(file);
  return match === null ? [] : [`tests/${match[1]}${match[2]}*.test.ts`];
}

function run(file, globs, options) {
  const name = file.replace(/^src\//, '').replace(/\.ts$/, '').replaceAll('/', '-');
  const configs = join(OUT, 'configs');
  mkdirSync(configs, { recursive: true });
  // The vitest config of the run: the project's, with only this file's tests and without the type tests.
  const vitestConfig = join(configs, `${name}.vitest.config.mjs`);
  writeFileSync(vitestConfig, `export default ${JSON.stringify({ test: { include: globs, testTimeout: 20_000, typecheck: { enabled: false } } }, null, 2)};\n`);
  const strykerConfig = join(configs, `${name}.stryker.json`);
  const config = {
    $schema: '../../node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    mutate: [file],
    testRunner: 'vitest-load-checked',
    plugins: ['@stryker-mutator/vitest-runner', join(ROOT, 'scripts/mutation-runner.mjs')],
    vitest: { configFile: vitestConfig, related: false },
    coverageAnalysis: 'perTest',
    checkers: [],
    concurrency: options.concurrency,
    timeoutMS: 10_000,
    incremental: options.incremental,
    incrementalFile: relative(ROOT, join(OUT, 'incremental', `${name}.json`)),
    tempDirName: relative(ROOT, join(OUT, 'tmp')),
    cleanTempDir: 'always',
    ignorePatterns: ['.mutation', 'dist', 'coverage', 'bench', '.perf', '.vitest-cache', '.readme-blocks'],
    reporters: ['clear-text', 'progress', 'html', 'json'],
    clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
    htmlReporter: { fileName: relative(ROOT, join(OUT, 'reports', `${name}.html`)) },
    jsonReporter: { fileName: relative(ROOT, join(OUT, 'reports', `${name}.json`)) },
    thresholds: { high: 90, low: 80, break: null },
  };
  writeFileSync(strykerConfig, `${JSON.stringify(config, null, 2)}\n`);
  console.log(`\n${file}: mutants checked against ${globs.join(' ')}`);
  const stryker = spawnSync(process.execPath, [join(ROOT, 'node_modules/@stryker-mutator/core/bin/stryker.js'), 'run', strykerConfig], { cwd: ROOT, stdio: 'inherit' });
  return stryker.status ?? 1;
}

const options = parseArguments(process.argv.slice(2));
const files = [...sourceFiles(options.targets), ...(options.changed === undefined ? [] : changedFiles(options.changed))];
if (files.length === 0) usage(options.changed === undefined ? 'name a source file or folder' : `no source file changed since ${options.changed}`);
let failed = 0;
for (const file of [...new Set(files)]) {
  const globs = testGlobs(file);
  if (globs.every((glob) => testFilesOf(glob).length === 0)) {
    console.log(`\n${file}: skipped, no test file matches ${globs.join(' ')}; add a row to TESTS in scripts/mutation.mjs`);
    continue;
  }
  if (run(file, globs, options) !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
