/**
 * Type tests for `Register`: declaring the principal once types `ctx.principal` everywhere.
 * Module augmentation is global to a program, so this file is checked in a program of its own
 * (tests/types/tsconfig.json, run by `npm run typecheck`), apart from every other test.
 */
import { expectTypeOf } from 'vitest';
import { collection, createApi, endpoint, type Principal } from '../../src/index.js';

interface Caller {
  id: number;
  role: 'user' | 'admin';
}

declare module '../../src/index.js' {
  interface Register {
    principal: Caller;
  }
}

expectTypeOf<Principal>().toEqualTypeOf<Caller>();

endpoint('GET', '/me', {
  handle: (ctx) => {
    expectTypeOf(ctx.principal).toEqualTypeOf<Caller>();
    return ctx.principal.id;
  },
});

endpoint('GET', '/health', {
  public: true,
  handle: (ctx) => {
    expectTypeOf(ctx.principal).toEqualTypeOf<Caller | undefined>();
    return { ok: true };
  },
});

collection('users', {
  owner: (user: { id: number }, principal) => {
    expectTypeOf(principal).toEqualTypeOf<Caller>();
    return principal.role === 'admin' || user.id === principal.id;
  },
  read: (ctx) => {
    expectTypeOf(ctx.principal).toEqualTypeOf<Caller>();
    return { id: ctx.principal.id };
  },
  remove: {
    authorize: (ctx) => ctx.principal.role === 'admin',
    handle: () => true,
  },
});

// A registered principal types every protected handler as having one, which holds only where
// something authenticates: an API without `authenticate` does not compile.
const me = endpoint('GET', '/me', { handle: (ctx) => ctx.principal.id });
// @ts-expect-error: `authenticate` is required once Register declares a principal
createApi({ endpoints: [me] });
// @ts-expect-error: the options argument cannot be left out either
createApi();
createApi({ endpoints: [me], authenticate: () => ({ id: 1, role: 'user' as const }) });
// undefined, null and false are anonymous callers.
createApi({ endpoints: [me], authenticate: async () => null });
createApi({ endpoints: [me], authenticate: () => false });
// @ts-expect-error: a string is not a caller (at run time it is a masked 500)
createApi({ endpoints: [me], authenticate: () => 'user-1' });
