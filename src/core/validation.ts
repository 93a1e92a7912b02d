import { BadRequestError, type InputIssue, type IssueLocation } from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import { issueDetail } from './issue-detail.js';
import { isStandardSchema, type StandardIssue, type StandardSchema } from './standard-schema.js';

/**
 * A schema for a whole part of the request, or for path params one schema per param.
 *
 * @example
 * const byParam: PartSchema = { id: z.coerce.number().int() };
 */
export type PartSchema = StandardSchema | Readonly<Record<string, StandardSchema>>;

/** The outcome of validating one part: the parsed value, or every issue found. */
export type PartResult = { ok: true; value: unknown } | { ok: false; issues: InputIssue[] };

/**
 * Validates one part of a request (`path`, `query`, `header` or `body`) and normalizes every issue
 * into `{ in, pointer, detail }`. A schema that throws (a deep input can overflow the stack of a
 * recursive validator) is an invalid input, never a crash.
 *
 * @example
 * await validatePart(z.object({ name: z.string() }), { name: 1 }, 'body');
 * // { ok: false, issues: [{ in: 'body', pointer: '#/name', detail: 'must be a string' }] }
 */
export async function validatePart(schema: PartSchema, value: unknown, location: IssueLocation): Promise<PartResult> {
  if (isStandardSchema(schema)) return runSchema(schema, value, location, []);
  const input = (value ?? {}) as Record<string, unknown>;
  const output: Record<string, unknown> = { ...input };
  const issues: InputIssue[] = [];
  for (const [key, fieldSchema] of Object.entries(schema)) {
    const result = await runSchema(fieldSchema, input[key], location, [key]);
    if (result.ok) output[key] = result.value;
    else issues.push(...result.issues);
  }
  return issues.length === 0 ? { ok: true, value: output } : { ok: false, issues };
}

async function runSchema(schema: StandardSchema, value: unknown, location: IssueLocation, prefix: readonly PropertyKey[]): Promise<PartResult> {
  let result;
  try {
    result = schema['~standard'].validate(value);
    if (result instanceof Promise) result = await result;
  } catch {
    return { ok: false, issues: [{ in: location, pointer: toPointer(prefix), detail: 'could not be validated' }] };
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, issues: result.issues.map((issue) => toInputIssue(issue, location, prefix)) };
}

function toInputIssue(issue: StandardIssue, location: IssueLocation, prefix: readonly PropertyKey[]): InputIssue {
  const path = issue.path === undefined ? prefix : [...prefix, ...issue.path.map((segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment))];
  return { in: location, pointer: toPointer(path), detail: issueDetail(issue) };
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
 * The 400 for a list of issues: every issue, not just the first.
 *
 * @example
 * throw invalidInput([{ in: 'query', pointer: '#/page', detail: 'must be a number' }]);
 */
export function invalidInput(issues: InputIssue[]): BadRequestError {
  const detail = issues.length === 1 ? 'The request has 1 invalid value' : `The request has ${issues.length} invalid values`;
  return new BadRequestError(detail, { code: ERROR_CODES.INVALID_INPUT, errors: issues });
}
