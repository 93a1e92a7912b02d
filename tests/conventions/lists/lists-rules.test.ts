/**
 * A list's conventions as a caller of `api.handle` sees them: the page size a collection declares
 * and a request asks for, the order and filter, the cursors that hold a position, the `next` and
 * `prev` links in the body and in `Link` (RFC 8288), each a URI reference (RFC 3986), and what a
 * definition may not declare. Each case names the rule it pins (docs/lists.md).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, type ApiResponse, type ErrorInfo, type Page, type PageRequest } from '../../../src/index.js';
import { expectProblem } from '../../helpers/problem.js';

interface Row {
  id: number;
  name: string;
}

const ROWS: Row[] = Array.from({ length: 200 }, (_, index) => ({ id: index + 1, name: `r${index + 1}` }));

/** An API over one collection `rows`, whose list keeps to the page it is asked for, by offset or by id; and what its handler received. */
function rowsApi(definition: Record<string, unknown>, rows: readonly unknown[] = ROWS) {
  const received: { page: PageRequest; sort: unknown; filter: unknown; query: unknown }[] = [];
  const reported: { error: Error; info: ErrorInfo }[] = [];
  const rowsCollection = collection('rows', {
    list: (ctx: any) => {
      received.push({ page: ctx.page, sort: ctx.sort, filter: ctx.filter, query: ctx.query });
      const page = ctx.page as PageRequest | undefined;
      if (page === undefined) return [...rows];
      if (page.after !== undefined) return rows.filter((row: any) => row[page.key] > page.after![page.key]!).slice(0, page.limit);
      if (page.before !== undefined) return rows.filter((row: any) => row[page.key] < page.before![page.key]!).slice(-page.limit);
      return rows.slice(page.offset, page.offset + page.limit);
    },
    ...definition,
  } as never);
  const api = createApi({ resources: [rowsCollection], onError: (error, info) => reported.push({ error: error as Error, info }) });
  const get = (url: string): Promise<ApiResponse> => api.handle({ method: 'GET', url });
  return { api, get, received, reported };
}

const pageOf = (answer: ApiResponse) => answer.body as Page<Row>;
const idsOf = (answer: ApiResponse) => pageOf(answer).items.map((row) => row.id);
const cursorOf = (link: string): string => new URL(link, 'http://x').searchParams.get('cursor')!;
const encode = (content: unknown): string => Buffer.from(JSON.stringify(content)).toString('base64url');

describe('what a collection may declare of its list, checked when it is declared (docs/lists.md)', () => {
  const list = () => [];
  it.each([
    ['page: null', { page: null }, /"page" must be \{ by: 'cursor' \} or \{ by: 'offset' \}/],
    ['a key that is no string', { page: { by: 'cursor', key: 5 } }, /the "key" of "page" must be the name of the field that tells items apart/],
    ['a sort field that is no string', { sort: [null] }, /"sort" must list the fields a request may sort by, such as \['name', 'createdAt'\]/],
    ['a sort field with a character past its name', { sort: ['name-x'] }, /"sort" must list the fields/],
    ['filter: null', { filter: null }, /"filter" must map each field a request may filter by to its schema/],
  ])('%s is refused with a sentence', (_case, definition, message) => {
    expect(() => collection('rows', { list, ...definition } as never)).toThrow(message);
  });

  it('a default limit equal to the max is fine: the page holds at most max', async () => {
    const { get } = rowsApi({ page: { by: 'offset', limit: { default: 3, max: 3 } } });
    expect(idsOf(await get('/rows'))).toEqual([1, 2, 3]);
  });

  it('without a default, the page holds 20, or the max where the max is lower', async () => {
    expect(idsOf(await rowsApi({ page: { by: 'offset' } }).get('/rows'))).toHaveLength(20);
    expect(idsOf(await rowsApi({ page: { by: 'offset', limit: { max: 5 } } }).get('/rows'))).toEqual([1, 2, 3, 4, 5]);
  });

  it('without a max, a request may ask for 100, or for the default where it is higher', async () => {
    const { get } = rowsApi({ page: { by: 'offset' } });
    expect(idsOf(await get('/rows?limit=100'))).toHaveLength(100);
    expectProblem(await get('/rows?limit=101'), { status: 400, code: 'RC_INVALID_INPUT' });
    const large = rowsApi({ page: { by: 'offset', limit: { default: 150 } } });
    expect(idsOf(await large.get('/rows'))).toHaveLength(150);
    expectProblem(await large.get('/rows?limit=151'), { status: 400, code: 'RC_INVALID_INPUT' });
  });
});

