/**
 * The report for people in a terminal: for lint, each finding under its document with its line, as
 * compilers print them; for probe, a table of every rule (checked, failed, not run) and then a table
 * of each failing rule's requests. Both end with the counts by severity.
 */
import { countBySeverity, type Finding, type Report } from '../findings.js';
import { ruleOf } from '../rules.js';
import { renderTable } from './table.js';

function totals(findings: readonly Finding[]): string {
  const counts = countBySeverity(findings);
  if (findings.length === 0) return 'No findings.';
  const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
  return `${plural(findings.length, 'finding')}: ${plural(counts.error, 'error')}, ${plural(counts.warn, 'warning')}, ${counts.info} info.`;
}

function lintText(report: Report): string {
  const lines = [report.target, ...report.notes.map((note) => `  ${note}`)];
  for (const finding of report.findings) {
    const place = finding.line === undefined ? finding.pointer ?? '' : `${finding.line}:${finding.column ?? 1}`;
    lines.push(`  ${place.padEnd(8)} ${finding.severity.padEnd(5)} ${finding.message}  ${finding.rule}`);
    if (finding.line !== undefined && finding.pointer !== undefined) lines.push(`  ${''.padEnd(8)} ${''.padEnd(5)} at ${finding.pointer}`);
  }
  lines.push('', totals(report.findings));
  return lines.join('\n');
}

function result(summary: Report['rules'][number], findings: readonly Finding[]): string {
  if (summary.failed > 0) {
    const severity = findings.find((finding) => finding.rule === summary.rule)?.severity ?? 'error';
    return `FAIL (${severity})`;
  }
  if (summary.checked === 0) return 'not run';
  return summary.notRun.length > 0 ? 'pass (in part)' : 'pass';
}

function probeText(report: Report): string {
  const lines = [`restcanon probe ${report.target}`, ...report.notes.map((note) => `  ${note}`), ''];
  lines.push(
    renderTable(
      ['rule', 'checked', 'failed', 'result', 'convention'],
      report.rules.map((summary) => [summary.rule, String(summary.checked), String(summary.failed), result(summary, report.findings), ruleOf(summary.rule)?.convention ?? '']),
      60,
    ),
  );
  for (const summary of report.rules) {
    const findings = report.findings.filter((finding) => finding.rule === summary.rule);
    if (findings.length > 0) {
      lines.push('', `${summary.rule}: ${ruleOf(summary.rule)?.title ?? ''}`);
      lines.push(
        renderTable(
          ['request', 'answer', 'finding'],
          findings.map((finding) => [
            finding.request === undefined ? '' : `${finding.request.method} ${finding.request.url}`,
            finding.answer === undefined ? '' : `${finding.answer.status}${finding.answer.contentType === undefined ? '' : ` ${finding.answer.contentType}`}`,
            finding.message,
          ]),
          120,
        ),
      );
    }
    for (const reason of summary.notRun) lines.push(`${summary.rule}: not run: ${reason}`);
  }
  lines.push('', totals(report.findings));
  return lines.join('\n');
}

/**
 * The report as text for a terminal.
 *
 * @example
 * console.log(textReport(report));
 */
export function textReport(report: Report): string {
  return `${report.command === 'lint' ? lintText(report) : probeText(report)}\n`;
}
