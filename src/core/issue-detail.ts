import type { StandardIssue } from './standard-schema.js';

/**
 * What the caller knows about the value an issue is about, found by following the issue's path
 * through the input. zod 4 does not put the input on its issues, so a missing key can only be told
 * from a wrong type this way.
 *
 * @example
 * issueDetail(zodIssue, { missing: true }); // 'is required'
 */
export interface IssueSubject {
  /** The key is absent from the input, or its value is `undefined`. */
  readonly missing: boolean;
}

/** An issue as the libraries build it: their own object, read field by field and never trusted. */
type IssueFields = Readonly<Record<string, unknown>>;
type DetailReader = (issue: IssueFields) => string | undefined;
type Subject = 'number' | 'string' | 'array';

const REQUIRED = 'is required';
const INVALID = 'is invalid';
const UNKNOWN_KEY = 'is not an allowed key';
const BAD_FORMAT = 'has an invalid format';

/** Type names as the libraries spell them (zod `expected`, valibot `type`, arktype `domain`/`proto`). */
const TYPE_DETAILS: Readonly<Record<string, string>> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be an integer',
  integer: 'must be an integer',
  boolean: 'must be a boolean',
  bigint: 'must be a bigint',
  object: 'must be an object',
  record: 'must be an object',
  strict_object: 'must be an object',
  loose_object: 'must be an object',
  object_with_rest: 'must be an object',
  array: 'must be an array',
  tuple: 'must be an array',
  strict_tuple: 'must be an array',
  loose_tuple: 'must be an array',
  date: 'must be a date',
  null: 'must be null',
};

/** String formats: zod `format`, valibot `type`, and arktype's descriptions of its keywords. */
const FORMAT_DETAILS: Readonly<Record<string, string>> = {
  email: 'must be a valid email address',
  rfc_email: 'must be a valid email address',
  'an email address': 'must be a valid email address',
  uuid: 'must be a valid UUID',
  guid: 'must be a valid UUID',
  'a UUID': 'must be a valid UUID',
  url: 'must be a valid URL',
  'a URL string': 'must be a valid URL',
  datetime: 'must be a valid date-time',
  iso_timestamp: 'must be a valid date-time',
  iso_date_time: 'must be a valid date-time',
  'an ISO 8601 (YYYY-MM-DDTHH:mm:ss.sssZ) date': 'must be a valid date-time',
  date: 'must be a valid date',
  iso_date: 'must be a valid date',
  time: 'must be a valid time',
  iso_time: 'must be a valid time',
  iso_time_second: 'must be a valid time',
  // arktype's parsing keywords (`string.numeric.parse`), the usual way to take numbers from a query.
  'a well-formed numeric string': 'must be a number',
  'a well-formed integer string': 'must be an integer',
};

/** zod 4, keyed by `code`. */
const ZOD_CODES: Readonly<Record<string, DetailReader>> = {
  invalid_type: (issue) => typeDetail(issue.expected),
  too_small: (issue) => boundDetail('min', ZOD_ORIGINS[String(issue.origin)], issue.minimum, issue.inclusive !== false, issue.exact === true),
  too_big: (issue) => boundDetail('max', ZOD_ORIGINS[String(issue.origin)], issue.maximum, issue.inclusive !== false, issue.exact === true),
  not_multiple_of: (issue) => multipleDetail(issue.divisor),
  invalid_format: (issue) => formatDetail(issue.format) ?? BAD_FORMAT,
  invalid_value: (issue) => oneOfDetail(issue.values),
  unrecognized_keys: () => UNKNOWN_KEY,
  invalid_union: (issue) => oneOfDetail(zodUnionValues(issue.errors)),
};

const ZOD_ORIGINS: Readonly<Record<string, Subject>> = { number: 'number', int: 'number', bigint: 'number', string: 'string', array: 'array', set: 'array' };

/** valibot 1, keyed by `type` (the schema or action that failed); other `schema` kinds are type mismatches. */
const VALIBOT_TYPES: Readonly<Record<string, DetailReader>> = {
  min_length: (issue) => boundDetail('min', subjectOf(issue.input), issue.requirement, true, false),
  max_length: (issue) => boundDetail('max', subjectOf(issue.input), issue.requirement, true, false),
  length: (issue) => boundDetail('min', subjectOf(issue.input), issue.requirement, true, true),
  non_empty: (issue) => boundDetail('min', subjectOf(issue.input), 1, true, false),
  min_value: (issue) => boundDetail('min', 'number', issue.requirement, true, false),
  max_value: (issue) => boundDetail('max', 'number', issue.requirement, true, false),
  gt_value: (issue) => boundDetail('min', 'number', issue.requirement, false, false),
  lt_value: (issue) => boundDetail('max', 'number', issue.requirement, false, false),
  multiple_of: (issue) => multipleDetail(issue.requirement),
  integer: () => TYPE_DETAILS.integer,
  regex: () => BAD_FORMAT,
  picklist: (issue) => oneOfDetail(valibotValues(issue.expected)),
  enum: (issue) => oneOfDetail(valibotValues(issue.expected)),
  literal: (issue) => oneOfDetail(valibotValues(issue.expected)),
  union: (issue) => oneOfDetail(valibotValues(issue.expected)),
  // A key that a strict object does not declare is reported as "expected never".
  strict_object: (issue) => (issue.expected === 'never' ? UNKNOWN_KEY : TYPE_DETAILS.object),
};

