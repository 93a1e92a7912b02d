import { BadRequestError, type HttpErrorOptions, type InputIssue, type IssueLocation } from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import { issueDetail } from './issue-detail.js';
import { isStandardSchema, type StandardIssue, type StandardResult, type StandardSchema } from './standard-schema.js';

/**
 * A schema for a whole part of the request, or for path params one schema per param.
 *
 * @example
 * const byParam: PartSchema = { id: z.coerce.number().int() };
 */
export type PartSchema = StandardSchema | Readonly<Record<string, StandardSchema>>;

/**
 * The most issues one request reports. A body can hold any number of invalid values, and listing
 * each one would let a small request buy a large answer and a lot of work; the 400 lists the first
 * ones and counts the rest.
 *
 * @example
 * invalidInput(sixtyThousandIssues).errors?.length === MAX_ISSUES; // true: the other 59,900 are counted in `omittedErrors`
 */
export const MAX_ISSUES = 100;

/**
 * How many issues a schema may report before the rest are counted rather than sorted: the listed
 * issues are the first by pointer among this many, taken in the order the validator reported them.
 */
const SORTED_ISSUES = MAX_ISSUES * 10;

/**
 * The outcome of validating one part: the parsed value, or its issues, at most {@link MAX_ISSUES}
 * of them. `omitted` counts the issues found beyond those listed; it is absent when there are none.
 *
 * @example
 * const result: PartResult = { ok: false, issues: [{ in: 'query', pointer: '#/page', detail: 'must be a number' }] };
 */
export type PartResult = { ok: true; value: unknown } | { ok: false; issues: InputIssue[]; omitted?: number };

/**
 * The issues of a request gathered part by part: at most {@link MAX_ISSUES} listed, and a count of
 * those left out.
 *
 * @example
 * const list: IssueList = { issues: [{ in: 'query', pointer: '#/page', detail: 'must be a number' }], omitted: 0 };
 */
export interface IssueList {
  issues: InputIssue[];
  omitted: number;
}

/**
 * Adds the issues of one part to those of the parts before it, in a loop (spreading a long list
 * into a call overflows the stack), listing no more than {@link MAX_ISSUES} and counting the rest.
 * Returns the list it was given, or a new one when given none.
 *
 * @example
 * let list: IssueList | undefined;
 * list = addIssues(list, { issues: queryIssues });
 * list = addIssues(list, { issues: bodyIssues, omitted: 4000 });
 * throw invalidInput(list.issues, list.omitted);
 */
export function addIssues(list: IssueList | undefined, more: { readonly issues: readonly InputIssue[]; readonly omitted?: number | undefined }): IssueList {
  const gathered = list ?? { issues: [], omitted: 0 };
  const room = Math.max(0, MAX_ISSUES - gathered.issues.length);
  const taken = Math.min(room, more.issues.length);
  for (let index = 0; index < taken; index++) gathered.issues.push(more.issues[index]!);
  gathered.omitted += more.issues.length - taken + (more.omitted ?? 0);
  return gathered;
}

/**
 * Validates one part of a request (`path`, `query`, `header` or `body`) and normalizes every issue
 * into `{ in, pointer, detail }`. The issues of one schema are sorted by pointer, so that zod,
 * valibot and arktype (which sorts keys itself) give the same list for the same input; schemas
 * given per path param keep their order. A schema that throws (a deep input can overflow the stack
 * of a recursive validator) is an invalid input, never a crash. The result is synchronous when every
 * schema is, so that the common case costs no promise.
 *
 * @example
 * await validatePart(z.object({ name: z.string() }), { name: 1 }, 'body');
 * // { ok: false, issues: [{ in: 'body', pointer: '#/name', detail: 'must be a string' }] }
 */
export function validatePart(schema: PartSchema, value: unknown, location: IssueLocation): PartResult | Promise<PartResult> {
  return partValidator(schema, location)(value);
}

/**
 * {@link validatePart} for one schema and location, prepared once: an endpoint runs this on every
 * request, and a valid part then costs the schemas' own work and one copy of the part, no more.
 *
 * @example
 * const validateParams = partValidator({ id: z.coerce.number() }, 'path');
 * validateParams({ id: '7' }); // { ok: true, value: { id: 7 } }
 */
