import { checkOptions } from '../../core/options.js';

/**
 * Quota policies: what `rateLimit({ policies })` and an endpoint's `conventions: { rateLimit }`
 * declare, checked once when the API is built, and the values of the `RateLimit-Policy` and
 * `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-10, Structured Fields).
 */

/**
 * One quota policy: at most `quota` units per `window` seconds for each partition (a caller, an
 * address), each request costing `cost` units (1 when omitted).
 *
 * @example
 * const perMinute: RateLimitPolicy = { quota: 100, window: 60 };
 */
export interface RateLimitPolicy {
  quota: number;
  /** Seconds. */
  window: number;
  cost?: number;
}

/**
 * What an endpoint or a collection operation asks of the rate limit: `false` counts none of its
 * requests; an object adds policies by name, and `false` under a name leaves out one of the API's.
 *
 * @example
 * const declared: RateLimitDeclaration = { default: false, uploads: { quota: 10, window: 3600 } };
 */
export type RateLimitDeclaration = false | Record<string, RateLimitPolicy | false>;

/** A policy as checked, with its name. */
export interface NamedPolicy {
  readonly name: string;
  readonly quota: number;
  readonly window: number;
  readonly cost: number;
}

/** A policy's name: a short token, written as a Structured Fields string. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The longest window: a year, so that a window's milliseconds stay far within what a timer and a store take. */
const MAX_WINDOW = 366 * 24 * 3600;

const POLICY_OPTIONS = ['quota', 'window', 'cost'];

/**
 * The named policies of an object, checked: each a name of letters, digits, `_`, `.` and `-`, a
 * whole quota of at least 1, a window of 1 second to a year, a cost of 1 to the quota.
 *
 * @example
 * checkPolicies({ default: { quota: 100, window: 60 } }, 'rateLimit()'); // [{ name: 'default', quota: 100, window: 60, cost: 1 }]
 */
export function checkPolicies(policies: unknown, where: string, exemptions = false): { policies: NamedPolicy[]; left: string[] } {
  const example = "such as { default: { quota: 100, window: 60 } }";
  if (typeof policies !== 'object' || policies === null || Array.isArray(policies)) throw new TypeError(`${where}: "policies" must be an object of quota policies by name, ${example}`);
  const checked: NamedPolicy[] = [];
  const left: string[] = [];
  for (const [name, policy] of Object.entries(policies)) {
    if (!NAME.test(name)) throw new TypeError(`${where}: the policy name ${JSON.stringify(name)} is not a short word of letters, digits, "_", "." and "-"; rename it, such as "default" or "uploads"`);
    if (policy === false && exemptions) {
      left.push(name);
      continue;
    }
    checked.push(checkPolicy(policy, `${where}: the policy "${name}"`, name));
  }
  return { policies: checked, left };
}

function checkPolicy(policy: unknown, where: string, name: string): NamedPolicy {
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) throw new TypeError(`${where} must be { quota, window } (window in seconds), such as { quota: 100, window: 60 }`);
  checkOptions(where, policy, POLICY_OPTIONS);
  const { quota, window, cost = 1 } = policy as Partial<RateLimitPolicy>;
  if (!Number.isSafeInteger(quota) || quota! < 1) throw new TypeError(`${where}: "quota" must be a whole number of at least 1, got ${String(quota)}`);
  if (!Number.isSafeInteger(window) || window! < 1 || window! > MAX_WINDOW) throw new TypeError(`${where}: "window" must be a whole number of seconds from 1 to ${MAX_WINDOW} (a year), got ${String(window)}`);
  if (!Number.isSafeInteger(cost) || cost < 1 || cost > quota!) throw new TypeError(`${where}: "cost" must be a whole number from 1 to its quota (${quota}), got ${String(cost)}`);
  return Object.freeze({ name, quota: quota!, window: window!, cost });
}

/**
 * The policies that cover an endpoint: the API's, less those it leaves out by name, with those it
 * adds. A name means one policy across the API: its count is shared by every endpoint that names it,
 * so one name given two different quotas is refused (`known` holds those seen so far).
 *
 * @example
 * policiesOf(apiPolicies, { uploads: { quota: 10, window: 3600 } }, 'POST /files', known);
 */
export function policiesOf(api: readonly NamedPolicy[], declared: unknown, where: string, known?: Map<string, NamedPolicy>): NamedPolicy[] {
  if (declared === undefined) return [...api];
  if (declared === false) return [];
  const own = checkPolicies(declared, `${where}: "conventions.rateLimit"`, true);
  for (const name of own.left) {
    if (!api.some((policy) => policy.name === name)) throw new TypeError(`${where}: "conventions.rateLimit" leaves out the policy "${name}", which the API does not have (it has ${api.map((policy) => `"${policy.name}"`).join(', ') || 'none'})`);
  }
  const kept = api.filter((policy) => !own.left.includes(policy.name) && !own.policies.some((added) => added.name === policy.name));
  for (const policy of own.policies) {
    const same = known?.get(policy.name) ?? api.find((given) => given.name === policy.name);
    if (same !== undefined && (same.quota !== policy.quota || same.window !== policy.window || same.cost !== policy.cost)) {
      throw new TypeError(`${where}: the policy "${policy.name}" is declared elsewhere with another quota, window or cost; a name is one count across the API: give this one another name`);
    }
    known?.set(policy.name, policy);
  }
  return [...kept, ...own.policies];
}

/**
 * The `RateLimit-Policy` value of policies.
 *
 * @example
 * policyField([{ name: 'default', quota: 100, window: 60, cost: 1 }]); // '"default";q=100;w=60'
 */
export function policyField(policies: readonly NamedPolicy[]): string {
  return policies.map(({ name, quota, window }) => `"${name}";q=${quota};w=${window}`).join(', ');
}

/**
 * The `RateLimit` value of one policy after a hit: the units left and the seconds until its window
 * ends.
 *
 * @example
 * limitItem({ name: 'default', quota: 100, window: 60, cost: 1 }, 58, 16_200); // '"default";r=42;t=17'
 */
export function limitItem({ name, quota }: NamedPolicy, count: number, resetMs: number): string {
  return `"${name}";r=${Math.max(0, quota - count)};t=${secondsLeft(resetMs)}`;
}

/**
 * Whole seconds until a window ends, rounded up: a client that waits that long finds a new window.
 *
 * @example
 * secondsLeft(16_200); // 17
 */
export function secondsLeft(resetMs: number): number {
  return Number.isFinite(resetMs) && resetMs > 0 ? Math.ceil(resetMs / 1000) : 0;
}
