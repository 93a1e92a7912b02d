/**
 * The types of restcanon/client's second edition: a ClientError narrowed by instanceof keeps its
 * types, a list's sort takes its declared fields, the Fetch options and hooks of a client and a
 * call, and RequestOf / ResponseOf.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint } from 'restcanon';
import { bodyOf, ClientError, createClient, type ClientRequest, type Failure, type Problem, type RequestOf, type ResponseOf, type Success } from 'restcanon/client';

const User = z.object({ id: z.number(), name: z.string(), email: z.string() });
const users = collection('users', {
  id: z.coerce.number(),
  body: User.omit({ id: true }),
  item: User,
  sort: ['name', 'email'],
  filter: { tag: z.array(z.string()) },
  list: () => [],
  read: () => undefined,
  create: () => ({ id: 1, name: 'a', email: 'a@b.c' }),
});
const orders = users.collection('orders', { item: z.object({ id: z.number() }), list: () => [] });
const health = endpoint('GET', '/health', { public: true, handle: () => ({ status: 'ok' as const }) });
const api = createApi({ resources: [users, orders], endpoints: [health] });
const client = createClient<typeof api>({ api });

describe('ClientError after instanceof', () => {
  it('has a number status and a typed problem, so a misspelt member does not compile', async () => {
    try {
      bodyOf(await client.get('/users/:id', { params: { id: 1 } }));
    } catch (error) {
      if (error instanceof ClientError) {
        expectTypeOf(error.status).toEqualTypeOf<number>();
        expectTypeOf(error.problem).toEqualTypeOf<Problem>();
        expectTypeOf(error.problem.code).toEqualTypeOf<string>();
        // @ts-expect-error: no such member of a problem
        void error.problem.cdoe;
      }
    }
  });
});

describe("a list's sort", () => {
  it('takes a declared field, descending, or two of them', async () => {
    await client.get('/users', { query: { sort: 'name' } });
    await client.get('/users', { query: { sort: '-email' } });
    await client.get('/users', { query: { sort: 'name,-email' } });
    // @ts-expect-error: not a sortable field (the server answers 400)
    await client.get('/users', { query: { sort: 'id' } });
    // @ts-expect-error: the same field twice
    await client.get('/users', { query: { sort: 'name,name' } });
  });

  it('takes a one-element array for a filter that takes arrays', async () => {
    await client.get('/users', { query: { tag: ['a'] } });
  });
});

describe('Fetch options and hooks', () => {
  it('per call and per client', async () => {
    const controller = new AbortController();
    await client.get('/health', { signal: controller.signal, credentials: 'include', cache: 'no-store', keepalive: true, mode: 'cors', timeout: 1000 });
    await client.post('/users', { body: { name: 'a', email: 'a@b.c' }, idempotencyKey: true });
    // @ts-expect-error: not a RequestCredentials
    await client.get('/health', { credentials: 'always' });
    createClient<typeof api>({
      baseUrl: 'https://api.example',
      timeout: 5000,
      retry: { attempts: 3, sleep: async () => {} },
      onRequest: async (request) => {
        expectTypeOf(request).toEqualTypeOf<ClientRequest>();
        request.headers.traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      },
      onResponse: (answer) => {
        expectTypeOf(answer).toEqualTypeOf<Success | Failure>();
      },
      onError: (error) => {
        expectTypeOf(error).toBeUnknown();
      },
    });
  });
});

describe('RequestOf and ResponseOf', () => {
  it('name a call by API, method and path', () => {
    expectTypeOf<RequestOf<typeof api, 'GET', '/users/:id'>['params']>().toEqualTypeOf<{ id: string | number }>();
    type Read = ResponseOf<typeof api, 'GET', '/users/:id'>;
    expectTypeOf<Extract<Read, { status: 200 }>['body']>().toEqualTypeOf<z.output<typeof User>>();
    type Listed = ResponseOf<typeof api, 'GET', '/users/:userId/orders'>;
    expectTypeOf<Extract<Listed, { status: 200 }>['body']>().toEqualTypeOf<{ id: number }[]>();
  });
});
