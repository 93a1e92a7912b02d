import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collection, createApi, createStatusPolicy, endpoint, HttpError, UnauthorizedError, type ApiOptions, type ApiRequest } from '../../src/index.js';
import { openApi } from '../../src/openapi/index.js';
import { createTestClient } from '../../src/testing.js';
import { withoutInstance, expectProblem } from '../helpers/problem.js';

interface Caller {
  id: number;
  role: 'user' | 'admin';
}
interface User {
  id: number;
  name: string;
  secret: string;
}
interface Order {
  id: number;
  userId: number;
  item: string;
}

const TOKENS: Record<string, Caller> = {
  alice: { id: 1, role: 'user' },
  bob: { id: 2, role: 'user' },
  root: { id: 3, role: 'admin' },
};

function authenticate(request: ApiRequest): Caller | undefined {
  const header = request.headers?.authorization;
  if (header === undefined) return undefined;
  const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : '';
  const caller = TOKENS[token];
  if (caller === undefined) throw new UnauthorizedError('The token is not valid');
  return caller;
}

const isAdmin = (principal: unknown) => (principal as Caller | undefined)?.role === 'admin';

function makeWorld(options: Partial<ApiOptions> = {}) {
  const store = {
    users: new Map<number, User>([
      [1, { id: 1, name: 'Alice', secret: 'owned-by-1' }],
      [2, { id: 2, name: 'Bob', secret: 'owned-by-2' }],
      [3, { id: 3, name: 'Root', secret: 'owned-by-3' }],
    ]),
    orders: new Map<number, Order>([
      [10, { id: 10, userId: 1, item: 'owned-by-1' }],
      [20, { id: 20, userId: 2, item: 'owned-by-2' }],
    ]),
    ordersHandlerCalls: 0,
  };
  const users = collection('users', {
    id: z.coerce.number().int(),
    body: z.object({ name: z.string(), secret: z.string() }),
    patch: z.object({ name: z.string() }).partial(),
    owner: (user: User, principal) => isAdmin(principal) || user.id === (principal as Caller).id,
    // Forgets to scope by the caller on purpose: the ownership check is the safety net.
    list: () => [...store.users.values()],
    read: (ctx) => store.users.get(ctx.params.id),
    create: (ctx) => {
      const user = { id: store.users.size + 1, ...ctx.body };
      store.users.set(user.id, user);
      return user;
    },
    replace: (ctx) => {
      const user = { id: ctx.params.id, ...ctx.body };
      store.users.set(user.id, user);
      return user;
    },
    update: (ctx) => {
      const user = { ...store.users.get(ctx.params.id)!, ...ctx.body } as User;
      store.users.set(user.id, user);
      return user;
    },
    remove: {
      authorize: (ctx) => isAdmin(ctx.principal),
      handle: (ctx) => {
        const user = store.users.get(ctx.params.id);
        store.users.delete(ctx.params.id);
        return user;
      },
    },
  });
  users.collection('orders', {
    id: z.coerce.number().int(),
    body: z.object({ item: z.string() }),
    owner: (order: Order, principal) => isAdmin(principal) || order.userId === (principal as Caller).id,
    list: (ctx) => {
      store.ordersHandlerCalls++;
      return [...store.orders.values()].filter((order) => order.userId === ctx.params.userId);
    },
    read: (ctx) => {
      store.ordersHandlerCalls++;
      const order = store.orders.get(ctx.params.id);
      return order?.userId === ctx.params.userId ? order : undefined;
    },
    create: (ctx) => {
      store.ordersHandlerCalls++;
      const order = { id: 100 + store.orders.size, userId: ctx.params.userId, ...ctx.body };
      store.orders.set(order.id, order);
      return order;
    },
  });
  const health = endpoint('GET', '/health', { public: true, handle: (ctx) => ({ ok: true, anonymous: ctx.principal === undefined }) });
  const api = createApi({ resources: [users], endpoints: [health], authenticate, ...options });
  return { store, api, client: createTestClient(api) };
}

const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const withBody = (token: string | undefined, body: unknown) => ({ headers: token ? { authorization: `Bearer ${token}` } : {}, body });

const EVERY_OPERATION = [
  ['GET', '/users', undefined],
  ['POST', '/users', { name: 'Eve', secret: 'x' }],
  ['GET', '/users/2', undefined],
  ['PUT', '/users/2', { name: 'Eve', secret: 'x' }],
  ['PATCH', '/users/2', { name: 'Eve' }],
  ['DELETE', '/users/2', undefined],
  ['GET', '/users/2/orders', undefined],
  ['POST', '/users/2/orders', { item: 'x' }],
  ['GET', '/users/2/orders/20', undefined],
] as const;

