import { describe, expect, it } from 'vitest';
import { withoutInstance } from '../helpers/problem.js';
import fc from 'fast-check';
import { z } from 'zod';
import * as v from 'valibot';
import { type } from 'arktype';
import { createApi, endpoint, type Api, type ApiResponse, type InputIssue, type StandardIssue, type StandardSchema } from '../../src/index.js';
import { issueDetail } from '../../src/core/issue-detail.js';
import { invalidInput, toPointer, validatePart } from '../../src/core/validation.js';

const SECRET = 'hunter2';

/** The same rules written in each library: path id, query and body of `POST /users/:id`. */
interface Schemas {
  id: StandardSchema;
  query: StandardSchema;
  body: StandardSchema;
  strict: StandardSchema;
}

const valibotNumber = v.pipe(v.string(), v.transform(Number), v.number());
const arktypeNumber = type('string.numeric.parse');

const LIBRARIES: Record<'zod' | 'valibot' | 'arktype', Schemas> = {
  zod: {
    id: z.coerce.number().int().min(1),
    query: z.object({ page: z.coerce.number().int().min(1).max(100), sort: z.enum(['asc', 'desc']) }),
    body: z.object({
      name: z.string().min(2),
      age: z.number().int().min(0).max(150),
      email: z.email(),
      role: z.enum(['admin', 'user']),
      tags: z.array(z.string()).min(1),
      address: z.object({ zip: z.string() }),
    }),
    strict: z.strictObject({ name: z.string() }),
  },
  valibot: {
    id: v.pipe(valibotNumber, v.integer(), v.minValue(1)),
    query: v.object({ page: v.pipe(valibotNumber, v.integer(), v.minValue(1), v.maxValue(100)), sort: v.picklist(['asc', 'desc']) }),
    body: v.object({
      name: v.pipe(v.string(), v.minLength(2)),
      age: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(150)),
      email: v.pipe(v.string(), v.email()),
      role: v.picklist(['admin', 'user']),
      tags: v.pipe(v.array(v.string()), v.minLength(1)),
      address: v.object({ zip: v.string() }),
    }),
    strict: v.strictObject({ name: v.string() }),
  },
  arktype: {
    id: arktypeNumber.to('number.integer >= 1'),
    query: type({ page: arktypeNumber.to('1 <= number.integer <= 100'), sort: "'asc' | 'desc'" }),
    body: type({
      name: 'string >= 2',
      age: '0 <= number.integer <= 150',
      email: 'string.email',
      role: "'admin' | 'user'",
      tags: 'string[] >= 1',
      address: { zip: 'string' },
    }),
    strict: type({ '+': 'reject', name: 'string' }),
  },
};
const LIBRARY_NAMES = Object.keys(LIBRARIES) as (keyof typeof LIBRARIES)[];

function apiFor(schemas: Schemas, options: { maxDepth?: number } = {}): Api {
  return createApi({
    ...options,
    endpoints: [
      endpoint('POST', '/users/:id', {
        params: { id: schemas.id },
        query: schemas.query,
        body: schemas.body,
        handle: (ctx) => ({ id: ctx.params.id, page: (ctx.query as { page: number }).page, body: ctx.body }),
      }),
      endpoint('POST', '/members', { body: schemas.strict, handle: (ctx) => ctx.body }),
    ],
  });
}

const APIS = Object.fromEntries(LIBRARY_NAMES.map((name) => [name, apiFor(LIBRARIES[name])])) as Record<keyof typeof LIBRARIES, Api>;

