/**
 * What both commands produce: findings, each tied to a rule and a place (a JSON pointer and a line in
 * a document, or a request sent to a server), and a report that sums them up per rule. Every reporter
 * (text, JSON, SARIF, HTML) reads this one shape.
 */
import { atLeast, type Command, type RuleId, type Severity } from './rules.js';

/**
 * One place where a document or a server breaks a rule, and what to change.
 *
 * @example
 * const finding: Finding = {
 *   rule: 'naming-verb',
 *   severity: 'error',
 *   message: '"getUsers" in /getUsers names an action; paths name resources. Use GET /users',
 *   pointer: '/paths/~1getUsers',
 *   line: 12,
 *   column: 3,
 * };
 */
export interface Finding {
  rule: RuleId;
  severity: Severity;
  /** What is wrong and what to change, in one or two sentences. */
  message: string;
  /** Lint: the JSON pointer of the offending node, in the document that was linted. */
  pointer?: string;
  /** Lint: where that node starts, 1-based, when the document's text is known. */
  line?: number;
  column?: number;
  /** Probe: the request that showed it. */
  request?: { method: string; url: string };
  /** Probe: what the server answered, with the start of its body. */
  answer?: { status: number; contentType?: string; excerpt?: string };
}

/**
 * How one rule went: what was checked, how much broke it, and why it could not run where it did not.
 *
 * @example
 * const summary: RuleSummary = { rule: 'not-found', checked: 4, failed: 1, notRun: [] };
 */
export interface RuleSummary {
  rule: RuleId;
  /** Operations, paths or requests the rule looked at. */
  checked: number;
  /** Findings of the rule. */
  failed: number;
  /** Why the rule, or a part of it, could not run. */
  notRun: string[];
}

/**
 * What a command reports: its target, every finding, and a summary per rule.
 *
 * @example
 * const report: Report = { command: 'lint', target: 'openapi.yaml', findings: [], rules: [], notes: [] };
 */
export interface Report {
  command: Command;
  /** The document's path or URL, or the server's base URL. */
  target: string;
  findings: Finding[];
  rules: RuleSummary[];
  /** Facts about the run a reader needs: which document the probe used, how many requests it sent. */
  notes: string[];
}

/**
 * The exit code of a report: 1 when a finding is at least as severe as `failOn`, else 0. (2, for input
 * that could not be read, is decided before there is a report.)
 *
 * @example
 * exitCodeOf({ command: 'lint', target: 'a.yaml', findings: [], rules: [], notes: [] }, 'error'); // 0
 */
export function exitCodeOf(report: Report, failOn: Severity): 0 | 1 {
  return report.findings.some((finding) => atLeast(finding.severity, failOn)) ? 1 : 0;
}

/**
 * How many findings of each severity a report holds.
 *
 * @example
 * countBySeverity([]).error; // 0
 */
export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warn: 0, info: 0 };
  for (const finding of findings) counts[finding.severity] += 1;
  return counts;
}
