/**
 * `naming-verb` and `naming-vague`: the naming check that `createApi` runs over an API's routes, run
 * over a document's paths, so that both say the same of the same path.
 */
import { lintPath } from '../../../naming/naming.js';
import type { LintRule } from './rule.js';

function namingRule(kind: 'verb' | 'vague'): LintRule {
  return {
    id: kind === 'verb' ? 'naming-verb' : 'naming-vague',
    check(model, report, options) {
      for (const path of model.paths) {
        for (const finding of lintPath(path, options.naming)) {
          if (finding.rule === kind) report(['paths', path], `${finding.message}. Suggestion: ${finding.suggestion}`);
        }
      }
      return model.paths.length;
    },
  };
}

/**
 * Paths name resources, not actions.
 *
 * @example
 * namingVerb.id; // 'naming-verb'
 */
export const namingVerb: LintRule = namingRule('verb');

/**
 * Paths say which data they hold.
 *
 * @example
 * namingVague.id; // 'naming-vague'
 */
export const namingVague: LintRule = namingRule('vague');