function post(api: Api, url: string, body: unknown): Promise<ApiResponse> {
  return api.handle({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const VALID_BODY = { name: 'Ada', age: 36, email: 'ada@example.com', role: 'admin', tags: ['math'], address: { zip: '10115' } };
const VALID_URL = '/users/7?page=2&sort=asc';

const body = (pointer: string, detail: string): InputIssue => ({ in: 'body', pointer, detail });
const query = (pointer: string, detail: string): InputIssue => ({ in: 'query', pointer, detail });
const path = (pointer: string, detail: string): InputIssue => ({ in: 'path', pointer, detail });

describe('the same mistake gives the same 400 from zod, valibot and arktype', () => {
  const cases: Array<{ name: string; url: string; body: unknown; errors: InputIssue[] }> = [
    {
      name: 'a wrong type in every body field',
      url: VALID_URL,
      body: { name: 5, age: SECRET, email: 5, role: SECRET, tags: SECRET, address: SECRET },
      errors: [
        body('#/address', 'must be an object'),
        body('#/age', 'must be a number'),
        body('#/email', 'must be a string'),
        body('#/name', 'must be a string'),
        body('#/role', 'must be one of: "admin", "user"'),
        body('#/tags', 'must be an array'),
      ],
    },
    {
      name: 'lengths, bounds, formats, enums and a nested key',
      url: VALID_URL,
      body: { name: 'x', age: 1.5, email: SECRET, role: SECRET, tags: [], address: { zip: 10115 } },
      errors: [
        body('#/address/zip', 'must be a string'),
        body('#/age', 'must be an integer'),
        body('#/email', 'must be a valid email address'),
        body('#/name', 'must be at least 2 characters'),
        body('#/role', 'must be one of: "admin", "user"'),
        body('#/tags', 'must have at least 1 item'),
      ],
    },
    {
      name: 'missing required keys, and a number past its maximum',
      url: VALID_URL,
      body: { age: 151 },
      errors: [
        body('#/address', 'is required'),
        body('#/age', 'must be at most 150'),
        body('#/email', 'is required'),
        body('#/name', 'is required'),
        body('#/role', 'is required'),
        body('#/tags', 'is required'),
      ],
    },
    {
      name: 'a missing nested key, a negative number and a wrong array item',
      url: VALID_URL,
      body: { ...VALID_BODY, age: -1, tags: ['math', 5], address: {} },
      errors: [body('#/address/zip', 'is required'), body('#/age', 'must be at least 0'), body('#/tags/1', 'must be a string')],
    },
    {
      name: 'a query value that is not a number, and a missing one',
      url: `/users/7?page=${SECRET}`,
      body: VALID_BODY,
      errors: [query('#/page', 'must be a number'), query('#/sort', 'is required')],
    },
    {
      name: 'a coerced query number that is not an integer, and an enum',
      url: `/users/7?page=1.5&sort=${SECRET}`,
      body: VALID_BODY,
      errors: [query('#/page', 'must be an integer'), query('#/sort', 'must be one of: "asc", "desc"')],
    },
    { name: 'a coerced query number past its maximum', url: '/users/7?page=101&sort=desc', body: VALID_BODY, errors: [query('#/page', 'must be at most 100')] },
    { name: 'a path param that is not a number', url: `/users/${SECRET}?page=1&sort=asc`, body: VALID_BODY, errors: [path('#/id', 'must be a number')] },
    { name: 'a path param below its minimum', url: '/users/0?page=1&sort=asc', body: VALID_BODY, errors: [path('#/id', 'must be at least 1')] },
    { name: 'a path param that is not an integer', url: '/users/2.5?page=1&sort=asc', body: VALID_BODY, errors: [path('#/id', 'must be an integer')] },
    {
      name: 'path, query and body wrong at once: every issue, in that order',
      url: '/users/0?page=0&sort=asc',
      body: { ...VALID_BODY, name: SECRET.slice(0, 1) },
      errors: [path('#/id', 'must be at least 1'), query('#/page', 'must be at least 1'), body('#/name', 'must be at least 2 characters')],
    },
  ];

  it.each(cases)('$name', async ({ url, body: input, errors }) => {
    const payloads = new Set<unknown>();
    for (const name of LIBRARY_NAMES) {
      const response = await post(APIS[name], url, input);
      expect(response.status, name).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.body, name).toEqual({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        code: 'RC_INVALID_INPUT',
        detail: errors.length === 1 ? 'The request has 1 invalid value' : `The request has ${errors.length} invalid values`,
        errors,
        instance: expect.any(String),
      });
      expect(String(response.payload)).not.toContain(SECRET);
      payloads.add(JSON.stringify(withoutInstance(JSON.parse(String(response.payload)))));
    }
    expect(payloads.size).toBe(1);
  });

  it.each(LIBRARY_NAMES)('%s: a valid request reaches the handler with the parsed values', async (name) => {
    const response = await post(APIS[name], VALID_URL, VALID_BODY);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: 7, page: 2, body: VALID_BODY });
  });

  it.each(LIBRARY_NAMES)('%s: a key a strict object does not declare is "is not an allowed key" at that key', async (name) => {
    const response = await post(APIS[name], '/members', { name: 'Ada', extra: SECRET });
    expect(response.status).toBe(400);
    expect((response.body as { errors: InputIssue[] }).errors).toEqual([body('#/extra', 'is not an allowed key')]);
    expect(String(response.payload)).not.toContain(SECRET);
  });

  it('the libraries themselves quote the input, so their messages must not be sent', async () => {
    const messages: string[] = [];
    for (const name of LIBRARY_NAMES) {
      const result = await LIBRARIES[name].body['~standard'].validate({ ...VALID_BODY, age: SECRET, email: SECRET });
      messages.push(...(result.issues ?? []).map((issue) => issue.message));
    }
    expect(messages.some((message) => message.includes(SECRET))).toBe(true);
  });

  it('a planted input never appears in the response, whatever the input (property)', async () => {
    const marked = fc.string({ maxLength: 12 }).map((text) => `PLANTED<${text}>`);
    await fc.assert(
      fc.asyncProperty(marked, fc.constantFrom(...LIBRARY_NAMES), async (planted, name) => {
        const input = { name: planted, age: planted, email: planted, role: planted, tags: [planted, 1], address: { zip: 1, [planted]: planted } };
        const response = await post(APIS[name], `/users/${encodeURIComponent(planted)}?page=${encodeURIComponent(planted)}&sort=${encodeURIComponent(planted)}`, input);
        expect(response.status).toBe(400);
        expect(String(response.payload)).not.toContain('PLANTED<');
      }),
      { seed: 20240601, numRuns: 60 },
    );
  });
});

