/**
 * The lint rules run from Spectral: Spectral's own CLI (a development dependency, run offline) with a
 * ruleset that extends restcanon's, bundled here from src/cli/spectral.ts as the build bundles it,
 * reports what `restcanon lint` reports, rule for rule and place for place.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SLOPPY_DOCUMENT } from './apps/sloppy-express.js';
import { runCli } from './run.js';

const run = promisify(execFile);
const root = path.join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'restcanon-spectral-'));

beforeAll(async () => {
  await build({ entryPoints: [path.join(root, 'src', 'cli', 'spectral.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: path.join(scratch, 'restcanon-spectral.js'), logLevel: 'silent' });
  writeFileSync(path.join(scratch, '.spectral.yaml'), 'extends: ["./restcanon-spectral.js"]\n');
  writeFileSync(path.join(scratch, 'sloppy.yaml'), stringify(SLOPPY_DOCUMENT));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the Spectral ruleset', () => {
  it('reports what restcanon lint reports, at the same places and severities', { timeout: 60_000 }, async () => {
    let output: string;
    try {
      output = (await run(process.execPath, [path.join(root, 'node_modules', '@stoplight', 'spectral-cli', 'dist', 'index.js'), 'lint', 'sloppy.yaml', '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'], { cwd: scratch, maxBuffer: 16 * 1024 * 1024 })).stdout;
    } catch (error) {
      // Spectral exits with 1 when it finds errors; its report is still the answer.
      output = (error as { stdout: string }).stdout;
    }
    const spectral = (JSON.parse(output) as { code: string; severity: number; path: string[]; range: { start: { line: number } } }[])
      .map((result) => `${result.code.replace(/^restcanon-/, '')} ${['error', 'warn', 'info'][result.severity]} /${result.path.map((key) => key.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}:${result.range.start.line + 1}`)
      .sort();
    const lint = await runCli(['lint', 'sloppy.yaml', '--format', 'json'], scratch);
    const restcanon = (JSON.parse(lint.stdout) as { findings: { rule: string; severity: string; pointer: string; line: number }[] }).findings.map((finding) => `${finding.rule} ${finding.severity} ${finding.pointer}:${finding.line}`).sort();
    expect(restcanon.length).toBeGreaterThan(10);
    expect(spectral).toEqual(restcanon);
  });
});
