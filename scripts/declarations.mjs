/**
 * Marks the type-fest imports of the CommonJS declarations (`dist/*.d.cts`) with
 * `resolution-mode: import`. type-fest ships only ES modules, so a plain import of it from a `.d.cts`
 * is an error (TS1479) for a CommonJS project that checks libraries (`skipLibCheck: false`); with the
 * attribute, TypeScript resolves it as an ES module import, which it may do for types. The build
 * (`npm run build`) runs it after tsup.
 *
 *   node scripts/declarations.mjs [dist directory]
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PLAIN = /^import (\{[^}]*\}) from 'type-fest';$/gm;
/** What the declaration bundler leaves in a chunk that uses none of type-fest's names. */
const BARE = /^import 'type-fest';\n/gm;

export async function markTypeFestImports(directory) {
  const marked = [];
  for (const file of await readdir(directory)) {
    if (!file.endsWith('.d.cts')) continue;
    const target = path.join(directory, file);
    const source = await readFile(target, 'utf8');
    const rewritten = source.replace(BARE, '').replace(PLAIN, "import type $1 from 'type-fest' with { 'resolution-mode': 'import' };");
    if (rewritten === source) continue;
    await writeFile(target, rewritten);
    marked.push(file);
  }
  return marked;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const directory = path.resolve(process.argv[2] ?? 'dist');
  const marked = await markTypeFestImports(directory);
  if (marked.length === 0) throw new Error(`No .d.cts file in ${directory} imports type-fest: the build changed, check this step`);
}
