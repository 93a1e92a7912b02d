import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { collection, endpoint, type ApiResponse, type InferInput } from '../../src/index.js';

const User = z.object({ id: z.number(), name: z.string() });
type User = InferInput<typeof User>;

describe('results are checked against response schemas', () => {
  it('endpoint(): a result the response schema accepts, or nothing', () => {
    endpoint('GET', '/me', { response: User, handle: () => ({ id: 1, name: 'Ada' }) });
    endpoint('GET', '/me', { response: User, handle: async () => (Math.random() > 0.5 ? { id: 1, name: 'Ada', extra: true } : undefined) });
    // @ts-expect-error: name is missing
    endpoint('GET', '/me', { response: User, handle: () => ({ id: 1 }) });
    // @ts-expect-error: an async handler is checked too
    endpoint('GET', '/me', { response: User, handle: async () => ({ id: '1', name: 'Ada' }) });
    // Without a response schema, anything goes.
    endpoint('GET', '/me', { handle: () => 42 });
  });

  it('the schema input is what a handler returns: a transform takes what it parses', () => {
    const Stamp = z.object({ at: z.string().transform((text) => new Date(text)) });
    expectTypeOf<InferInput<typeof Stamp>>().toEqualTypeOf<{ at: string }>();
    endpoint('GET', '/stamp', { response: Stamp, handle: () => ({ at: '2026-11-21' }) });
  });

  it("collection(): item operations return an item or nothing, list an array of items, remove may return true", () => {
    const users = collection('users', {
      item: User,
      list: () => [{ id: 1, name: 'Ada' }],
      read: (ctx) => (ctx.params.id === '1' ? { id: 1, name: 'Ada' } : undefined),
      create: async () => ({ id: 2, name: 'Lin' }),
      remove: () => true,
    });
    collection('users', {
      item: User,
      // @ts-expect-error: list returns an array of items
      list: () => ({ id: 1, name: 'Ada' }),
    });
    collection('users', {
      item: User,
      // @ts-expect-error: an item has a numeric id
      read: () => ({ id: 'one', name: 'Ada' }),
    });
    // A nested collection's item is checked the same way.
    users.collection('orders', {
      item: z.object({ id: z.number(), total: z.number() }),
      // @ts-expect-error: total is missing
      read: () => ({ id: 1 }),
    });
  });

  it('owner sees the item as the item schema gives it', () => {
    collection('users', {
      item: User,
      owner: (user, principal) => {
        expectTypeOf(user).toEqualTypeOf<User>();
        return user.id === (principal as { id: number }).id;
      },
      read: () => ({ id: 1, name: 'Ada' }),
    });
  });

  it("an operation's own response replaces the item, as its result type", () => {
    collection('users', {
      item: User,
      list: { response: z.object({ items: z.array(User) }), handle: (): { items: User[] } => ({ items: [] }) },
    });
  });
});

describe('headers of several values and cookies', () => {
  it('an answer’s set-cookie is the list of its lines; ctx.append, ctx.cookie and ctx.cookies are typed', () => {
    // No member of its own: an optional one beside the index signature breaks projects without exactOptionalPropertyTypes (TS2411).
    expectTypeOf<ApiResponse['headers']['set-cookie']>().toEqualTypeOf<string | string[]>();
    expectTypeOf<ApiResponse['headers']['link']>().toEqualTypeOf<string | string[]>();
    endpoint('GET', '/me', {
      handle: (ctx) => {
        expectTypeOf(ctx.cookies).toEqualTypeOf<Readonly<Record<string, string>>>();
        ctx.append('Link', '</a>; rel="a"');
        ctx.cookie('theme', 'dark', { maxAge: 60, sameSite: 'strict' });
        // @ts-expect-error: SameSite is one of three
        ctx.cookie('theme', 'dark', { sameSite: 'sometimes' });
        // @ts-expect-error: an unknown option
        ctx.cookie('theme', 'dark', { maxage: 60 });
        return {};
      },
    });
  });
});
