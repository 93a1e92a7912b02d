/**
 * The report as JSON, for scripts: the report itself, with each rule's title and convention beside
 * its summary and the counts by severity.
 */
import { countBySeverity, type Report } from '../findings.js';
import { ruleOf } from '../rules.js';

/**
 * The report as JSON text.
 *
 * @example
 * JSON.parse(jsonReport(report)).summary.error; // 0
 */
export function jsonReport(report: Report): string {
  const rules = report.rules.map((summary) => ({ ...summary, title: ruleOf(summary.rule)?.title, convention: ruleOf(summary.rule)?.convention }));
  return `${JSON.stringify({ ...report, rules, summary: countBySeverity(report.findings) }, null, 2)}\n`;
}
