import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { type } from 'arktype';
import { createApi, endpoint, type Api, type ApiResponse, type InputIssue, type ProblemDetails, type StandardSchema } from '../../src/index.js';
import { addIssues, invalidInput, MAX_ISSUES, validatePart } from '../../src/core/validation.js';
import { expectProblem } from '../helpers/problem.js';

/** `{ tags: string[] }` in each library. */
const TAGS: Record<'zod' | 'valibot' | 'arktype', StandardSchema> = {
  zod: z.object({ tags: z.array(z.string()) }),
  valibot: v.object({ tags: v.array(v.string()) }),
  arktype: type({ tags: 'string[]' }),
};

function tagsApi(schema: StandardSchema): Api {
  return createApi({
    endpoints: [
      endpoint('POST', '/tags', { body: schema, handle: (ctx) => ctx.body }),
      endpoint('POST', '/search', { query: z.object({ page: z.coerce.number() }), body: schema, handle: (ctx) => ctx.body }),
      endpoint('POST', '/members', { body: z.strictObject({ name: z.string() }), handle: (ctx) => ctx.body }),
    ],
  });
}

const api = tagsApi(TAGS.zod);

function post(target: Api, url: string, text: string): Promise<ApiResponse> {
  return target.handle({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: text });
}

/** A body whose every tag is a number: one invalid value per item. */
function numberTags(count: number): string {
  return JSON.stringify({ tags: new Array<number>(count).fill(7) });
}

const tagIssue = (index: number): InputIssue => ({ in: 'body', pointer: `#/tags/${index}`, detail: 'must be a string' });
const firstTagIssues = (count: number): InputIssue[] => Array.from({ length: count }, (_, index) => tagIssue(index));

function expectCappedProblem(response: ApiResponse, total: number): ProblemDetails {
  const problem = expectProblem(response, { status: 400, code: 'RC_INVALID_INPUT' }) as ProblemDetails & { omittedErrors?: number };
  expect(problem.errors).toHaveLength(MAX_ISSUES);
  expect(problem.detail).toBe(`The request has ${total} invalid values; the first ${MAX_ISSUES} are listed`);
  expect(problem.omittedErrors).toBe(total - MAX_ISSUES);
  expect(JSON.stringify(problem).length).toBeLessThan(20_000);
  return problem;
}

describe('a body with a huge number of invalid values', () => {
  // Regression: 60,000 invalid items gave a 4 MB answer, and 130,000 a 500 (RangeError: Maximum
  // call stack size exceeded) from spreading the issues into push().
  it.each([60_000, 130_000])('%i invalid items: a small 400 that lists the first 100 and counts the rest', async (count) => {
    const problem = expectCappedProblem(await post(api, '/tags', numberTags(count)), count);
    expect(problem.errors).toEqual(firstTagIssues(MAX_ISSUES));
  });

  it.each(['valibot', 'arktype'] as const)('the same 400 with %s', async (library) => {
    const problem = expectCappedProblem(await post(tagsApi(TAGS[library]), '/tags', numberTags(60_000)), 60_000);
    expect(problem.errors).toEqual(firstTagIssues(MAX_ISSUES));
  });

  it('the issues of the other parts come first and count in the total', async () => {
    const problem = expectCappedProblem(await post(api, '/search?page=x', numberTags(60_000)), 60_001);
    expect(problem.errors).toEqual([{ in: 'query', pointer: '#/page', detail: 'must be a number' }, ...firstTagIssues(MAX_ISSUES - 1)]);
  });

  it('50,000 unknown keys of a strict object: the first 100 by key are listed', async () => {
    const keys = Array.from({ length: 50_000 }, (_, index) => `k${String(index).padStart(5, '0')}`);
    const text = JSON.stringify({ name: 'Ada', ...Object.fromEntries(keys.map((key) => [key, 1])) });
    const problem = expectCappedProblem(await post(api, '/members', text), 50_000);
    expect(problem.errors).toEqual(keys.slice(0, MAX_ISSUES).map((key) => ({ in: 'body', pointer: `#/${key}`, detail: 'is not an allowed key' })));
  });

  it('exactly 100 invalid values are all listed, with no count of omitted ones', async () => {
    const problem = (await post(api, '/tags', numberTags(MAX_ISSUES))).body as ProblemDetails & { omittedErrors?: number };
    expect(problem.detail).toBe(`The request has ${MAX_ISSUES} invalid values`);
    expect(problem.errors).toEqual(firstTagIssues(MAX_ISSUES));
    expect(problem).not.toHaveProperty('omittedErrors');
  });
});

describe('validatePart caps its issues', () => {
  it('lists the first 100 by pointer and counts the others', async () => {
    const result = await validatePart(z.array(z.string()), new Array<number>(5_000).fill(7), 'body');
    expect(result).toEqual({ ok: false, issues: firstTagIssues(MAX_ISSUES).map((issue) => ({ ...issue, pointer: issue.pointer.replace('/tags', '') })), omitted: 4_900 });
  });

  it('sorts the issues a schema reports out of order, within the first 1,000 it reports', async () => {
    const reversed: StandardSchema = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => ({ issues: Array.from({ length: 3_000 }, (_, index) => ({ message: 'no', path: [2_999 - index] })) }),
      },
    };
    const result = await validatePart(reversed, [], 'body');
    expect(result).toMatchObject({ ok: false, omitted: 2_900 });
    expect(result.ok === false && result.issues.map((issue) => issue.pointer)).toEqual(Array.from({ length: MAX_ISSUES }, (_, index) => `#/${2_000 + index}`));
  });

  it('schemas per path param share one cap', async () => {
    const result = await validatePart({ a: z.array(z.string()), b: z.array(z.string()) }, { a: new Array(80).fill(1), b: new Array(80).fill(1) }, 'path');
    expect(result).toMatchObject({ ok: false, omitted: 60 });
    expect(result.ok === false && result.issues.map((issue) => issue.pointer)).toEqual([
      ...Array.from({ length: 80 }, (_, index) => `#/a/${index}`),
      ...Array.from({ length: 20 }, (_, index) => `#/b/${index}`),
    ]);
  });
});

describe('addIssues and invalidInput', () => {
  const queryIssue: InputIssue = { in: 'query', pointer: '#/page', detail: 'must be a number' };

  it('addIssues appends in order up to the cap and counts the rest', () => {
    let list = addIssues(undefined, { issues: [queryIssue] });
    list = addIssues(list, { issues: firstTagIssues(MAX_ISSUES), omitted: 500 });
    expect(list).toEqual({ issues: [queryIssue, ...firstTagIssues(MAX_ISSUES - 1)], omitted: 501 });
  });

  it('addIssues takes a list far longer than the stack allows a spread of', () => {
    const list = addIssues(undefined, { issues: firstTagIssues(200_000) });
    expect(list.issues).toHaveLength(MAX_ISSUES);
    expect(list.omitted).toBe(200_000 - MAX_ISSUES);
  });

  it('invalidInput lists at most 100 issues and gives the total in its detail', () => {
    const error = invalidInput(firstTagIssues(150), 50);
    expect(error.errors).toEqual(firstTagIssues(MAX_ISSUES));
    expect(error.detail).toBe('The request has 200 invalid values; the first 100 are listed');
    expect(error.toProblem()).toMatchObject({ status: 400, errors: firstTagIssues(MAX_ISSUES), omittedErrors: 100 });
  });
});
