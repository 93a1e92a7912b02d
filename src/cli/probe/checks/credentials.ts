/**
 * `unauthorized` and `forbidden`: a request without credentials, or with credentials no server
 * accepts, answers 401 with `WWW-Authenticate`; an item the first user reads, asked for with the
 * second user's credentials, answers 403 or 404, never a success (broken object-level authorization).
 */
import { DEFAULT_STATUSES as STATUS } from '../../../core/outcomes.js';
import { isItemPath, segmentsOf } from '../../lint/model.js';
import { replaceParams } from '../../path-params.js';
import { answered, evidence, outcomeOf, type ProbeContext } from '../context.js';

const MOST = 6;

/**
 * Sends GETs that need credentials without them, and once with credentials that cannot be valid.
 *
 * @example
 * await checkUnauthorized(context);
 */
export async function checkUnauthorized(context: ProbeContext): Promise<void> {
  const { results, api } = context;
  if (api.model === undefined) {
    results.skip('unauthorized', 'needs the API\'s document, to know which operations need credentials (--openapi)');
    return;
  }
  const secured = api.operations.filter((operation) => operation.method === 'GET' && operation.security === 'required').slice(0, MOST);
  if (secured.length === 0) {
    results.skip('unauthorized', 'the document marks no GET as needing credentials (security)');
    return;
  }
  const challenge = async (path: string, as: 'none' | 'invalid'): Promise<void> => {
    const entry = await context.send('GET', path, { as });
    results.check('unauthorized');
    const without = as === 'none' ? 'without credentials' : 'with credentials no server accepts';
    if (!answered(entry, STATUS.unauthorized)) {
      results.fail('unauthorized', { message: `GET ${path} ${without} ${outcomeOf(entry)}: answer ${STATUS.unauthorized} Unauthorized with WWW-Authenticate`, ...evidence(entry) });
    } else if (entry.answer?.headers['www-authenticate'] === undefined) {
      results.fail('unauthorized', { message: `GET ${path} ${without} answered ${STATUS.unauthorized} without WWW-Authenticate: name the scheme, such as WWW-Authenticate: Bearer realm="api" (RFC 9110 requires it)`, ...evidence(entry) });
    }
  };
  for (const [index, operation] of secured.entries()) {
    const path = api.fill(operation.path) ?? replaceParams(operation.path, 'restcanon-probe-unknown');
    await challenge(path, 'none');
    if (index === 0) await challenge(path, 'invalid');
  }
}

/**
 * Reads the first user's items, and the collections below them, with the second user's credentials.
 *
 * @example
 * await checkForbidden(context);
 */
export async function checkForbidden(context: ProbeContext): Promise<void> {
  const { results, api, credentials } = context;
  if (credentials.first === undefined || credentials.second === undefined) {
    results.skip('forbidden', 'needs two users: --auth for the first, --auth2 for the second');
    return;
  }
  const targets = api.operations.filter((operation) => operation.method === 'GET' && operation.security === 'required' && segmentsOf(operation.path).some((segment) => segment.param));
  if (targets.length === 0) {
    results.skip('forbidden', api.model === undefined ? 'needs the API\'s document (--openapi)' : 'the document has no GET that needs credentials on a path with a parameter');
    return;
  }
  let checked = 0;
  for (const operation of targets) {
    if (checked >= MOST) break;
    const path = api.fill(operation.path);
    if (path === undefined) {
      results.skip('forbidden', `GET ${operation.path}: found no item of the first user for ${api.missing(operation.path).join(', ')}; pass --param name=value`);
      continue;
    }
    const own = await context.send('GET', path, { as: 'first' });
    if (!answered(own, 200, 299)) {
      results.skip('forbidden', `GET ${path} with the first user's credentials ${outcomeOf(own)}, so it is not theirs to compare`);
      continue;
    }
    checked += 1;
    const other = await context.send('GET', path, { as: 'second' });
    results.check('forbidden');
    if (answered(other, STATUS.unauthorized)) {
      results.skip('forbidden', `the second user's credentials were refused (${STATUS.unauthorized}) on GET ${path}: check --auth2`);
      continue;
    }
    if (answered(other, STATUS.forbidden) || answered(other, STATUS.notFound)) continue;
    const item = isItemPath(operation.path);
    // A collection below the first user's item may be the second user's own view (a scoped list):
    // only the first user's very answer is their data.
    if (answered(other, 200, 299) && !item && Buffer.compare(Buffer.from(other.answer!.body), Buffer.from(own.answer!.body)) !== 0) continue;
    results.fail('forbidden', {
      message: answered(other, 200, 299)
        ? `The second user read the first user's ${item ? 'item' : 'collection'} at ${path} (${other.answer?.status}): another caller's data answers ${STATUS.forbidden} Forbidden (or ${STATUS.notFound})`
        : `GET ${path} with the second user's credentials ${outcomeOf(other)}: another caller's data answers ${STATUS.forbidden} Forbidden (or ${STATUS.notFound})`,
      ...evidence(other),
    });
  }
}
