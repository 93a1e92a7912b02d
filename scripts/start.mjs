/**
 * `npm start` and `npm run demo:client`: build what the examples import when the build is missing
 * or older than the source, then run the example. The examples import the package by its name
 * (`restcanon`, `restcanon/node`, ...), which resolves to `dist/`; they need its ES modules only, so
 * this build leaves out the CommonJS files, the declarations and the tree-shaking that `npm run
 * build` does.
 *
 *   node scripts/start.mjs examples/server.mjs
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The subpaths the examples import, and their sources (as in tsup.config.ts). */
const USED = {
  index: 'src/index.ts',
  node: 'src/adapters/node.ts',
  openapi: 'src/openapi/index.ts',
  client: 'src/client/index.ts',
  idempotency: 'src/idempotency.ts',
  'rate-limit': 'src/conventions/rate-limit/index.ts',
  store: 'src/store/index.ts',
  redis: 'src/store/redis.ts',
};

function newest(folder) {
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function builtAt() {
  try {
    return Math.min(...Object.keys(USED).map((name) => statSync(join(ROOT, 'dist', `${name}.js`)).mtimeMs));
  } catch {
    return 0;
  }
}

const example = process.argv[2];
if (example === undefined) {
  console.error('usage: node scripts/start.mjs <example file>');
  process.exit(2);
}
if (builtAt() < newest(join(ROOT, 'src'))) {
  // esbuild alone: one ES module per subpath, shared code in chunks, in a second or so.
  const { build } = await import('esbuild');
  await build({
    entryPoints: Object.fromEntries(Object.entries(USED).map(([name, source]) => [name, join(ROOT, source)])),
    bundle: true,
    format: 'esm',
    splitting: true,
    platform: 'node',
    target: 'node20',
    outdir: join(ROOT, 'dist'),
    packages: 'external',
    logLevel: 'warning',
  });
}
const child = spawn(process.execPath, [join(ROOT, example)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 0 : 1)));
