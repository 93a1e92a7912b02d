/**
 * The types of raw bodies and of reading answers: a route that takes a body takes a form, bytes or a
 * stream too; `as` gives each success the body it is read as, and leaves the error members alone.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint } from 'restcanon';
import { createClient, type Failure, type Success } from 'restcanon/client';
import { readEvents, type ServerEvent } from 'restcanon/client/events';

const photos = collection('photos', {
  body: z.object({ title: z.string() }),
  item: z.object({ id: z.number(), title: z.string() }),
  etag: () => '1',
  read: () => undefined,
  create: () => ({ id: 1, title: 'a' }),
  remove: () => undefined,
});
const report = endpoint('GET', '/report', { handle: () => ({ rows: [] as number[] }) });
const api = createApi({ resources: [photos], endpoints: [report] });
const client = createClient<typeof api>({ api });
const tagged = createClient<typeof api>({ api, etags: true });

type Bodies<A> = A extends Success<number, infer Body> ? Body : never;
type Errors<A> = Extract<A, Failure>;

describe('a raw body', () => {
  it('is accepted wherever a body is, beside the schema\'s input', () => {
    client.post('/photos', { body: new FormData() });
    client.post('/photos', { body: new Blob([]) });
    client.post('/photos', { body: new URLSearchParams() });
    client.post('/photos', { body: new Uint8Array(4) });
    client.post('/photos', { body: new ArrayBuffer(4) });
    client.post('/photos', { body: new ReadableStream<Uint8Array>() });
    client.post('/photos', { body: { title: 'a' } });
    // @ts-expect-error a number is neither the schema's input nor a raw body
    client.post('/photos', { body: 1 });
    // @ts-expect-error a route that takes no body takes no raw body either
    client.get('/report', { body: new Blob([]) });
  });
});

describe('as', () => {
  it('"blob", "stream" and "text" give each success that body; the errors stay problems', async () => {
    const blob = await client.get('/photos/:id', { params: { id: 1 }, as: 'blob' });
    expectTypeOf<Bodies<typeof blob>>().toEqualTypeOf<Blob>();
    const stream = await client.get('/report', { as: 'stream' });
    expectTypeOf<Bodies<typeof stream>>().toEqualTypeOf<ReadableStream<Uint8Array>>();
    const text = await client.post('/photos', { body: { title: 'a' }, as: 'text' });
    expectTypeOf<Bodies<typeof text>>().toEqualTypeOf<string>();
    expectTypeOf<Errors<typeof blob>>().toEqualTypeOf<Errors<Awaited<ReturnType<typeof client.get<'/photos/:id', typeof api>>>>>();
    if (!blob.ok) expectTypeOf(blob.problem.code).toBeString();
  });

  it('leaves 204 without a body, and a kept 304 may be the body read before', async () => {
    const removed = await client.delete('/photos/:id', { params: { id: 1 }, as: 'blob' });
    expectTypeOf<Extract<typeof removed, { status: 204 }>>().toEqualTypeOf<Success<204, undefined>>();
    const read = await tagged.get('/photos/:id', { params: { id: 1 }, as: 'blob' });
    if (read.status === 304) expectTypeOf(read.body).toEqualTypeOf<Blob | undefined>();
    if (read.status === 200) expectTypeOf(read.body).toEqualTypeOf<Blob>();
  });

  it('without as, the body is the schema\'s output as before; an unknown way to read is refused', async () => {
    const read = await client.get('/photos/:id', { params: { id: 1 } });
    if (read.status === 200) expectTypeOf(read.body).toEqualTypeOf<{ id: number; title: string }>();
    // @ts-expect-error no such way to read
    client.get('/report', { as: 'json' });
  });
});

describe('readEvents', () => {
  it('reads a stream answer as server events', async () => {
    const answer = await client.get('/report', { as: 'stream' });
    if (answer.ok) for await (const event of readEvents(answer.body)) expectTypeOf(event).toEqualTypeOf<ServerEvent>();
    expectTypeOf<ServerEvent>().toEqualTypeOf<{ event: string; data: string; id: string; retry: number | undefined }>();
  });
});
