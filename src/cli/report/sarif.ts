/**
 * The report as SARIF 2.1.0, the format code scanning reads (GitHub's among others): the rules as the
 * tool's rules, each finding as a result at its line of the document, or, for the probe, at the
 * request that showed it.
 */
import path from 'node:path';
import type { Report } from '../findings.js';
import { ruleOf, type Severity } from '../rules.js';

const LEVELS: Readonly<Record<Severity, 'error' | 'warning' | 'note'>> = { error: 'error', warn: 'warning', info: 'note' };

function artifactUri(target: string, cwd: string): string {
  if (/^https?:\/\//i.test(target)) return target;
  return path.relative(cwd, path.resolve(cwd, target)).split(path.sep).join('/');
}

/**
 * The report as SARIF text.
 *
 * @example
 * JSON.parse(sarifReport(report, { version: '0.1.0', cwd: process.cwd() })).version; // '2.1.0'
 */
export function sarifReport(report: Report, options: { version: string; cwd: string }): string {
  const ids = report.rules.map((summary) => summary.rule);
  const rules = ids.map((id) => {
    const rule = ruleOf(id)!;
    const severity = report.findings.find((finding) => finding.rule === id)?.severity ?? rule.severity[report.command] ?? 'warn';
    return {
      id,
      shortDescription: { text: rule.title },
      fullDescription: { text: rule[report.command] ?? rule.title },
      help: { text: `Convention: ${rule.convention}. ${rule[report.command] ?? ''}`.trim() },
      defaultConfiguration: { level: LEVELS[severity] },
    };
  });
  const uri = artifactUri(report.target, options.cwd);
  const results = report.findings.map((finding) => {
    const location =
      report.command === 'lint'
        ? {
            physicalLocation: {
              artifactLocation: { uri },
              ...(finding.line === undefined ? {} : { region: { startLine: finding.line, startColumn: finding.column ?? 1 } }),
            },
            ...(finding.pointer === undefined ? {} : { logicalLocations: [{ fullyQualifiedName: finding.pointer, kind: 'member' }] }),
          }
        : {
            physicalLocation: { artifactLocation: { uri: finding.request?.url ?? uri } },
            ...(finding.request === undefined ? {} : { logicalLocations: [{ fullyQualifiedName: `${finding.request.method} ${finding.request.url}`, kind: 'function' }] }),
          };
    return { ruleId: finding.rule, ruleIndex: ids.indexOf(finding.rule), level: LEVELS[finding.severity], message: { text: finding.message }, locations: [location] };
  });
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'restcanon', version: options.version, rules } }, results }],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}
