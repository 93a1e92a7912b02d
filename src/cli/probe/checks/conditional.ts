/**
 * `conditional-get`: an item answered with an `ETag` answers 304, without a body, to a GET that sends
 * that tag in `If-None-Match`. A server that sends no ETag is not checked: validators are optional.
 */
import { DEFAULT_STATUSES as STATUS } from '../../../core/outcomes.js';
import { isItemPath } from '../../lint/model.js';
import { answered, evidence, outcomeOf, type ProbeContext } from '../context.js';

const MOST = 3;

/**
 * Reads items, and reads again those that came with an ETag, sending it back.
 *
 * @example
 * await checkConditionalGet(context);
 */
export async function checkConditionalGet(context: ProbeContext): Promise<void> {
  const { results, api } = context;
  const as = context.credentials.first === undefined ? 'none' : 'first';
  const items = api.operations.filter((operation) => operation.method === 'GET' && isItemPath(operation.path) && api.fill(operation.path) !== undefined).slice(0, MOST);
  let tagged = 0;
  for (const operation of items) {
    const path = api.fill(operation.path)!;
    const first = await context.send('GET', path, { as });
    const etag = first.answer?.headers.etag;
    if (!answered(first, 200) || etag === undefined) continue;
    tagged += 1;
    const again = await context.send('GET', path, { as, headers: { 'if-none-match': etag } });
    results.check('conditional-get');
    if (!answered(again, STATUS.notModified)) {
      results.fail('conditional-get', { message: `GET ${path} with If-None-Match: ${etag}, its own ETag, ${outcomeOf(again)}: answer ${STATUS.notModified} Not Modified`, ...evidence(again) });
    } else if ((again.answer?.body.byteLength ?? 0) > 0) {
      results.fail('conditional-get', { message: `GET ${path} answered ${STATUS.notModified} with a body: a ${STATUS.notModified} has none`, ...evidence(again) });
    }
  }
  if (tagged === 0) results.skip('conditional-get', items.length === 0 ? 'no item path whose parameters have values' : 'no item the probe read came with an ETag');
}
