import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { collection, endpoint, type PathParams } from '../../src/index.js';

describe('path and resource param types', () => {
  it('PathParams reads every param of a template', () => {
    expectTypeOf<PathParams<'/users/:userId/orders/:id'>>().toEqualTypeOf<{ userId: string; id: string }>();
    expectTypeOf<PathParams<'/health'>>().toEqualTypeOf<{}>();
  });

  it('endpoint params are strings, or the schema output', () => {
    endpoint('GET', '/users/:userId/orders/:id', {
      handle: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ userId: string; id: string }>();
      },
    });
    endpoint('GET', '/users/:userId/orders/:id', {
      params: { id: z.coerce.number() },
      handle: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ userId: string; id: number }>();
      },
    });
  });

  it('a nested item has the parent id under the parent param name, with each level schema output', () => {
    const users = collection('users', {
      id: z.coerce.number().int(),
      read: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ id: number }>();
        return { id: ctx.params.id };
      },
    });
    users.collection('orders', {
      id: z.string().uuid(),
      body: z.object({ total: z.number() }),
      read: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ userId: number; id: string }>();
        return undefined;
      },
      list: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ userId: number }>();
        return [];
      },
      create: (ctx) => {
        expectTypeOf(ctx.body).toEqualTypeOf<{ total: number }>();
        return { id: 'x', ...ctx.body };
      },
    });
  });

  it('the child param name follows the parent name or its param option', () => {
    const categories = collection('categories', { read: () => ({}) });
    categories.collection('products', {
      list: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ categoryId: string }>();
        return [];
      },
    });
    const people = collection('people', { param: 'personId', read: () => ({}) });
    people.collection('addresses', {
      list: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ personId: string }>();
        return [];
      },
    });
  });

  it('without an item schema or an annotation, owner sees an unknown item, not any', () => {
    collection('projects', {
      owner: (item, principal) => {
        expectTypeOf(item).toBeUnknown();
        // @ts-expect-error: nothing describes the item, so a misspelled field cannot compile
        return item.ownerIdTypo === principal;
      },
      read: () => ({ ownerId: 1 }),
    });
    collection('projects', {
      item: z.object({ ownerId: z.number() }),
      owner: (item) => {
        expectTypeOf(item).toEqualTypeOf<{ ownerId: number }>();
        return item.ownerId === 1;
      },
      read: () => ({ ownerId: 1 }),
    });
  });

  it("a body option types ctx.body: a schema's output, unknown when 'unvalidated'", () => {
    collection('notes', {
      body: z.object({ text: z.string() }),
      patch: 'unvalidated',
      create: (ctx) => {
        expectTypeOf(ctx.body).toEqualTypeOf<{ text: string }>();
        return undefined;
      },
      read: () => undefined,
      update: (ctx) => {
        expectTypeOf(ctx.body).toBeUnknown();
        return undefined;
      },
    });
  });
});
