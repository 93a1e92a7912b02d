import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { type } from 'arktype';
import { endpoint, type HeaderRecord, type QueryRecord } from '../../src/index.js';

describe('ctx is typed by the schemas', () => {
  it('zod: params, query and body are the schemas outputs, not their inputs', () => {
    endpoint('POST', '/users/:id', {
      params: { id: z.coerce.number() },
      query: z.object({ page: z.coerce.number().int().default(1), sort: z.enum(['asc', 'desc']).optional() }),
      body: z.object({ name: z.string(), tags: z.array(z.string()).transform((tags) => new Set(tags)) }),
      handle: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ id: number }>();
        expectTypeOf(ctx.query).toEqualTypeOf<{ page: number; sort?: 'asc' | 'desc' | undefined }>();
        expectTypeOf(ctx.body).toEqualTypeOf<{ name: string; tags: Set<string> }>();
        expectTypeOf(ctx.headers).toEqualTypeOf<HeaderRecord>();
        return ctx.body.name;
      },
    });
  });

  it('valibot and arktype too', () => {
    endpoint('PATCH', '/users/:id', {
      params: { id: v.pipe(v.string(), v.transform(Number)) },
      body: v.object({ name: v.optional(v.string()) }),
      handle: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ id: number }>();
        expectTypeOf(ctx.body).toEqualTypeOf<{ name?: string | undefined }>();
      },
    });
    endpoint('PUT', '/users/:id', {
      query: type({ page: 'string.numeric.parse' }),
      body: type({ name: 'string', age: 'number.integer' }),
      handle: (ctx) => {
        expectTypeOf(ctx.query).toEqualTypeOf<{ page: number }>();
        expectTypeOf(ctx.body).toEqualTypeOf<{ name: string; age: number }>();
      },
    });
  });

  it('a param without a schema stays a string beside one with a schema', () => {
    endpoint('GET', '/users/:userId/orders/:id', {
      params: { id: z.coerce.number() },
      handle: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ userId: string; id: number }>();
      },
    });
  });

  it("without schemas: string params, the raw query, no body; body: 'unvalidated' gives an unknown body", () => {
    endpoint('POST', '/users/:id', {
      handle: (ctx) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ id: string }>();
        expectTypeOf(ctx.query).toEqualTypeOf<QueryRecord>();
        expectTypeOf(ctx.body).toEqualTypeOf<undefined>();
      },
    });
    endpoint('POST', '/imports', {
      body: 'unvalidated',
      handle: (ctx) => {
        expectTypeOf(ctx.body).toBeUnknown();
      },
    });
  });
});