describe('the item schema and what a list sorts and pages by: a hidden field would leak through the order and the cursors (docs/lists.md)', () => {
  const Item = z.object({ id: z.number(), name: z.string(), customer: z.object({ name: z.string() }) });
  const apiOf = (definition: Record<string, unknown>) => createApi({ resources: [collection('staff', { item: Item, list: () => [], ...definition } as never)] });

  it('a sort field the item schema does not send is refused', () => {
    expect(() => apiOf({ sort: ['salary'] })).toThrow('GET /staff: the item schema hides "salary", so the list cannot sort or page by it: its order and cursors would tell it');
  });

  it('a cursor key the item schema does not send is refused, by cursor only', () => {
    expect(() => apiOf({ page: { by: 'cursor', key: 'badge' } })).toThrow(/hides "badge"/);
    expect(() => apiOf({ page: { by: 'cursor' }, sort: ['name', 'salary'] })).toThrow(/hides "salary"/);
    expect(() => apiOf({ page: { by: 'cursor' } })).not.toThrow();
    expect(() => apiOf({ page: { by: 'offset', key: 'badge' } })).not.toThrow();
  });

  it('a dotted field is read along its path: customer.name is sent, customer.email is not', () => {
    expect(() => apiOf({ sort: ['customer.name', 'name'], page: { by: 'cursor' } })).not.toThrow();
    expect(() => apiOf({ sort: ['customer.email'] })).toThrow(/hides "customer.email"/);
  });
});

