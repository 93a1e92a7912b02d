/**
 * The rules every answer is held to, read over all the exchanges of the run once the other checks are
 * done: `server-error` (no 5xx, and no connection closed without an answer), `problem-body` (errors as
 * application/problem+json with their own status), `no-leak` (no stack trace, file path or secret in
 * an error) and `success-not-error` (no error under a 2xx). A fault seen many times is reported once per
 * kind, with the first request that showed it.
 */
import type { Exchange } from '../client.js';
import { evidence, type ProbeContext } from '../context.js';
import { jsonOf, mediaTypeOf, textOf } from '../http.js';
import { leaksIn } from '../leaks.js';

const PROBLEM = /^application\/problem\+(json|xml)$/;

function errorShape(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  if (record.success === false) return '"success": false';
  if (record.ok === false) return '"ok": false';
  if (typeof record.status === 'string' && /^(error|fail(ed|ure)?)$/i.test(record.status)) return `"status": "${record.status}"`;
  const keys = Object.keys(record);
  if ((keys.includes('error') || keys.includes('errors')) && keys.every((key) => ['error', 'errors', 'message', 'code', 'status', 'detail', 'title', 'type', 'success', 'ok'].includes(key))) return `an object of ${keys.join(', ')}`;
  return undefined;
}

/**
 * Holds every answer of the run to the rules all answers follow.
 *
 * @example
 * checkAnswers(context);
 */
export function checkAnswers(context: ProbeContext): void {
  const { results } = context;
  const seen = new Set<string>();
  const once = (key: string): boolean => !seen.has(key) && seen.add(key) !== undefined;
  const answeredExchanges = context.client.exchanges.filter((entry): entry is Exchange & { answer: NonNullable<Exchange['answer']> } => entry.answer !== undefined);
  const huge = context.settings.hugeBody;

  for (const entry of context.client.exchanges) {
    results.check('server-error');
    const sentHuge = (entry.request.body?.length ?? 0) >= huge;
    if (entry.error !== undefined && !sentHuge && once(`gone ${entry.error.kind}`)) {
      results.fail('server-error', { message: `${entry.error.message}: every request gets an answer`, ...evidence(entry) });
    }
    if (entry.answer !== undefined && entry.answer.status >= 500 && once(`5xx ${entry.request.method} ${entry.request.url}`)) {
      results.fail('server-error', { message: `${entry.request.method} ${entry.request.url} answered ${entry.answer.status}; a client's request, even a wrong one, answers 4xx, and 5xx means the server failed`, ...evidence(entry) });
    }
  }

  for (const entry of answeredExchanges) {
    const { status } = entry.answer;
    const type = mediaTypeOf(entry.answer);
    const text = textOf(entry.answer);
    if (status >= 400) {
      results.check('no-leak');
      for (const leak of leaksIn(text)) {
        if (once(`leak ${leak.name}`)) results.fail('no-leak', { message: `The ${status} answer holds ${leak.name} ("${leak.match}"): an error tells the client what to change, and keeps the server's insides in its log`, ...evidence(entry) });
      }
    }
    if (status >= 400 && entry.request.method !== 'HEAD') {
      results.check('problem-body');
      const problem = PROBLEM.test(type);
      const member = problem && type.endsWith('json') ? (jsonOf(entry.answer) as { status?: unknown } | undefined)?.status : undefined;
      if (!problem && once(`problem ${status} ${type}`)) {
        results.fail('problem-body', { message: `A ${status} answered ${type === '' ? 'without a Content-Type' : `as ${type}`}: errors are problem bodies, application/problem+json with type, title, status and detail (RFC 9457)`, ...evidence(entry) });
      } else if (problem && member !== undefined && member !== status && once(`problem status ${status} ${String(member)}`)) {
        results.fail('problem-body', { message: `A ${status} answered a problem whose status member is ${String(member)}: the member repeats the status of the answer`, ...evidence(entry) });
      }
    }
    if (status >= 200 && status <= 299 && entry.request.method !== 'HEAD') {
      results.check('success-not-error');
      const shape = PROBLEM.test(type) ? type : errorShape(jsonOf(entry.answer));
      if (shape !== undefined && once(`success ${entry.request.method} ${entry.request.url}`)) {
        results.fail('success-not-error', { message: `${entry.request.method} ${entry.request.url} answered ${status} with an error (${shape}): an error has an error status (4xx or 5xx) and a problem body`, ...evidence(entry) });
      }
    }
  }
}
