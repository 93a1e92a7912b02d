import { DEFAULT_CHALLENGE, type ErrorFacts } from './errors.js';
import { errorText } from './http.js';
import { checkOptions } from './options.js';
import { codeOfStatus, DEFAULT_STATUSES, ERROR_BY_STATUS, ERROR_OUTCOMES, outcomeOfError, OUTCOMES, SUCCESS_OUTCOMES, type Outcome, type OutcomeRow, type SuccessOutcome } from './outcomes.js';

/**
 * The operation an endpoint performs. It decides the success status and what an `undefined` result
 * means (a missing item for read, replace, update and remove).
 *
 * @example
 * endpoint('POST', '/searches', { operation: 'submit', handle: run });
 */
export type Operation = Exclude<SuccessOutcome, 'accepted' | 'options' | 'empty' | 'notModified'>;

const POLICY_KEYS: readonly string[] = [...SUCCESS_OUTCOMES, ...ERROR_OUTCOMES, 'unacceptable'];

/** What to do when nothing acceptable can be produced: answer 406, or send JSON anyway. */
export type UnacceptablePolicy = 'reject' | 'json';

/** Overrides for {@link createStatusPolicy}. */
export type StatusPolicyOverrides = { [K in Outcome]?: number } & { unacceptable?: UnacceptablePolicy };

/**
 * The status-code policy of an API: one table from outcome to status, and `decide()`.
 *
 * @example
 * createStatusPolicy({ remove: 204 }).decide('remove'); // 204
 */
export interface StatusPolicy {
  readonly statuses: Readonly<Record<Outcome, number>>;
  readonly unacceptable: UnacceptablePolicy;
  decide(outcome: Outcome): number;
}

/**
 * Builds a status policy from the defaults and your overrides. It throws at once for an unknown
 * outcome, a status outside 100-599, a success that is not 2xx, or an error that is not 4xx or 5xx:
 * an error is never reported with 200.
 *
 * @example
 * const policy = createStatusPolicy({ remove: 204, forbidden: 404 }); // DELETE → 204; someone else's item → 404
 * createStatusPolicy({ notFound: 200 }); // throws
 */
export function createStatusPolicy(overrides: StatusPolicyOverrides = {}): StatusPolicy {
  checkOptions('createStatusPolicy()', overrides, POLICY_KEYS);
  const statuses: Record<Outcome, number> = { ...DEFAULT_STATUSES };
  let unacceptable: UnacceptablePolicy = 'reject';
  for (const [key, value] of Object.entries(overrides)) {
    if (key === 'unacceptable') {
      if (value !== 'reject' && value !== 'json') {
        throw new TypeError(`createStatusPolicy: "unacceptable" must be 'reject' (406) or 'json' (send JSON anyway), got ${JSON.stringify(value)}`);
      }
      unacceptable = value;
      continue;
    }
    if (value === undefined) continue;
    statuses[checkOverride(key, value)] = value as number;
  }
  return policyOf(statuses, unacceptable);
}

/** The policies this copy of restcanon built: their tables were checked, and they are frozen. */
const BUILT = new WeakSet<object>();

function policyOf(statuses: Record<Outcome, number>, unacceptable: UnacceptablePolicy): StatusPolicy {
  Object.freeze(statuses);
  const policy: StatusPolicy = Object.freeze({ statuses, unacceptable, decide: (outcome: Outcome) => statuses[outcome] });
  BUILT.add(policy);
  return policy;
}

/** Checks the status of one override; `key` is an outcome, as checkOptions allows no other key but `unacceptable`. */
function checkOverride(key: string, value: unknown): Outcome {
  const isSuccess = (SUCCESS_OUTCOMES as readonly string[]).includes(key);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || value > 599) {
    throw new RangeError(`createStatusPolicy: "${key}" must be an integer status from 100 to 599, got ${JSON.stringify(value)}`);
  }
  if (key === 'notModified' && value !== OUTCOMES.notModified.status) {
    throw new RangeError(`createStatusPolicy: "notModified" is always 304, got ${value}`);
  }
  if (isSuccess && key !== 'notModified' && (value < 200 || value > 299)) {
    throw new RangeError(`createStatusPolicy: "${key}" is a success and must be answered with a 2xx status, got ${value}`);
  }
  if (!isSuccess && value < 400) {
    throw new RangeError(`createStatusPolicy: "${key}" is an error and must be answered with a 4xx or 5xx status, got ${value}: an error is never reported as a success`);
  }
  return key as Outcome;
}

