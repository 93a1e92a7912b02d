/**
 * restcanon/client/tanstack with TanStack Query's own QueryClient (@tanstack/query-core): a query, an
 * infinite query over a paged list's next links, a mutation, their keys, and a cancelled query whose
 * call is aborted through TanStack's signal.
 */
import { CancelledError, QueryClient } from '@tanstack/query-core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint } from '../../src/index.js';
import { ClientError, createClient } from '../../src/client/index.js';
import { infiniteQueryOptions, mutationOptions, queryOptions } from '../../src/client/tanstack.js';

function shop() {
  const books = [1, 2, 3, 4, 5].map((id) => ({ id, title: `Book ${id}` }));
  let release: () => void = () => {};
  const waiting = new Promise<void>((resolve) => (release = resolve));
  const api = createApi({
    resources: [
      collection('books', {
        id: z.coerce.number(),
        body: z.object({ title: z.string().min(1) }),
        item: z.object({ id: z.number(), title: z.string() }),
        page: { by: 'offset', limit: { default: 2, max: 10 } },
        list: (ctx) => books.slice(ctx.page.offset, ctx.page.offset + ctx.page.limit),
        read: (ctx) => books.find((book) => book.id === ctx.params.id),
        create: (ctx) => (books.push({ id: books.length + 1, ...ctx.body }), books.at(-1)!),
      }),
    ],
    endpoints: [endpoint('GET', '/slow', { handle: async () => (await waiting, { done: true }) })],
    timeout: false,
  });
  const aborted: unknown[] = [];
  const client = createClient<typeof api>({ api, onError: (error) => void aborted.push(error) });
  return { client, aborted, release: () => release() };
}

const queryClient = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

describe('restcanon/client/tanstack', () => {
  it('a query: its key from method, path, params and query; its data the success body', async () => {
    const { client } = shop();
    const options = queryOptions(client, '/books/:id', { params: { id: 2 } });
    expect(options.queryKey).toEqual(['restcanon', 'GET', '/books/:id', { id: 2 }, {}]);
    const book = await queryClient().fetchQuery(options);
    expectTypeOf(book).toEqualTypeOf<{ id: number; title: string }>();
    expect(book).toEqual({ id: 2, title: 'Book 2' });
    await expect(queryClient().fetchQuery(queryOptions(client, '/books/:id', { params: { id: 9 } }))).rejects.toMatchObject({ name: 'ClientError', status: 404 });
  });

  it('an infinite query follows the next links of a paged list', async () => {
    const { client } = shop();
    const data = await queryClient().fetchInfiniteQuery({ ...infiniteQueryOptions(client, '/books'), pages: 3 });
    expect(data.pages.map((page) => page.items.map((book) => book.id))).toEqual([[1, 2], [3, 4], [5]]);
    expect(data.pageParams).toEqual([undefined, expect.stringContaining('offset=2'), expect.stringContaining('offset=4')]);
  });

  it('a mutation sends its request and gives the created item; an error is a ClientError', async () => {
    const { client } = shop();
    const queries = queryClient();
    const options = mutationOptions(client, 'POST', '/books');
    expect(options.mutationKey).toEqual(['restcanon', 'POST', '/books']);
    const created = await queries.getMutationCache().build(queries, options).execute({ body: { title: 'Dune' } });
    expect(created).toEqual({ id: 6, title: 'Dune' });
    await expect(queries.getMutationCache().build(queries, options).execute({ body: { title: '' } })).rejects.toBeInstanceOf(ClientError);
  });

  it("cancelling a query aborts its call through TanStack's signal", async () => {
    const { client, aborted, release } = shop();
    const queries = queryClient();
    const options = queryOptions(client, '/slow');
    const fetching = queries.fetchQuery(options);
    await new Promise((resolve) => setImmediate(resolve));
    await queries.cancelQueries({ queryKey: ['restcanon', 'GET', '/slow'] });
    await expect(fetching).rejects.toBeInstanceOf(CancelledError);
    expect(aborted).toHaveLength(1);
    release();
  });
});
