/**
 * The lint rules run over a model, under a config: no file, no network, nothing but the rules, so
 * that the CLI and the Spectral ruleset run exactly the same code.
 */
import { ruleOf, rulesOf } from '../rules.js';
import type { CliConfig } from '../config.js';
import type { Finding, RuleSummary } from '../findings.js';
import type { ApiModel } from './model.js';
import { pointerOf } from './pointer.js';
import { namingVague, namingVerb } from './rules/naming.js';
import { methodShape, pathShape } from './rules/shapes.js';
import { createLocation, successStatus } from './rules/successes.js';
import { badRequest, forbidden, notFound, serverError, unauthorized } from './rules/errors.js';
import { problemBody, successNotError } from './rules/bodies.js';
import { methodNotAllowed } from './rules/allow.js';
import type { LintRule } from './rules/rule.js';

const ORDER = rulesOf('lint').map((rule) => rule.id);

/**
 * Every lint rule, in the order of the rule table.
 *
 * @example
 * LINT_RULES.map((rule) => rule.id)[0]; // 'naming-verb'
 */
export const LINT_RULES: readonly LintRule[] = [
  namingVerb,
  namingVague,
  pathShape,
  methodShape,
  successStatus,
  createLocation,
  badRequest,
  unauthorized,
  forbidden,
  notFound,
  methodNotAllowed,
  serverError,
  problemBody,
  successNotError,
].sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id));

/**
 * A finding with the keys of its place, which the Spectral ruleset gives Spectral as its path.
 *
 * @example
 * const finding: KeyedFinding = { rule: 'path-shape', severity: 'warn', message: '...', keys: ['paths', '/{id}'] };
 */
export type KeyedFinding = Finding & { keys: readonly string[] };

/**
 * Runs the lint rules over a model: the findings (with their pointers; `locate` adds lines) and a
 * summary per rule.
 *
 * @example
 * const { findings } = lintModel(buildModel(document, (value) => value), defaultConfig());
 */
export function lintModel(
  model: ApiModel,
  config: Pick<CliConfig, 'rules' | 'naming'>,
  locate: (keys: readonly string[]) => { line: number; column: number } | undefined = () => undefined,
): { findings: KeyedFinding[]; rules: RuleSummary[] } {
  const findings: KeyedFinding[] = [];
  const rules: RuleSummary[] = [];
  for (const rule of LINT_RULES) {
    const severity = config.rules[rule.id] ?? ruleOf(rule.id)?.severity.lint ?? 'off';
    if (severity === 'off') continue;
    let failed = 0;
    const checked = rule.check(
      model,
      (keys, message) => {
        failed += 1;
        const position = locate(keys);
        findings.push({ rule: rule.id, severity, message, pointer: pointerOf(keys), keys, ...(position === undefined ? {} : { line: position.line, column: position.column }) });
      },
      { naming: { allow: config.naming.allow } },
    );
    rules.push({ rule: rule.id, checked, failed, notRun: [] });
  }
  return { findings, rules };
}
