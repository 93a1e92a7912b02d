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

  it("body: 'ignored' leaves ctx.body undefined", () => {
    endpoint('POST', '/profiles/:username/follow', {
      body: 'ignored',
      handle: (ctx) => {
        expectTypeOf(ctx.body).toEqualTypeOf<undefined>();
        return {};
      },
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

describe('a body per operation, an owner on chosen operations, idOf', () => {
  const Draft = z.object({ title: z.string(), text: z.string() });

  it("types ctx.body from the operation's own body, or from the collection's", () => {
    collection('articles', {
      body: Draft,
      patch: Draft.partial(),
      read: () => undefined,
      create: {
        body: z.object({ title: z.string() }),
        handle: (ctx) => {
          expectTypeOf(ctx.body).toEqualTypeOf<{ title: string }>();
          return undefined;
        },
      },
      replace: {
        body: Draft.partial(),
        handle: (ctx) => {
          expectTypeOf(ctx.body).toEqualTypeOf<{ title?: string; text?: string }>();
          return undefined;
        },
      },
      update: {
        body: 'unvalidated',
        handle: (ctx) => {
          expectTypeOf(ctx.body).toBeUnknown();
          return undefined;
        },
      },
    });
    collection('articles', {
      body: Draft,
      patch: Draft.partial(),
      read: () => undefined,
      create: {
        summary: 'Creates an article',
        handle: (ctx) => {
          expectTypeOf(ctx.body).toEqualTypeOf<{ title: string; text: string }>();
          return undefined;
        },
      },
      replace: (ctx) => {
        expectTypeOf(ctx.body).toEqualTypeOf<{ title: string; text: string }>();
        return undefined;
      },
      update: {
        handle: (ctx) => {
          expectTypeOf(ctx.body).toEqualTypeOf<{ title?: string; text?: string }>();
          return undefined;
        },
      },
    });
  });

  it("refuses a field that only the collection's body has, and a body where none is read", () => {
    collection('articles', {
      body: Draft,
      create: {
        body: z.object({ title: z.string() }),
        handle: (ctx) => {
          // @ts-expect-error: create's own body has no text
          return ctx.body.text;
        },
      },
    });
    collection('articles', {
      // @ts-expect-error: read receives no body
      read: { body: Draft, handle: () => undefined },
    });
    collection('articles', {
      // @ts-expect-error: a body option is a schema or 'unvalidated'
      create: { body: 'json', handle: () => undefined },
    });
  });

  it('types the owner rule from the item, and takes the operations it guards', () => {
    collection('articles', {
      item: z.object({ authorId: z.number() }),
      read: () => undefined,
      remove: () => true,
      owner: {
        rule: (article, principal) => {
          expectTypeOf(article).toEqualTypeOf<{ authorId: number }>();
          return article.authorId === principal;
        },
        on: ['read', 'remove'],
      },
    });
    collection('articles', {
      read: () => undefined,
      // @ts-expect-error: create makes an item, so there is none to own
      owner: { rule: () => true, on: ['create'] },
    });
    collection('articles', {
      read: () => undefined,
      // @ts-expect-error: an owner object has a rule and the operations it guards, nothing else
      owner: { rule: () => true, on: ['read'], except: ['list'] },
    });
    collection('articles', {
      read: () => undefined,
      // @ts-expect-error: a rule needs the operations it guards
      owner: { rule: () => true },
    });
  });

  it('types load from the item params, and checks what it gives against the item schema', () => {
    collection('comments', {
      id: z.coerce.number().int(),
      item: z.object({ id: z.number(), authorId: z.number() }),
      owner: { rule: (comment) => comment.authorId === 1, on: ['remove'] },
      load: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ id: number }>();
        expectTypeOf(ctx.body).toEqualTypeOf<undefined>();
        return { id: ctx.params.id, authorId: 1 };
      },
      remove: () => true,
    });
    collection('comments', {
      item: z.object({ id: z.number(), authorId: z.number() }),
      // @ts-expect-error: what load gives is an item of the schema
      load: () => ({ id: 'x' }),
      remove: () => true,
    });
  });

  it("types idOf's argument from the item or its annotation, and its context from create", () => {
    collection('articles', {
      item: z.object({ article: z.object({ slug: z.string() }) }),
      body: Draft,
      idOf: (created, ctx) => {
        expectTypeOf(created).toEqualTypeOf<{ article: { slug: string } }>();
        expectTypeOf(ctx.body).toEqualTypeOf<{ title: string; text: string }>();
        return created.article.slug;
      },
      create: () => undefined,
    });
    collection('notes', {
      body: 'unvalidated',
      idOf: (created: { _id: bigint }) => created._id,
      create: () => ({ _id: 1n }),
    });
    collection('notes', {
      item: z.object({ _id: z.string() }),
      body: 'unvalidated',
      // @ts-expect-error: the item has no id, only an _id
      idOf: (created) => created.id,
      create: () => undefined,
    });
    collection('notes', {
      body: 'unvalidated',
      // @ts-expect-error: an id is a string, a number or a bigint
      idOf: () => ({ slug: 'a' }),
      create: () => undefined,
    });
  });
});
