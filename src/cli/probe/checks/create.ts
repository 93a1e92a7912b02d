/**
 * `create-location`: a POST to a collection whose items the document lets the probe read and delete
 * answers 201 with a `Location` that reads the new item back; the probe then deletes it, and checks
 * that it is gone (404). Nothing is created where the document offers no DELETE.
 */
import { DEFAULT_STATUSES as STATUS } from '../../../core/outcomes.js';
import { withoutTrailingSlashes } from '../../../core/request.js';
import { isItemPath, segmentsOf, type OperationView } from '../../lint/model.js';
import { jsonOf } from '../http.js';
import { answered, evidence, outcomeOf, type ProbeContext } from '../context.js';
import { jsonBodyOf } from '../sample.js';

function itemPathOf(context: ProbeContext, collection: OperationView): string | undefined {
  const depth = segmentsOf(collection.path).length;
  return context.api.model?.paths.find(
    (path) =>
      isItemPath(path) &&
      path.startsWith(`${withoutTrailingSlashes(collection.path)}/`) &&
      segmentsOf(path).length === depth + 1 &&
      context.api.operation(path, 'DELETE') !== undefined &&
      context.api.operation(path, 'GET') !== undefined,
  );
}

/**
 * Creates one item, reads it through `Location`, deletes it.
 *
 * @example
 * await checkCreate(context);
 */
export async function checkCreate(context: ProbeContext): Promise<void> {
  const { results, api, client } = context;
  if (!context.settings.writes) return results.skip('create-location', '--no-writes: the probe creates nothing');
  if (api.model === undefined) return results.skip('create-location', 'needs the API\'s document, to know where it may create and delete (--openapi)');
  const creates = api.operations.filter((operation) => operation.method === 'POST' && !isItemPath(operation.path) && itemPathOf(context, operation) !== undefined && api.fill(operation.path) !== undefined);
  if (creates.length === 0) return results.skip('create-location', 'the document has no POST to a collection whose items it can also GET and DELETE (with values for every path parameter)');
  const as = context.credentials.first === undefined ? 'none' : 'first';
  for (const operation of creates) {
    const path = api.fill(operation.path)!;
    const body = jsonBodyOf(operation.requestBody, api.model.deref);
    const created = await context.send('POST', path, { as, body: JSON.stringify(body ?? {}), headers: { 'content-type': 'application/json' } });
    if (answered(created, 400, 499)) {
      results.skip('create-location', `POST ${path} ${outcomeOf(created)} to the body the probe built from the document; give its request body an example`);
      continue;
    }
    results.check('create-location');
    const location = created.answer?.headers.location;
    const url = location === undefined ? undefined : new URL(location, created.request.url).href;
    if (!answered(created, STATUS.create) || url === undefined) {
      results.fail('create-location', { message: `POST ${path}, which creates, ${outcomeOf(created)}${location === undefined ? ' without Location' : ''}: answer ${STATUS.create} Created with Location, the URL of the new item`, ...evidence(created) });
      const id = (jsonOf(created.answer ?? { status: 0, headers: {}, body: new Uint8Array(), truncated: false }) as { id?: unknown } | undefined)?.id;
      const itemPath = itemPathOf(context, operation);
      if (answered(created, 200, 299) && (typeof id === 'string' || typeof id === 'number') && itemPath !== undefined) {
        const guess = api.fill(itemPath, String(id));
        if (guess !== undefined) context.created.push(client.urlOf(guess));
      }
      return;
    }
    if (!client.isOwn(url)) {
      results.fail('create-location', { message: `POST ${path} answered Location: ${location}, on another host; the probe does not follow it. Location names the new item on this API`, ...evidence(created) });
      return;
    }
    const read = await context.send('GET', '', { as, url });
    results.check('create-location');
    if (!answered(read, 200)) {
      results.fail('create-location', { message: `GET ${location}, the Location that POST ${path} answered, ${outcomeOf(read)}: Location names the new item, which reads back with 200`, ...evidence(read) });
    }
    const removed = await context.send('DELETE', '', { as, url });
    if (!answered(removed, 200, 299)) {
      context.created.push(url);
      return;
    }
    const gone = await context.send('GET', '', { as, url });
    results.check('not-found');
    if (!answered(gone, STATUS.notFound)) {
      results.fail('not-found', { message: `GET of ${location}, deleted a moment ago, ${outcomeOf(gone)}: a deleted item answers ${STATUS.notFound}`, ...evidence(gone) });
    }
    return;
  }
}
