/**
 * restcanon/testing: a collection operation's handler called directly with createTestContext, given
 * what the pipeline hands it (`item`, `page`, `sort`, `filter`), answers as it does through the API.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, type Context, type ListContext, type PageRequest } from '../src/index.js';
import { createTestContext } from '../src/testing.js';

interface Order {
  id: number;
  userId: number;
  item: string;
}

const orders: Order[] = [
  { id: 1, userId: 1, item: 'Notebook' },
  { id: 2, userId: 1, item: 'Eraser' },
  { id: 3, userId: 1, item: 'Pencil' },
  { id: 4, userId: 2, item: 'Stapler' },
];

/** A paged, sorted list handler: it fetches `ctx.page.limit` items after `ctx.page.offset`. */
const listOrders = (ctx: Context<{ userId: number }> & ListContext<'item'>): Order[] => {
  const direction = ctx.sort[0]?.direction === 'desc' ? -1 : 1;
  const sorted = orders.filter((order) => order.userId === ctx.params.userId).sort((a, b) => (ctx.sort.length === 0 ? a.id - b.id : a.item.localeCompare(b.item) * direction));
  return sorted.slice(ctx.page.offset, ctx.page.offset + ctx.page.limit);
};

/** A merge patch's handler: `ctx.body` is the merged item, `ctx.item` the item as it was. */
const updateProfile = (ctx: Context<{ id: number }, Record<string, string | string[]>, Record<string, unknown>, { name: string }>) => ({ ...(ctx.item as { id: number; version: number }), ...ctx.body, version: (ctx.item as { version: number }).version + 1 });

const page = (size: number, offset: number): PageRequest => ({ limit: size + 1, size, offset, after: undefined, before: undefined, key: 'id' });

describe('createTestContext for a collection operation', () => {
  const users = collection('users', { id: z.coerce.number().int(), read: (ctx) => ({ id: ctx.params.id }) });
  const userOrders = users.collection('orders', { page: { by: 'offset', limit: { default: 2 } }, sort: ['item'], list: listOrders });
  const profiles = collection('profiles', {
    id: z.coerce.number().int(),
    body: z.object({ name: z.string() }),
    read: (ctx) => ({ id: ctx.params.id, name: 'Ada', version: 1 }),
    update: { merge: true, handle: updateProfile },
  });
  const api = createApi({ resources: [users, userOrders, profiles] });

  it('runs a paged, sorted list handler with page and sort as the pipeline gives them (page:, sort: were refused)', async () => {
    const direct = listOrders(createTestContext({ params: { userId: 1 }, page: page(2, 0), sort: [{ field: 'item', direction: 'desc' }] }));
    // The handler fetches one more than the page holds; the pipeline sends the page.
    expect(direct.map((order) => order.item)).toEqual(['Pencil', 'Notebook', 'Eraser']);
    const answered = await api.handle({ method: 'GET', url: '/users/1/orders?limit=2&sort=-item' });
    expect((answered.body as { items: Order[] }).items.map((order) => order.item)).toEqual(['Pencil', 'Notebook']);
    expect(listOrders(createTestContext({ params: { userId: 1 }, page: page(2, 2) })).map((order) => order.id)).toEqual([3]);
  });

  it('runs a merge patch handler with the item it was loaded with (item: was refused)', async () => {
    const ctx = createTestContext({ params: { id: 1 }, body: { name: 'Alicia' }, item: { id: 1, name: 'Ada', version: 1 } });
    expect(updateProfile(ctx)).toEqual({ id: 1, name: 'Alicia', version: 2 });
    const answered = await api.handle({ method: 'PATCH', url: '/profiles/1', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"name":"Alicia"}' });
    expect(answered.body).toEqual({ id: 1, name: 'Alicia', version: 2 });
  });

  it('leaves out what is not given: an empty sort and filter, no page and no item', () => {
    const ctx = createTestContext();
    expect([ctx.sort, ctx.filter, ctx.page, ctx.item]).toEqual([[], {}, undefined, undefined]);
    expect(() => createTestContext({ pages: page(2, 0) } as never)).toThrow('`pages` is not an option of createTestContext(); did you mean `page`?');
  });

  it("refuses a page without offset ({ limit: 3 }) and a sort that is no array of { field, direction } (sort: 'item'), which no list handler is given", () => {
    const shape = '{ limit, size, offset, after, before, key }';
    expect(() => createTestContext({ page: { limit: 3 } } as never)).toThrow(`createTestContext(): "page" needs "size", a number, as a paged list's handler receives it: ${shape}`);
    expect(() => createTestContext({ page: { ...page(2, 0), offset: undefined } } as never)).toThrow(/"page" needs "offset", a number/);
    expect(() => createTestContext({ page: { ...page(2, 0), key: undefined } } as never)).toThrow(/"page" needs "key", a string/);
    expect(() => createTestContext({ page: 20 } as never)).toThrow(`createTestContext(): "page" must be an object ${shape}, as a paged list's handler receives it`);
    const sort = `createTestContext(): "sort" must be an array of { field, direction: 'asc' | 'desc' }, such as [{ field: 'name', direction: 'desc' }] for ?sort=-name`;
    expect(() => createTestContext({ sort: 'item' } as never)).toThrow(sort);
    expect(() => createTestContext({ sort: [{ field: 'item', direction: 'down' }] } as never)).toThrow(sort);
    expect(createTestContext({ page: page(2, 0), sort: [{ field: 'item', direction: 'asc' }] }).page).toEqual(page(2, 0));
  });
});
