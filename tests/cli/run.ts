/**
 * Runs the restcanon command in this process, as `npx restcanon ...` would, and gives its exit code
 * and what it wrote.
 */
import { run } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: readonly string[], cwd = process.cwd()): Promise<CliRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await run(argv, { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text), cwd });
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}

/** The rules a JSON report found, each with what it was found on, sorted: the report at a glance. */
export function foundIn(report: { findings: { rule: string; request?: { method: string; url: string }; pointer?: string }[] }, origin = ''): string[] {
  return [...new Set(report.findings.map((finding) => `${finding.rule} ${finding.request === undefined ? finding.pointer : `${finding.request.method} ${finding.request.url.replace(origin, '').replace(/restcanon-probe-[0-9a-f]{8}$/, 'restcanon-probe-<random>')}`}`))].sort();
}
