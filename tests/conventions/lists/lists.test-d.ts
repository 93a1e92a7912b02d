import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { collection, endpoint, type CursorValue, type PageRequest, type SortField } from '../../../src/index.js';

describe('list conventions in the types', () => {
  it('a list handler gets ctx.page, ctx.sort with the sortable fields, and ctx.filter with each schema’s output', () => {
    collection('orders', {
      page: { by: 'cursor', limit: { default: 10, max: 50 } },
      sort: ['createdAt', 'total'],
      filter: { status: z.enum(['open', 'paid']), minTotal: z.coerce.number() },
      list: (ctx) => {
        expectTypeOf(ctx.page).toEqualTypeOf<PageRequest>();
        expectTypeOf(ctx.page.limit).toEqualTypeOf<number>();
        expectTypeOf(ctx.page.after).toEqualTypeOf<Readonly<Record<string, CursorValue>> | undefined>();
        expectTypeOf(ctx.sort).toEqualTypeOf<SortField<'createdAt' | 'total'>[]>();
        expectTypeOf(ctx.sort[0]!.field).toEqualTypeOf<'createdAt' | 'total'>();
        expectTypeOf(ctx.sort[0]!.direction).toEqualTypeOf<'asc' | 'desc'>();
        expectTypeOf(ctx.filter.status).toEqualTypeOf<'open' | 'paid' | undefined>();
        expectTypeOf(ctx.filter.minTotal).toEqualTypeOf<number | undefined>();
        // What an owner's scope adds is there too, untyped.
        expectTypeOf(ctx.filter.userId).toEqualTypeOf<unknown>();
        return [];
      },
    });
  });

  it('without page, ctx.page is undefined; without sort, no field can be named', () => {
    collection('tags', {
      list: (ctx) => {
        expectTypeOf(ctx.page).toEqualTypeOf<undefined>();
        expectTypeOf(ctx.sort).toEqualTypeOf<SortField<never>[]>();
        return [];
      },
    });
  });

  it('other handlers get ctx.item, the loaded item, as unknown', () => {
    collection('notes', {
      read: (ctx) => {
        expectTypeOf(ctx.item).toEqualTypeOf<unknown>();
        return {};
      },
    });
  });

  it('update with merge gets the merged item as the body: its own body, else the collection’s', () => {
    const Body = z.object({ title: z.string() });
    const Item = z.object({ id: z.number(), title: z.string() });
    collection('a', {
      body: Body,
      item: Item,
      read: () => ({ id: 1, title: 'x' }),
      update: {
        merge: true,
        handle: (ctx) => {
          expectTypeOf(ctx.body).toEqualTypeOf<{ title: string }>();
          return { id: 1, ...ctx.body };
        },
      },
    });
    collection('c', {
      body: Body,
      item: Item,
      read: () => ({ id: 1, title: 'x' }),
      update: {
        merge: true,
        body: z.object({ title: z.string().max(3) }),
        handle: (ctx) => {
          expectTypeOf(ctx.body).toEqualTypeOf<{ title: string }>();
          return { id: 1, ...ctx.body };
        },
      },
    });
  });

  it('owner as { rule } needs "on" or "scope"', () => {
    const rule = (item: { ownerId: number }, principal: unknown) => item.ownerId === (principal as { id: number }).id;
    collection('notes', {
      read: () => ({ ownerId: 1 }),
      list: () => [],
      // @ts-expect-error: a rule for every operation is owner: rule; an object names what it guards or scopes
      owner: { rule },
    });
    collection('notes', { read: () => ({ ownerId: 1 }), list: () => [], owner: { rule, on: ['read'] } });
    collection('notes', { read: () => ({ ownerId: 1 }), list: () => [], owner: { rule, scope: (principal) => ({ ownerId: (principal as { id: number }).id }) } });
    collection('notes', { read: () => ({ ownerId: 1 }), list: () => [], owner: rule });
  });

  it('sort takes field names only, page takes by cursor or offset', () => {
    // @ts-expect-error: a page is by cursor or by offset
    collection('a', { list: () => [], page: { by: 'page' } });
    // @ts-expect-error: sort lists names, not one name
    collection('b', { list: () => [], sort: 'title' });
  });

  it('endpoint() conditional types load, etag and lastModified from the loaded item', () => {
    endpoint('GET', '/docs/:id', {
      conditional: {
        load: (ctx) => {
          expectTypeOf(ctx.params).toEqualTypeOf<{ id: string }>();
          return { rev: 3, changed: new Date() };
        },
        etag: (doc) => {
          expectTypeOf(doc).toEqualTypeOf<{ rev: number; changed: Date }>();
          return String(doc.rev);
        },
        lastModified: (doc) => doc.changed,
      },
      handle: () => ({}),
    });
  });
});