/** arktype 2, keyed by `code`. */
const ARKTYPE_CODES: Readonly<Record<string, DetailReader>> = {
  required: () => REQUIRED,
  domain: (issue) => typeDetail(issue.domain),
  proto: (issue) => typeDetail(typeof issue.proto === 'function' ? issue.proto.name.toLowerCase() : issue.proto),
  divisor: (issue) => (issue.rule === 1 ? TYPE_DETAILS.integer : multipleDetail(issue.rule)),
  min: (issue) => boundDetail('min', 'number', issue.rule, issue.exclusive !== true, false),
  max: (issue) => boundDetail('max', 'number', issue.rule, issue.exclusive !== true, false),
  minLength: (issue) => boundDetail('min', subjectOf(issue.data), issue.rule, true, false),
  maxLength: (issue) => boundDetail('max', subjectOf(issue.data), issue.rule, true, false),
  exactLength: (issue) => boundDetail('min', subjectOf(issue.data), issue.rule, true, true),
  pattern: (issue) => formatDetail(issue.description) ?? BAD_FORMAT,
  // `onUndeclaredKey: 'reject'` reports an unknown key as a predicate that expected it "removed".
  predicate: (issue) => (issue.expected === 'removed' ? UNKNOWN_KEY : formatDetail(issue.expected)),
  unit: (issue) => oneOfDetail([issue.unit]),
  union: (issue) => arktypeUnionDetail(issue.errors),
};

/**
 * The client-facing sentence for one schema issue, the same for the same mistake whichever library
 * (zod 4, valibot 1, arktype 2) found it. Library messages can quote the input (`received
 * "hunter2"`), so they are never used: the detail is built from the issue's kind and from limits
 * and allowed values that come from the schema. An issue of a kind not listed here is `is invalid`.
 *
 * | Detail                                                    | For                                               |
 * |-----------------------------------------------------------|---------------------------------------------------|
 * | `is required`                                             | a missing key, or `undefined` where a value is due |
 * | `must be a string` (`a number`, `an integer`, `a boolean`, `an object`, `an array`, `a bigint`, `a date`, `null`) | a value of another type |
 * | `must be at least 0` / `must be greater than 0`           | a number below its minimum (inclusive / exclusive) |
 * | `must be at most 150` / `must be less than 150`           | a number above its maximum                        |
 * | `must be a multiple of 5`                                 | a number off its step                             |
 * | `must be at least 2 characters` (`at most`, `exactly`)    | a string's length                                 |
 * | `must have at least 1 item` (`at most`, `exactly`)        | an array's length                                 |
 * | `must be a valid email address` (`UUID`, `URL`, `date-time`, `date`, `time`) | a string format               |
 * | `has an invalid format`                                   | any other pattern or format                       |
 * | `must be "admin"` / `must be one of: "admin", "user"`     | a literal or an enum (values sorted)              |
 * | `is not an allowed key`                                   | a key a strict object does not declare            |
 * | `is invalid`                                              | anything else: refinements, unions of types, ...   |
 *
 * `could not be validated` (the schema threw) comes from `validatePart`, not from here.
 *
 * @example
 * issueDetail({ message: 'Invalid type: Expected string but received "hunter2"', kind: 'schema', type: 'string', input: 'hunter2' } as StandardIssue); // 'must be a string'
 */
export function issueDetail(issue: StandardIssue, subject?: IssueSubject): string {
  try {
    const fields = issue as unknown as IssueFields;
    if (subject?.missing === true || saysMissing(fields)) return REQUIRED;
    return readerOf(fields)?.(fields) ?? INVALID;
  } catch {
    return INVALID;
  }
}

function readerOf(issue: IssueFields): DetailReader | undefined {
  const { kind, type, code } = issue;
  if (typeof kind === 'string' && typeof type === 'string') {
    return own(VALIBOT_TYPES, type) ?? (kind === 'schema' ? () => typeDetail(type) : () => formatDetail(type));
  }
  if (typeof code === 'string') return own(ZOD_CODES, code) ?? own(ARKTYPE_CODES, code);
  return undefined;
}

