/**
 * `bad-request`, `unsupported-media-type` and `payload-too-large`: a body the server cannot take
 * answers 400 (malformed JSON), 415 (a media type it does not take) or 413 (over its limit), never a
 * success and never a 5xx. Each body is one no server can apply: the huge one is malformed JSON too, so
 * a server without a limit reads it all and still changes nothing.
 */
import { DEFAULT_STATUSES as STATUS } from '../../../core/outcomes.js';
import { isItemPath } from '../../lint/model.js';
import type { OperationView } from '../../lint/model.js';
import type { Exchange } from '../client.js';
import { answered, evidence, outcomeOf, type ProbeContext } from '../context.js';
import type { RuleId } from '../../rules.js';

function takesJson(operation: OperationView): boolean {
  const content = operation.requestBody?.content;
  return typeof content === 'object' && content !== null && Object.keys(content).some((type) => /json/i.test(type));
}

/** The operation the bodies go to: a PATCH of an item first (it replaces nothing), then a POST, then a PUT. */
function targetOf(context: ProbeContext): { operation: OperationView; path: string } | undefined {
  for (const method of ['PATCH', 'POST', 'PUT']) {
    for (const operation of context.api.operations) {
      if (operation.method !== method || !takesJson(operation)) continue;
      if (method !== 'POST' && !isItemPath(operation.path)) continue;
      const path = context.api.fill(operation.path);
      if (path !== undefined) return { operation, path };
    }
  }
  return undefined;
}

/** A write that should have failed and succeeded: keep what it made, to delete it at the end. */
function keepCreated(context: ProbeContext, entry: Exchange): void {
  const location = entry.answer?.headers.location;
  if (location === undefined) return;
  const url = new URL(location, entry.request.url).href;
  if (context.client.isOwn(url)) context.created.push(url);
}

/**
 * Sends malformed JSON, a text body and a body over the limit to one operation that takes JSON.
 *
 * @example
 * await checkBodies(context);
 */
export async function checkBodies(context: ProbeContext): Promise<void> {
  const rules: RuleId[] = ['bad-request', 'unsupported-media-type', 'payload-too-large'];
  const skipAll = (reason: string): void => rules.forEach((rule) => context.results.skip(rule, reason));
  if (!context.settings.writes) return skipAll('--no-writes: the probe sends no body');
  if (context.api.model === undefined) return skipAll('needs the API\'s document, to know which operation takes a JSON body (--openapi)');
  const target = targetOf(context);
  if (target === undefined) return skipAll('no operation that takes a JSON body has values for all its path parameters');
  const { operation, path } = target;
  const as = context.credentials.first === undefined ? 'none' : 'first';
  const huge = context.settings.hugeBody;
  const cases: { rule: RuleId; status: number; what: string; contentType: string; body: string | Uint8Array }[] = [
    { rule: 'bad-request', status: STATUS.badRequest, what: 'malformed JSON', contentType: 'application/json', body: '{"restcanon-probe": ' },
    { rule: 'unsupported-media-type', status: STATUS.unsupportedMediaType, what: 'a text/plain body', contentType: 'text/plain', body: 'restcanon-probe' },
    { rule: 'payload-too-large', status: STATUS.payloadTooLarge, what: `a body of ${huge} bytes`, contentType: 'application/json', body: hugeBody(huge) },
  ];
  for (const test of cases) {
    const entry = await context.send(operation.method, path, { as, body: test.body, headers: { 'content-type': test.contentType } });
    if (answered(entry, STATUS.unauthorized) && context.credentials.first === undefined) {
      context.results.skip(test.rule, `${operation.method} ${operation.path} needs credentials: pass --auth`);
      continue;
    }
    context.results.check(test.rule);
    if (answered(entry, test.status)) continue;
    if (answered(entry, 200, 299)) keepCreated(context, entry);
    const read = test.rule === 'payload-too-large' && answered(entry, STATUS.badRequest) ? ', after reading the whole body' : '';
    context.results.fail(test.rule, {
      message: `${operation.method} ${path} with ${test.what} ${outcomeOf(entry)}${read}: answer ${test.status} ${test.rule === 'bad-request' ? 'Bad Request' : test.rule === 'payload-too-large' ? 'Content Too Large' : 'Unsupported Media Type'} with a problem body`,
      ...evidence(entry),
    });
  }
}

/** Malformed JSON of the given size: an object whose string never ends. */
function hugeBody(bytes: number): Uint8Array {
  const body = new Uint8Array(bytes).fill(0x61);
  body.set(new TextEncoder().encode('{"restcanon-probe":"'));
  return body;
}