describe('validatePart: more issue kinds, the same from every library', () => {
  const schemas = {
    zod: z.object({
      short: z.string().max(3),
      exact: z.string().length(3),
      positive: z.number().gt(0),
      small: z.number().lt(5),
      step: z.number().multipleOf(5),
      uuid: z.uuid(),
      url: z.url(),
      stamp: z.iso.datetime(),
      flag: z.boolean(),
      literal: z.literal('x'),
      nothing: z.null(),
      few: z.array(z.number()).max(2),
      pair: z.array(z.number()).length(2),
      either: z.union([z.number(), z.string()]),
      pattern: z.string().regex(/^a+$/),
      mixed: z.union([z.literal('a'), z.literal(1)]),
    }),
    valibot: v.object({
      short: v.pipe(v.string(), v.maxLength(3)),
      exact: v.pipe(v.string(), v.length(3)),
      positive: v.pipe(v.number(), v.gtValue(0)),
      small: v.pipe(v.number(), v.ltValue(5)),
      step: v.pipe(v.number(), v.multipleOf(5)),
      uuid: v.pipe(v.string(), v.uuid()),
      url: v.pipe(v.string(), v.url()),
      stamp: v.pipe(v.string(), v.isoTimestamp()),
      flag: v.boolean(),
      literal: v.literal('x'),
      nothing: v.null(),
      few: v.pipe(v.array(v.number()), v.maxLength(2)),
      pair: v.pipe(v.array(v.number()), v.length(2)),
      either: v.union([v.number(), v.string()]),
      pattern: v.pipe(v.string(), v.regex(/^a+$/)),
      mixed: v.union([v.literal('a'), v.literal(1)]),
    }),
    arktype: type({
      short: 'string <= 3',
      exact: 'string == 3',
      positive: 'number > 0',
      small: 'number < 5',
      step: 'number % 5',
      uuid: 'string.uuid',
      url: 'string.url',
      stamp: 'string.date.iso',
      flag: 'boolean',
      literal: "'x'",
      nothing: 'null',
      few: 'number[] <= 2',
      pair: 'number[] == 2',
      either: 'number | string',
      pattern: /^a+$/,
      mixed: "'a' | 1",
    }),
  };
  const input = {
    short: 'abcd',
    exact: 'ab',
    positive: 0,
    small: 9,
    step: 3,
    uuid: SECRET,
    url: SECRET,
    stamp: SECRET,
    flag: SECRET,
    literal: SECRET,
    nothing: 1,
    few: [1, 2, 3],
    pair: [1],
    either: true,
    pattern: SECRET,
    mixed: SECRET,
  };
  const expected: InputIssue[] = [
    body('#/either', 'is invalid'),
    body('#/exact', 'must be exactly 3 characters'),
    body('#/few', 'must have at most 2 items'),
    body('#/flag', 'must be a boolean'),
    body('#/literal', 'must be "x"'),
    body('#/mixed', 'must be one of: "a", 1'),
    body('#/nothing', 'must be null'),
    body('#/pair', 'must have exactly 2 items'),
    body('#/pattern', 'has an invalid format'),
    body('#/positive', 'must be greater than 0'),
    body('#/short', 'must be at most 3 characters'),
    body('#/small', 'must be less than 5'),
    body('#/stamp', 'must be a valid date-time'),
    body('#/step', 'must be a multiple of 5'),
    body('#/url', 'must be a valid URL'),
    body('#/uuid', 'must be a valid UUID'),
  ];

  it.each(Object.keys(schemas) as (keyof typeof schemas)[])('%s', async (name) => {
    expect(await validatePart(schemas[name], input, 'body')).toEqual({ ok: false, issues: expected });
  });

  it('an arktype issue at the root points at "#", not "#/0" (arktype paths are an Array subclass)', async () => {
    expect(await validatePart(type({ name: 'string' }), SECRET, 'body')).toEqual({ ok: false, issues: [body('#', 'must be an object')] });
  });

  it('zod lists every unknown key of an object in one issue: each gets its own pointer', async () => {
    const result = await validatePart(z.strictObject({ name: z.string() }), { name: 'Ada', zeta: 1, alpha: 2 }, 'body');
    expect(result).toEqual({ ok: false, issues: [body('#/alpha', 'is not an allowed key'), body('#/zeta', 'is not an allowed key')] });
  });

  it('sorts array indexes as numbers', async () => {
    const tags = Array.from({ length: 12 }, () => 0);
    const result = await validatePart(z.array(z.string()), tags, 'body');
    expect(result.ok === false && result.issues.map((issue) => issue.pointer)).toEqual(tags.map((_, index) => `#/${index}`));
  });

  it('schemas per path param keep their order (the template order), and only each one\'s issues are sorted', async () => {
    const result = await validatePart({ userId: z.coerce.number(), id: z.coerce.number() }, { userId: 'x', id: 'y' }, 'path');
    expect(result).toEqual({ ok: false, issues: [path('#/userId', 'must be a number'), path('#/id', 'must be a number')] });
  });

  it('one schema per path param: the output keeps the other params', async () => {
    expect(await validatePart({ id: z.coerce.number() }, { id: '7', slug: 'a' }, 'path')).toEqual({ ok: true, value: { id: 7, slug: 'a' } });
  });

  it('schemas per path param that wait and ones that do not keep the template order, values and issues alike', async () => {
    const later = z.string().refine(async (value) => value !== 'taken');
    const schema = { a: z.coerce.number(), b: later, c: z.coerce.number(), d: later };
    expect(await validatePart(schema, { a: 'x', b: 'taken', c: 'y', d: 'taken' }, 'path')).toEqual({
      ok: false,
      issues: [path('#/a', 'must be a number'), path('#/b', 'is invalid'), path('#/c', 'must be a number'), path('#/d', 'is invalid')],
    });
    expect(await validatePart(schema, { a: '1', b: 'free', c: '2', d: 'open', e: 'kept' }, 'path')).toEqual({ ok: true, value: { a: 1, b: 'free', c: 2, d: 'open', e: 'kept' } });
  });
});

