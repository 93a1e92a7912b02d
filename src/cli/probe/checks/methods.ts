/**
 * `method-not-allowed` and `head-options`: a method a path does not serve answers 405 with an `Allow`
 * that lists the methods it does; HEAD answers as GET without a body; OPTIONS answers with `Allow`.
 */
import { DEFAULT_STATUSES as STATUS } from '../../../core/outcomes.js';
import { replaceParams } from '../../path-params.js';
import { answered, evidence, outcomeOf, type ProbeContext } from '../context.js';

/** Paths checked, at most, by each of the two rules. */
const MOST = 6;

/** Methods the probe may send to a path that does not list them, the harmless first; never DELETE. */
const UNLISTED = ['GET', 'PATCH', 'PUT', 'POST'] as const;
const ROUTED = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

function allowOf(header: string | undefined): Set<string> {
  return new Set((header ?? '').split(',').map((method) => method.trim().toUpperCase()).filter((method) => method !== ''));
}

/** The path with every parameter filled: with a known value, or with a made-up one, which routing does not look at. */
function anyPath(context: ProbeContext, template: string): string {
  return context.api.fill(template) ?? replaceParams(template, 'restcanon-probe-unknown');
}

/**
 * Sends, to each path of the document, a method it does not list.
 *
 * @example
 * await checkMethodNotAllowed(context);
 */
export async function checkMethodNotAllowed(context: ProbeContext): Promise<void> {
  const { results, api } = context;
  if (api.model === undefined) {
    results.skip('method-not-allowed', 'needs the API\'s document, to know which methods each path serves (--openapi)');
    return;
  }
  let checked = 0;
  for (const template of api.model.paths) {
    if (checked >= MOST) break;
    const listed = new Set(api.operations.filter((operation) => operation.path === template).map((operation) => operation.method));
    const method = UNLISTED.find((candidate) => !listed.has(candidate) && (context.settings.writes || candidate === 'GET'));
    if (method === undefined) continue;
    checked += 1;
    const body = method === 'GET' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } };
    const entry = await context.send(method, anyPath(context, template), { as: context.credentials.first === undefined ? 'none' : 'first', ...body });
    results.check('method-not-allowed');
    if (!answered(entry, STATUS.methodNotAllowed)) {
      results.fail('method-not-allowed', { message: `${method}, which the document does not list for ${template}, ${outcomeOf(entry)}: answer ${STATUS.methodNotAllowed} Method Not Allowed with Allow: ${[...listed].join(', ')}`, ...evidence(entry) });
      continue;
    }
    const allow = allowOf(entry.answer?.headers.allow);
    const absent = [...listed].filter((listedMethod) => ROUTED.has(listedMethod) && !allow.has(listedMethod));
    if (entry.answer?.headers.allow === undefined) {
      results.fail('method-not-allowed', { message: `${method} ${template} answered ${STATUS.methodNotAllowed} without an Allow header: list the path's methods in Allow (RFC 9110 requires it)`, ...evidence(entry) });
    } else if (absent.length > 0 || allow.has(method)) {
      results.fail('method-not-allowed', { message: `${method} ${template} answered ${STATUS.methodNotAllowed} with Allow: ${entry.answer?.headers.allow}, but the document lists ${[...listed].join(', ')}: Allow names the methods the path serves`, ...evidence(entry) });
    }
  }
  if (checked === 0) results.skip('method-not-allowed', context.settings.writes ? 'every path lists GET, PATCH, PUT and POST' : 'with --no-writes only an unlisted GET may be sent, and every path lists GET');
}

/**
 * Sends HEAD and OPTIONS to paths the document serves with GET.
 *
 * @example
 * await checkHeadOptions(context);
 */
export async function checkHeadOptions(context: ProbeContext): Promise<void> {
  const { results, api } = context;
  const as = context.credentials.first === undefined ? 'none' : 'first';
  const gets = api.operations.filter((operation) => operation.method === 'GET' && api.fill(operation.path) !== undefined);
  if (gets.length === 0) {
    results.skip('head-options', api.model === undefined ? 'needs the API\'s document, to know which paths serve GET (--openapi)' : 'no GET path whose parameters have values');
    return;
  }
  for (const operation of gets.slice(0, MOST / 2)) {
    const path = api.fill(operation.path)!;
    const get = await context.send('GET', path, { as });
    const head = await context.send('HEAD', path, { as });
    results.check('head-options');
    if (get.answer !== undefined && head.answer !== undefined) {
      if (head.answer.status !== get.answer.status) {
        results.fail('head-options', { message: `HEAD ${path} answered ${head.answer.status} where GET answered ${get.answer.status}: HEAD answers as GET does, without the body`, ...evidence(head) });
      } else if (head.answer.body.byteLength > 0) {
        results.fail('head-options', { message: `HEAD ${path} answered with a body of ${head.answer.body.byteLength} bytes: HEAD answers without a body`, ...evidence(head) });
      }
    } else if (head.answer === undefined) {
      results.fail('head-options', { message: `HEAD ${path} ${outcomeOf(head)}`, ...evidence(head) });
    }
    const options = await context.send('OPTIONS', path, { as });
    results.check('head-options');
    if (!answered(options, 200, 299)) {
      results.fail('head-options', { message: `OPTIONS ${path} ${outcomeOf(options)}: answer ${STATUS.options} (or 200) with Allow, the methods of the path`, ...evidence(options) });
    } else if (!allowOf(options.answer?.headers.allow).has('GET')) {
      results.fail('head-options', { message: `OPTIONS ${path} answered ${options.answer?.status} without GET in Allow (${options.answer?.headers.allow ?? 'no Allow header'}): Allow lists the methods of the path`, ...evidence(options) });
    }
  }
}
