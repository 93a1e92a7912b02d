/**
 * The success body of a route from its endpoint's `produces`, as the client reads it without `as`:
 * a `Blob` for byte types, a stream for `text/event-stream`, a string for text, the data for JSON.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint } from 'restcanon';
import { createClient, type Success } from 'restcanon/client';

const api = createApi({
  endpoints: [
    endpoint('GET', '/logo', { produces: ['image/png', 'image/webp'], handle: () => new Uint8Array(0) }),
    endpoint('GET', '/feed', { produces: ['text/event-stream'], handle: () => (async function* () { yield 'hi'; })() }),
    endpoint('GET', '/report', { produces: ['application/json', 'text/csv'], response: z.object({ rows: z.array(z.string()) }), handle: () => ({ rows: [] }) }),
    endpoint('GET', '/plain', { handle: () => ({ n: 1 }) }),
  ],
});
const client = createClient<typeof api>({ api });

type Bodies<A> = A extends Success<number, infer Body> ? Body : never;

describe('produces in the client', () => {
  it('byte types give a Blob, without as', async () => {
    expectTypeOf<Bodies<Awaited<ReturnType<typeof client.get<'/logo', typeof api>>>>>().toEqualTypeOf<Blob>();
  });

  it('text/event-stream gives a ReadableStream<Uint8Array>', async () => {
    expectTypeOf<Bodies<Awaited<ReturnType<typeof client.get<'/feed', typeof api>>>>>().toEqualTypeOf<ReadableStream<Uint8Array>>();
  });

  it('JSON beside text gives the data or a string', async () => {
    expectTypeOf<Bodies<Awaited<ReturnType<typeof client.get<'/report', typeof api>>>>>().toEqualTypeOf<{ rows: string[] } | string>();
  });

  it('an endpoint without produces keeps its data', async () => {
    expectTypeOf<Bodies<Awaited<ReturnType<typeof client.get<'/plain', typeof api>>>>>().toEqualTypeOf<{ n: number }>();
  });
});