describe('authentication', () => {
  it.each(EVERY_OPERATION)('anonymous %s %s is 401 with WWW-Authenticate', async (method, url, body) => {
    const { client, store } = makeWorld();
    const response = await client.request(method, url, withBody(undefined, body));
    expectProblem(response, { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer realm="api"' }, exact: true });
    expect(store.ordersHandlerCalls).toBe(0);
  });

  it.each(EVERY_OPERATION)('a bad token on %s %s is 401', async (method, url, body) => {
    const { client } = makeWorld();
    const response = await client.request(method, url, withBody('forged', body));
    expectProblem(response, { status: 401, code: 'RC_UNAUTHORIZED', detail: 'The token is not valid', headers: { 'www-authenticate': 'Bearer realm="api"' } });
  });

  it('uses the configured challenge', async () => {
    const { client } = makeWorld({ challenge: 'Bearer realm="shop", scope="orders"' });
    expect((await client.get('/users')).headers['www-authenticate']).toBe('Bearer realm="shop", scope="orders"');
    expect((await client.get('/users', as('forged'))).headers['www-authenticate']).toBe('Bearer realm="shop", scope="orders"');
  });

  it('reaches public endpoints without credentials, and with a bad token as anonymous', async () => {
    const { client } = makeWorld();
    expect(await client.get('/health')).toMatchObject({ status: 200, body: { ok: true, anonymous: true } });
    expect(await client.get('/health', as('forged'))).toMatchObject({ status: 200, body: { ok: true, anonymous: true } });
    expect(await client.get('/health', as('alice'))).toMatchObject({ status: 200, body: { ok: true, anonymous: false } });
  });

  it('answers an authenticate that crashes with the masked 500', async () => {
    const onError = vi.fn();
    const api = createApi({
      endpoints: [endpoint('GET', '/users', { handle: () => [] })],
      authenticate: () => {
        throw new Error('token store down: secret-dsn');
      },
      onError,
    });
    const response = await api.handle({ method: 'GET', url: '/users' });
    expectProblem(response, { status: 500, code: 'RC_INTERNAL', secrets: ['secret-dsn'] });
    expect(onError).toHaveBeenCalledOnce();
  });

  it('awaits an async authenticate', async () => {
    const api = createApi({
      endpoints: [endpoint('GET', '/users', { handle: (ctx) => [ctx.principal] })],
      authenticate: async () => ({ id: 9 }),
    });
    expect((await api.handle({ method: 'GET', url: '/users' })).body).toEqual([{ id: 9 }]);
  });
});

describe('ownership: nobody sees or changes another person’s data', () => {
  let world: ReturnType<typeof makeWorld>;
  beforeEach(() => {
    world = makeWorld();
  });

  it('lets a user read and change their own data', async () => {
    expect(await world.client.get('/users/1', as('alice'))).toMatchObject({ status: 200, body: { id: 1, name: 'Alice' } });
    expect(await world.client.patch('/users/1', { ...as('alice'), body: { name: 'Alicia' } })).toMatchObject({ status: 200, body: { name: 'Alicia' } });
    expect(await world.client.get('/users/1/orders', as('alice'))).toMatchObject({ status: 200, body: [{ id: 10 }] });
    expect(await world.client.get('/users/1/orders/10', as('alice'))).toMatchObject({ status: 200, body: { id: 10 } });
  });

  it.each(EVERY_OPERATION.filter(([, url]) => url !== '/users' ))('user A on user B: %s %s is 403 and B is unchanged', async (method, url, body) => {
    const before = JSON.stringify([...world.store.users.values(), ...world.store.orders.values()]);
    const response = await world.client.request(method, url, withBody('alice', body));
    expectProblem(response, { status: 403, code: 'RC_FORBIDDEN', exact: true, secrets: ['owned-by-2'] });
    expect(JSON.stringify([...world.store.users.values(), ...world.store.orders.values()])).toBe(before);
    expect(world.store.ordersHandlerCalls).toBe(0);
  });

  it.each(EVERY_OPERATION.filter(([, url]) => url !== '/users'))('under forbidden: 404, user A on user B: %s %s looks like a missing item', async (method, url, body) => {
    const hidden = makeWorld({ policy: createStatusPolicy({ forbidden: 404 }) });
    const response = await hidden.client.request(method, url, withBody('alice', body));
    const missing = await hidden.client.get('/users/999', as('alice'));
    expect(response.status).toBe(404);
    expect(response.headers).toEqual(missing.headers);
    expect(withoutInstance(response.body)).toEqual(withoutInstance(missing.body));
    expect(hidden.store.users.get(2)).toEqual({ id: 2, name: 'Bob', secret: 'owned-by-2' });
  });

  it('drops other people’s items from a list whose handler forgot to scope, and reports it', async () => {
    const onError = vi.fn();
    const { client } = makeWorld({ onError });
    const response = await client.get('/users', as('alice'));
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ id: 1, name: 'Alice', secret: 'owned-by-1' }]);
    expect(onError).toHaveBeenCalledOnce();
    expect(String(onError.mock.calls[0]![0].message)).toMatch(/2 item\(s\) the caller may not see/);
  });

  it('lets the admin do everything (and only the admin remove users)', async () => {
    const { client, store } = world;
    expect((await client.get('/users', as('root'))).body).toHaveLength(3);
    expect((await client.get('/users/2/orders/20', as('root'))).status).toBe(200);
    expect((await client.put('/users/2', { ...as('root'), body: { name: 'Robert', secret: 's' } })).status).toBe(200);
    expect((await client.delete('/users/1', as('alice'))).status).toBe(403);
    expect(store.users.has(1)).toBe(true);
    expect((await client.delete('/users/2', as('root'))).status).toBe(200);
    expect(store.users.has(2)).toBe(false);
  });

  it('answers 404, not 403, for an item that does not exist', async () => {
    expect((await world.client.get('/users/99', as('alice'))).status).toBe(404);
    expect((await world.client.patch('/users/99', { ...as('alice'), body: { name: 'x' } })).status).toBe(404);
    expect((await world.client.get('/users/99/orders', as('root'))).status).toBe(404);
  });
});