describe('the query of a list: only its own parameters, each checked (docs/lists.md)', () => {
  it('a list without page, sort or filter leaves the query alone', async () => {
    const { get, received } = rowsApi({});
    expect((await get('/rows?color=red&limit=x')).status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('a list that sorts but does not page: limit, cursor and offset are no parameters of it, and the handler gets no page', async () => {
    const { get, received } = rowsApi({ sort: ['name'] });
    expect((await get('/rows?sort=-name')).status).toBe(200);
    expect(received[0]).toMatchObject({ page: undefined, sort: [{ field: 'name', direction: 'desc' }] });
    const problem = expectProblem(await get('/rows?limit=5'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem.errors).toEqual([{ in: 'query', pointer: '#/limit', detail: 'is not a parameter of this list, which takes sort' }]);
  });

  it('a list that pages but does not sort: sort is no parameter of it', async () => {
    const { get, received } = rowsApi({ page: { by: 'offset' } });
    const problem = expectProblem(await get('/rows?sort=name'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem.errors).toEqual([{ in: 'query', pointer: '#/sort', detail: 'is not a parameter of this list, which takes limit, offset' }]);
    expect(received).toEqual([]);
  });

  it('an empty sort is the list\'s own order; +name (a space, as a query writes it unencoded) and name sort ascending', async () => {
    const { get, received } = rowsApi({ sort: ['name', 'id'] });
    for (const url of ['/rows?sort=', '/rows?sort=+name', '/rows?sort=%2Bname,-id']) expect((await get(url)).status, url).toBe(200);
    expect(received.map(({ sort }) => sort)).toEqual([[], [{ field: 'name', direction: 'asc' }], [{ field: 'name', direction: 'asc' }, { field: 'id', direction: 'desc' }]]);
  });

  it('a sort field not allowed and one named twice: 400 whose detail says which', async () => {
    const { get } = rowsApi({ sort: ['name', 'id'] });
    expect(expectProblem(await get('/rows?sort=salary'), { status: 400 }).errors).toEqual([{ in: 'query', pointer: '#/sort', detail: 'cannot sort by "salary"; sortable: name, id' }]);
    expect(expectProblem(await get('/rows?sort=name,-name'), { status: 400 }).errors).toEqual([{ in: 'query', pointer: '#/sort', detail: 'names "name" twice' }]);
  });

  it('limit is a whole number from 1 to the max, written in digits only', async () => {
    const { get, received } = rowsApi({ page: { by: 'offset', limit: { default: 2, max: 12 } } });
    expect(idsOf(await get('/rows?limit=12'))).toHaveLength(12);
    expect(idsOf(await get('/rows?limit=1'))).toEqual([1]);
    for (const limit of ['0', '13', '%205', '5%20', '1e1', '0x5', '-1']) {
      const problem = expectProblem(await get(`/rows?limit=${limit}`), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(problem.errors, limit).toEqual([{ in: 'query', pointer: '#/limit', detail: 'must be a whole number from 1 to 12' }]);
    }
    expect(received).toHaveLength(2);
  });

  it('offset is a whole number of 0 or more, of up to 15 digits', async () => {
    const { get } = rowsApi({ page: { by: 'offset', limit: { default: 2 } } });
    expect(idsOf(await get('/rows?offset=12'))).toEqual([13, 14]);
    expect(idsOf(await get('/rows?offset=999999999999999'))).toEqual([]);
    const problem = expectProblem(await get('/rows?offset=1000000000000000'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem.errors).toEqual([{ in: 'query', pointer: '#/offset', detail: 'must be a whole number of 0 or more' }]);
  });

  it('a filter value that fails its schema is an issue of the query, at the filter\'s name', async () => {
    const { get } = rowsApi({ filter: { status: z.enum(['open', 'paid']) } });
    const problem = expectProblem(await get('/rows?status=lost'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '#/status' })]);
  });

  it('a filter whose schema checks asynchronously reaches the handler checked, and fails as one that checks at once', async () => {
    const known = z.string().refine(async (value) => value === 'open' || value === 'paid', 'is no status');
    const { get, received } = rowsApi({ filter: { status: known, color: z.string() } });
    expect((await get('/rows?status=open&color=red')).status).toBe(200);
    expect(received[0]!.filter).toEqual({ status: 'open', color: 'red' });
    const problem = expectProblem(await get('/rows?status=lost'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '#/status' })]);
    expect(received).toHaveLength(1);
  });
});

describe('cursors: a position the list made, for the order and filter it was made with (docs/lists.md)', () => {
  const byCursor = { page: { by: 'cursor', limit: { default: 2 } } };

  it('a cursor made for one descending order is refused with another', async () => {
    const { get } = rowsApi({ ...byCursor, sort: ['name', 'id'] });
    const next = pageOf(await get('/rows?sort=-name')).next!;
    expect((await get(next)).status).toBe(200);
    const problem = expectProblem(await get(`/rows?sort=-id&cursor=${cursorOf(next)}`), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem.errors).toEqual([{ in: 'query', pointer: '#/cursor', detail: 'is not a cursor of this list with this sort and filter; start again from the first page' }]);
  });

  it('a cursor made for sort=a,bc is refused with sort=ab,c: the fields of an order stay apart', async () => {
    const rows = [{ id: 1, a: 1, bc: 1, ab: 1, c: 1 }, { id: 2, a: 1, bc: 1, ab: 1, c: 1 }, { id: 3, a: 1, bc: 1, ab: 1, c: 1 }];
    const { get } = rowsApi({ ...byCursor, sort: ['a', 'bc', 'ab', 'c'] }, rows);
    const next = pageOf(await get('/rows?sort=a,bc')).next!;
    expect((await get(next)).status).toBe(200);
    expectProblem(await get(`/rows?sort=ab,c&cursor=${cursorOf(next)}`), { status: 400, code: 'RC_INVALID_INPUT' });
  });

  it('a cursor with a member more, a value a position cannot hold, or a key that is no string or number is refused', async () => {
    const { get, received } = rowsApi({ ...byCursor, sort: ['name'] });
    for (const forged of [
      encode(['name', '', 'a', ['r1', 3], 'x']),
      encode(['name', '', 'a', [{}, 3]]),
      encode(['name', '', 'a', ['r1', true]]),
      encode(['name', '', 'a', ['r1', null]]),
      Buffer.concat([Buffer.from('["name","","a",["'), Buffer.from([0xc3, 0x28]), Buffer.from('",3]]')]).toString('base64url'),
    ]) {
      expectProblem(await get(`/rows?sort=name&cursor=${forged}`), { status: 400, code: 'RC_INVALID_INPUT' });
    }
    expect(received).toEqual([]);
  });

  it('a sort value may be null, a boolean, a number or a string: the handler receives it as the position', async () => {
    const { get, received } = rowsApi({ ...byCursor, sort: ['name'] });
    for (const value of [null, true, 7, 'r1']) expect((await get(`/rows?sort=name&cursor=${encode(['name', '', 'a', [value, 3]])}`)).status).toBe(200);
    expect(received.map(({ page }) => page.after)).toEqual([{ name: null, id: 3 }, { name: true, id: 3 }, { name: 7, id: 3 }, { name: 'r1', id: 3 }]);
  });

  it('a cursor is base64url without padding, read back whole: - and _ included', async () => {
    const rows = [{ id: '???>>>' }, { id: '???>>?' }, { id: 'zzz' }];
    const { get, received } = rowsApi({ page: { by: 'cursor', limit: { default: 1 } } }, rows);
    const next = pageOf(await get('/rows')).next!;
    expect(cursorOf(next)).toMatch(/^[A-Za-z0-9_-]*-[A-Za-z0-9_-]*$/);
    expect(cursorOf(next)).toContain('_');
    expect(cursorOf(next)).not.toContain('=');
    expect(pageOf(await get(next)).items).toEqual([{ id: '???>>?' }]);
    expect(received[1]!.page.after).toEqual({ id: '???>>>' });
  });

  it('a cursor with a space before or after it, or longer than 4096 characters, is refused; one of 4096 is read', async () => {
    const { get, received } = rowsApi(byCursor);
    const valid = encode(['', '', 'a', [3]]);
    for (const cursor of [`+${valid}`, `${valid}%20`, encode(['', '', 'a', ['x'.repeat(3058)]])]) {
      expectProblem(await get(`/rows?cursor=${cursor}`), { status: 400, code: 'RC_INVALID_INPUT' });
    }
    expect(received).toEqual([]);
    const longest = encode(['', '', 'a', ['x'.repeat(3056)]]);
    expect(longest).toHaveLength(4096);
    expect((await get(`/rows?cursor=${longest}`)).status).toBe(200);
    expect((await get(`/rows?cursor=${valid}`)).status).toBe(200);
  });

  it('the position of an item: a missing sort field is null (along a path too), a Date its ISO string, a bigint its digits, a dotted field read along its path', async () => {
    // Entities that send only their id, as an ORM's may: a bigint is no JSON, but it can be a position.
    class Entity {
      constructor(fields: Record<string, unknown>) {
        Object.assign(this, fields);
      }

      toJSON() {
        return { id: (this as unknown as Row).id };
      }
    }
    const rows = [
      new Entity({ id: 1, at: new Date(Date.UTC(2026, 0, 2)), big: 12n, customer: { name: 'Ada' }, 'plain.name': 'p' }),
      new Entity({ id: 2, at: new Date(Date.UTC(2026, 0, 3)), big: 13n, customer: { name: 'Bob' }, 'plain.name': 'q' }),
    ];
    const { get, received, reported } = rowsApi({ page: { by: 'cursor', limit: { default: 1 } }, sort: ['missing', 'at', 'big', 'customer.name', 'plain.name', 'missing.name'] }, rows);
    const next = pageOf(await get('/rows?sort=missing,at,big,customer.name,plain.name,missing.name')).next!;
    const answer = await get(next);
    expect(answer.status, JSON.stringify(reported.map(({ error }) => error.message))).toBe(200);
    expect(received[1]!.page.after).toEqual({ missing: null, at: '2026-01-02T00:00:00.000Z', big: '12', 'customer.name': 'Ada', 'plain.name': 'p', 'missing.name': null, id: 1 });
  });

  it.each([
    ['a key that is null', [{ id: null }, { id: 2 }], 'A list item has no "id", which cursors need to tell items apart; set the page\'s "key"'],
    ['an item that is null', [null, { id: 2 }], 'A list item has no "id"'],
    ['a sort value that is NaN', [{ id: 1, name: Number.NaN }, { id: 2 }], 'A list item\'s sort field or key is NaN, which a cursor cannot hold'],
    ['a sort value that is an object', [{ id: 1, name: { first: 'Ada' } }, { id: 2 }], 'A list item\'s sort field or key is a object, which a cursor cannot hold'],
  ])('%s cannot be held by a cursor: a masked 500, and the report says why', async (_case, rows, message) => {
    const { get, reported } = rowsApi({ page: { by: 'cursor', limit: { default: 1 } }, sort: ['name'] }, rows);
    expectProblem(await get('/rows?sort=name'), { status: 500, code: 'RC_INTERNAL' });
    expect(reported.map(({ error }) => error.message)).toEqual([expect.stringContaining(message)]);
  });
});

describe('the pages around a page: next and prev, in the body and in Link (RFC 8288 §3)', () => {
  const byCursor = { page: { by: 'cursor', limit: { default: 2 } } };

  it('a page reached back by prev has a next that leads forward again', async () => {
    const { get } = rowsApi(byCursor, ROWS.slice(0, 6));
    const second = await get(pageOf(await get('/rows')).next!);
    const third = await get(pageOf(second).next!);
    const back = await get(pageOf(third).prev!);
    expect(idsOf(back)).toEqual([3, 4]);
    expect(idsOf(await get(pageOf(back).next!))).toEqual([5, 6]);
  });

  it('a page before the first item and one after the last are empty, with no link on from them', async () => {
    const { get } = rowsApi(byCursor, ROWS.slice(0, 3));
    const before = await get(`/rows?cursor=${encode(['', '', 'b', [1]])}`);
    expect(before.body).toEqual({ items: [], next: null, prev: null });
    expect(before.headers).not.toHaveProperty('link');
    const after = await get(`/rows?cursor=${encode(['', '', 'a', [3]])}`);
    expect(after.body).toEqual({ items: [], next: null, prev: null });
    expect(after.headers).not.toHaveProperty('link');
  });

  it('RFC 3986 §2.1: a link percent-encodes what a URI cannot hold (UTF-8, two hex digits, upper case), so that a query cannot close its <...> in Link', async () => {
    const { get } = rowsApi({ query: z.looseObject({}), page: { by: 'offset', limit: { default: 1 } } });
    const answer = await get('/rows?q=a b<c>&r="é"&t=\u0001x\u0010');
    const next = '/rows?q=a%20b%3Cc%3E&r=%22%C3%A9%22&t=%01x%10&limit=1&offset=1';
    expect(pageOf(answer).next).toBe(next);
    expect(answer.headers.link).toBe(`<${next}>; rel="next"`);
  });

  it('a link keeps the other parameters as they came, drops empty ones, and replaces the page parameters however they are spelled', async () => {
    const { get } = rowsApi({ query: z.looseObject({}), page: { by: 'offset', limit: { default: 1 } } });
    expect(pageOf(await get('/rows?a=1&&li+mit=2&%E0=3&%6Cimit=1&offset=1')).next).toBe('/rows?a=1&li+mit=2&%E0=3&limit=1&offset=2');
  });
});

describe('what a list answers: a page where it pages, its items where it does not (docs/lists.md)', () => {
  it('a list that sorts but does not page answers the array its handler returned, without links', async () => {
    const answer = await rowsApi({ sort: ['name'] }, ROWS.slice(0, 2)).get('/rows?sort=name');
    expect(answer.body).toEqual(ROWS.slice(0, 2));
    expect(answer.headers).not.toHaveProperty('link');
  });

  it.each([undefined, null])('a paged list whose handler returns %s found nothing: an empty page', async (result) => {
    const rowsCollection = collection('rows', { page: { by: 'offset' }, list: () => result as never });
    const answer = await createApi({ resources: [rowsCollection] }).handle({ method: 'GET', url: '/rows' });
    expect(answer).toMatchObject({ status: 200, body: { items: [], next: null, prev: null } });
    expect(answer.headers).not.toHaveProperty('link');
  });

  it.each([[{ rows: [] }], [7]])('a paged list whose handler returns %j, which holds no items, is a masked 500 whose report says what to return', async (result) => {
    const { get, reported } = rowsApi({ page: { by: 'offset' }, list: () => result });
    expectProblem(await get('/rows'), { status: 500, code: 'RC_INTERNAL' });
    expect(reported.map(({ error }) => error.message)).toEqual(['The list of /rows pages its items: return an array of at most ctx.page.limit of them']);
  });

  it('without a query schema the handler\'s ctx.query is the query as sent; with one, only what the list does not take for itself', async () => {
    const plain = rowsApi({ page: { by: 'offset' } });
    await plain.get('/rows?limit=2&offset=1');
    expect(plain.received[0]!.query).toEqual({ limit: '2', offset: '1' });
    const open = rowsApi({ query: z.looseObject({}), page: { by: 'offset' }, sort: ['name'], filter: { status: z.string() } });
    await open.get('/rows?limit=2&offset=1&sort=name&status=paid&q=x');
    expect(open.received[0]!.query).toEqual({ q: 'x' });
  });
});

describe('a list follows every link it gives', () => {
  // Regression: the cursor carried the filter's values as sent, so a filter value of 3100 characters
  // made a next link longer than a cursor may be, and following it was a 400.
  it('the next link of a filter value of 3100 characters is followed: the cursor holds a digest of the filter, not its values', async () => {
    const { get, received } = rowsApi({ page: { by: 'cursor', limit: { default: 1 } }, filter: { q: z.string() } }, ROWS.slice(0, 3));
    const q = 'x'.repeat(3100);
    const next = pageOf(await get(`/rows?q=${q}`)).next!;
    expect(cursorOf(next).length).toBeLessThan(200);
    const second = await get(next);
    expect(second.status).toBe(200);
    expect(received[1]).toMatchObject({ filter: { q }, page: { after: { id: 1 } } });
    expectProblem(await get(next.replace(`q=${q}`, `q=${q}y`)), { status: 400, code: 'RC_INVALID_INPUT' });
  });
});
