/**
 * The reports of one run in each format: text for a terminal, JSON for scripts, SARIF for code
 * scanning, each from the same report; the format follows --format, else the --output file's
 * extension; and the command's own help, version and rule list.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/cli/findings.js';
import { progressLine, createProgress } from '../../src/cli/report/progress.js';
import { sarifReport } from '../../src/cli/report/sarif.js';
import { textReport } from '../../src/cli/report/text.js';
import { ALL_RULES } from '../../src/cli/rules.js';
import { runCli } from './run.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'restcanon-reports-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DOCUMENT = `openapi: 3.1.0
info: { title: t, version: "1" }
paths:
  /createOrder:
    post:
      responses:
        "200": { description: done }
`;

const LINT: Report = {
  command: 'lint',
  target: 'api.yaml',
  notes: ['OpenAPI 3.1.0: 1 paths, 1 operations'],
  rules: [{ rule: 'naming-verb', checked: 1, failed: 1, notRun: [] }],
  findings: [{ rule: 'naming-verb', severity: 'error', message: '"createOrder" in /createOrder names an action; paths name resources. Suggestion: POST /orders', pointer: '/paths/~1createOrder', line: 4, column: 3 }],
};

describe('reports', () => {
  it('text: each finding at its line, then the counts', () => {
    expect(textReport(LINT)).toBe(
      [
        'api.yaml',
        '  OpenAPI 3.1.0: 1 paths, 1 operations',
        '  4:3      error "createOrder" in /createOrder names an action; paths name resources. Suggestion: POST /orders  naming-verb',
        '                 at /paths/~1createOrder',
        '',
        '1 finding: 1 error, 0 warnings, 0 info.',
        '',
      ].join('\n'),
    );
  });

  it('SARIF 2.1.0: the rules as the tool’s rules, each finding a result at its line', () => {
    const sarif = JSON.parse(sarifReport(LINT, { version: '1.2.3', cwd: process.cwd() }));
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].tool.driver).toMatchObject({ name: 'restcanon', version: '1.2.3', rules: [{ id: 'naming-verb', shortDescription: { text: 'Path segments name resources, not actions' }, defaultConfiguration: { level: 'error' } }] });
    expect(sarif.runs[0].results).toEqual([
      {
        ruleId: 'naming-verb',
        ruleIndex: 0,
        level: 'error',
        message: { text: LINT.findings[0]!.message },
        locations: [{ physicalLocation: { artifactLocation: { uri: 'api.yaml' }, region: { startLine: 4, startColumn: 3 } }, logicalLocations: [{ fullyQualifiedName: '/paths/~1createOrder', kind: 'member' }] }],
      },
    ]);
  });

  it('the same findings in every format, written where --output says, in the format its extension names', async () => {
    writeFileSync(path.join(scratch, 'api.yaml'), DOCUMENT);
    const json = await runCli(['lint', 'api.yaml', '--format', 'json'], scratch);
    const findings = (JSON.parse(json.stdout) as { findings: { rule: string; line: number }[] }).findings.map((finding) => `${finding.rule}:${finding.line}`);
    expect(findings).toEqual(['naming-verb:4', 'server-error:6']);
    const written = await runCli(['lint', 'api.yaml', '--output', 'report.sarif'], scratch);
    expect(written.stdout).toBe('');
    expect(written.stderr).toMatch(/2 findings: 1 error, 0 warnings, 1 info\.\nWrote report\.sarif\n$/);
    const sarif = JSON.parse(readFileSync(path.join(scratch, 'report.sarif'), 'utf8'));
    expect(sarif.runs[0].results.map((result: { ruleId: string; locations: { physicalLocation: { region: { startLine: number } } }[] }) => `${result.ruleId}:${result.locations[0]!.physicalLocation.region.startLine}`)).toEqual(findings);
    expect(written.code).toBe(1);
    expect(await runCli(['lint', 'api.yaml', '--output', 'nowhere/report.json'], scratch)).toEqual({ code: 2, stdout: '', stderr: 'restcanon: cannot write nowhere/report.json: no such folder\n' });
    await runCli(['lint', 'api.yaml', '--output', 'report.html'], scratch);
    expect(readFileSync(path.join(scratch, 'report.html'), 'utf8')).toMatch(/^<!doctype html>[\s\S]*naming-verb[\s\S]*server-error/);
  });

  it('--help, --version, and the rules with the convention each comes from', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/^restcanon: check an API against the conventions[\s\S]*restcanon lint <document> \[options\][\s\S]*restcanon probe <base-url> \[options\]/);
    expect((await runCli(['probe', '--help'])).stdout).toMatch(/^restcanon probe <base-url> \[options\]/);
    // lint writes HTML as probe does: its help said text|json|sarif.
    for (const command of ['lint', 'probe']) expect((await runCli([command, '--help'])).stdout).toMatch(/--format (<format> +)?text[|,] ?json[|,] ?sarif(\||,? or )html/);
    const manifest = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    const rules = JSON.parse((await runCli(['rules', '--format', 'json'])).stdout) as { id: string }[];
    expect(rules.map((rule) => rule.id)).toEqual(ALL_RULES.map((rule) => rule.id));
    expect((await runCli(['rules'])).stdout).toMatch(/^naming-verb: Path segments name resources, not actions \(Resources, naming rule 1\)\n  lint:  /);
    expect(await runCli(['lnt', 'x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^restcanon: restcanon has no command "lnt"; the commands are lint, probe and rules\./) });
    expect(await runCli(['lint'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/^restcanon: restcanon lint needs a document: the path or URL of an OpenAPI document\./) });
  });
});

describe('the progress bar', () => {
  it('draws the share done, the count and the request', () => {
    expect(progressLine(3, 12, 'GET /users/1', 12)).toBe('[###---------]  3/12  GET /users/1');
    expect(progressLine(12, 12, 'done', 4)).toBe('[####] 12/12  done');
  });

  it('draws in place on a terminal, and writes nothing elsewhere', () => {
    const written: string[] = [];
    const terminal = createProgress({ isTTY: true, columns: 60, write: (text) => written.push(text) });
    terminal.update(1, 2, 'GET /');
    terminal.done();
    expect(written).toEqual(['\r\u001b[2K[############------------] 1/2  GET /', '\r\u001b[2K']);
    const pipe: string[] = [];
    const piped = createProgress({ isTTY: false, write: (text) => pipe.push(text) });
    piped.update(1, 2, 'GET /');
    piped.done();
    expect(pipe).toEqual([]);
  });
});
