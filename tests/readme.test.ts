/**
 * Every ```js block of README.md runs as it is, against the built package: the user's manual
 * cannot drift from the code. Each block asserts what it shows with node:assert.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
// Inside the package folder, so that `import 'restcanon'` resolves to this package (self-reference).
const scratch = join(root, '.readme-blocks');

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
const headings = [...readme.matchAll(/^```js\n/gm)].map((match) => {
  const before = readme.slice(0, match.index);
  return /^##+ (.*)$/gm.exec(before.split('\n').reverse().find((line) => /^##+ /.test(line)) ?? '')?.[1] ?? 'top';
});

describe('README examples', () => {
  mkdirSync(scratch, { recursive: true });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('has runnable examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(8);
  });

  it.each(blocks.map((code, index) => [`${index + 1}: ${headings[index]}`, code, index] as const))('block %s runs', async (_name, code, index) => {
    const file = join(scratch, `block-${index + 1}.mjs`);
    writeFileSync(file, code);
    const { stderr } = await run(process.execPath, [file], { cwd: root, timeout: 30_000 });
    expect(stderr).not.toMatch(/AssertionError/);
  });
});
