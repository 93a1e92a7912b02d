import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint, type ApiResponse, type Endpoint } from '../../../src/index.js';
import { evaluate, requireCondition, validatorsOf, type WireValidators } from '../../../src/conventions/conditional/conditions.js';
import { expectProblem } from '../../helpers/problem.js';

/** An item whose tag is "v7" and whose last change is 2026-01-01 00:01:00.500 UTC. */
const CURRENT: WireValidators = validatorsOf({ etag: (item: { version: string }) => item.version, lastModified: () => new Date(Date.UTC(2026, 0, 1, 0, 1, 0, 500)) }, { version: 'v7' });
const AT = 'Thu, 01 Jan 2026 00:01:00 GMT';
const BEFORE = 'Thu, 01 Jan 2026 00:00:59 GMT';
const AFTER = 'Thu, 01 Jan 2026 00:01:01 GMT';

/** The verdict, or the status a failed precondition throws. */
function verdict(method: string, headers: Record<string, string | string[]>, current: WireValidators = CURRENT): string | number {
  try {
    return evaluate(method, headers, current);
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe('validatorsOf: the validators as they go on the wire', () => {
  it('quotes a bare tag, keeps a whole one, strong or weak, and writes the last change as an HTTP date in whole seconds', () => {
    expect(CURRENT).toEqual({ etag: '"v7"', lastModified: AT, seconds: Date.UTC(2026, 0, 1, 0, 1, 0) / 1000 });
    expect(validatorsOf({ etag: () => '"v7"' }, {}).etag).toBe('"v7"');
    expect(validatorsOf({ etag: () => 'W/"v7"' }, {}).etag).toBe('W/"v7"');
    expect(validatorsOf({ etag: () => '' }, {}).etag).toBe('""');
    expect(validatorsOf({}, {})).toEqual({ etag: undefined, lastModified: undefined, seconds: undefined });
  });

  it('throws for a tag that is no string or holds what an entity tag cannot, and for a date that is none', () => {
    for (const tag of ['a b', 'a"b', 'v\n1', '"v1', 'W/"v1', 'é', '"é"', '€', 7, undefined, null]) {
      expect(() => validatorsOf({ etag: () => tag as string }, {}), String(tag)).toThrow(TypeError);
    }
    for (const date of [new Date(Number.NaN), '2026-01-01', Date.now(), undefined]) {
      expect(() => validatorsOf({ lastModified: () => date as Date }, {}), String(date)).toThrow(TypeError);
    }
  });
});

describe('evaluate: RFC 9110 section 13.2.2, in its order', () => {
  it('step 1: If-Match that does not match is 412, before If-None-Match could answer 304', () => {
    expect(verdict('PUT', { 'if-match': '"v6"' })).toBe(412);
    expect(verdict('GET', { 'if-match': '"v6"', 'if-none-match': '"v7"' })).toBe(412);
    expect(verdict('PUT', { 'if-match': '"v7"' })).toBe('proceed');
  });

  it('step 2: If-Unmodified-Since counts only without If-Match', () => {
    expect(verdict('PUT', { 'if-unmodified-since': BEFORE })).toBe(412);
    expect(verdict('PUT', { 'if-unmodified-since': AT })).toBe('proceed');
    expect(verdict('PUT', { 'if-unmodified-since': AFTER })).toBe('proceed');
    expect(verdict('PUT', { 'if-match': '"v7"', 'if-unmodified-since': BEFORE })).toBe('proceed');
    expect(verdict('PUT', { 'if-match': '"v6"', 'if-unmodified-since': AFTER })).toBe(412);
  });

  it('step 3: If-None-Match that matches is 304 for GET and HEAD, 412 for any other method', () => {
    expect(verdict('GET', { 'if-none-match': '"v7"' })).toBe('notModified');
    expect(verdict('HEAD', { 'if-none-match': '"v7"' })).toBe('notModified');
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) expect(verdict(method, { 'if-none-match': '"v7"' }), method).toBe(412);
    expect(verdict('GET', { 'if-none-match': '"v6"' })).toBe('proceed');
    // After steps 1 and 2 passed.
    expect(verdict('GET', { 'if-match': '"v7"', 'if-none-match': '"v7"' })).toBe('notModified');
    expect(verdict('PUT', { 'if-unmodified-since': AT, 'if-none-match': '*' })).toBe(412);
  });

  it('step 4: If-Modified-Since counts only without If-None-Match, and only for GET and HEAD', () => {
    expect(verdict('GET', { 'if-modified-since': AT })).toBe('notModified');
    expect(verdict('HEAD', { 'if-modified-since': AFTER })).toBe('notModified');
    expect(verdict('GET', { 'if-modified-since': BEFORE })).toBe('proceed');
    expect(verdict('GET', { 'if-none-match': '"v6"', 'if-modified-since': AFTER })).toBe('proceed');
    expect(verdict('PUT', { 'if-modified-since': AFTER })).toBe('proceed');
    expect(verdict('DELETE', { 'if-modified-since': AFTER })).toBe('proceed');
  });

  it('no precondition, or validators of which none applies, goes on', () => {
    expect(verdict('GET', {})).toBe('proceed');
    expect(verdict('PUT', {})).toBe('proceed');
    const tagOnly = validatorsOf({ etag: () => 'v7' }, {});
    expect(verdict('GET', { 'if-modified-since': AFTER }, tagOnly)).toBe('proceed');
    expect(verdict('PUT', { 'if-unmodified-since': BEFORE }, tagOnly)).toBe('proceed');
  });
});

describe('evaluate: comparing entity tags', () => {
  it('If-Match compares strongly: a weak tag on either side never matches', () => {
    expect(verdict('PUT', { 'if-match': 'W/"v7"' })).toBe(412);
    const weak = validatorsOf({ etag: () => 'W/"v7"' }, {});
    expect(verdict('PUT', { 'if-match': '"v7"' }, weak)).toBe(412);
    expect(verdict('PUT', { 'if-match': 'W/"v7"' }, weak)).toBe(412);
  });

  it('If-None-Match compares weakly: W/ is set aside on either side', () => {
    expect(verdict('GET', { 'if-none-match': 'W/"v7"' })).toBe('notModified');
    const weak = validatorsOf({ etag: () => 'W/"v7"' }, {});
    expect(verdict('GET', { 'if-none-match': '"v7"' }, weak)).toBe('notModified');
    expect(verdict('GET', { 'if-none-match': 'W/"v7"' }, weak)).toBe('notModified');
    expect(verdict('GET', { 'if-none-match': 'W/"v6"' }, weak)).toBe('proceed');
  });

  it('tags compare exactly: case and the quotes count', () => {
    expect(verdict('PUT', { 'if-match': '"V7"' })).toBe(412);
    expect(verdict('GET', { 'if-none-match': '"v7 "' })).toBe('proceed');
  });

  it('* matches any current item, even one without a tag; a list or a tag matches nothing on an item without one', () => {
    expect(verdict('PUT', { 'if-match': '*' })).toBe('proceed');
    expect(verdict('GET', { 'if-none-match': ' * ' })).toBe('notModified');
    const dateOnly = validatorsOf({ lastModified: () => new Date(0) }, {});
    expect(verdict('DELETE', { 'if-match': '*' }, dateOnly)).toBe('proceed');
    expect(verdict('DELETE', { 'if-match': '"v7"' }, dateOnly)).toBe(412);
    expect(verdict('GET', { 'if-none-match': '"v7"' }, dateOnly)).toBe('proceed');
  });

  it('a list matches when any of its tags does, with or without spaces, as one header or repeated', () => {
    for (const list of ['"v1", "v7"', '"v1","v7"', '"v7" ,\t"v1"', 'W/"v1", "v7"', '"a,b", "v7"']) {
      expect(verdict('PUT', { 'if-match': list }), list).toBe('proceed');
      expect(verdict('GET', { 'if-none-match': list }), list).toBe('notModified');
    }
    expect(verdict('PUT', { 'if-match': ['"v1"', '"v7"'] })).toBe('proceed');
    expect(verdict('GET', { 'if-none-match': ['"v1"', 'W/"v7"'] })).toBe('notModified');
    expect(verdict('PUT', { 'if-match': '"v1", "v2"' })).toBe(412);
  });

  // RFC 9110 5.6.1.2: a recipient must accept empty list elements.
  it('empty elements of a list are skipped', () => {
    for (const list of ['"v1", , "v7"', ', "v7"', '"v7",', ',,"v7",,']) {
      expect(verdict('PUT', { 'if-match': list }), list).toBe('proceed');
      expect(verdict('GET', { 'if-none-match': list }), list).toBe('notModified');
    }
  });

  it('a malformed list matches nothing, wherever its fault is: If-Match fails, If-None-Match lets the request go on', () => {
    for (const list of ['v7', '"v7', 'v7"', '"v7"x', '"v1", v7', '"v7", garbage', 'garbage, "v7"', '*, "v7"', '"v7" "v1"', 'w/"v7"', '""v7""']) {
      expect(verdict('PUT', { 'if-match': list }), list).toBe(412);
      expect(verdict('GET', { 'if-none-match': list }), list).toBe('proceed');
    }
  });
});

describe('evaluate: dates', () => {
  it('takes the three date formats of RFC 9110 5.6.7', () => {
    for (const date of [AT, 'Thursday, 01-Jan-26 00:01:00 GMT', 'Thu Jan  1 00:01:00 2026']) expect(verdict('GET', { 'if-modified-since': date }), date).toBe('notModified');
  });

  it('compares in whole seconds: the milliseconds of the last change do not make it newer', () => {
    expect(verdict('GET', { 'if-modified-since': AT })).toBe('notModified');
    expect(verdict('PUT', { 'if-unmodified-since': AT })).toBe('proceed');
  });

  it('ignores a date that is no HTTP date (RFC 9110 13.1.3, 13.1.4), as if the header were absent', () => {
    for (const date of ['yesterday', '2026-01-01T00:01:00Z', '1767225660', '', 'Thu, 99 Foo 2026 99:99:99 GMT', `${AT}, ${AT}`]) {
      expect(verdict('GET', { 'if-modified-since': date }), date).toBe('proceed');
      expect(verdict('PUT', { 'if-unmodified-since': date }), date).toBe('proceed');
    }
    expect(verdict('GET', { 'if-modified-since': [AT, AT] })).toBe('proceed');
  });
});

describe('requireCondition', () => {
  it('is 428 without If-Match; If-None-Match or If-Modified-Since is no precondition of a change', () => {
    for (const headers of [{}, { 'if-none-match': '*' }, { 'if-modified-since': AT }]) {
      for (const byDate of [true, false]) expect(() => requireCondition(headers, byDate)).toThrow(expect.objectContaining({ status: 428, code: 'RC_PRECONDITION_REQUIRED' }));
    }
    expect(() => requireCondition({ 'if-match': '"v1"' }, false)).not.toThrow();
    expect(() => requireCondition({ 'if-match': 'garbage' }, true)).not.toThrow();
  });

  it('takes If-Unmodified-Since only when the item has a last change, and only when it is an HTTP date', () => {
    expect(() => requireCondition({ 'if-unmodified-since': AT }, true)).not.toThrow();
    expect(() => requireCondition({ 'if-unmodified-since': AT }, false)).toThrow(expect.objectContaining({ status: 428 }));
    expect(() => requireCondition({ 'if-unmodified-since': 'garbage' }, true)).toThrow(expect.objectContaining({ status: 428 }));
  });
});

interface Doc {
  id: string;
  rev: number;
  changed: Date;
  text: string;
}

/** Documents behind an endpoint() with `conditional`, and how often each handler ran. */
function docsApi(options: { etag?: (doc: Doc) => string; lastModified?: (doc: Doc) => Date; requireIfMatch?: boolean } = {}) {
  const docs = new Map<string, Doc>([['a', { id: 'a', rev: 3, changed: new Date(Date.UTC(2026, 0, 1)), text: 'first' }]]);
  const calls = { load: 0, read: 0, replace: 0 };
  const errors: unknown[] = [];
  const conditional = {
    load: (ctx: { params: { id: string } }) => {
      calls.load++;
      return docs.get(ctx.params.id);
    },
    etag: options.etag ?? ((doc: Doc) => `r${doc.rev}`),
    ...(options.lastModified === undefined ? {} : { lastModified: options.lastModified }),
    ...(options.requireIfMatch === undefined ? {} : { requireIfMatch: options.requireIfMatch }),
  };
  const read = endpoint('GET', '/docs/:id', {
    conditional,
    handle: (ctx) => {
      calls.read++;
      return docs.get(ctx.params.id);
    },
  });
  const replace = endpoint('PUT', '/docs/:id', {
    body: z.object({ text: z.string() }),
    conditional,
    handle: (ctx) => {
      calls.replace++;
      expect(ctx.item).toBe(docs.get(ctx.params.id));
      const doc = { ...(ctx.item as Doc), rev: (ctx.item as Doc).rev + 1, text: ctx.body.text };
      docs.set(doc.id, doc);
      return doc;
    },
  });
  const api = createApi({ endpoints: [read, replace], onError: (error) => errors.push(error) });
  const send = (method: string, url: string, headers: Record<string, string> = {}, body?: unknown): Promise<ApiResponse> =>
    api.handle({ method, url, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { send, docs, calls, errors };
}

describe('endpoint() with conditional', () => {
  it('answers ETag on success; a current copy is 304 without calling the handler', async () => {
    const { send, calls } = docsApi();
    const read = await send('GET', '/docs/a');
    expect(read).toMatchObject({ status: 200, headers: { etag: '"r3"' }, body: { id: 'a', rev: 3, text: 'first' } });
    expect(calls).toEqual({ load: 1, read: 1, replace: 0 });
    const current = await send('GET', '/docs/a', { 'if-none-match': '"r3"' });
    expect(current).toEqual({ status: 304, headers: { etag: '"r3"' }, body: undefined, payload: undefined });
    expect(calls).toEqual({ load: 2, read: 1, replace: 0 });
  });

  it('loads the item before the handler: a missing one is 404 before any precondition, and the handler does not run', async () => {
    const { send, calls } = docsApi();
    expectProblem(await send('GET', '/docs/b', { 'if-none-match': '*' }), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await send('PUT', '/docs/b', { 'if-match': '*' }, { text: 'x' }), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await send('GET', '/docs/b'), { status: 404, code: 'RC_NOT_FOUND' });
    expect(calls).toEqual({ load: 3, read: 0, replace: 0 });
  });

  it('a change with a stale tag is 412 and its handler does not run; with the current one it goes on, with ctx.item, and no ETag', async () => {
    const { send, calls, docs } = docsApi();
    expectProblem(await send('PUT', '/docs/a', { 'if-match': '"r2"' }, { text: 'lost update' }), { status: 412, code: 'RC_PRECONDITION_FAILED' });
    expect(calls.replace).toBe(0);
    expect(docs.get('a')!.text).toBe('first');
    const replaced = await send('PUT', '/docs/a', { 'if-match': '"r3"' }, { text: 'second' });
    expect(replaced).toMatchObject({ status: 200, body: { rev: 4, text: 'second' } });
    // An endpoint's change may answer anything: its answer carries no validators of the item.
    expect(replaced.headers).not.toHaveProperty('etag');
    expect(calls.replace).toBe(1);
  });

  it('requireIfMatch: a change without If-Match is 428, a read is not', async () => {
    const { send, calls } = docsApi({ requireIfMatch: true });
    expectProblem(await send('PUT', '/docs/a', {}, { text: 'x' }), { status: 428, code: 'RC_PRECONDITION_REQUIRED' });
    expect((await send('GET', '/docs/a')).status).toBe(200);
    expect(calls.replace).toBe(0);
    expect((await send('PUT', '/docs/a', { 'if-match': '"r3"' }, { text: 'x' })).status).toBe(200);
  });

  it('Last-Modified: sent with the ETag on a 200, left out of the 304 that has an ETag, sent on a 304 without one', async () => {
    const both = docsApi({ lastModified: (doc) => doc.changed });
    expect((await both.send('GET', '/docs/a')).headers).toMatchObject({ etag: '"r3"', 'last-modified': 'Thu, 01 Jan 2026 00:00:00 GMT' });
    expect((await both.send('GET', '/docs/a', { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' })).headers).toEqual({ etag: '"r3"' });
    const dateOnly = endpoint('GET', '/notes/:id', { conditional: { load: () => ({ changed: new Date(0) }), lastModified: (item) => item.changed }, handle: () => ({ ok: true }) });
    const answer = await createApi({ endpoints: [dateOnly] }).handle({ method: 'GET', url: '/notes/1', headers: { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' } });
    expect(answer).toEqual({ status: 304, headers: { 'last-modified': 'Thu, 01 Jan 1970 00:00:00 GMT' }, body: undefined, payload: undefined });
  });

  it('is refused at definition time without load or any validator, with an unknown key, or requireIfMatch without a validator', () => {
    const handle = () => ({});
    expect(() => endpoint('GET', '/x/:id', { conditional: { etag: () => 'x' } as never, handle })).toThrow(/"load" of "conditional" must be a function/);
    expect(() => endpoint('GET', '/x/:id', { conditional: { load: () => ({}) }, handle })).toThrow(/needs "etag" or "lastModified"/);
    expect(() => endpoint('GET', '/x/:id', { conditional: { load: () => ({}), etag: () => 'x', ifMatch: true } as never, handle })).toThrow(/`ifMatch` is not an option/);
    expect(() => endpoint('GET', '/x/:id', { conditional: { load: () => ({}), etag: 'v1' } as never, handle })).toThrow(/"etag" must be a function/);
    expect(() => endpoint('GET', '/x/:id', { conditional: { load: () => ({}), requireIfMatch: true }, handle })).toThrow(/"requireIfMatch" needs "etag"/);
  });
});

describe('a validator that fails', () => {
  const failures: Readonly<Record<string, (doc: Doc) => string>> = {
    throws: () => {
      throw new Error('version lookup failed');
    },
    'returns a bad tag': () => 'has "quotes"',
    'returns no string': () => 7 as unknown as string,
  };

  for (const [name, etag] of Object.entries(failures)) {
    it(`${name}: on the precondition path a masked 500, reported; the handler does not run`, async () => {
      const { send, calls, errors } = docsApi({ etag });
      for (const [method, headers] of [['GET', { 'if-none-match': '"r3"' }], ['PUT', { 'if-match': '"r3"' }]] as const) {
        const problem = expectProblem(await send(method, '/docs/a', headers, method === 'PUT' ? { text: 'x' } : undefined), { status: 500, code: 'RC_INTERNAL', secrets: ['version lookup failed', 'quotes'] });
        expect(problem.instance).toMatch(/^urn:uuid:/);
      }
      expect(calls).toEqual({ load: 2, read: 0, replace: 0 });
      expect(errors).toHaveLength(2);
    });

    it(`${name}: on the success path the answer goes out without ETag, and the failure is reported`, async () => {
      const { send, errors } = docsApi({ etag });
      const answer = await send('GET', '/docs/a');
      expect(answer.status).toBe(200);
      expect(answer.headers).not.toHaveProperty('etag');
      expect(answer.body).toMatchObject({ id: 'a', text: 'first' });
      expect(errors).toHaveLength(1);
    });
  }

  it('a lastModified that gives an invalid date is the same: 500 on the precondition path, left out and reported on success', async () => {
    const { send, errors } = docsApi({ etag: (doc) => `r${doc.rev}`, lastModified: () => new Date(Number.NaN) });
    expectProblem(await send('GET', '/docs/a', { 'if-modified-since': 'Thu, 01 Jan 2026 00:00:00 GMT' }), { status: 500, code: 'RC_INTERNAL' });
    const answer = await send('GET', '/docs/a');
    expect(answer.status).toBe(200);
    expect(answer.headers).not.toHaveProperty('last-modified');
    expect(errors).toHaveLength(2);
  });
});

describe("a collection's preconditions", () => {
  interface Row {
    id: string;
    ownerId: number;
    version: number;
  }
  const rows = new Map<string, Row>();
  const calls: string[] = [];
  const rowsCollection = collection('rows', {
    body: z.object({ version: z.number() }),
    etag: (row: Row) => String(row.version),
    requireIfMatch: true,
    owner: (row, principal) => row.ownerId === (principal as { id: number }).id,
    read: (ctx) => {
      calls.push('read');
      return rows.get(ctx.params.id);
    },
    replace: (ctx) => {
      calls.push('replace');
      return { ...(ctx.item as Row), version: ctx.body.version };
    },
  });
  const api = createApi({ resources: [rowsCollection], authenticate: (request) => ({ id: Number(request.headers?.['x-user']) }) });
  const put = (id: string, user: number, headers: Record<string, string>): Promise<ApiResponse> =>
    api.handle({ method: 'PUT', url: `/rows/${id}`, headers: { ...headers, 'x-user': String(user), 'content-type': 'application/json' }, body: '{"version":2}' });

  it("loads the item once for its owner and its preconditions: missing is 404, someone else's 403, before any 412", async () => {
    rows.set('r', { id: 'r', ownerId: 1, version: 1 });
    calls.length = 0;
    expectProblem(await put('x', 1, { 'if-match': '"0"' }), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await put('r', 2, { 'if-match': '"0"' }), { status: 403, code: 'RC_FORBIDDEN' });
    expectProblem(await put('r', 1, { 'if-match': '"0"' }), { status: 412, code: 'RC_PRECONDITION_FAILED' });
    expect(calls).toEqual(['read', 'read', 'read']);
    const replaced = await put('r', 1, { 'if-match': '"1"' });
    expect(replaced).toMatchObject({ status: 200, headers: { etag: '"2"' }, body: { version: 2 } });
    expect(calls).toEqual(['read', 'read', 'read', 'read', 'replace']);
  });

  it('the outcomes of each operation list what its preconditions can answer', () => {
    const outcomesOf = (method: string, path: string) => api.routes.find((route) => route.method === method && route.path === path)!.outcomes;
    expect(outcomesOf('GET', '/rows/:id')).toEqual(expect.arrayContaining(['notModified', 'preconditionFailed']));
    expect(outcomesOf('GET', '/rows/:id')).not.toContain('preconditionRequired');
    expect(outcomesOf('PUT', '/rows/:id')).toEqual(expect.arrayContaining(['preconditionFailed', 'preconditionRequired']));
    expect(outcomesOf('PUT', '/rows/:id')).not.toContain('notModified');
  });

  it('declares nothing of the sort without validators', () => {
    const plain: readonly Endpoint[] = collection('plain', { read: () => ({}) }).endpoints;
    const outcomes = createApi({ endpoints: plain }).routes[0]!.outcomes;
    for (const outcome of ['notModified', 'preconditionFailed', 'preconditionRequired'] as const) expect(outcomes).not.toContain(outcome);
  });
});