describe('authorization levels combine', () => {
  const banned = (ctx: { principal: unknown }) => (ctx.principal as Caller).id !== 2;

  it('an API-level rule cannot be bypassed by a permissive endpoint rule', async () => {
    const api = createApi({
      authenticate,
      authorize: banned,
      endpoints: [endpoint('GET', '/reports', { authorize: () => true, handle: () => ['report'] })],
    });
    const client = createTestClient(api);
    expect((await client.get('/reports', as('alice'))).status).toBe(200);
    expectProblem(await client.get('/reports', as('bob')), { status: 403, code: 'RC_FORBIDDEN', exact: true });
  });

  it('a collection rule covers its nested collections', async () => {
    const teams = collection('teams', { authorize: (ctx) => isAdmin(ctx.principal), read: () => ({ id: 1 }) });
    teams.collection('members', { authorize: () => true, list: () => ['m'] });
    const client = createTestClient(createApi({ authenticate, resources: [teams] }));
    expect((await client.get('/teams/1/members', as('alice'))).status).toBe(403);
    expect((await client.get('/teams/1/members', as('root'))).status).toBe(200);
  });

  it('awaits async rules and treats anything but true as a refusal', async () => {
    const api = createApi({
      authenticate,
      endpoints: [
        endpoint('GET', '/reports', { authorize: async () => true, handle: () => [] }),
        endpoint('GET', '/audits', { authorize: (() => 'yes') as never, handle: () => [] }),
      ],
    });
    expect((await api.handle({ method: 'GET', url: '/reports', headers: { authorization: 'Bearer alice' } })).status).toBe(200);
    expect((await api.handle({ method: 'GET', url: '/audits', headers: { authorization: 'Bearer alice' } })).status).toBe(403);
  });

  it('marks single operations of a collection public', async () => {
    const articles = collection('articles', { public: ['list'], body: 'unvalidated', list: () => ['a'], create: () => ({ id: 1 }) });
    const client = createTestClient(createApi({ authenticate, resources: [articles] }));
    expect((await client.get('/articles')).status).toBe(200);
    expect((await client.post('/articles', { body: {} })).status).toBe(401);
  });
});

