import { BRAND, isErrorStatus, type ErrorFacts, type InputIssue, type IssueLocation } from './errors.js';
import { answerHeader, errorText } from './http.js';

/**
 * A thrown value as an answer reads it: every member once, checked, then only that copy used.
 */

/**
 * What a thrown `HttpError` says about its answer, read once and checked: the answer is built from
 * this copy alone, so a getter or a Proxy that answers 404 when checked and 200 when read again
 * cannot change it. Undefined for a value that is no `HttpError` (a masked 500). A value that claims
 * the brand but cannot be answered as it stands (a status outside 400-599, headers that are no
 * object or could split the response, a member of the wrong type, a getter that throws) throws a
 * `TypeError` that says why, with the value as its `cause`: it is a server fault too.
 *
 * @example
 * snapshotOf(new NotFoundError('No user 7')); // { status: 404, code: 'RC_NOT_FOUND', detail: 'No user 7', ... }
 */
export function snapshotOf(value: unknown): ErrorFacts | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  let brand: unknown;
  try {
    brand = (value as { [BRAND]?: unknown })[BRAND];
  } catch {
    return undefined;
  }
  if (brand !== true) return undefined;
  let facts: ErrorFacts | string;
  try {
    facts = readFacts(value as Record<string, unknown>);
  } catch {
    facts = 'one of its members threw when read';
  }
  if (typeof facts === 'string') throw new TypeError(`A thrown HttpError cannot be answered, so it is a 500: ${facts}`, { cause: value });
  return facts;
}

/** Each member read once; a string says which one cannot be answered. */
function readFacts(error: Record<string, unknown>): ErrorFacts | string {
  const { status, code, expose } = error;
  if (!isErrorStatus(status)) return 'its status is not a whole number from 400 to 599';
  if (typeof code !== 'string' || typeof expose !== 'boolean') return 'its code is no string, or its expose no boolean';
  const headers = headersOf(error.headers);
  if (typeof headers === 'string') return headers;
  // What an unexposed error would send is not read: it is never sent.
  if (!expose) return { status, code, title: errorText(status), type: 'about:blank', detail: undefined, expose, headers, errors: undefined, omittedErrors: undefined };
  const { title, type, detail, omittedErrors } = error;
  const errors = issuesOf(error.errors);
  if (typeof title !== 'string' || typeof type !== 'string' || (detail !== undefined && typeof detail !== 'string') || errors === null || (omittedErrors !== undefined && !(Number.isSafeInteger(omittedErrors) && (omittedErrors as number) >= 0))) {
    return 'its title, type, detail, errors or omittedErrors is not of the type an HttpError gives it';
  }
  return { status, code, title, type, detail, expose, headers, errors, omittedErrors: omittedErrors as number | undefined };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** A copy of an error's headers with lower-case names, each checked as `ctx.set` checks one; a string says what is wrong. */
function headersOf(value: unknown): Readonly<Record<string, string>> | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'its headers are no object';
  const names = Object.keys(value);
  if (names.length === 0) return NO_HEADERS;
  const headers: Record<string, string> = {};
  for (const name of names) {
    const header = (value as Record<string, unknown>)[name];
    try {
      headers[answerHeader('HttpError', name, header)] = header as string;
    } catch (error) {
      return (error as Error).message;
    }
  }
  return headers;
}

/** A copy of an error's issues, each `{ in, pointer, detail }` of strings; null when they are anything else. */
function issuesOf(value: unknown): InputIssue[] | undefined | null {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return null;
  const issues: InputIssue[] = [];
  for (const issue of value as unknown[]) {
    const { in: location, pointer, detail } = (issue ?? {}) as Record<string, unknown>;
    if (typeof location !== 'string' || typeof pointer !== 'string' || typeof detail !== 'string') return null;
    issues.push({ in: location as IssueLocation, pointer, detail });
  }
  return issues;
}
