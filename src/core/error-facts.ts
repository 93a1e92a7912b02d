import { BRAND, type ErrorFacts, type InputIssue, type IssueLocation } from './errors.js';
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
    facts = 'reading one of its members threw';
  }
  if (typeof facts === 'string') throw new TypeError(`A thrown HttpError cannot be answered, so it is a 500: ${facts}`, { cause: value });
  return facts;
}

/** Each member read once; a string says which one cannot be answered. */
function readFacts(error: Record<string, unknown>): ErrorFacts | string {
  const status = error.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return `its status is ${typeof status === 'number' ? status : `a ${typeof status}`}, not a whole number from 400 to 599`;
  const code = error.code;
  if (typeof code !== 'string') return 'its code is no string';
  const expose = error.expose;
  if (typeof expose !== 'boolean') return 'its expose is no boolean';
  const headers = headersOf(error.headers);
  if (typeof headers === 'string') return headers;
  // What an unexposed error would send is not read: it is never sent.
  if (!expose) return { status, code, title: errorText(status), type: 'about:blank', detail: undefined, expose, headers, errors: undefined, omittedErrors: undefined };
  const { title, type, detail } = error;
  if (typeof title !== 'string' || typeof type !== 'string') return 'its title or type is no string';
  if (detail !== undefined && typeof detail !== 'string') return 'its detail is no string';
  const errors = issuesOf(error.errors);
  if (typeof errors === 'string') return errors;
  const omittedErrors = error.omittedErrors;
  if (omittedErrors !== undefined && (typeof omittedErrors !== 'number' || !Number.isSafeInteger(omittedErrors) || omittedErrors < 0)) return 'its omittedErrors is no whole number';
  return { status, code, title, type, detail, expose, headers, errors, omittedErrors };
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

/** A copy of an error's issues, each `{ in, pointer, detail }` of strings; a string says what is wrong. */
function issuesOf(value: unknown): InputIssue[] | undefined | string {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return 'its errors are no array';
  const issues: InputIssue[] = [];
  for (const issue of value as unknown[]) {
    if (typeof issue !== 'object' || issue === null) return 'one of its errors is no object';
    const { in: location, pointer, detail } = issue as Record<string, unknown>;
    if (typeof location !== 'string' || typeof pointer !== 'string' || typeof detail !== 'string') return 'one of its errors has an in, pointer or detail that is no string';
    issues.push({ in: location as IssueLocation, pointer, detail });
  }
  return issues;
}

/**
 * The status of a thrown `HttpError`, read once; undefined for any other value, and for a status no
 * `HttpError` can have. For a step that decides by it (a bad token on a public endpoint leaves the
 * caller anonymous), so that a getter cannot answer the check one way and the use another.
 *
 * @example
 * if (statusOf(error) !== 401) throw error;
 */
export function statusOf(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    if ((value as { [BRAND]?: unknown })[BRAND] !== true) return undefined;
    const status = (value as { status?: unknown }).status;
    return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
  } catch {
    return undefined;
  }
}
