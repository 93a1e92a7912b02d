/**
 * The lint rules as a Spectral ruleset, for teams that already run Spectral: each rule of the table
 * is a Spectral rule `restcanon-<id>`, with the same severity, that runs restcanon's own lint rules on
 * the document Spectral has read and resolved, so both report the same findings at the same places.
 * Built to dist/cli/spectral.js, one file with nothing to import, which a Spectral ruleset extends:
 *
 *   extends: ["spectral:oas", "./node_modules/restcanon/dist/cli/spectral.js"]
 */
import { buildModel } from './lint/model.js';
import { lintModel, type KeyedFinding } from './lint/run.js';
import { rulesOf, type RuleId, type Severity } from './rules.js';

/** Spectral's names for the severities. */
const SEVERITY: Readonly<Record<Severity, 'error' | 'warn' | 'info'>> = { error: 'error', warn: 'warn', info: 'info' };

const LINTED = new WeakMap<object, KeyedFinding[]>();

// Spectral calls one function per rule: the document is linted once, then each rule takes its share.
function findingsOf(document: object): KeyedFinding[] {
  let findings = LINTED.get(document);
  if (findings === undefined) {
    const model = buildModel(document as Record<string, unknown>, (value) => value);
    findings = lintModel(model, { rules: {}, naming: { allow: [] } }).findings;
    LINTED.set(document, findings);
  }
  return findings;
}

/**
 * The Spectral function behind every rule: the findings of one restcanon rule, as Spectral results.
 *
 * @example
 * restcanonRule(document, { rule: 'naming-verb' }); // [{ message: '"getUsers" in /getUsers names an action; ...', path: ['paths', '/getUsers'] }]
 */
export function restcanonRule(document: unknown, options: { rule: RuleId }): { message: string; path: string[] }[] {
  if (typeof document !== 'object' || document === null) return [];
  return findingsOf(document)
    .filter((finding) => finding.rule === options.rule)
    .map((finding) => ({ message: finding.message, path: [...finding.keys] }));
}

/**
 * The ruleset: one Spectral rule per lint rule.
 *
 * @example
 * Object.keys(ruleset.rules); // ['restcanon-naming-verb', 'restcanon-naming-vague', ...]
 */
const ruleset = {
  rules: Object.fromEntries(
    rulesOf('lint').map((rule) => [
      `restcanon-${rule.id}`,
      {
        description: `${rule.title} (${rule.convention})`,
        message: '{{error}}',
        severity: SEVERITY[rule.severity.lint ?? 'warn'],
        given: '$',
        then: { function: restcanonRule, functionOptions: { rule: rule.id } },
      },
    ]),
  ),
};
export default ruleset;
