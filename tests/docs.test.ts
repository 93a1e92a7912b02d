/**
 * Every ```js block of README.md and docs/ runs as it is, as an ES module against the built package:
 * the manual cannot drift from the code. Each block asserts what it shows with node:assert. Blocks
 * in other languages (ts, sh, mermaid) are not run. Relative links between these files must resolve,
 * anchors included.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
// Inside the package folder, so that `import 'restcanon'` resolves to this package (self-reference);
// a folder of this run's own, so that another run's clean-up cannot remove its files.
mkdirSync(join(root, '.readme-blocks'), { recursive: true });
const scratch = mkdtempSync(join(root, '.readme-blocks', 'run-'));

const docs = join(root, 'docs');
const files = ['README.md', ...(existsSync(docs) ? readdirSync(docs, { recursive: true, encoding: 'utf8' }) : []).filter((file) => file.endsWith('.md')).sort().map((file) => join('docs', file))];
const texts = new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')] as const));

interface Block {
  file: string;
  heading: string;
  code: string;
  /** What the block prints, when the text shows it right after the block ("It prints:" and a bare ``` block). */
  prints: string | undefined;
}

/** The ```js blocks of a file, each with the nearest heading above it. */
function blocksOf(file: string, text: string): Block[] {
  return [...text.matchAll(/^```js\n([\s\S]*?)^```$(?:\n\nIt prints:\n\n```\n([\s\S]*?)^```$)?/gm)].map((match) => {
    const before = text.slice(0, match.index).split('\n').reverse();
    const heading = before.find((line) => /^#{1,6} /.test(line))?.replace(/^#+ /, '') ?? 'top';
    return { file, heading, code: match[1]!, prints: match[2] };
  });
}

const blocks = [...texts].flatMap(([file, text]) => blocksOf(file, text));

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings, outside code blocks. */
function anchorsIn(text: string): Set<string> {
  const withoutCode = text.replace(/^```[\s\S]*?^```$/gm, '');
  return new Set([...withoutCode.matchAll(/^#{1,6} (.*)$/gm)].map((match) => anchorOf(match[1]!)));
}

describe('README and docs/', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('has runnable examples on every page', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(20);
    for (const file of files.filter((file) => file !== join('docs', 'performance.md'))) {
      expect(blocks.filter((block) => block.file === file).length, file).toBeGreaterThan(0);
    }
  });

  it('keeps the README short', () => {
    expect(texts.get('README.md')!.split('\n').length).toBeLessThanOrEqual(200);
  });

  it("starts the README with a hello world that needs only restcanon and zod and prints its answers", () => {
    const hello = blocks.find((block) => block.file === 'README.md')!;
    expect(hello.prints, 'the output it prints, after "It prints:"').toBeDefined();
    const imported = [...hello.code.matchAll(/from '([^']+)'/g)].map((match) => match[1]!);
    for (const name of imported) expect(name).toMatch(/^(restcanon(\/\w+)?|zod|node:\w+)$/);
    expect(hello.code).toMatch(/console\.log/);
  });

  it('has relative links that resolve, anchors included', () => {
    const broken: string[] = [];
    for (const [file, text] of texts) {
      const prose = text.replace(/^```[\s\S]*?^```$/gm, '');
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path === '' ? join(root, file) : join(root, dirname(file), path);
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor === undefined || !resolved.endsWith('.md')) continue;
        const anchors = anchorsIn(texts.get(relative(root, resolved)) ?? readFileSync(resolved, 'utf8'));
        if (!anchors.has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it.concurrent.for(blocks.map((block, index) => [`${block.file} › ${block.heading} (block ${index + 1})`, block, index] as const))(
    '%s runs',
    { timeout: 150_000 },
    async ([name, block, index], { expect }) => {
      const file = join(scratch, `block-${index + 1}.mjs`);
      writeFileSync(file, block.code);
      // Under the test's own time limit, so that a block that never exits says so; one that starts Postgres in its process (PGlite) gets longer.
      const limit = block.code.includes('@electric-sql/pglite') ? 120_000 : 15_000;
      const { stdout, stderr } = await run(process.execPath, [file], { cwd: root, timeout: limit }).catch((error: { killed?: boolean; stdout?: string }) => {
        if (error.killed) throw new Error(`${name} did not exit within ${limit / 1000} s (a server, socket or timer left open?); it printed: ${error.stdout ?? ''}`);
        throw error;
      });
      expect(stderr).not.toMatch(/AssertionError/);
      if (block.prints !== undefined) expect(stdout).toBe(block.prints);
      else if (/console\.log/.test(block.code)) expect(stdout).not.toBe('');
    },
  );
});