describe('public endpoints and the API-wide authorize', () => {
  const membersRefused = () => false;
  const articles = () => collection('articles', { public: ['list'], body: 'unvalidated', list: () => ['a'], create: () => ({ id: 1 }) });
  const apiWith = (authorize: NonNullable<ApiOptions['authorize']>) =>
    createApi({
      authenticate,
      authorize,
      resources: [articles()],
      endpoints: [endpoint('GET', '/health', { public: true, handle: () => ({ ok: true }) })],
      openapi: openApi({ info: { title: 'Articles', version: '1' } }),
      onError: () => {},
    });

  it('an authorize that refuses members leaves GET /health, a public list and /openapi.json at 200 for a signed-in member as for an anonymous caller', async () => {
    const client = createTestClient(apiWith(membersRefused));
    for (const url of ['/health', '/articles', '/openapi.json']) {
      expect({ url, anonymous: (await client.get(url)).status, member: (await client.get(url, as('alice'))).status }).toEqual({ url, anonymous: 200, member: 200 });
    }
    expect((await client.post('/articles', { ...as('alice'), body: {} })).status).toBe(403);
  });

  it('a rate-limit authorize that throws 429 never runs on a public /health, with a token or without', async () => {
    const calls: string[] = [];
    const client = createTestClient(
      apiWith((ctx) => {
        calls.push(ctx.request.url);
        throw new HttpError(429, { detail: 'Slow down' });
      }),
    );
    expect((await client.get('/health')).status).toBe(200);
    expect((await client.get('/health', as('alice'))).status).toBe(200);
    expect(calls).toEqual([]);
    expect((await client.post('/articles', { ...as('alice'), body: {} })).status).toBe(429);
  });

  it('a collection\'s authorize covers its protected operations and its children, never its public ones', async () => {
    const teams = collection('teams', { public: ['read'], authorize: (ctx) => isAdmin(ctx.principal), read: () => ({ id: 1 }), list: () => [] });
    teams.collection('members', { public: ['list'], list: () => ['m'] });
    teams.collection('secrets', { list: () => ['s'] });
    const client = createTestClient(createApi({ authenticate, resources: [teams] }));
    for (const url of ['/teams/1', '/teams/1/members']) {
      expect({ url, anonymous: (await client.get(url)).status, member: (await client.get(url, as('alice'))).status }).toEqual({ url, anonymous: 200, member: 200 });
    }
    expect((await client.get('/teams', as('alice'))).status).toBe(403);
    expect((await client.get('/teams/1/secrets', as('alice'))).status).toBe(403);
    expect((await client.get('/teams/1/secrets', as('root'))).status).toBe(200);
  });

  it('a public endpoint or operation with an authorize of its own is refused at definition time', () => {
    expect(() => endpoint('GET', '/news', { public: true, authorize: () => true, handle: () => [] })).toThrow(
      'endpoint(GET /news): a public endpoint runs no authorize rule, so that every caller, signed in or not, gets the same answer; drop "public" to check callers, or check the request in the handler',
    );
    expect(() => collection('news', { public: ['list'], list: { authorize: () => true, handle: () => [] } })).toThrow(/collection\("news"\): "list" is public and runs no authorize rule/);
    expect(() => collection('news', { list: { public: true, authorize: () => true, handle: () => [] } })).toThrow(/collection\("news"\): "list" is public and runs no authorize rule/);
  });
});

describe('property: no response to user A ever carries data owned by user B', () => {
  it('holds for random callers, operations and ids', async () => {
    const callers = fc.constantFrom('alice', 'bob');
    const ids = fc.constantFrom(1, 2, 3, 10, 20, 99);
    const operation = fc.record({
      method: fc.constantFrom('GET', 'PUT', 'PATCH', 'DELETE', 'POST'),
      shape: fc.constantFrom('users', 'user', 'orders', 'order'),
      userId: ids,
      orderId: ids,
    });
    await fc.assert(
      fc.asyncProperty(callers, fc.array(operation, { minLength: 1, maxLength: 6 }), async (caller, operations) => {
        // The list handler forgets to scope by caller: each list that drops someone else's users reports it.
        const reported: string[] = [];
        const { client } = makeWorld({ onError: (error) => reported.push((error as Error).message) });
        const me = TOKENS[caller]!.id;
        for (const { method, shape, userId, orderId } of operations) {
          const url = shape === 'users' ? '/users' : shape === 'user' ? `/users/${userId}` : shape === 'orders' ? `/users/${userId}/orders` : `/users/${userId}/orders/${orderId}`;
          const body = shape.startsWith('order') ? { item: `owned-by-${me}` } : { name: 'n', secret: `owned-by-${me}` };
          const response = await client.request(method, url, withBody(caller, method === 'GET' || method === 'DELETE' ? undefined : body));
          for (const other of [1, 2, 3].filter((id) => id !== me)) {
            expect(response.payload ?? '').not.toContain(`owned-by-${other}`);
          }
          expect([200, 201, 204, 400, 403, 404, 405]).toContain(response.status);
        }
        for (const message of reported) expect(message).toMatch(/^A list handler returned \d+ item\(s\) the caller may not see; they were dropped$/);
      }),
      { seed: 20261121, numRuns: 150 },
    );
  });
});