/** A missing value that the issue itself shows: arktype's `required`, or an `input` of undefined (valibot; zod with `reportInput`). */
function saysMissing(issue: IssueFields): boolean {
  if (issue.code === 'required') return true;
  return Object.hasOwn(issue, 'input') && issue.input === undefined && (issue.kind === 'schema' || issue.code === 'invalid_type');
}

function own<Value>(table: Readonly<Record<string, Value>>, key: string): Value | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

function typeDetail(name: unknown): string | undefined {
  return typeof name === 'string' ? own(TYPE_DETAILS, name.toLowerCase()) : undefined;
}

function formatDetail(name: unknown): string | undefined {
  if (typeof name !== 'string') return undefined;
  // arktype describes versioned UUIDs as "a UUIDv4" and so on.
  return own(FORMAT_DETAILS, /^a UUIDv\d$/.test(name) ? 'a UUID' : name);
}

function subjectOf(value: unknown): Subject | undefined {
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' || typeof value === 'bigint') return 'number';
  return undefined;
}

function numberText(value: unknown): string | undefined {
  if (typeof value === 'bigint' || (typeof value === 'number' && Number.isFinite(value))) return String(value);
  return undefined;
}

function boundDetail(side: 'min' | 'max', subject: Subject | undefined, limit: unknown, inclusive: boolean, exact: boolean): string | undefined {
  const count = numberText(limit);
  if (count === undefined || subject === undefined) return undefined;
  if (subject === 'number') {
    if (side === 'min') return inclusive ? `must be at least ${count}` : `must be greater than ${count}`;
    return inclusive ? `must be at most ${count}` : `must be less than ${count}`;
  }
  // A length bound is a whole count; an exclusive one (`> 2`) is the inclusive one next to it.
  const length = typeof limit === 'number' && !inclusive ? limit + (side === 'min' ? 1 : -1) : Number(count);
  const comparison = exact ? 'exactly' : side === 'min' ? 'at least' : 'at most';
  if (subject === 'string') return `must be ${comparison} ${length} ${length === 1 ? 'character' : 'characters'}`;
  return `must have ${comparison} ${length} ${length === 1 ? 'item' : 'items'}`;
}

function multipleDetail(step: unknown): string | undefined {
  const text = numberText(step);
  return text === undefined ? undefined : `must be a multiple of ${text}`;
}

/** `must be "x"` or `must be one of: ...` from values the schema allows. Anything but primitives is not listed. */
function oneOfDetail(values: unknown): string | undefined {
  if (!Array.isArray(values) || values.length === 0) return undefined;
  const listed = new Set<string>();
  for (const value of values) {
    if (typeof value === 'string') listed.add(JSON.stringify(value));
    else if (value === null || typeof value === 'boolean' || numberText(value) !== undefined) listed.add(String(value));
    else return undefined;
  }
  if (listed.size === 2 && listed.has('true') && listed.has('false')) return TYPE_DETAILS.boolean;
  const sorted = [...listed].sort();
  return sorted.length === 1 ? `must be ${sorted[0]}` : `must be one of: ${sorted.join(', ')}`;
}

/** A zod union whose every branch is one literal (`z.union([z.literal('a'), z.literal('b')])`). */
function zodUnionValues(branches: unknown): unknown[] | undefined {
  if (!Array.isArray(branches)) return undefined;
  const values: unknown[] = [];
  for (const branch of branches) {
    const only = Array.isArray(branch) && branch.length === 1 ? (branch[0] as IssueFields) : undefined;
    if (only?.code !== 'invalid_value' || !Array.isArray(only.values)) return undefined;
    for (const value of only.values) values.push(value);
  }
  return values;
}

/**
 * valibot lists the allowed values only in `expected`, built from the schema: `("a" | "b")`, `"x"`,
 * `1`. Any part that is not a literal (`(number | string)`) means a union of types: no list.
 */
function valibotValues(expected: unknown): unknown[] | undefined {
  if (typeof expected !== 'string') return undefined;
  const list = expected.startsWith('(') && expected.endsWith(')') ? expected.slice(1, -1) : expected;
  const values: unknown[] = [];
  for (const part of list.split(' | ')) {
    if (/^"[^"]*"$/.test(part)) values.push(part.slice(1, -1));
    else if (part === 'true' || part === 'false') values.push(part === 'true');
    else if (part === 'null') values.push(null);
    else if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(part)) values.push(Number(part));
    else return undefined;
  }
  return values;
}

/** arktype reports an enum (`'a' | 'b'`, and `boolean`) as a union of `unit` errors. */
function arktypeUnionDetail(branches: unknown): string | undefined {
  if (!Array.isArray(branches)) return undefined;
  const values: unknown[] = [];
  for (const branch of branches as IssueFields[]) {
    if (branch?.code !== 'unit') return undefined;
    values.push(branch.unit);
  }
  return oneOfDetail(values);
}
