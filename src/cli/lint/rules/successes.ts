/**
 * `success-status` and `create-location`: each method documents the success the outcome table gives
 * it (the statuses restcanon itself answers), and a POST that adds to a collection answers 201 with
 * `Location`.
 */
import { DEFAULT_STATUSES as STATUS, type SuccessOutcome } from '../../../core/outcomes.js';
import { headerOf, isItemPath, segmentsOf } from '../model.js';
import type { LintRule } from './rule.js';

/** The outcomes each method may succeed with. GET's 206 is a range request's answer, which no outcome covers. */
const SUCCESSES: Readonly<Record<string, { outcomes: readonly SuccessOutcome[]; extra?: readonly number[] }>> = {
  GET: { outcomes: ['read', 'list'], extra: [206] },
  HEAD: { outcomes: ['read', 'list'], extra: [206] },
  POST: { outcomes: ['create', 'submit', 'accepted', 'empty'] },
  PUT: { outcomes: ['replace', 'create', 'accepted', 'empty'] },
  PATCH: { outcomes: ['update', 'accepted', 'empty'] },
  DELETE: { outcomes: ['remove', 'accepted', 'empty'] },
  OPTIONS: { outcomes: ['options', 'read'] },
};

function allowedStatuses(method: string): number[] {
  const entry = SUCCESSES[method];
  if (entry === undefined) return [];
  return [...new Set([...entry.outcomes.map((outcome) => STATUS[outcome]), ...(entry.extra ?? [])])].sort();
}

function list(statuses: readonly number[]): string {
  return statuses.length === 1 ? String(statuses[0]) : `${statuses.slice(0, -1).join(', ')} or ${statuses.at(-1)}`;
}

/**
 * Every operation documents a success, and one that fits its method.
 *
 * @example
 * successStatus.id; // 'success-status'
 */
export const successStatus: LintRule = {
  id: 'success-status',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations) {
      const allowed = allowedStatuses(operation.method);
      if (allowed.length === 0) continue;
      checked += 1;
      const successes = operation.responses.filter((entry) => /^2(\d\d|XX)$/i.test(entry.code));
      if (successes.length === 0) {
        const redirect = operation.responses.some((entry) => /^3/.test(entry.code));
        if (!redirect) report([...operation.keys, 'responses'], `${operation.method} ${operation.path} documents no success: document ${operation.method}'s ${list(allowed)}`);
        continue;
      }
      for (const entry of successes) {
        const status = Number(entry.code);
        if (Number.isInteger(status) && !allowed.includes(status)) {
          report(entry.keys, `${operation.method} ${operation.path} documents ${status} as a success; ${operation.method} answers ${list(allowed)}`);
        }
      }
    }
    return checked;
  },
};

/**
 * A POST to a collection whose items have a path of their own creates them: it documents 201, and every
 * 201 documents `Location`.
 *
 * @example
 * createLocation.id; // 'create-location'
 */
export const createLocation: LintRule = {
  id: 'create-location',
  check(model, report) {
    let checked = 0;
    const created = STATUS.create;
    for (const operation of model.operations) {
      if (operation.method === 'POST' && !isItemPath(operation.path)) {
        const depth = segmentsOf(operation.path).length;
        const itemPath = model.paths.find((path) => path.startsWith(`${operation.path.replace(/\/$/, '')}/`) && isItemPath(path) && segmentsOf(path).length === depth + 1);
        if (itemPath !== undefined) {
          checked += 1;
          if (!operation.responses.some((entry) => entry.code === String(created))) {
            report([...operation.keys, 'responses'], `POST ${operation.path} adds to a collection whose items have a path (${itemPath}): answer ${created} Created with a Location header naming the new item (${STATUS.submit} is for a POST that only submits)`);
          }
        }
      }
      for (const entry of operation.responses) {
        if (entry.code !== String(created) || operation.method === 'HEAD') continue;
        checked += 1;
        if (headerOf(entry.response, 'Location', model.deref) === undefined) {
          report(entry.keys, `${operation.method} ${operation.path} documents ${created} Created without a Location header: declare Location, the URL of the new item`);
        }
      }
    }
    return checked;
  },
};