describe('async and failing validators', () => {
  const isFree = async (name: string) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return name !== 'taken';
  };
  const asyncSchemas = {
    zod: z.object({ name: z.string().refine(isFree) }),
    valibot: v.objectAsync({ name: v.pipeAsync(v.string(), v.checkAsync(isFree)) }),
  };

  it.each(Object.keys(asyncSchemas) as (keyof typeof asyncSchemas)[])('%s: an async refinement is awaited', async (name) => {
    const api = createApi({ endpoints: [endpoint('POST', '/members', { body: asyncSchemas[name], handle: (ctx) => ctx.body })] });
    const taken = await post(api, '/members', { name: 'taken' });
    expect(taken.status).toBe(400);
    expect((taken.body as { errors: InputIssue[] }).errors).toEqual([body('#/name', 'is invalid')]);
    const free = await post(api, '/members', { name: 'free' });
    expect(free.status).toBe(200);
    expect(free.body).toEqual({ name: 'free' });
  });

  const broken: Record<string, StandardSchema> = {
    'throws': schemaFrom(() => {
      throw new Error(`exploded on ${SECRET}`);
    }),
    'rejects': schemaFrom(() => Promise.reject(new Error(`exploded on ${SECRET}`))),
    'returns nothing': schemaFrom(() => null as never),
    'returns an empty issue list': schemaFrom(() => ({ issues: [] })),
  };

  it.each(Object.keys(broken))('a validator that %s is a 400, and the message stays inside', async (name) => {
    const api = createApi({ endpoints: [endpoint('POST', '/members', { body: broken[name]!, handle: () => 'reached' })] });
    const response = await post(api, '/members', { name: SECRET });
    expect(response.status).toBe(400);
    expect((response.body as { errors: InputIssue[] }).errors).toHaveLength(1);
    expect((response.body as { errors: InputIssue[] }).errors[0]).toMatchObject({ in: 'body', pointer: '#' });
    expect(String(response.payload)).not.toContain(SECRET);
  });

  interface TreeNode {
    name: string;
    child?: TreeNode | undefined;
  }
  const ZodNode: z.ZodType<TreeNode> = z.object({
    name: z.string(),
    get child() {
      return ZodNode.optional();
    },
  });
  const ValibotNode: v.GenericSchema<TreeNode> = v.object({ name: v.string(), child: v.optional(v.lazy(() => ValibotNode)) });
  const recursive: Record<string, StandardSchema> = { zod: ZodNode, valibot: ValibotNode, arktype: type({ name: 'string', 'child?': 'this' }) };
  const depth = 10_000;
  const deepBody = '{"name":"a","child":'.repeat(depth) + '{"name":5}' + '}'.repeat(depth);

  it.each(Object.keys(recursive))('%s: a recursive schema fed a 10,000-deep body is a 400, and the API keeps answering', async (name) => {
    const api = createApi({ maxDepth: depth * 2, endpoints: [endpoint('POST', '/nodes', { body: recursive[name]!, handle: (ctx) => ctx.body })] });
    const request = { method: 'POST', url: '/nodes', headers: { 'content-type': 'application/json' } };
    const deep = await api.handle({ ...request, body: deepBody });
    expect(deep.status).toBe(400);
    expect((deep.body as { code: string }).code).toBe('RC_INVALID_INPUT');
    const shallow = await api.handle({ ...request, body: '{"name":"a","child":{"name":"b"}}' });
    expect(shallow.status).toBe(200);
  });

  it('with the default maxDepth the same body is refused before any validator runs', async () => {
    let validated = false;
    const api = createApi({ endpoints: [endpoint('POST', '/nodes', { body: schemaFrom((value) => ((validated = true), { value })), handle: () => 'reached' })] });
    const response = await api.handle({ method: 'POST', url: '/nodes', headers: { 'content-type': 'application/json' }, body: deepBody });
    expect(response.status).toBe(400);
    expect((response.body as { code: string }).code).toBe('RC_TOO_DEEP');
    expect(validated).toBe(false);
  });
});