export function partValidator(schema: PartSchema, location: IssueLocation): (value: unknown) => PartResult | Promise<PartResult> {
  if (isStandardSchema(schema)) {
    return (value) => {
      const outcome = runSchema(schema, value, NONE, location);
      return outcome instanceof Promise ? outcome.then(toResult) : toResult(outcome);
    };
  }
  const keys = Object.keys(schema);
  const schemas = keys.map((key) => schema[key]!);
  const prefixes = keys.map((key) => [key]);
  return (value) => {
    const input = (value ?? {}) as Record<string, unknown>;
    // A spread, not Object.assign: V8 copies a record of a shape it has seen (a router's params, say) in one step.
    const fields = { ...input };
    let issues: IssueList | undefined;
    // Outcomes are taken in key order: once one has to wait, it and every later one wait together.
    let waiting: (SchemaOutcome | Promise<SchemaOutcome>)[] | undefined;
    for (let index = 0; index < keys.length; index++) {
      const outcome = runSchema(schemas[index]!, input[keys[index]!], prefixes[index]!, location);
      if (waiting === undefined && !(outcome instanceof Promise)) issues = take(fields, keys[index]!, outcome, issues);
      else (waiting ??= []).push(outcome);
    }
    if (waiting === undefined) return resultOf(fields, issues);
    const from = keys.length - waiting.length;
    return Promise.all(waiting).then((outcomes) => {
      for (let index = 0; index < outcomes.length; index++) issues = take(fields, keys[from + index]!, outcomes[index]!, issues);
      return resultOf(fields, issues);
    });
  };
}

/** Puts one key's outcome into the part: its value into the fields, its issues after those found before. */
function take(fields: Record<string, unknown>, key: string, outcome: SchemaOutcome, issues: IssueList | undefined): IssueList | undefined {
  fields[key] = outcome.value;
  return outcome.issues.length === 0 ? issues : addIssues(issues, outcome);
}

function resultOf(fields: Record<string, unknown>, issues: IssueList | undefined): PartResult {
  return issues === undefined ? { ok: true, value: fields } : failure(issues.issues, issues.omitted);
}

/** What one schema made of a value: its output (the input itself when invalid), its listed issues and how many more it had. */
interface SchemaOutcome {
  value: unknown;
  issues: InputIssue[];
  omitted: number;
}

function toResult(outcome: SchemaOutcome): PartResult {
  return outcome.issues.length === 0 ? { ok: true, value: outcome.value } : failure(outcome.issues, outcome.omitted);
}

function failure(issues: InputIssue[], omitted: number): PartResult {
  return omitted === 0 ? { ok: false, issues } : { ok: false, issues, omitted };
}

/** An issue with its full path, before it becomes an {@link InputIssue}. */
interface LocatedIssue {
  path: readonly PropertyKey[];
  detail: string;
}

/** Runs one schema: its output, or its issues normalized and sorted. */
function runSchema(schema: StandardSchema, value: unknown, prefix: readonly PropertyKey[], location: IssueLocation): SchemaOutcome | Promise<SchemaOutcome> {
  try {
    const result = schema['~standard'].validate(value);
    if (result instanceof Promise) {
      return result.then(
        (settled) => {
          try {
            return settle(settled, value, prefix, location);
          } catch {
            return broken(value, prefix, location);
          }
        },
        () => broken(value, prefix, location),
      );
    }
    return settle(result, value, prefix, location);
  } catch {
    return broken(value, prefix, location);
  }
}

/** The outcome of a schema that threw instead of reporting. */
function broken(value: unknown, prefix: readonly PropertyKey[], location: IssueLocation): SchemaOutcome {
  return { value, ...normalize([{ path: prefix, detail: 'could not be validated' }], 0, location) };
}

/**
 * One shared empty list, frozen so that a push would throw rather than leak into other requests: the
 * issues of a valid value, and the path before a whole-part schema's own issue paths.
 */
const NONE = Object.freeze([]) as never[];

function settle(result: StandardResult<unknown>, value: unknown, prefix: readonly PropertyKey[], location: IssueLocation): SchemaOutcome {
  if (result.issues === undefined) return { value: result.value, issues: NONE, omitted: 0 };
  const reported = result.issues;
  const found: LocatedIssue[] = [];
  let unsorted = 0;
  if (!Array.isArray(reported) || reported.length === 0) found.push({ path: prefix, detail: 'is invalid' });
  else for (const issue of reported) unsorted += locate(issue, value, prefix, found);
  return { value, ...normalize(found, unsorted, location) };
}

