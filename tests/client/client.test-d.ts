/**
 * The types of restcanon/client: each call's request from the route's schemas (their input types),
 * and its answer as a union narrowed by status, with one error member per outcome the route can reach.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, createStatusPolicy, endpoint, type Page } from 'restcanon';
import { bodyOf, createClient, type Failure, type Success } from 'restcanon/client';

const User = z.object({ id: z.number(), name: z.string() });
const NewUser = z.object({ name: z.string(), age: z.number().optional() });
type UserOut = z.output<typeof User>;

const users = collection('users', {
  id: z.coerce.number(),
  body: NewUser,
  patch: NewUser.partial(),
  item: User,
  query: z.object({ q: z.string().optional() }),
  list: () => [],
  read: () => undefined,
  create: { handle: () => ({ id: 1, name: 'a' }), errors: { conflict: 'taken' } },
  replace: () => undefined,
  update: () => undefined,
  remove: () => undefined,
});
const orders = users.collection('orders', {
  body: z.object({ item: z.string() }),
  item: z.object({ id: z.number(), item: z.string() }),
  page: { by: 'cursor' },
  list: () => [],
  create: () => ({ id: 1, item: 'x' }),
  remove: { response: z.object({ removed: z.number() }), errors: { gone: 'Already removed', conflict: 'Shipped' }, handle: () => ({ removed: 1 }) },
});
const notes = collection('notes', {
  body: NewUser,
  item: User,
  etag: () => '1',
  read: () => undefined,
  update: { merge: true, handle: () => undefined },
});
const health = endpoint('GET', '/health', { public: true, response: z.object({ ok: z.boolean() }), handle: () => ({ ok: true }) });
const search = endpoint('POST', '/searches/:kind', {
  params: { kind: z.enum(['users', 'orders']) },
  query: z.object({ limit: z.coerce.number() }),
  body: z.object({ text: z.string() }),
  errors: { conflict: 'busy', tooManyRequests: 'slow down' },
  handle: () => ({ hits: [] as string[] }),
});

const api = createApi({ resources: [users, orders, notes], endpoints: [health, search], authenticate: () => ({ id: 1 }) });
const client = createClient<typeof api>({ api });

type Codes<A> = A extends Failure<number, infer C> ? C : never;
type Statuses<A> = A extends { status: infer S } ? S : never;

describe('collection operations', () => {
  it('list: the query input, an array of the item', async () => {
    const answer = await client.get('/users', { query: { q: 'a' } });
    if (answer.status === 200) expectTypeOf(answer.body).toEqualTypeOf<UserOut[]>();
    expectTypeOf<Statuses<typeof answer>>().toEqualTypeOf<200 | 400 | 401 | 403 | 406 | 500 | 503>();
  });

  it('read: 200 or 404, the id as the schema takes it', async () => {
    const answer = await client.get('/users/:id', { params: { id: 7 } });
    if (answer.ok) expectTypeOf(answer.body).toEqualTypeOf<UserOut>();
    else if (answer.status === 404) expectTypeOf(answer.problem.code).toEqualTypeOf<'RC_NOT_FOUND'>();
  });

  it('create: the body input, 201, and the declared errors', async () => {
    const answer = await client.post('/users', { body: { name: 'Ada' } });
    expectTypeOf<Statuses<typeof answer>>().toEqualTypeOf<201 | 400 | 401 | 403 | 406 | 409 | 413 | 415 | 500 | 503>();
    if (answer.status === 409) expectTypeOf(answer.problem.code).toEqualTypeOf<'RC_CONFLICT'>();
    expectTypeOf(bodyOf(answer)).toEqualTypeOf<UserOut>();
  });

  it("an operation's own response and errors, and only that operation's", async () => {
    const removed = await client.delete('/users/:userId/orders/:id', { params: { userId: 1, id: 2 } });
    if (removed.status === 200) expectTypeOf(removed.body).toEqualTypeOf<{ removed: number }>();
    expectTypeOf<Codes<Extract<typeof removed, { status: 409 | 410 }>>>().toEqualTypeOf<'RC_CONFLICT' | 'RC_GONE'>();
    const created = await client.post('/users/:userId/orders', { params: { userId: 1 }, body: { item: 'x' } });
    expectTypeOf<Extract<Statuses<typeof created>, 409 | 410>>().toEqualTypeOf<never>();
    if (created.status === 201) expectTypeOf(created.body).toEqualTypeOf<{ id: number; item: string }>();
  });

  it('replace, update (patch schema) and remove', async () => {
    const replaced = await client.put('/users/:id', { params: { id: 1 }, body: { name: 'Ada', age: 3 } });
    if (replaced.status === 200) expectTypeOf(replaced.body).toEqualTypeOf<UserOut>();
    const updated = await client.patch('/users/:id', { params: { id: 1 }, body: { age: 4 } });
    if (updated.status === 200) expectTypeOf(updated.body).toEqualTypeOf<UserOut>();
    const removed = await client.delete('/users/:id', { params: { id: 1 } });
    if (removed.status === 204) expectTypeOf(removed.body).toEqualTypeOf<undefined>();
    expectTypeOf<Statuses<typeof removed>>().toEqualTypeOf<200 | 204 | 400 | 401 | 403 | 404 | 406 | 500 | 503>();
  });

  it('a nested collection, by its template, with its parent param; a paged list and its pages', async () => {
    const listed = await client.get('/users/:userId/orders', { params: { userId: 1 }, query: { limit: 10 } });
    if (listed.ok) expectTypeOf(listed.body).toEqualTypeOf<Page<{ id: number; item: string }>>();
    expectTypeOf<Statuses<typeof listed>>().toEqualTypeOf<200 | 400 | 401 | 403 | 404 | 406 | 500 | 503>();
    for await (const page of client.pages('/users/:userId/orders', { params: { userId: 1 } })) expectTypeOf(page.items).toEqualTypeOf<{ id: number; item: string }[]>();
  });

  it('a merge patch update and entity tags: 304, 412', async () => {
    // A 304 reaches a client that keeps ETags, or a call that sends If-None-Match itself.
    const read = await client.get('/notes/:id', { params: { id: 'a' } });
    expectTypeOf<Statuses<typeof read>>().toEqualTypeOf<200 | 400 | 401 | 403 | 404 | 406 | 412 | 500 | 503>();
    const kept = await createClient<typeof api>({ api, etags: true }).get('/notes/:id', { params: { id: 'a' } });
    expectTypeOf<Statuses<typeof kept>>().toEqualTypeOf<200 | 304 | 400 | 401 | 403 | 404 | 406 | 412 | 500 | 503>();
    const asked = await client.get('/notes/:id', { params: { id: 'a' }, headers: { 'if-none-match': '"1"' } });
    expectTypeOf<Extract<Statuses<typeof asked>, 304>>().toEqualTypeOf<304>();
    const patched = await client.patch('/notes/:id', { params: { id: 'a' }, body: { age: null } });
    expectTypeOf<Codes<typeof patched>>().toEqualTypeOf<
      | 'RC_BAD_REQUEST' | 'RC_INVALID_INPUT' | 'RC_MALFORMED_BODY' | 'RC_FORBIDDEN_KEY' | 'RC_TOO_DEEP' | 'RC_UNEXPECTED_BODY' | 'RC_AMBIGUOUS_CREDENTIALS' | 'RC_MALFORMED_URL'
      | 'RC_UNAUTHORIZED' | 'RC_FORBIDDEN' | 'RC_NOT_FOUND' | 'RC_NOT_ACCEPTABLE' | 'RC_PRECONDITION_FAILED' | 'RC_PAYLOAD_TOO_LARGE' | 'RC_UNSUPPORTED_MEDIA_TYPE' | 'RC_INTERNAL' | 'RC_TIMEOUT'
    >();
  });
});

describe('endpoints', () => {
  it('a public endpoint has no 401 member', async () => {
    const answer = await client.get('/health');
    expectTypeOf<Extract<typeof answer, { status: 401 }>>().toBeNever();
    if (answer.ok) expectTypeOf(answer.body).toEqualTypeOf<{ ok: boolean }>();
    // A read whose handler gives nothing answers 404.
    expectTypeOf<Statuses<typeof answer>>().toEqualTypeOf<200 | 400 | 404 | 406 | 500 | 503>();
  });

  it('the API-wide authorize answers 403 on protected endpoints only', async () => {
    const guarded = createApi({ authorize: () => true, endpoints: [health, endpoint('GET', '/reports', { handle: () => [] as string[] })], timeout: false });
    const typed = createClient<typeof guarded>({ api: guarded });
    const healthy = await typed.get('/health');
    expectTypeOf<Extract<Statuses<typeof healthy>, 403>>().toBeNever();
    const reports = await typed.get('/reports');
    expectTypeOf<Extract<Statuses<typeof reports>, 403>>().toEqualTypeOf<403>();
  });

  it("an endpoint with body: 'ignored' takes no body from the client and answers no 400, 413 or 415 for one", async () => {
    const follow = endpoint('POST', '/follows', { body: 'ignored', handle: (ctx) => {
      expectTypeOf(ctx.body).toEqualTypeOf<undefined>();
      return { following: true };
    } });
    const favorites = collection('favorites', { body: 'ignored', create: (ctx) => {
      expectTypeOf(ctx.body).toEqualTypeOf<undefined>();
      return { id: 1 };
    } });
    const small = createApi({ resources: [favorites], endpoints: [follow], timeout: false });
    const typed = createClient<typeof small>({ api: small });
    const followed = await typed.post('/follows');
    expectTypeOf<Statuses<typeof followed>>().toEqualTypeOf<200 | 204 | 406 | 500>();
    // @ts-expect-error: the body is ignored, so the client sends none
    await typed.post('/follows', { body: { user: {} } });
    // @ts-expect-error: the same for a collection operation
    await typed.post('/favorites', { body: {} });
  });

  it('a required query must be given, and a headers schema can answer 400', async () => {
    const find = endpoint('GET', '/finds', { query: z.object({ q: z.string() }), handle: () => [] as string[] });
    const config = endpoint('GET', '/config', { public: true, headers: z.object({ 'x-tenant': z.string() }), handle: () => ({ theme: 'dark' }) });
    const tenant = collection('secrets', { read: { authorize: () => false, handle: () => undefined } });
    const small = createApi({ resources: [tenant], endpoints: [find, config], timeout: false });
    const typed = createClient<typeof small>({ api: small });
    // @ts-expect-error: the query schema needs q
    await typed.get('/finds');
    const found = await typed.get('/finds', { query: { q: 'a' } });
    expectTypeOf<Statuses<typeof found>>().toEqualTypeOf<200 | 400 | 404 | 406 | 500>();
    const configured = await typed.get('/config', { headers: { 'x-tenant': 't' } });
    expectTypeOf<Statuses<typeof configured>>().toEqualTypeOf<200 | 400 | 404 | 406 | 500>();
    // An operation's own authorize answers 403, with no authenticate in the API.
    const secret = await typed.get('/secrets/:id', { params: { id: 's' } });
    expectTypeOf<Extract<Statuses<typeof secret>, 403>>().toEqualTypeOf<403>();
  });

  it('params schemas, query, body and declared errors with literal codes', async () => {
    const answer = await client.post('/searches/:kind', { params: { kind: 'users' }, query: { limit: 5 }, body: { text: 'a' } });
    if (answer.status === 200) expectTypeOf(answer.body).toEqualTypeOf<{ hits: string[] }>();
    if (answer.status === 409) expectTypeOf(answer.problem.code).toEqualTypeOf<'RC_CONFLICT'>();
    if (answer.status === 429) expectTypeOf(answer.problem.code).toEqualTypeOf<'RC_TOO_MANY_REQUESTS'>();
    expectTypeOf<Statuses<typeof answer>>().toEqualTypeOf<200 | 204 | 400 | 401 | 406 | 409 | 413 | 415 | 429 | 500 | 503>();
  });

  it('statuses are numbers under a custom policy, and without a timeout there is no 503', async () => {
    const custom = createApi({ endpoints: [health], policy: createStatusPolicy({ read: 200 }), timeout: false });
    const answer = await createClient<typeof custom>({ api: custom }).get('/health');
    expectTypeOf(answer.status).toEqualTypeOf<number>();
    const plain = createApi({ endpoints: [health], timeout: false });
    const strict = await createClient<typeof plain>({ api: plain }).get('/health');
    expectTypeOf<Statuses<typeof strict>>().toEqualTypeOf<200 | 404 | 406 | 500>();
  });

  it('an untyped API takes any path and answers loosely', async () => {
    const loose = createClient({ baseUrl: 'http://localhost' });
    const answer = await loose.get('/anything/:id', { params: { id: 1 } });
    expectTypeOf(answer).toEqualTypeOf<Success | Failure>();
  });
});

describe('wrong calls do not compile', () => {
  it('refuses them', async () => {
    // @ts-expect-error: no such path
    await client.get('/user/:id', { params: { id: 1 } });
    // @ts-expect-error: the path has no GET
    await client.get('/searches/:kind');
    // @ts-expect-error: params are missing
    await client.get('/users/:id');
    // @ts-expect-error: a param is missing
    await client.get('/users/:userId/orders', { params: {} });
    // @ts-expect-error: the body does not fit the schema
    await client.post('/users', { body: { name: 1 } });
    // @ts-expect-error: a route that takes a body needs it
    await client.post('/users');
    // @ts-expect-error: a GET takes no body
    await client.get('/users', { body: { name: 'a' } });
    // @ts-expect-error: the params schema takes only its values
    await client.post('/searches/:kind', { params: { kind: 'posts' }, query: { limit: 1 }, body: { text: 'a' } });
    // @ts-expect-error: only paged lists have pages
    client.pages('/users');
    const { get } = client;
    // @ts-expect-error: a call is typed from the client it is made on; a detached one has none
    await get('/users/:id', { params: { id: 1 } });
    const answer = await client.get('/users/:id', { params: { id: 1 } });
    // @ts-expect-error: the body is there only once the answer is narrowed to a success
    void answer.body;
  });
});
