/**
 * `restcanon lint`: a document read, its references resolved and its structure checked, then every
 * lint rule the config leaves on, each finding with its severity and its line.
 */
import { ruleOf, rulesOf } from '../rules.js';
import { severityOf, type CliConfig } from '../config.js';
import type { Finding, Report, RuleSummary } from '../findings.js';
import { buildModel, type ApiModel } from './model.js';
import { pointerOf, resolveRefs } from './refs.js';
import { parseSource } from './source.js';
import { checkStructure, checkVersion } from './structure.js';
import { namingVague, namingVerb } from './rules/naming.js';
import { methodShape, pathShape } from './rules/shapes.js';
import { createLocation, successStatus } from './rules/successes.js';
import { badRequest, forbidden, notFound, serverError, unauthorized } from './rules/errors.js';
import { problemBody, successNotError } from './rules/bodies.js';
import { methodNotAllowed } from './rules/allow.js';
import type { LintRule } from './rules/rule.js';

/** Every lint rule, in the order of the rule table. */
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
].sort((a, b) => rulesOf('lint').findIndex((rule) => rule.id === a.id) - rulesOf('lint').findIndex((rule) => rule.id === b.id));

/**
 * Runs the lint rules over a model: the findings (with their pointers; `locate` adds lines) and a
 * summary per rule. The Spectral ruleset calls it on the document Spectral resolved.
 *
 * @example
 * const { findings } = lintModel(buildModel(document, (value) => value), defaultConfig());
 */
export function lintModel(
  model: ApiModel,
  config: CliConfig,
  locate: (keys: readonly string[]) => { line: number; column: number } | undefined = () => undefined,
): { findings: (Finding & { keys: readonly string[] })[]; rules: RuleSummary[] } {
  const findings: (Finding & { keys: readonly string[] })[] = [];
  const rules: RuleSummary[] = [];
  for (const rule of LINT_RULES) {
    const severity = severityOf(ruleOf(rule.id)!, 'lint', config);
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

/**
 * Lints a document (a file, or a URL fetched once) under a config; throws a CliError for a document
 * that cannot be read as OpenAPI 3.0 or 3.1.
 *
 * @example
 * const report = await lintDocument('openapi.yaml', defaultConfig());
 * report.findings.length; // 0 for a document that follows the conventions
 */
export async function lintDocument(location: string, config: CliConfig, options: { timeoutMs?: number; cwd?: string } = {}): Promise<Report> {
  const source = await parseSource(location, { timeoutMs: options.timeoutMs ?? 10_000, cwd: options.cwd ?? process.cwd() });
  checkVersion(source);
  const deref = await resolveRefs(source);
  checkStructure(source, deref);
  const model = buildModel(source.value as Record<string, unknown>, deref);
  const { findings, rules } = lintModel(model, config, source.locate);
  const plain = findings.map(({ keys: _keys, ...finding }) => finding);
  const operations = model.operations.length;
  return {
    command: 'lint',
    target: location,
    findings: plain,
    rules,
    notes: [`OpenAPI ${String(model.root.openapi)}: ${model.paths.length} paths, ${operations} operations`],
  };
}