/**
 * The policy an API answers by. One built by `createStatusPolicy` is used as it is. Any other (from
 * another copy of restcanon, or written by hand) is read once, here: every status of its table
 * checked (a 2xx for a success, 304 for `notModified`, a 4xx or 5xx for an error; an outcome it does
 * not list keeps its default), its `decide` required to agree with its table, and a frozen copy used
 * from then on, so that nothing it answers later can put an error under a 2xx or a status on the
 * wire that is none. The checks are not those of `createStatusPolicy`, which an API with the default
 * policy does not load.
 *
 * @example
 * checkedPolicy({ statuses: { ...DEFAULT_STATUSES, notFound: 200 }, unacceptable: 'reject', decide }); // throws
 */
export function checkedPolicy(policy: unknown): StatusPolicy {
  if (BUILT.has(policy as object)) return policy as StatusPolicy;
  const { statuses: table, unacceptable, decide } = (policy ?? {}) as Partial<StatusPolicy>;
  if (typeof table !== 'object' || table === null || (unacceptable !== 'reject' && unacceptable !== 'json')) {
    throw new TypeError('createApi: "policy" is no status policy (a statuses table, and unacceptable \'reject\' or \'json\'): build it with createStatusPolicy()');
  }
  const statuses: Record<Outcome, number> = { ...DEFAULT_STATUSES };
  for (const outcome of Object.keys(statuses) as Outcome[]) {
    const status: unknown = table[outcome];
    if (status === undefined) continue;
    const [low, high] = outcome === 'notModified' ? [304, 304] : DEFAULT_STATUSES[outcome] < 400 ? [200, 299] : [400, 599];
    const decided: unknown = typeof decide === 'function' ? decide.call(policy, outcome) : status;
    if (typeof status !== 'number' || !Number.isInteger(status) || status < low || status > high || decided !== status) {
      throw new TypeError(`createApi: "policy" answers "${outcome}" with ${String(status)}${decided === status ? '' : ` and its decide with ${String(decided)}`}: build it with createStatusPolicy()`);
    }
    statuses[outcome] = status;
  }
  return policyOf(statuses, unacceptable);
}

/**
 * The policy with every default: `createStatusPolicy()` without the checks of overrides, so that an
 * API that keeps the defaults does not load them.
 */
export const DEFAULT_POLICY: StatusPolicy = /* @__PURE__ */ policyOf({ ...DEFAULT_STATUSES }, 'reject');

/**
 * The error as the policy wants it sent. An error the policy keeps at its status is sent as it is.
 * Moved to another status, an error that conceals (`forbidden`, `unauthorized`) becomes a plain
 * error of the new status that says nothing of the original, so a hidden 403 cannot be told apart
 * from a real 404; any other keeps its code, detail, `errors` and headers (`badRequest: 422`).
 *
 * @example
 * applyPolicy(createStatusPolicy({ forbidden: 404 }), new ForbiddenError()).status; // 404
 */
export function applyPolicy(policy: StatusPolicy, error: ErrorFacts): ErrorFacts {
  const outcome = outcomeOfError(error);
  if (outcome === undefined) return error;
  const status = policy.statuses[outcome];
  if (status === error.status) return error;
  const replacement = ERROR_BY_STATUS.get(status);
  const challenge = replacement === 'unauthorized' ? { 'www-authenticate': error.headers['www-authenticate'] ?? DEFAULT_CHALLENGE } : undefined;
  const title = errorText(status);
  if ((OUTCOMES[outcome] as OutcomeRow).conceals === true) {
    return { status, code: codeOfStatus(status), title, type: 'about:blank', detail: undefined, expose: status < 500, headers: challenge ?? {}, errors: undefined, omittedErrors: undefined };
  }
  // A type of its own names the problem whatever its status; `about:blank` takes the new status's title.
  const own = error.type !== 'about:blank';
  return {
    status,
    code: error.code,
    title: own ? error.title : title,
    type: error.type,
    detail: error.detail,
    expose: error.expose,
    headers: challenge === undefined ? error.headers : { ...error.headers, ...challenge },
    errors: error.errors,
    omittedErrors: error.omittedErrors,
  };
}