/** Adds an issue to `found` while it has room for it; returns how many issues did not fit. */
function locate(issue: StandardIssue, value: unknown, prefix: readonly PropertyKey[], found: LocatedIssue[]): number {
  // zod reports all unknown keys of an object in one issue at the object; the others, one per key.
  const { code, keys } = issue as { code?: unknown; keys?: unknown };
  const unknownKeys = code === 'unrecognized_keys' && Array.isArray(keys) && keys.length > 0 ? (keys as unknown[]) : undefined;
  const count = unknownKeys === undefined ? 1 : unknownKeys.length;
  const room = SORTED_ISSUES - found.length;
  if (room <= 0) return count;
  const relative = pathOf(issue);
  const path = [...prefix, ...relative];
  if (unknownKeys === undefined) {
    found.push({ path, detail: issueDetail(issue, { missing: isMissing(value, relative) }) });
    return 0;
  }
  const detail = issueDetail(issue);
  const taken = Math.min(room, count);
  for (let index = 0; index < taken; index++) found.push({ path: [...path, String(unknownKeys[index])], detail });
  return count - taken;
}

function pathOf(issue: StandardIssue): PropertyKey[] {
  if (!Array.isArray(issue.path)) return [];
  // Array.from, not path.map: arktype's path is an Array subclass, and map() on an empty one builds `[0]`.
  return Array.from(issue.path, (segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment));
}

/** Whether following `path` through the input ends at an absent key or at `undefined`. */
function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  let current = input;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return true;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current === undefined;
}

/**
 * The issues found, sorted by pointer and without duplicates, the first {@link MAX_ISSUES} listed
 * and the rest counted with the `unsorted` ones that were never located.
 */
function normalize(found: LocatedIssue[], unsorted: number, location: IssueLocation): { issues: InputIssue[]; omitted: number } {
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  let omitted = unsorted;
  for (const { path, detail } of found.sort((a, b) => comparePaths(a.path, b.path))) {
    const pointer = toPointer(path);
    const key = `${pointer}\n${detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (issues.length < MAX_ISSUES) issues.push({ in: location, pointer, detail });
    else omitted++;
  }
  return { issues, omitted };
}

/** By key, segment by segment, with array indexes compared as numbers (`/tags/2` before `/tags/10`). */
function comparePaths(left: readonly PropertyKey[], right: readonly PropertyKey[]): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left[index]!;
    const b = right[index]!;
    if (a === b) continue;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    const textA = String(typeof a === 'symbol' ? a.description : a);
    const textB = String(typeof b === 'symbol' ? b.description : b);
    if (textA !== textB) return textA < textB ? -1 : 1;
  }
  return left.length - right.length;
}

/**
 * A JSON Pointer (RFC 6901) in its URI fragment form, such as `#/address/zip`.
 *
 * @example
 * toPointer(['items', 0, 'a/b']); // '#/items/0/a~1b'
 */
export function toPointer(path: readonly PropertyKey[]): string {
  let pointer = '#';
  for (const key of path) {
    pointer += '/' + encodeURIComponent(String(typeof key === 'symbol' ? key.description : key).replace(/~/g, '~0').replace(/\//g, '~1'));
  }
  return pointer;
}

/**
 * The 400 for a list of issues: every issue, not just the first, up to {@link MAX_ISSUES}. Past
 * that, `errors` holds the first ones, `omittedErrors` counts the others (`omitted`, and any
 * beyond the cap in `issues`), and the detail gives the total.
 *
 * @example
 * throw invalidInput([{ in: 'query', pointer: '#/page', detail: 'must be a number' }]);
 * invalidInput(first100, 59900).detail; // 'The request has 60000 invalid values; the first 100 are listed'
 */
export function invalidInput(issues: readonly InputIssue[], omitted = 0): BadRequestError {
  const listed = issues.length > MAX_ISSUES ? issues.slice(0, MAX_ISSUES) : (issues as InputIssue[]);
  const unlisted = issues.length - listed.length + omitted;
  const total = listed.length + unlisted;
  let detail = total === 1 ? 'The request has 1 invalid value' : `The request has ${total} invalid values`;
  if (unlisted > 0) detail += `; the first ${listed.length} are listed`;
  const options: InvalidInputOptions = { code: ERROR_CODES.INVALID_INPUT, errors: listed };
  if (unlisted > 0) options.omittedErrors = unlisted;
  return new BadRequestError(detail, options);
}

/** The options of the 400, with the count of issues left out of `errors`. */
type InvalidInputOptions = Omit<HttpErrorOptions, 'detail'> & { omittedErrors?: number };
