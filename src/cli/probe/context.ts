/**
 * What every probe check shares: the client, the map of the API, the users' credentials, the results
 * per rule, and the items to delete at the end. A check sends requests through `send`, which adds the
 * credentials asked for, and records what it saw through `results`.
 */
import type { ProbeSettings } from '../config.js';
import type { Finding } from '../findings.js';
import type { RuleId } from '../rules.js';
import type { Exchange, ProbeClient } from './client.js';
import { mediaTypeOf, textOf } from './http.js';
import type { ApiMap } from './targets.js';

/**
 * The results of the checks, per rule.
 *
 * @example
 * results.check('not-found');
 * results.fail('not-found', { message: 'answered 200 for an unknown id', ...evidence(entry) });
 */
export interface Results {
  check(rule: RuleId, count?: number): void;
  fail(rule: RuleId, finding: Omit<Finding, 'rule' | 'severity'>): void;
  skip(rule: RuleId, reason: string): void;
}

/**
 * Whose credentials a request carries: the first user's, the second's, none, or made-up ones.
 *
 * @example
 * const as: Caller = 'second';
 */
export type Caller = 'first' | 'second' | 'none' | 'invalid';

/**
 * What a check reads and uses.
 *
 * @example
 * const entry = await context.send('GET', '/users/1', { as: 'first' });
 */
export interface ProbeContext {
  client: ProbeClient;
  api: ApiMap;
  settings: ProbeSettings;
  /** The headers of each user's credentials, when given. */
  credentials: { first?: Record<string, string>; second?: Record<string, string> };
  results: Results;
  /** URLs of items the probe created, deleted at the end. */
  created: string[];
  send(method: string, path: string, options?: { as?: Caller; headers?: Record<string, string>; body?: string | Uint8Array; url?: string }): Promise<Exchange>;
}

/** The longest excerpt of a body a finding keeps. */
const EXCERPT = 400;

/**
 * The request and the answer of an exchange, as a finding shows them.
 *
 * @example
 * results.fail('server-error', { message: 'answered 500', ...evidence(entry) });
 */
export function evidence(entry: Exchange): Pick<Finding, 'request' | 'answer'> {
  const request = { method: entry.request.method, url: entry.request.url };
  if (entry.answer === undefined) return { request };
  const type = mediaTypeOf(entry.answer);
  const text = textOf(entry.answer);
  return {
    request,
    answer: {
      status: entry.answer.status,
      ...(type === '' ? {} : { contentType: type }),
      excerpt: text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text,
    },
  };
}

/**
 * The headers of credentials as the command line gives them: an `Authorization` value such as
 * `Bearer abc`, or a whole header such as `X-Api-Key: abc`.
 *
 * @example
 * credentialHeaders('X-Api-Key: abc'); // { 'x-api-key': 'abc' }
 */
export function credentialHeaders(credentials: string): Record<string, string> {
  const header = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*(.*)$/s.exec(credentials);
  if (header !== null) return { [header[1]!.toLowerCase()]: header[2]! };
  return { authorization: credentials };
}

/**
 * Credentials of the same kind that no server accepts: the same header, the same scheme, a made-up
 * value.
 *
 * @example
 * invalidCredentials({ authorization: 'Bearer abc' }); // { authorization: 'Bearer restcanon-probe-invalid' }
 */
export function invalidCredentials(valid: Record<string, string> | undefined): Record<string, string> {
  const [name, value] = Object.entries(valid ?? { authorization: 'Bearer x' })[0]!;
  const scheme = name === 'authorization' ? /^(\S+)\s/.exec(value)?.[1] ?? 'Bearer' : undefined;
  return { [name]: scheme === undefined ? 'restcanon-probe-invalid' : `${scheme} restcanon-probe-invalid` };
}

/**
 * Whether an exchange has an answer with a status in [low, high].
 *
 * @example
 * answered(entry, 200, 299); // true for a success
 */
export function answered(entry: Exchange, low: number, high = low): boolean {
  return entry.answer !== undefined && entry.answer.status >= low && entry.answer.status <= high;
}

/**
 * How an exchange went, in a few words: its status, or why there was none.
 *
 * @example
 * outcomeOf(entry); // 'answered 200' or 'did not answer within 5000 ms'
 */
export function outcomeOf(entry: Exchange): string {
  if (entry.answer !== undefined) return `answered ${entry.answer.status}`;
  return entry.error?.message.replace(`${entry.request.method} ${entry.request.url}`, '').replace(/^[: ]+/, '') ?? 'had no answer';
}
