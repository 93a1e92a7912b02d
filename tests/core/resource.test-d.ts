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
});
