/**
 * `not-found`: an unknown path, and an unknown id on each item path the document lists, answer 404,
 * never 200 (with `null` or an empty body) nor a 5xx.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_STATUSES as STATUS } from '../../../core/outcomes.js';
import { isItemPath } from '../../lint/model.js';
import { answered, evidence, outcomeOf, type ProbeContext } from '../context.js';

/** Item paths checked, at most. */
const MOST = 6;

/**
 * Sends a GET for an unknown path and for an unknown id on each item path.
 *
 * @example
 * await checkNotFound(context);
 */
export async function checkNotFound(context: ProbeContext): Promise<void> {
  const { results, api } = context;
  const as = context.credentials.first === undefined ? 'none' : 'first';
  const unknownPath = `/restcanon-probe-${randomBytes(4).toString('hex')}`;
  const path = await context.send('GET', unknownPath, { as });
  results.check('not-found');
  if (!answered(path, STATUS.notFound)) {
    results.fail('not-found', { message: `An unknown path ${outcomeOf(path)}: answer ${STATUS.notFound} Not Found with a problem body`, ...evidence(path) });
  }
  const items = api.operations.filter((operation) => operation.method === 'GET' && isItemPath(operation.path)).slice(0, MOST);
  if (api.model !== undefined && items.length === 0) results.skip('not-found', 'the document lists no GET on an item path (one that ends in a parameter)');
  for (const operation of items) {
    const target = api.fill(operation.path, api.unknownId(operation.path));
    if (target === undefined) {
      results.skip('not-found', `GET ${operation.path}: no value for ${api.missing(operation.path).slice(0, -1).join(', ')}; pass --param name=value`);
      continue;
    }
    const entry = await context.send('GET', target, { as });
    if (answered(entry, STATUS.unauthorized) && context.credentials.first === undefined) {
      results.skip('not-found', `GET ${operation.path} needs credentials: pass --auth`);
      continue;
    }
    results.check('not-found');
    if (answered(entry, STATUS.notFound)) continue;
    const body = entry.answer === undefined ? '' : ` (body: ${evidence(entry).answer?.excerpt || 'empty'})`;
    results.fail('not-found', { message: `GET of an unknown id on ${operation.path} ${outcomeOf(entry)}${answered(entry, 200, 299) ? body : ''}: an unknown item answers ${STATUS.notFound} Not Found`, ...evidence(entry) });
  }
}
