import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, createStatusPolicy, endpoint, NotFoundError, type StatusPolicy } from '../../src/index.js';
import { createTestClient } from '../../src/testing.js';
import { CALLERS, fixtureApi, type Fixture } from '../fixture/api.js';
import { expectProblem, withoutInstance } from '../helpers/problem.js';

/**
 * The shared users/orders fixture below /api/v1, every request made as the admin (its access rules are
 * not what these tests are about), with a search endpoint that submits, and the handlers that ran.
 */
function usersApi(calls: string[] = [], policy?: StatusPolicy): Fixture {
  const search = endpoint('POST', '/searches', { operation: 'submit', body: 'unvalidated', handle: () => ({ hits: [] }) });
  return fixtureApi({
    basePath: '/api/v1',
    authenticate: () => CALLERS.admin,
    endpoints: [search],
    onCall: (call) => calls.push(call.endpoint),
    policy,
  });
}

describe('collection: the six operations', () => {
  let store: Fixture['store'];
  let client: ReturnType<typeof createTestClient>;
  beforeEach(() => {
    const fixture = usersApi();
    store = fixture.store;
    client = createTestClient(fixture.api);
  });

  it('list answers 200 with the list', async () => {
    const response = await client.get('/api/v1/users');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual([
      { id: 1, name: 'Alice', email: 'alice@example.com' },
      { id: 2, name: 'Bob', email: 'bob@example.com' },
    ]);
  });

  it('read answers 200 with the item, and 404 for an unknown id', async () => {
    expect(await client.get('/api/v1/users/1')).toMatchObject({ status: 200, body: { id: 1, name: 'Alice', email: 'alice@example.com' } });
    expectProblem(await client.get('/api/v1/users/99'), { status: 404, code: 'RC_NOT_FOUND', exact: true });
  });

  it('create answers 201 with the item and a Location naming it', async () => {
    const response = await client.post('/api/v1/users', { body: { name: 'Linus', email: 'linus@example.com' } });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/api/v1/users/3');
    expect(response.body).toEqual({ id: 3, name: 'Linus', email: 'linus@example.com' });
    expect(store.users.get(3)).toEqual({ id: 3, name: 'Linus', email: 'linus@example.com' });
  });

  it('replace and update answer 200, and 404 for an unknown id', async () => {
    expect(await client.put('/api/v1/users/1', { body: { name: 'Alice L.', email: 'alice.l@example.com' } })).toMatchObject({ status: 200, body: { id: 1, name: 'Alice L.', email: 'alice.l@example.com' } });
    expect(await client.patch('/api/v1/users/2', { body: { name: 'Robert' } })).toMatchObject({ status: 200, body: { id: 2, name: 'Robert', email: 'bob@example.com' } });
    expect((await client.put('/api/v1/users/99', { body: { name: 'x', email: 'x@example.com' } })).status).toBe(404);
    expect((await client.patch('/api/v1/users/99', { body: { name: 'x' } })).status).toBe(404);
  });

  it('remove answers 200 with the removed item, and 404 for an unknown id', async () => {
    expect(await client.delete('/api/v1/users/2')).toMatchObject({ status: 200, body: { id: 2, name: 'Bob', email: 'bob@example.com' } });
    expect(store.users.has(2)).toBe(false);
    expectProblem(await client.delete('/api/v1/users/2'), { status: 404, code: 'RC_NOT_FOUND' });
  });

  it('remove answers 204 without a body under the 204 policy', async () => {
    const { api } = usersApi([], createStatusPolicy({ remove: 204 }));
    const response = await api.handle({ method: 'DELETE', url: '/api/v1/users/1' });
    expect(response).toEqual({ status: 204, headers: {}, body: undefined, payload: undefined });
  });

  it('an id that fails its schema is a 400 that points at the id', async () => {
    const problem = expectProblem(await client.get('/api/v1/users/abc'), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem).toMatchObject({ errors: [{ in: 'path', pointer: '#/id' }] });
  });

  it('an undeclared operation is a 405 with the exact Allow', async () => {
    const onCollection = await client.put('/api/v1/users', { body: { name: 'x' } });
    expect(onCollection.status).toBe(405);
    expect(onCollection.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    const onOrders = await client.delete('/api/v1/users/1/orders/1');
    expectProblem(onOrders, { status: 405, code: 'RC_METHOD_NOT_ALLOWED', headers: { allow: 'GET, HEAD, OPTIONS' } });
  });

  it('a POST that submits answers 200, not 201', async () => {
    const response = await client.post('/api/v1/searches', { body: { text: 'x' } });
    expect(response.status).toBe(200);
    expect(response.headers.location).toBeUndefined();
  });
});

describe('collection: Location of a created item', () => {
  it('percent-encodes an id so that it can neither inject a header nor change the path', async () => {
    const notes = collection('notes', { body: 'unvalidated', create: (ctx) => ({ id: (ctx.body as { id: string }).id }) });
    const client = createTestClient(createApi({ resources: [notes] }));
    for (const [id, location] of [
      ['a/b', '/notes/a%2Fb'],
      ['x\r\nSet-Cookie: a=1', '/notes/x%0D%0ASet-Cookie%3A%20a%3D1'],
      ['../admin', '/notes/..%2Fadmin'],
      ['é?#', '/notes/%C3%A9%3F%23'],
    ] as const) {
      const response = await client.post('/notes', { body: { id } });
      expect(response.status).toBe(201);
      expect(response.headers.location).toBe(location);
    }
  });
});

describe('nested collections', () => {
  let store: Fixture['store'];
  let calls: string[];
  let client: ReturnType<typeof createTestClient>;
  beforeEach(() => {
    calls = [];
    const fixture = usersApi(calls);
    store = fixture.store;
    client = createTestClient(fixture.api);
  });

  it('serves /users/:userId/orders and /users/:userId/orders/:id', async () => {
    expect(await client.get('/api/v1/users/1/orders')).toMatchObject({ status: 200, body: [{ id: 1, userId: 1, item: 'book', quantity: 1 }] });
    expect(await client.get('/api/v1/users/1/orders/1')).toMatchObject({ status: 200, body: { id: 1, item: 'book' } });
    const created = await client.post('/api/v1/users/2/orders', { body: { item: 'pen', quantity: 1 } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/api/v1/users/2/orders/3');
  });

  it('answers 404 under a parent that does not exist, before any handler runs', async () => {
    for (const response of [
      await client.get('/api/v1/users/99/orders'),
      await client.get('/api/v1/users/99/orders/1'),
      await client.post('/api/v1/users/99/orders', { body: { item: 'pen', quantity: 1 } }),
    ]) {
      expectProblem(response, { status: 404, code: 'RC_NOT_FOUND' });
    }
    expect(calls).toEqual([]);
    expect(store.orders.size).toBe(2);
  });

  it('validates every level id with its own schema', async () => {
    const response = await client.get('/api/v1/users/abc/orders/xyz');
    expect(response.status).toBe(400);
    expect((response.body as { errors: { pointer: string }[] }).errors.map((issue) => issue.pointer)).toEqual(['#/userId', '#/id']);
  });

  it('goes to any depth with the parent param names', async () => {
    const lines: string[] = [];
    const shops = collection('shops', { read: (ctx) => ({ id: ctx.params.id }) });
    const categories = shops.collection('categories', { read: (ctx) => ({ id: ctx.params.id }) });
    const products = categories.collection('products', {
      read: (ctx) => {
        lines.push(JSON.stringify(ctx.params));
        return ctx.params;
      },
    });
    expect(products.itemPath).toBe('/shops/:shopId/categories/:categoryId/products/:id');
    const response = await createApi({ resources: [shops] }).handle({ method: 'GET', url: '/shops/s1/categories/c2/products/p3' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ shopId: 's1', categoryId: 'c2', id: 'p3' });
  });

  it('lists nested collections once even when given with their parent', async () => {
    const users = collection('users', { read: () => ({}) });
    const orders = users.collection('orders', { list: () => [] });
    const api = createApi({ resources: [users, orders] });
    expect(api.routes.map((route) => `${route.method} ${route.path}`)).toEqual(['GET /users/:id', 'GET /users/:userId/orders']);
  });
});

describe('collection definitions are checked at once', () => {
  it('refuses an operation that is not a function', () => {
    expect(() => collection('users', { list: 'nope' as never })).toThrow(/"list" must be a function/);
  });
  it('refuses a name that is not one segment', () => {
    expect(() => collection('users/admins', {})).toThrow(/one path segment/);
  });
  it('refuses owner without read', () => {
    expect(() => collection('users', { owner: () => true, list: () => [] })).toThrow(/"owner" needs "read"/);
  });
  it('refuses an owner on replace, update or remove without read, and takes one on list alone', () => {
    expect(() => collection('users', { body: 'unvalidated', owner: { rule: () => true, on: ['replace'] }, replace: () => ({}) })).toThrow(/"owner" needs "read"/);
    expect(() => collection('users', { owner: { rule: () => true, on: ['list'] }, list: () => [] })).not.toThrow();
  });
  it('refuses an owner that guards create, no operation, or one the collection does not declare', () => {
    const rule = () => true;
    const read = () => ({});
    expect(() => collection('users', { body: 'unvalidated', owner: { rule, on: ['create' as 'read'] }, read, create: () => ({}) })).toThrow(/"owner" cannot guard "create"/);
    expect(() => collection('users', { owner: { rule, on: [] }, read })).toThrow(/the "on" of "owner" must list the operations it guards/);
    expect(() => collection('users', { owner: { rule, on: ['delete' as 'remove'] }, read })).toThrow(/lists "delete", which is not an operation/);
    expect(() => collection('users', { owner: { rule, on: ['remove'] }, read })).toThrow(/lists "remove", which the collection does not declare/);
    expect(() => collection('users', { owner: { rule: 'author' as never, on: ['read'] }, read })).toThrow(/the "rule" of "owner" must be a function/);
    expect(() => collection('users', { owner: { rule, on: ['read'], for: ['list'] } as never, read })).toThrow(/`for` is not an option of the "owner" of collection\("users"\)/);
  });
  it('refuses a body on an operation that takes none, and an idOf that is not a function', () => {
    expect(() => collection('users', { read: { body: 'unvalidated', handle: () => ({}) } as never })).toThrow(/`body` is not an option of the "read" of collection\("users"\)/);
    expect(() => collection('users', { body: 'unvalidated', idOf: 'slug' as never, create: () => ({}) })).toThrow(/"idOf" must be a function/);
    expect(() => collection('users', { create: { body: 'json' as never, handle: () => ({}) } })).toThrow(/the "body" of "create" must be a Standard Schema/);
  });
  it('says that an operation may bring its own body when the collection has none', () => {
    expect(() => collection('users', { replace: () => ({}) })).toThrow(/"replace" may also have a "body" of its own/);
  });
  it('refuses a naming-convention breach at createApi with how to fix it', () => {
    const getUsers = collection('getUsers', { list: () => [] });
    expect(() => createApi({ resources: [getUsers] })).toThrow(/getUsers[\s\S]*GET \/users[\s\S]*naming: 'warn'/);
    expect(() => createApi({ resources: [getUsers], naming: 'off' })).not.toThrow();
  });
  it('throws NotFoundError from read as the same 404', async () => {
    const things = collection('orders', {
      read: () => {
        throw new NotFoundError('No such order');
      },
    });
    const response = await createApi({ resources: [things] }).handle({ method: 'GET', url: '/orders/1' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND', detail: 'No such order', instance: expect.any(String) });
  });
});

describe('collection: a body per operation', () => {
  const Draft = z.object({ title: z.string(), text: z.string() });
  function articlesApi() {
    const articles = new Map([[1, { id: 1, title: 'First', text: 'Hello' }]]);
    const resource = collection('articles', {
      id: z.coerce.number().int(),
      body: Draft,
      patch: Draft.partial(),
      read: (ctx) => articles.get(ctx.params.id),
      create: (ctx) => {
        const article = { id: articles.size + 1, ...ctx.body };
        articles.set(article.id, article);
        return article;
      },
      // A PUT that takes the fields it changes, as Conduit's does.
      replace: {
        body: Draft.partial().strict(),
        handle: (ctx) => {
          const article = articles.get(ctx.params.id);
          return article && Object.assign(article, ctx.body);
        },
      },
      update: {
        body: z.object({ title: z.string() }).strict(),
        handle: (ctx) => {
          const article = articles.get(ctx.params.id);
          return article && Object.assign(article, ctx.body);
        },
      },
    });
    return createTestClient(createApi({ resources: [resource] }));
  }

  it("validates replace and update with their own schemas, create with the collection's", async () => {
    const client = articlesApi();
    expect(await client.put('/articles/1', { body: { text: 'Changed' } })).toMatchObject({ status: 200, body: { id: 1, title: 'First', text: 'Changed' } });
    expect(await client.patch('/articles/1', { body: { title: 'Renamed' } })).toMatchObject({ status: 200, body: { title: 'Renamed', text: 'Changed' } });
    expectProblem(await client.patch('/articles/1', { body: { text: 'no' } }), { status: 400, code: 'RC_INVALID_INPUT' });
    expectProblem(await client.post('/articles', { body: { text: 'no title' } }), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(await client.post('/articles', { body: { title: 'Second', text: 'Hi' } })).toMatchObject({ status: 201, headers: { location: '/articles/2' } });
  });

  it('takes a create and a replace with bodies of their own without a collection body', async () => {
    const created: unknown[] = [];
    const resource = collection('tags', {
      read: (ctx) => ({ id: ctx.params.id }),
      create: { body: z.object({ name: z.string() }), handle: (ctx) => (created.push(ctx.body), { id: ctx.body.name }) },
      replace: { body: 'unvalidated', handle: (ctx) => ({ id: ctx.params.id, body: ctx.body }) },
    });
    const client = createTestClient(createApi({ resources: [resource] }));
    expect(await client.post('/tags', { body: { name: 'news' } })).toMatchObject({ status: 201, headers: { location: '/tags/news' } });
    expect(await client.put('/tags/news', { body: [1, 2] })).toMatchObject({ status: 200, body: { id: 'news', body: [1, 2] } });
    expectProblem(await client.post('/tags', { body: { label: 'x' } }), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(created).toEqual([{ name: 'news' }]);
  });
});

describe('collection: an owner on chosen operations', () => {
  interface Article {
    id: number;
    authorId: number;
    title: string;
  }
  const callers: Record<string, { id: number }> = { ada: { id: 1 }, bob: { id: 2 } };
  const as = (name: string) => ({ headers: { authorization: name } });

  function world(on: readonly ('list' | 'read' | 'replace' | 'update' | 'remove')[]) {
    const articles = new Map<number, Article>([
      [1, { id: 1, authorId: 1, title: "Ada's" }],
      [2, { id: 2, authorId: 2, title: "Bob's" }],
    ]);
    const calls: string[] = [];
    const resource = collection('articles', {
      id: z.coerce.number().int(),
      body: z.object({ title: z.string() }),
      patch: z.object({ title: z.string() }).partial(),
      public: ['list', 'read'],
      owner: { rule: (article: Article, principal) => article.authorId === (principal as { id: number }).id, on },
      list: () => [...articles.values()],
      read: (ctx) => articles.get(ctx.params.id),
      replace: (ctx) => {
        calls.push('replace');
        const article = articles.get(ctx.params.id);
        return article && Object.assign(article, ctx.body);
      },
      update: (ctx) => {
        calls.push('update');
        const article = articles.get(ctx.params.id);
        return article && Object.assign(article, ctx.body);
      },
      remove: (ctx) => (calls.push('remove'), articles.delete(ctx.params.id)),
    });
    resource.collection('comments', { list: (ctx) => [{ id: 1, articleId: ctx.params.articleId }] });
    const reported: unknown[] = [];
    const api = createApi({ resources: [resource], authenticate: (request) => callers[String(request.headers?.authorization)], onError: (error) => reported.push(error) });
    return { client: createTestClient(api), articles, calls, reported };
  }

  it('lets anyone read and list, and only the author change', async () => {
    const { client, articles, calls } = world(['replace', 'update', 'remove']);
    expect(await client.get('/articles')).toMatchObject({ status: 200, body: [{ id: 1 }, { id: 2 }] });
    expect(await client.get('/articles/2', as('ada'))).toMatchObject({ status: 200, body: { title: "Bob's" } });
    expectProblem(await client.put('/articles/2', { ...as('ada'), body: { title: 'Mine now' } }), { status: 403, code: 'RC_FORBIDDEN' });
    expectProblem(await client.patch('/articles/2', { ...as('ada'), body: { title: 'Mine now' } }), { status: 403, code: 'RC_FORBIDDEN' });
    expectProblem(await client.delete('/articles/2', as('ada')), { status: 403, code: 'RC_FORBIDDEN' });
    expect(calls).toEqual([]);
    expect(articles.get(2)?.title).toBe("Bob's");
    expect(await client.put('/articles/2', { ...as('bob'), body: { title: 'Edited' } })).toMatchObject({ status: 200, body: { title: 'Edited' } });
    expect((await client.delete('/articles/2', as('bob'))).status).toBe(204);
  });

  it('answers 404 for a missing item before the owner check', async () => {
    const { client, calls } = world(['replace', 'update', 'remove']);
    expectProblem(await client.put('/articles/9', { ...as('ada'), body: { title: 'x' } }), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await client.patch('/articles/9', { ...as('ada'), body: { title: 'x' } }), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await client.delete('/articles/9', as('ada')), { status: 404, code: 'RC_NOT_FOUND' });
    expect(calls).toEqual([]);
  });

  it("reaches a child below someone else's item when the owner does not guard read, and not when it does", async () => {
    expect(await world(['replace', 'remove']).client.get('/articles/2/comments', as('ada'))).toMatchObject({ status: 200, body: [{ articleId: 2 }] });
    expectProblem(await world(['read', 'replace', 'remove']).client.get('/articles/2/comments', as('ada')), { status: 403, code: 'RC_FORBIDDEN' });
    expectProblem(await world(['read']).client.get('/articles/2', as('ada')), { status: 403, code: 'RC_FORBIDDEN' });
    expect(await world(['read']).client.put('/articles/2', { ...as('ada'), body: { title: 'Mine now' } })).toMatchObject({ status: 200, body: { title: 'Mine now' } });
  });

  it('filters only the list when it guards only list, and reports what it dropped', async () => {
    const { client, reported } = world(['list']);
    expect(await client.get('/articles', as('ada'))).toMatchObject({ status: 200, body: [{ id: 1 }] });
    expect(reported).toHaveLength(1);
    expect((await client.get('/articles/2', as('ada'))).status).toBe(200);
  });
});

describe('collection: an item loaded without a published read (load)', () => {
  interface Comment {
    id: number;
    articleId: string;
    authorId: number;
    body: string;
  }
  const callers: Record<string, { id: number }> = { ada: { id: 1 }, bob: { id: 2 } };
  const as = (name: string) => ({ headers: { authorization: name } });

  function world(policy: StatusPolicy = createStatusPolicy({})) {
    const comments = new Map<number, Comment>([
      [1, { id: 1, articleId: 'intro', authorId: 1, body: "Ada's" }],
      [2, { id: 2, articleId: 'intro', authorId: 2, body: "Bob's" }],
    ]);
    const removed: number[] = [];
    const articles = collection('articles', { public: ['read'], read: (ctx) => (ctx.params.id === 'intro' ? { slug: 'intro' } : undefined) });
    articles.collection('comments', {
      id: z.coerce.number().int(),
      body: z.object({ body: z.string() }),
      public: ['list'],
      owner: { rule: (comment: Comment, principal) => comment.authorId === (principal as { id: number }).id, on: ['remove'] },
      load: (ctx) => {
        const comment = comments.get(ctx.params.id);
        return comment?.articleId === ctx.params.articleId ? comment : undefined;
      },
      list: (ctx) => [...comments.values()].filter((comment) => comment.articleId === ctx.params.articleId),
      create: (ctx) => {
        const comment = { id: comments.size + 1, articleId: ctx.params.articleId, authorId: (ctx.principal as { id: number }).id, ...ctx.body };
        comments.set(comment.id, comment);
        return comment;
      },
      remove: (ctx) => {
        removed.push((ctx.item as Comment).id);
        return comments.delete(ctx.params.id);
      },
    });
    const api = createApi({ resources: [articles], policy, authenticate: (request) => callers[String(request.headers?.authorization)] });
    return { client: createTestClient(api), comments, removed };
  }

  it("DELETE of someone else's comment is 403 without its handler, and of one's own 204", async () => {
    const { client, comments, removed } = world();
    expectProblem(await client.delete('/articles/intro/comments/2', as('ada')), { status: 403, code: 'RC_FORBIDDEN' });
    expect(comments.has(2)).toBe(true);
    expect(removed).toEqual([]);
    expect((await client.delete('/articles/intro/comments/1', as('ada'))).status).toBe(204);
    expect(removed).toEqual([1]);
  });

  it("under forbidden: 404, someone else's comment is answered as a missing one", async () => {
    const { client } = world(createStatusPolicy({ forbidden: 404 }));
    const foreign = await client.delete('/articles/intro/comments/2', as('ada'));
    const missing = await client.delete('/articles/intro/comments/9', as('ada'));
    expect(foreign.status).toBe(404);
    expect(withoutInstance(foreign.body)).toEqual(withoutInstance(missing.body));
  });

  it('GET of an item is 405 with Allow: no read is published', async () => {
    const { client } = world();
    const response = await client.get('/articles/intro/comments/1', as('ada'));
    expectProblem(response, { status: 405, code: 'RC_METHOD_NOT_ALLOWED' });
    expect(response.headers.allow).toBe('DELETE, OPTIONS');
  });

  it('a missing item is a 404 before its owner is asked, and below a missing parent too', async () => {
    const { client } = world();
    expectProblem(await client.delete('/articles/intro/comments/9', as('bob')), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await client.delete('/articles/other/comments/1', as('ada')), { status: 404, code: 'RC_NOT_FOUND' });
  });

  it('loads the item for preconditions and merge patches, and children reach it through load', async () => {
    interface Note {
      id: number;
      text: string;
      version: number;
    }
    const notes = new Map<number, Note>([[1, { id: 1, text: 'a', version: 3 }]]);
    const drafts = collection('drafts', {
      body: z.object({ text: z.string() }),
      etag: (note: Note) => String(note.version),
      load: (ctx) => notes.get(Number(ctx.params.id)),
      update: { merge: true, handle: (ctx) => ({ ...(ctx.item as Note), ...ctx.body, version: 4 }) },
    });
    drafts.collection('revisions', { list: (ctx) => [{ draftId: ctx.params.draftId }] });
    const client = createTestClient(createApi({ resources: [drafts] }));
    const stale = await client.patch('/drafts/1', { headers: { 'if-match': '"2"', 'content-type': 'application/merge-patch+json' }, body: { text: 'b' } });
    expect(stale.status).toBe(412);
    const fresh = await client.patch('/drafts/1', { headers: { 'if-match': '"3"', 'content-type': 'application/merge-patch+json' }, body: { text: 'b' } });
    expect(fresh).toMatchObject({ status: 200, body: { id: 1, text: 'b', version: 4 }, headers: { etag: '"4"' } });
    expect((await client.get('/drafts/1/revisions')).status).toBe(200);
    expect((await client.get('/drafts/9/revisions')).status).toBe(404);
  });

  it('with load and no owner, DELETE, PUT and PATCH of comment 9, which load does not find, are 404 without their handler, and comment 1 reaches it in ctx.item', async () => {
    const comments = new Map([[1, { id: 1, body: 'First!' }]]);
    const reached: unknown[] = [];
    const change = (ctx: { item: unknown; body?: unknown }) => (reached.push(ctx.item), { ...(ctx.item as object), ...(ctx.body as object) });
    const notes = collection('comments', {
      id: z.coerce.number().int(),
      body: z.object({ body: z.string() }),
      patch: z.object({ body: z.string() }).partial(),
      load: (ctx) => comments.get(ctx.params.id),
      replace: change,
      update: change,
      remove: (ctx) => (reached.push(ctx.item), true),
    });
    const client = createTestClient(createApi({ resources: [notes] }));
    expectProblem(await client.delete('/comments/9'), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await client.put('/comments/9', { body: { body: 'x' } }), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await client.patch('/comments/9', { body: { body: 'x' } }), { status: 404, code: 'RC_NOT_FOUND' });
    expect(reached).toEqual([]);
    expect(await client.patch('/comments/1', { body: { body: 'Edited' } })).toMatchObject({ status: 200, body: { id: 1, body: 'Edited' } });
    expect((await client.delete('/comments/1')).status).toBe(204);
    expect(reached).toEqual([comments.get(1), comments.get(1)]);
  });

  it('refuses load beside read, and a load that is not a function', () => {
    const read = () => ({});
    expect(() => collection('comments', { read, load: read, remove: () => true })).toThrow(
      'collection("comments"): "load" loads an item for a collection without "read", and "read" is declared; drop "load" (read loads the item) or "read" (to publish no GET of an item)',
    );
    expect(() => collection('comments', { load: 'comments' as never, remove: () => true })).toThrow(/collection\("comments"\): "load" must be a function \(ctx\) => the item the URL names/);
    expect(() => collection('comments', { owner: () => true, list: () => [] })).toThrow(/"owner" needs "read", or "load"/);
  });
});
