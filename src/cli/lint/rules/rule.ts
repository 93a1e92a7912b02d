/**
 * What a lint rule is: a function over the model of a document that reports each place that breaks
 * its rule and says how many places it looked at.
 */
import type { NamingOptions } from '../../../naming/naming.js';
import type { RuleId } from '../../rules.js';
import type { ApiModel } from '../model.js';

/**
 * Reports one finding at the place the keys name (`['paths', '/users', 'post', 'responses', '201']`).
 *
 * @example
 * const report: Reporter = (keys, message) => console.log(keys.join('.'), message);
 */
export type Reporter = (keys: readonly string[], message: string) => void;

/**
 * Options every lint rule may read.
 *
 * @example
 * const options: LintRuleOptions = { naming: { allow: ['doRefund'] } };
 */
export interface LintRuleOptions {
  /** Passed to the naming check as they are: segment names, or whole paths starting with "/". */
  naming: NamingOptions;
}

/**
 * One lint rule: its id, and the check that returns how many places it looked at.
 *
 * @example
 * const rule: LintRule = { id: 'path-shape', check: (model, report) => model.paths.length };
 */
export interface LintRule {
  id: RuleId;
  check(model: ApiModel, report: Reporter, options: LintRuleOptions): number;
}
