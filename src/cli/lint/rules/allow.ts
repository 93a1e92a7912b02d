/**
 * `method-not-allowed`: a documented 405 declares `Allow` (RFC 9110 requires it), and so does the
 * success of an OPTIONS operation, which is how a document lists a path's methods.
 */
import { DEFAULT_STATUSES as STATUS } from '../../../core/outcomes.js';
import { headerOf } from '../model.js';
import type { LintRule } from './rule.js';

/**
 * Every 405, and every success of OPTIONS, declares `Allow`.
 *
 * @example
 * methodNotAllowed.id; // 'method-not-allowed'
 */
export const methodNotAllowed: LintRule = {
  id: 'method-not-allowed',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations) {
      for (const entry of operation.responses) {
        const options = operation.method === 'OPTIONS' && /^2(\d\d|XX)$/i.test(entry.code);
        if (entry.code !== String(STATUS.methodNotAllowed) && !options) continue;
        checked += 1;
        if (headerOf(entry.response, 'Allow', model.deref) !== undefined) continue;
        report(entry.keys, options
          ? `OPTIONS ${operation.path} documents ${entry.code} without an Allow header: declare Allow, the methods of the path`
          : `${operation.method} ${operation.path} documents ${entry.code} without an Allow header: declare Allow, the methods the path takes (RFC 9110 requires it)`);
      }
    }
    return checked;
  },
};
