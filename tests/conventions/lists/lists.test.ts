import fastJson from 'fast-json-stringify';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, type ApiResponse, type Page } from '../../../src/index.js';
import { createTestClient } from '../../../src/testing.js';
import { bearer, fixtureApi, type Note } from '../../fixture/api.js';
import { linkOf, PAGING_SEED, walkPages, walks, type PageAnswer } from '../../helpers/paging.js';
import { textHeaders } from '../../helpers/headers.js';
import { expectProblem } from '../../helpers/problem.js';

const read = () => ({ id: 1 });
const list = () => [];

describe('list conventions refused when the collection is declared', () => {
  const cases: readonly (readonly [string, Record<string, unknown>, RegExp])[] = [
    ['an unknown key in page', { list, page: { by: 'cursor', size: 10 } }, /`size` is not an option of the "page" of collection\("rows"\)/],
    ['an unknown key in its limit', { list, page: { by: 'cursor', limit: { maximum: 10 } } }, /`maximum` is not an option of the "limit"/],
    ['page that is no object', { list, page: 'cursor' }, /"page" must be \{ by: 'cursor' \}/],
    ['a page by something else', { list, page: { by: 'page' } }, /the "by" of "page" must be 'cursor' or 'offset'/],
    ['a max below the default', { list, page: { by: 'cursor', limit: { default: 10, max: 5 } } }, /default limit \(10\) is above its max \(5\)/],
    ['a limit of 0', { list, page: { by: 'offset', limit: { default: 0 } } }, /the "default" of the page's limit must be a whole number of at least 1/],
    ['a limit that is no whole number', { list, page: { by: 'offset', limit: { max: 2.5 } } }, /the "max" of the page's limit must be a whole number/],
    ['an empty key', { list, page: { by: 'cursor', key: '' } }, /the "key" of "page" must be the name of the field/],
    ['page without list', { read, page: { by: 'cursor' } }, /"page", "sort" and "filter" shape the list, which the collection does not declare/],
    ['sort without list', { read, sort: ['title'] }, /which the collection does not declare/],
    ['filter without list', { read, filter: { status: z.string() } }, /which the collection does not declare/],
    ['sort that is not an array', { list, sort: 'title' }, /"sort" must list the fields a request may sort by/],
    ['an empty sort', { list, sort: [] }, /"sort" must list the fields/],
    ['a sort field that is no name', { list, sort: ['title', '-title'] }, /"sort" must list the fields/],
    ['filter that is no object', { list, filter: 'status' }, /"filter" must map each field/],
    ['a filter that is not a schema', { list, filter: { status: 'open' } }, /the "filter" of "status" must be a Standard Schema/],
    ['a paged list with its own response', { list: { response: z.array(z.object({})), handle: list }, page: { by: 'cursor' } }, /a paged list answers a page of the collection's "item"s; drop the "response"/],
    ['scope without list', { read, owner: { rule: () => true, scope: () => ({}) } }, /the "scope" of "owner" keeps a list to the caller's items/],
    ['scope with an owner that does not guard list', { read, list, owner: { rule: () => true, on: ['read'], scope: () => ({}) } }, /the "scope" of "owner" keeps a list/],
    ['scope that is no function', { read, list, owner: { rule: () => true, scope: { userId: 1 } } }, /the "scope" of "owner" must be a function/],
    ['owner { rule } without on or scope', { read, list, owner: { rule: () => true } }, /"owner" as an object needs "on"/],
    ['merge without read', { body: z.object({}), update: { merge: true, handle: read } }, /"update" with "merge" applies the patch to the item, which "read" loads; declare read/],
    ['merge with patch', { read, body: z.object({}), patch: z.object({}), update: { merge: true, handle: read } }, /"patch" would go unused, so drop it/],
    ['merge without any schema', { read, body: 'unvalidated', update: { merge: true, handle: read } }, /"update" with "merge" checks the merged item against what a client may write/],
    ['merge with only an item schema', { read, item: z.object({ id: z.number() }), update: { merge: true, handle: read } }, /"item" holds what the server owns/],
    ['merge that is no boolean', { read, body: z.object({}), update: { merge: 'yes', handle: read } }, /the "merge" of "update" must be true or false/],
    ['etag without read', { list, etag: () => 'x' }, /"etag" and "lastModified" need "read"/],
    ['etag that is no function', { read, etag: 'v1' }, /"etag" must be a function of the item/],
    ['requireIfMatch without a validator', { read, requireIfMatch: true }, /"requireIfMatch" needs "etag"/],
  ];
  for (const [name, definition, message] of cases) {
    it(name, () => {
      expect(() => collection('rows', definition as never)).toThrow(message);
    });
  }

  for (const name of ['limit', 'cursor', 'offset', 'sort']) {
    it(`"${name}" as a filter`, () => {
      expect(() => collection('rows', { list, filter: { [name]: z.string() } })).toThrow(new RegExp(`"${name}" cannot be a filter: the query's "${name}" is the list's own`));
    });
  }
});

interface Row {
  id: number;
  name: string;
}

/** Rows 1 to `count` named r1, r2, ...; a collection paged by offset over them, and what its handler received. */
function offsetApi(count: number, options: { setLink?: boolean } = {}) {
  const rows: Row[] = Array.from({ length: count }, (_, index) => ({ id: index + 1, name: `r${index + 1}` }));
  const received: unknown[] = [];
  const rowsCollection = collection('rows', {
    page: { by: 'offset', limit: { default: 2, max: 3 } },
    list: (ctx) => {
      received.push(ctx.page);
      if (options.setLink === true) ctx.set('Link', '</docs/rows>; rel="help"');
      return rows.slice(ctx.page.offset, ctx.page.offset + ctx.page.limit);
    },
  });
  const api = createApi({ basePath: '/api', resources: [rowsCollection] });
  return { get: (url: string) => api.handle({ method: 'GET', url }), received };
}

describe('pages by offset', () => {
  it('the handler receives the offset and one more than the page holds; next and prev name the pages around', async () => {
    const { get, received } = offsetApi(5);
    const first = await get('/api/rows');
    expect(first.body).toEqual({ items: [{ id: 1, name: 'r1' }, { id: 2, name: 'r2' }], next: '/api/rows?limit=2&offset=2', prev: null });
    expect(first.headers.link).toBe('</api/rows?limit=2&offset=2>; rel="next"');
    expect(received).toEqual([{ limit: 3, size: 2, offset: 0, after: undefined, before: undefined, key: 'id' }]);
    const middle = await get('/api/rows?limit=2&offset=2');
    expect(middle.body).toEqual({ items: [{ id: 3, name: 'r3' }, { id: 4, name: 'r4' }], next: '/api/rows?limit=2&offset=4', prev: '/api/rows?limit=2&offset=0' });
    expect(middle.headers.link).toBe('</api/rows?limit=2&offset=4>; rel="next", </api/rows?limit=2&offset=0>; rel="prev"');
    const last = await get('/api/rows?limit=2&offset=4');
    expect(last.body).toEqual({ items: [{ id: 5, name: 'r5' }], next: null, prev: '/api/rows?limit=2&offset=2' });
  });

  it('prev never goes below 0, and a page past the end is empty with its prev', async () => {
    const { get } = offsetApi(5);
    expect((await get('/api/rows?offset=1&limit=3')).body).toMatchObject({ items: [{ id: 2 }, { id: 3 }, { id: 4 }], prev: '/api/rows?limit=3&offset=0', next: '/api/rows?limit=3&offset=4' });
    expect((await get('/api/rows?offset=9')).body).toEqual({ items: [], next: null, prev: '/api/rows?limit=2&offset=7' });
    expect((await get('/api/rows?limit=3')).body).toMatchObject({ items: [{ id: 1 }, { id: 2 }, { id: 3 }], next: '/api/rows?limit=3&offset=3' });
  });

  it('an offset that is no whole number of 0 or more is 400 naming it; a cursor is an unknown parameter there', async () => {
    const { get, received } = offsetApi(5);
    for (const offset of ['-1', 'x', '1.5', '']) {
      const problem = expectProblem(await get(`/api/rows?offset=${offset}`), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(problem.errors, offset).toEqual([expect.objectContaining({ in: 'query', pointer: '#/offset' })]);
    }
    const cursor = expectProblem(await get('/api/rows?cursor=abc'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(cursor.errors).toEqual([expect.objectContaining({ pointer: '#/cursor', detail: expect.stringContaining('limit, offset') })]);
    expect(received).toEqual([]);
  });

  it("the page's Link follows a Link the handler set with ctx.set", async () => {
    const { get } = offsetApi(5, { setLink: true });
    expect((await get('/api/rows?offset=2')).headers.link).toBe('</docs/rows>; rel="help", </api/rows?limit=2&offset=4>; rel="next", </api/rows?limit=2&offset=0>; rel="prev"');
    expect((await get('/api/rows?offset=4')).headers.link).toBe('</docs/rows>; rel="help", </api/rows?limit=2&offset=2>; rel="prev"');
  });

  it('the links keep the other query parameters as they came, and replace the page parameters', async () => {
    const rowsCollection = collection('rows', {
      query: z.object({ q: z.string().optional() }),
      page: { by: 'offset', limit: { default: 1 } },
      list: (ctx) => {
        expect(ctx.query).toEqual({ q: 'a b' });
        return [{ id: 1 }, { id: 2 }];
      },
    });
    const answer = await createApi({ resources: [rowsCollection] }).handle({ method: 'GET', url: '/rows?q=a+b&offset=3&limit=1' });
    expect(answer.body).toEqual({ items: [{ id: 1 }], next: '/rows?q=a+b&limit=1&offset=4', prev: '/rows?q=a+b&limit=1&offset=2' });
  });
});

/** The fixture, its notes read by alice. */
function notes(token = 'alice') {
  const fixture = fixtureApi();
  const client = createTestClient(fixture.api);
  const get = (url: string): Promise<ApiResponse> => client.get(url, { headers: bearer(token) });
  return { ...fixture, get };
}

const idsOf = (answer: ApiResponse): number[] => (answer.body as Page<Note>).items.map((note) => note.id);
const nextOf = (answer: ApiResponse): string => (answer.body as Page<Note>).next!;
const prevOf = (answer: ApiResponse): string => (answer.body as Page<Note>).prev!;

describe('pages by cursor', () => {
  it('the handler receives the page, the order and the filter asked for, with the scope on top', async () => {
    const received: unknown[] = [];
    const rowsCollection = collection('rows', {
      page: { by: 'cursor', limit: { default: 2, max: 5 } },
      sort: ['title', 'status'],
      filter: { status: z.enum(['draft', 'published']), size: z.coerce.number() },
      owner: { rule: () => true, scope: () => ({ ownerId: 1 }) },
      read: () => undefined,
      list: (ctx) => {
        received.push({ page: ctx.page, sort: ctx.sort, filter: ctx.filter });
        return [];
      },
    });
    const api = createApi({ resources: [rowsCollection], authenticate: () => ({ id: 1 }) });
    expect((await api.handle({ method: 'GET', url: '/rows?limit=3&sort=-title,status&status=draft&size=4' })).status).toBe(200);
    expect(received).toEqual([
      {
        page: { limit: 4, size: 3, offset: 0, after: undefined, before: undefined, key: 'id' },
        sort: [{ field: 'title', direction: 'desc' }, { field: 'status', direction: 'asc' }],
        filter: { status: 'draft', size: 4, ownerId: 1 },
      },
    ]);
  });

  it('a cursor holds the position of the last note sent: the next page starts after it, the prev page ends before the first', async () => {
    const { get } = notes('admin');
    const first = await get('/notes?limit=2&sort=title');
    // apples (2), books (3), groceries (1), groceries (4), zebras (5)
    expect(idsOf(first)).toEqual([2, 3]);
    const second = await get(nextOf(first));
    expect(idsOf(second)).toEqual([1, 4]);
    const third = await get(nextOf(second));
    expect(idsOf(third)).toEqual([5]);
    expect((third.body as Page).next).toBeNull();
    const back = await get(prevOf(third));
    expect(idsOf(back)).toEqual([1, 4]);
    const start = await get(prevOf(back));
    expect(idsOf(start)).toEqual([2, 3]);
    // Back at the start, there is nothing before it.
    expect((start.body as Page).prev).toBeNull();
    expect(start.headers.link).toBe(linkOf(start.body as Page));
  });

  it('the page size may change from one page to the next: the cursor holds the position, not the size', async () => {
    const { get } = notes('admin');
    const first = await get('/notes?limit=1');
    const rest = await get(nextOf(first).replace('limit=1', 'limit=5'));
    expect(idsOf(first)).toEqual([1]);
    expect(idsOf(rest)).toEqual([2, 3, 4, 5]);
    expect((rest.body as Page).next).toBeNull();
  });

  it('a cursor is tied to the sort and filter it was made with: with another, 400 naming the cursor', async () => {
    const { get, store } = notes();
    const sorted = nextOf(await get('/notes?limit=1&sort=title'));
    const filtered = nextOf(await get('/notes?limit=1&status=published'));
    const plain = nextOf(await get('/notes?limit=1'));
    const cursorOf = (link: string): string => new URL(link, 'http://x').searchParams.get('cursor')!;
    for (const url of [
      `/notes?sort=-title&cursor=${cursorOf(sorted)}`,
      `/notes?cursor=${cursorOf(sorted)}`,
      `/notes?sort=title,status&cursor=${cursorOf(sorted)}`,
      `/notes?cursor=${cursorOf(filtered)}`,
      `/notes?status=draft&cursor=${cursorOf(filtered)}`,
      `/notes?sort=title&cursor=${cursorOf(plain)}`,
      `/notes?ownerId=1&cursor=${cursorOf(plain)}`,
    ]) {
      const problem = expectProblem(await get(url), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(problem.errors, url).toEqual([expect.objectContaining({ in: 'query', pointer: '#/cursor' })]);
    }
    expect(store.noteCalls.list).toBe(3);
    for (const link of [sorted, filtered, plain]) expect((await get(link)).status).toBe(200);
  });

  it('a cursor that is cut, padded, too long or holds the wrong values is 400', async () => {
    const { get, store } = notes();
    const cursor = new URL(nextOf(await get('/notes?limit=1')), 'http://x').searchParams.get('cursor')!;
    const encode = (content: unknown): string => Buffer.from(JSON.stringify(content)).toString('base64url');
    for (const forged of [
      cursor.slice(0, -2),
      `${cursor}==`,
      `${cursor}.`,
      'A'.repeat(5000),
      encode(['', '', 'a', [1, 2]]),
      encode(['', '', 'c', [1]]),
      encode(['', '', 'a', [{ id: 1 }]]),
      encode(['', '', 'a', 1]),
      encode({ order: '', values: [1] }),
      Buffer.from([0xff, 0xfe, 0x22]).toString('base64url'),
    ]) {
      expectProblem(await get(`/notes?cursor=${forged}`), { status: 400, code: 'RC_INVALID_INPUT' });
    }
    expect(store.noteCalls.list).toBe(1);
    // A position the list did not make is still a position: the store decides what comes after it.
    expect(idsOf(await get(`/notes?cursor=${encode(['', '', 'a', [3]])}`))).toEqual([4]);
  });

  it('sort and limit: a field twice, a parameter given twice, is 400 naming it', async () => {
    const { get } = notes();
    const twice = expectProblem(await get('/notes?sort=title,-title'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(twice.errors).toEqual([expect.objectContaining({ pointer: '#/sort', detail: expect.stringContaining('"title" twice') })]);
    const repeated = expectProblem(await get('/notes?limit=1&limit=2'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(repeated.errors).toEqual([expect.objectContaining({ pointer: '#/limit', detail: 'is given more than once' })]);
    // Every issue of the query in one 400.
    const all = expectProblem(await get('/notes?limit=9&sort=text&status=lost&color=red'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect((all.errors as { pointer: string }[]).map((issue) => issue.pointer).sort()).toEqual(['#/color', '#/limit', '#/sort', '#/status']);
  });

  it('a list item without its key cannot have a cursor: a masked 500, reported', async () => {
    const errors: unknown[] = [];
    const rowsCollection = collection('rows', { page: { by: 'cursor', limit: { default: 1 } }, list: () => [{ name: 'a' }, { name: 'b' }] });
    const api = createApi({ resources: [rowsCollection], onError: (error) => errors.push(error) });
    expectProblem(await api.handle({ method: 'GET', url: '/rows' }), { status: 500, code: 'RC_INTERNAL' });
    expect(errors).toEqual([expect.objectContaining({ message: expect.stringContaining('has no "id"') })]);
  });

  it('a page key of its own names the field cursors hold', async () => {
    const rows = [{ slug: 'a' }, { slug: 'b' }, { slug: 'c' }];
    const rowsCollection = collection('rows', {
      page: { by: 'cursor', key: 'slug', limit: { default: 1 } },
      list: (ctx) => {
        expect(ctx.page.key).toBe('slug');
        const after = ctx.page.after?.slug;
        return rows.filter((row) => after === undefined || row.slug > (after as string)).slice(0, ctx.page.limit);
      },
    });
    const api = createApi({ resources: [rowsCollection] });
    const first = await api.handle({ method: 'GET', url: '/rows' });
    const second = await api.handle({ method: 'GET', url: nextOf(first) });
    expect((second.body as Page).items).toEqual([{ slug: 'b' }]);
  });
});

describe("the owner's scope", () => {
  it("keeps each caller to their notes; the admin's scope is every note", async () => {
    expect(idsOf(await notes('alice').get('/notes?limit=5'))).toEqual([1, 3, 4]);
    expect(idsOf(await notes('bob').get('/notes?limit=5'))).toEqual([2, 5]);
    expect(idsOf(await notes('admin').get('/notes?limit=5'))).toEqual([1, 2, 3, 4, 5]);
  });

  it('a filter for the caller’s own value is fine, for another value 403, and the handler does not run', async () => {
    const { get, store } = notes();
    expect(idsOf(await get('/notes?ownerId=1'))).toEqual([1, 3]);
    expectProblem(await get('/notes?ownerId=2'), { status: 403, code: 'RC_FORBIDDEN' });
    expect(store.noteCalls.list).toBe(1);
  });

  it('without a caller the list is empty and the handler is not asked', async () => {
    const { api, store } = fixtureApi();
    const answer = await api.handle({ method: 'GET', url: '/notes?limit=1' });
    expect(answer).toMatchObject({ status: 200, body: { items: [], next: null, prev: null } });
    expect(answer.headers).not.toHaveProperty('link');
    expect(store.noteCalls.list).toBe(0);
  });

  it('a handler that forgets the scope still sends only the caller’s items, and the mistake is reported', async () => {
    const errors: unknown[] = [];
    const rows = [{ id: 1, ownerId: 1 }, { id: 2, ownerId: 2 }];
    const rowsCollection = collection('rows', {
      page: { by: 'cursor' },
      owner: { rule: (row: { ownerId: number }, principal) => row.ownerId === (principal as { id: number }).id, scope: (principal) => ({ ownerId: (principal as { id: number }).id }) },
      read: () => undefined,
      list: () => rows,
    });
    const api = createApi({ resources: [rowsCollection], authenticate: () => ({ id: 1 }), onError: (error) => errors.push(error) });
    expect((await api.handle({ method: 'GET', url: '/rows' })).body).toEqual({ items: [{ id: 1, ownerId: 1 }], next: null, prev: null });
    expect(errors).toHaveLength(1);
  });

  it('a scope that gives no object is a masked 500', async () => {
    const rowsCollection = collection('rows', { owner: { rule: () => true, scope: () => 7 as never }, read: () => undefined, list: () => [] });
    const api = createApi({ resources: [rowsCollection], authenticate: () => ({ id: 1 }), onError: () => {} });
    expectProblem(await api.handle({ method: 'GET', url: '/rows' }), { status: 500, code: 'RC_INTERNAL' });
  });
});

describe('the page and a response schema', () => {
  it("the fixture's notes: what the item schema does not declare is never sent", async () => {
    const { get, store } = notes();
    expect(store.notes.get(1)!.reviewerNote).toBe('seen');
    const answer = await get('/notes?limit=1');
    expect(answer.payload).not.toContain('reviewerNote');
    expect((answer.body as Page<Note>).items[0]).not.toHaveProperty('reviewerNote');
  });

  it('each item is written by the serializer compiled from the item schema, the links beside them', async () => {
    const compiled: unknown[] = [];
    let written = 0;
    const serializerCompiler = (schema: Record<string, unknown>) => {
      compiled.push(schema);
      const stringify = fastJson(schema);
      return (value: unknown) => {
        written++;
        return stringify(value);
      };
    };
    const Item = z.object({ id: z.number(), name: z.string() });
    const rowsCollection = collection('rows', {
      item: Item,
      page: { by: 'offset', limit: { default: 2 } },
      list: () => [
        { id: 1, name: 'a', hidden: 'x' },
        { id: 2, name: 'b', hidden: 'y' },
        { id: 3, name: 'c', hidden: 'z' },
      ],
    });
    const api = createApi({ resources: [rowsCollection], serializerCompiler });
    expect(compiled).toEqual([expect.objectContaining({ type: 'object', properties: expect.objectContaining({ id: expect.anything(), name: expect.anything() }) })]);
    const answer = await api.handle({ method: 'GET', url: '/rows' });
    expect(answer.payload).toBe('{"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"next":"/rows?limit=2&offset=2","prev":null}');
    expect(answer.body).toEqual({ items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }], next: '/rows?limit=2&offset=2', prev: null });
    expect(written).toBe(2);
  });

  it('a handler may return the page envelope { items }: its items are paged the same', async () => {
    const rowsCollection = collection('rows', { page: { by: 'offset', limit: { default: 1 } }, list: () => ({ items: [{ id: 1 }, { id: 2 }] }) as never });
    const answer = await createApi({ resources: [rowsCollection] }).handle({ method: 'GET', url: '/rows' });
    expect(answer.body).toEqual({ items: [{ id: 1 }], next: '/rows?limit=1&offset=1', prev: null });
  });
});

describe('walking pages while notes are added (property)', () => {
  it('each note of the start comes once, in order, and never another user’s', async () => {
    const { api, store } = fixtureApi();
    const client = createTestClient(api);
    await fc.assert(
      fc.asyncProperty(walks, async (walk) => {
        store.reset();
        await walkPages(walk, () => store.notes.values(), {
          listPath: '/notes',
          get: async (url): Promise<PageAnswer> => {
            const answer = await client.get(url, { headers: bearer(walk.caller) });
            return { status: answer.status, headers: textHeaders(answer.headers), body: answer.body as PageAnswer['body'] };
          },
          insert: (fields) => store.addNote(fields),
        });
      }),
      { seed: PAGING_SEED, numRuns: 300, endOnFailure: true },
    );
  });

  it('walking back by prev links from the last page gives the same notes in the same order', async () => {
    const { api, store } = fixtureApi();
    const client = createTestClient(api);
    await fc.assert(
      fc.asyncProperty(walks, async (walk) => {
        store.reset();
        for (const fields of walk.initial) store.addNote(fields);
        const get = async (url: string): Promise<Page<Note>> => (await client.get(url, { headers: bearer(walk.caller) })).body as Page<Note>;
        const query = [walk.sort === '' ? '' : `sort=${encodeURIComponent(walk.sort)}`, walk.status === undefined ? '' : `status=${walk.status}`, `limit=${walk.pages[0]!.size}`].filter(Boolean).join('&');
        const forward: Page<Note>[] = [await get(`/notes?${query}`)];
        while (forward.at(-1)!.next !== null) forward.push(await get(forward.at(-1)!.next!));
        const backward: Page<Note>[] = [forward.at(-1)!];
        while (backward.at(-1)!.prev !== null && backward.length <= forward.length) backward.push(await get(backward.at(-1)!.prev!));
        const ids = (pages: Page<Note>[]): number[] => pages.flatMap((page) => page.items.map((note) => note.id));
        expect(ids(backward.reverse())).toEqual(ids(forward));
      }),
      { seed: PAGING_SEED, numRuns: 100, endOnFailure: true },
    );
  });
});