describe('issueDetail', () => {
  const issue = (fields: Record<string, unknown>): StandardIssue => ({ message: `Invalid: received "${SECRET}"`, ...fields }) as StandardIssue;

  it.each([
    ['valibot type', { kind: 'schema', type: 'string', input: SECRET, expected: 'string' }, 'must be a string'],
    ['valibot missing key', { kind: 'schema', type: 'object', input: undefined, expected: '"name"' }, 'is required'],
    ['valibot picklist', { kind: 'schema', type: 'picklist', input: SECRET, expected: '("b" | "a")' }, 'must be one of: "a", "b"'],
    ['valibot union of types', { kind: 'schema', type: 'union', input: true, expected: '(number | string)' }, 'is invalid'],
    ['valibot custom check', { kind: 'validation', type: 'check', input: SECRET, requirement: () => false }, 'is invalid'],
    ['valibot min_value on a date', { kind: 'validation', type: 'min_value', input: new Date(0), requirement: new Date(1) }, 'is invalid'],
    ['zod type', { code: 'invalid_type', expected: 'number' }, 'must be a number'],
    ['zod int', { code: 'invalid_type', expected: 'int', format: 'safeint' }, 'must be an integer'],
    ['zod input undefined (reportInput)', { code: 'invalid_type', expected: 'string', input: undefined }, 'is required'],
    ['zod string minimum of 1', { code: 'too_small', origin: 'string', minimum: 1, inclusive: true }, 'must be at least 1 character'],
    ['zod bigint minimum', { code: 'too_small', origin: 'bigint', minimum: 5n, inclusive: true }, 'must be at least 5'],
    ['zod date minimum', { code: 'too_small', origin: 'date', minimum: 0, inclusive: true }, 'is invalid'],
    ['zod unknown format', { code: 'invalid_format', format: 'ipv4' }, 'has an invalid format'],
    ['zod boolean values', { code: 'invalid_value', values: [true, false] }, 'must be a boolean'],
    ['zod object values are not listed', { code: 'invalid_value', values: [{ a: 1 }] }, 'is invalid'],
    ['zod custom refinement', { code: 'custom' }, 'is invalid'],
    ['arktype domain', { code: 'domain', domain: 'number' }, 'must be a number'],
    ['arktype proto', { code: 'proto', proto: Array }, 'must be an array'],
    ['arktype required', { code: 'required' }, 'is required'],
    ['arktype exclusive min', { code: 'min', rule: 0, exclusive: true }, 'must be greater than 0'],
    ['arktype exclusive minLength', { code: 'minLength', rule: 2, data: 'a' }, 'must be at least 2 characters'],
    ['arktype narrow', { code: 'predicate', expected: `not ${SECRET}` }, 'is invalid'],
    ['an unknown library', { message: SECRET }, 'is invalid'],
    ['a code named like a prototype key', { code: 'constructor' }, 'is invalid'],
    ['a valibot type named like a prototype key', { kind: 'schema', type: '__proto__' }, 'is invalid'],
  ])('%s', (_, fields, detail) => {
    expect(issueDetail(issue(fields))).toBe(detail);
  });

  it('a missing value is "is required" whatever the kind', () => {
    expect(issueDetail(issue({ code: 'invalid_value', values: ['a'] }), { missing: true })).toBe('is required');
  });

  it('an issue whose fields throw when read is "is invalid"', () => {
    const hostile = issue({});
    Object.defineProperty(hostile, 'code', {
      get() {
        throw new Error(SECRET);
      },
    });
    expect(issueDetail(hostile)).toBe('is invalid');
  });
});

describe('toPointer and invalidInput', () => {
  it('escapes "~" and "/" as RFC 6901 says, and percent-encodes the fragment', () => {
    expect(toPointer(['a/b', 'm~n', 0, 'x y'])).toBe('#/a~1b/m~0n/0/x%20y');
    expect(toPointer([])).toBe('#');
  });

  it('counts the issues in its detail', () => {
    expect(invalidInput([query('#/page', 'must be a number')]).detail).toBe('The request has 1 invalid value');
    expect(invalidInput([query('#/a', 'is required'), query('#/b', 'is required')]).detail).toBe('The request has 2 invalid values');
  });
});

function schemaFrom(validate: (value: unknown) => ReturnType<StandardSchema['~standard']['validate']>): StandardSchema {
  return { '~standard': { version: 1, vendor: 'test', validate } };
}
