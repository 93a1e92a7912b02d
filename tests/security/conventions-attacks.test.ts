/**
 * Attacks on restcanon's own conventions from outside, as someone who reads the source would send
 * them: merge patches under every schema library and unknown-key mode, preconditions, cursors and
 * sorts, a created item's `Location`, `ctx.set` and `ctx.outcome`, `problemBody`, CORS, and the
 * typed client's kept copies and page walk. Each test is the request that was tried, with what it
 * gets.
 */
import http from 'node:http';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toNodeListener } from '../../src/adapters/node.js';
import { createClient } from '../../src/client/index.js';
import { collection, ConflictError, createApi, createStatusPolicy, endpoint, json, text, type Api, type ApiResponse, type StandardSchema } from '../../src/index.js';
import { headerText } from '../helpers/headers.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expectProblem, withoutInstance } from '../helpers/problem.js';
import { ADAPTER_SETUPS, rawRequest } from './raw-http.js';

const callers: Record<string, { id: number; name: string }> = { 'Bearer alice': { id: 1, name: 'alice' }, 'Bearer bob': { id: 2, name: 'bob' } };
const authenticate = (request: { headers?: Record<string, unknown> | undefined }) => callers[String(request.headers?.authorization)];
const as = (name: string) => ({ authorization: `Bearer ${name}` });

describe('merge patches: every schema library and unknown-key mode', () => {
  interface Post {
    id: number;
    ownerId: number;
    owner: string;
    isAdmin: boolean;
    title: string;
  }
  const first = (): Post => ({ id: 1, ownerId: 1, owner: 'alice', isAdmin: false, title: 'Mine' });
  /** What a client may write of a post, in each library's modes: only `title` is named. */
  const BODIES: Record<string, StandardSchema> = {
    'zod object (strip)': z.object({ title: z.string().min(1) }),
    'zod strictObject': z.strictObject({ title: z.string().min(1) }),
    'zod looseObject': z.looseObject({ title: z.string().min(1) }),
    'zod passthrough': z.object({ title: z.string().min(1) }).passthrough(),
    'zod catchall(string)': z.object({ title: z.string().min(1) }).catchall(z.string()),
    'zod catchall(unknown)': z.object({ title: z.string().min(1) }).catchall(z.unknown()),
    'valibot object through toStandardJsonSchema': toStandardJsonSchema(v.object({ title: v.pipe(v.string(), v.minLength(1)) })),
    'valibot looseObject through toStandardJsonSchema': toStandardJsonSchema(v.looseObject({ title: v.pipe(v.string(), v.minLength(1)) })),
    'valibot strictObject through toStandardJsonSchema': toStandardJsonSchema(v.strictObject({ title: v.pipe(v.string(), v.minLength(1)) })),
    'valibot objectWithRest(unknown) through toStandardJsonSchema': toStandardJsonSchema(v.objectWithRest({ title: v.pipe(v.string(), v.minLength(1)) }, v.unknown())),
    'arktype default': type({ title: 'string > 0' }),
    "arktype '+': 'reject'": type({ '+': 'reject', title: 'string > 0' }),
    "arktype '+': 'delete'": type({ '+': 'delete', title: 'string > 0' }),
    'arktype with a string index signature': type({ '[string]': 'unknown', title: 'string > 0' }),
    'arktype with a pattern index signature': type({ '[/^x-/]': 'string', title: 'string > 0' }),
  };

  function postsApi(body: StandardSchema) {
    const posts = new Map<number, Post>([[1, first()]]);
    const received: unknown[] = [];
    const api = createApi({
      authenticate,
      resources: [
        collection('posts', {
          id: z.coerce.number().int(),
          body,
          owner: (post: Post, principal) => post.ownerId === (principal as { id: number }).id,
          read: (ctx) => posts.get(ctx.params.id),
          update: {
            merge: true,
            // The handler the docs show: the item as stored, then what the client may write.
            handle: (ctx) => {
              received.push(ctx.body);
              const post = { ...(ctx.item as Post), ...(ctx.body as object) } as Post;
              posts.set(post.id, post);
              return post;
            },
          },
        }),
      ],
    });
    const patch = (text: string) => api.handle({ method: 'PATCH', url: '/posts/1', headers: { ...as('alice'), 'content-type': 'application/merge-patch+json' }, body: text });
    return { api, posts, received, patch };
  }

  for (const [mode, body] of Object.entries(BODIES)) {
    describe(mode, () => {
      it('{"id":9,"ownerId":2,"owner":"bob","isAdmin":true,"title":"Renamed"} changes the title only: id, owner and flag are not the client’s', async () => {
        const { posts, received, patch } = postsApi(body);
        const response = await patch('{"id":9,"ownerId":2,"owner":"bob","isAdmin":true,"title":"Renamed"}');
        expect(response.status).toBe(200);
        expect(received).toEqual([{ title: 'Renamed' }]);
        expect(posts.get(1)).toEqual({ ...first(), title: 'Renamed' });
        expect(posts.has(9)).toBe(false);
      });

      it('{"title":"Renamed"} alone passes, whatever the item holds beside what the schema names', async () => {
        const { received, patch } = postsApi(body);
        expect((await patch('{"title":"Renamed"}')).status).toBe(200);
        expect(received).toEqual([{ title: 'Renamed' }]);
      });

      it('{"title":42}, {"title":["a"]} and {"title":{"toString":"x"}}: a value of the wrong type where a string is expected is a 400 at #/title', async () => {
        const { posts, received, patch } = postsApi(body);
        for (const text of ['{"title":42}', '{"title":["a"]}', '{"title":{"toString":"x"}}', '{"title":true}']) {
          const problem = expectProblem(await patch(text), { status: 400, code: 'RC_INVALID_INPUT' });
          expect(problem.errors, text).toEqual([expect.objectContaining({ in: 'body', pointer: '#/title' })]);
        }
        expect(received).toEqual([]);
        expect(posts.get(1)).toEqual(first());
      });

      it('{"title":null} removes a required member: a 400 at #/title, nothing changed', async () => {
        const { posts, received, patch } = postsApi(body);
        const problem = expectProblem(await patch('{"title":null}'), { status: 400, code: 'RC_INVALID_INPUT' });
        expect(problem.errors).toEqual([expect.objectContaining({ in: 'body', pointer: '#/title' })]);
        expect(received).toEqual([]);
        expect(posts.get(1)).toEqual(first());
      });

      it('{"__proto__":{"isAdmin":true}} and {"constructor":{"prototype":{"isAdmin":true}}} are refused before any merge', async () => {
        const { received, patch } = postsApi(body);
        for (const text of ['{"__proto__":{"isAdmin":true},"title":"x"}', '{"constructor":{"prototype":{"isAdmin":true}}}', '{"\\u005f_proto__":{"isAdmin":true}}']) {
          expectProblem(await patch(text), { status: 400, code: 'RC_FORBIDDEN_KEY' });
        }
        expect(received).toEqual([]);
        expect(({} as { isAdmin?: unknown }).isAdmin).toBeUndefined();
      });

      it('someone else’s post is their 403 before the patch is read, whatever the schema', async () => {
        const { received, api } = postsApi(body);
        const response = await api.handle({ method: 'PATCH', url: '/posts/1', headers: { ...as('bob'), 'content-type': 'application/merge-patch+json' }, body: '{"title":"Bob was here"}' });
        expectProblem(response, { status: 403, code: 'RC_FORBIDDEN' });
        expect(received).toEqual([]);
      });
    });
  }

  it('a nested loose object takes only the members it names: {"profile":{"verified":true}} cannot set a flag the item holds', async () => {
    const profiles = new Map([[1, { id: 1, profile: { displayName: 'Ada', verified: false } }]]);
    const api = createApi({
      resources: [
        collection('accounts', {
          id: z.coerce.number().int(),
          body: z.object({ profile: z.looseObject({ displayName: z.string() }) }),
          read: (ctx) => profiles.get(ctx.params.id),
          update: { merge: true, handle: (ctx) => ({ ...profiles.get(1)!, ...ctx.body }) },
        }),
      ],
    });
    const response = await api.handle({ method: 'PATCH', url: '/accounts/1', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"profile":{"verified":true}}' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: 1, profile: { displayName: 'Ada' } });
  });

  it('a record (no member named, any key allowed) keeps every key a patch writes: {"labels":{"x":"1"}}', async () => {
    const api = createApi({
      resources: [
        collection('boards', {
          body: z.object({ labels: z.record(z.string(), z.string()) }),
          read: () => ({ id: 1, labels: { a: '0' } }),
          update: { merge: true, handle: (ctx) => ctx.body },
        }),
      ],
    });
    const response = await api.handle({ method: 'PATCH', url: '/boards/1', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"labels":{"x":"1","a":null}}' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ labels: { x: '1' } });
  });

  it.each([
    ['zod z.coerce.date()', z.looseObject({ title: z.string(), dueAt: z.coerce.date() })],
    ['arktype Date', type({ '[string]': 'unknown', title: 'string', dueAt: ['string', '=>', (text: string) => new Date(text)] })],
  ])('a body schema with a part that has no JSON Schema (%s) still names its members: the merge is built, and {"ownerId":2} is dropped', async (_name, body) => {
    const posts = new Map([[1, { id: 1, ownerId: 1, title: 'Mine', dueAt: '2030-01-01T00:00:00.000Z' }]]);
    const api = createApi({ resources: [collection('posts', { id: z.coerce.number().int(), body, read: (ctx) => posts.get(ctx.params.id), update: { merge: true, handle: (ctx) => ctx.body } })] });
    const response = await api.handle({ method: 'PATCH', url: '/posts/1', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"ownerId":2,"title":"Renamed"}' });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.payload as string)).toEqual({ title: 'Renamed', dueAt: '2030-01-01T00:00:00.000Z' });
  });

  it('with maxDepth: 200, a patch nested 150 levels down a recursive schema is taken as a POST of it is, not a masked 500', async () => {
    interface Tree {
      name?: string;
      child?: Tree;
    }
    const Node: z.ZodType = z.lazy(() => z.object({ name: z.string().optional(), child: Node.optional() }));
    const reported: unknown[] = [];
    const api = createApi({
      maxDepth: 200,
      onError: (error) => reported.push(error),
      resources: [collection('trees', { body: z.object({ root: Node }), read: () => ({ id: 1, root: {} }), update: { merge: true, handle: (ctx) => ctx.body } })],
    });
    let root: Tree = { name: 'leaf' };
    for (let level = 0; level < 150; level++) root = { child: root };
    const response = await api.handle({ method: 'PATCH', url: '/trees/1', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ root }) });
    expect(response.status).toBe(200);
    expect(reported).toEqual([]);
  });

  it.each([
    ['valibot object', v.object({ title: v.string() })],
    ['valibot looseObject', v.looseObject({ title: v.string() })],
    ['valibot strictObject', v.strictObject({ title: v.string() })],
    ['valibot objectWithRest', v.objectWithRest({ title: v.string() }, v.string())],
  ])('a merge checked by a schema without a JSON Schema (%s) is refused when the API is built: restcanon cannot tell which members a client may write', (_name, body) => {
    const posts = collection('posts', { body, read: () => first(), update: { merge: true, handle: (ctx) => ctx.body } });
    expect(() => createApi({ resources: [posts] })).toThrow(/PATCH \/posts\/:id: "update" with "merge" needs a body schema with a JSON Schema.*toStandardJsonSchema\(\)/);
  });
});

describe('lists: what a cursor reveals, and what a replayed one reaches', () => {
  interface Employee {
    id: number;
    name: string;
    salary: number;
    teamId: number;
    hiredAt: Date;
    manager: { name: string; rating: number };
  }
  const staff: Employee[] = [
    { id: 1, name: 'Ada', salary: 9100, teamId: 1, hiredAt: new Date('2020-01-01T00:00:00Z'), manager: { name: 'Zoe', rating: 4 } },
    { id: 2, name: 'Bob', salary: 5200, teamId: 2, hiredAt: new Date('2021-01-01T00:00:00Z'), manager: { name: 'Yan', rating: 2 } },
    { id: 3, name: 'Cy', salary: 7300, teamId: 1, hiredAt: new Date('2022-01-01T00:00:00Z'), manager: { name: 'Xia', rating: 5 } },
    { id: 4, name: 'Di', salary: 6400, teamId: 2, hiredAt: new Date('2023-01-01T00:00:00Z'), manager: { name: 'Wu', rating: 3 } },
  ];
  const Employee = z.object({ id: z.number(), name: z.string(), teamId: z.number(), manager: z.object({ name: z.string() }) });
  const cursorOf = (next: string): unknown => JSON.parse(Buffer.from(new URLSearchParams(next.slice(next.indexOf('?'))).get('cursor')!, 'base64url').toString());
  const valueOf = (employee: Employee, field: string): unknown => (field === 'manager.name' ? employee.manager.name : employee[field as keyof Employee]);
  /** Keyset paging in memory, as a database would do it, after or before the cursor's position. */
  const keyset = (rows: Employee[], ctx: { sort: { field: string; direction: string }[]; page: { limit: number; after?: Record<string, unknown> | undefined } }) => {
    const order = [...ctx.sort, { field: 'id', direction: 'asc' }];
    const compare = (a: Record<string, unknown>, b: Record<string, unknown>) => {
      for (const { field, direction } of order) {
        const [x, y] = [a[field], b[field]] as [number | string, number | string];
        if (x !== y) return (x < y ? -1 : 1) * (direction === 'desc' ? -1 : 1);
      }
      return 0;
    };
    const flat = (employee: Employee) => Object.fromEntries(order.map(({ field }) => [field, valueOf(employee, field)]));
    const sorted = [...rows].sort((a, b) => compare(flat(a), flat(b)));
    const after = ctx.page.after;
    return (after === undefined ? sorted : sorted.filter((row) => compare(flat(row), after) > 0)).slice(0, ctx.page.limit);
  };

  it('sort on a field the item schema hides (salary) is refused when the API is built: the order and the cursors would tell it', () => {
    const exposed = collection('staff', { item: Employee, page: { by: 'cursor' }, sort: ['name', 'salary'], list: () => staff });
    expect(() => createApi({ resources: [exposed] })).toThrow(/GET \/staff: the item schema hides "salary", so the list cannot sort or page by it: its order and cursors would tell it/);
    // Unpaged too: the order alone ranks the hidden values.
    const ranked = collection('staff', { item: Employee, sort: ['salary'], list: () => staff });
    expect(() => createApi({ resources: [ranked] })).toThrow(/hides "salary"/);
    const nested = collection('staff', { item: Employee, sort: ['manager.rating'], list: () => staff });
    expect(() => createApi({ resources: [nested] })).toThrow(/hides "manager.rating"/);
  });

  it('an item schema with a part that has no JSON Schema (a zod z.date()) is still read: salary is hidden, hiredAt is sent', () => {
    const Dated = z.object({ id: z.number(), name: z.string(), hiredAt: z.date() });
    expect(() => createApi({ resources: [collection('staff', { item: Dated, page: { by: 'cursor' }, sort: ['salary'], list: () => staff })] })).toThrow(/hides "salary"/);
    expect(() => createApi({ resources: [collection('staff', { item: Dated, page: { by: 'cursor' }, sort: ['hiredAt'], list: () => staff })] })).not.toThrow();
  });

  it('a cursor keyed on a field the item schema hides is refused when the API is built; a key it sends is taken', () => {
    const hiddenKey = collection('staff', { item: z.object({ name: z.string() }), page: { by: 'cursor' }, list: () => staff });
    expect(() => createApi({ resources: [hiddenKey] })).toThrow(/GET \/staff: the item schema hides "id", so the list cannot sort or page by it/);
    const byName = collection('staff', { item: z.object({ name: z.string() }), page: { by: 'cursor', key: 'name' }, list: () => staff });
    expect(() => createApi({ resources: [byName] })).not.toThrow();
    // Offset pages carry no key.
    expect(() => createApi({ resources: [collection('staff', { item: z.object({ name: z.string() }), page: { by: 'offset' }, list: () => staff })] })).not.toThrow();
  });

  it('a cursor decoded holds the query it was made for and the sort values and key of the last item sent, each a field the item sends', async () => {
    const api = createApi({ resources: [collection('staff', { item: Employee, page: { by: 'cursor', limit: { default: 1 } }, sort: ['teamId', 'manager.name'], list: (ctx) => keyset(staff, ctx) })] });
    const first = await api.handle({ method: 'GET', url: '/staff?sort=-teamId' });
    expect(first.body).toMatchObject({ items: [{ id: 2, name: 'Bob', teamId: 2, manager: { name: 'Yan' } }] });
    expect(cursorOf((first.body as { next: string }).next)).toEqual(['-teamId', '', 'a', [2, 2]]);
    expect(first.payload).not.toMatch(/5200|hiredAt|rating/);
  });

  it('a dotted sort field (manager.name) is read along its path into the cursor, not as null: the walk gives each item once, in order', async () => {
    const api = createApi({ resources: [collection('staff', { item: Employee, page: { by: 'cursor', limit: { default: 1 } }, sort: ['manager.name'], list: (ctx) => keyset(staff, ctx) })] });
    const seen: string[] = [];
    let url: string | null = '/staff?sort=manager.name';
    while (url !== null && seen.length < 10) {
      const page = (await api.handle({ method: 'GET', url })).body as { items: Employee[]; next: string | null };
      seen.push(...page.items.map((item) => item.manager.name));
      if (page.next !== null) expect(cursorOf(page.next)).toEqual(['manager.name', '', 'a', [page.items.at(-1)!.manager.name, page.items.at(-1)!.id]]);
      url = page.next;
    }
    expect(seen).toEqual(['Wu', 'Xia', 'Yan', 'Zoe']);
  });

  it("Alice's cursor replayed by Bob starts Bob's page at her position, and the page holds only Bob's items", async () => {
    const api = createApi({
      authenticate,
      resources: [
        collection('staff', {
          item: Employee,
          page: { by: 'cursor', limit: { default: 1 } },
          filter: { teamId: z.coerce.number().int() },
          owner: { rule: (employee: { teamId: number }, principal) => employee.teamId === (principal as { id: number }).id, on: ['list'], scope: (principal) => ({ teamId: (principal as { id: number }).id }) },
          list: (ctx) => keyset(staff.filter((employee) => employee.teamId === ctx.filter.teamId), ctx),
        }),
      ],
    });
    const alice = await api.handle({ method: 'GET', url: '/staff', headers: as('alice') });
    const next = (alice.body as { next: string }).next;
    const replayed = await api.handle({ method: 'GET', url: next, headers: as('bob') });
    expect(replayed.status).toBe(200);
    expect((replayed.body as { items: Employee[] }).items.map((item) => item.teamId)).toEqual([2]);
    // Alice's filter value written into the query by Bob is his 403, not her items.
    expectProblem(await api.handle({ method: 'GET', url: `/staff?teamId=1`, headers: as('bob') }), { status: 403, code: 'RC_FORBIDDEN' });
  });

  it('a cursor replayed with another sort or filter is a 400; with another limit or on another collection it only chooses where the page starts', async () => {
    const list = (ctx: Parameters<typeof keyset>[1]) => keyset(staff, ctx);
    const api = createApi({
      resources: [
        collection('staff', { item: Employee, page: { by: 'cursor', limit: { default: 1 } }, sort: ['name', 'teamId'], filter: { teamId: z.coerce.number().int() }, list }),
        collection('alumni', { item: Employee, page: { by: 'cursor', limit: { default: 1 } }, sort: ['name', 'teamId'], filter: { teamId: z.coerce.number().int() }, list: () => [] }),
      ],
    });
    const cursor = new URLSearchParams(((await api.handle({ method: 'GET', url: '/staff?sort=name' })).body as { next: string }).next.split('?')[1]).get('cursor')!;
    for (const url of [`/staff?sort=-name&cursor=${cursor}`, `/staff?sort=teamId&cursor=${cursor}`, `/staff?cursor=${cursor}`, `/staff?sort=name&teamId=1&cursor=${cursor}`]) {
      const problem = expectProblem(await api.handle({ method: 'GET', url }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(problem.errors, url).toEqual([expect.objectContaining({ in: 'query', pointer: '#/cursor' })]);
    }
    const wider = await api.handle({ method: 'GET', url: `/staff?sort=name&limit=3&cursor=${cursor}` });
    expect((wider.body as { items: Employee[] }).items.map((item) => item.name)).toEqual(['Bob', 'Cy', 'Di']);
    const elsewhere = await api.handle({ method: 'GET', url: `/alumni?sort=name&cursor=${cursor}` });
    expect(elsewhere.body).toEqual({ items: [], next: null, prev: null });
  });
});

describe("Location: what a created item's id resolves to", () => {
  function articlesApi(idOf?: (created: { id: unknown; slug: unknown }) => string | number) {
    const reported: unknown[] = [];
    const api = createApi({
      onError: (error) => reported.push(error),
      resources: [
        collection('articles', {
          body: z.object({ slug: z.unknown() }),
          ...(idOf === undefined ? {} : { idOf }),
          // A client-chosen id: the slug the body gives.
          create: (ctx) => ({ id: ctx.body.slug, slug: ctx.body.slug }),
        }),
        collection('tenants', { list: () => [] }).collection('orders', { body: 'unvalidated', create: () => ({ id: 5 }) }),
      ],
    });
    const create = (slug: unknown) => api.handle({ method: 'POST', url: '/articles', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug }) });
    return { api, reported, create };
  }

  it('an id holding //evil.example, a backslash, %2e%2e, ?, # or a CR LF stays one percent-encoded segment below the collection', async () => {
    const { create } = articlesApi();
    const cases: [string, string][] = [
      ['//evil.example', '/articles/%2F%2Fevil.example'],
      ['\\\\evil.example', '/articles/%5C%5Cevil.example'],
      ['%2e%2e', '/articles/%252e%252e'],
      ['a/../../admin', '/articles/a%2F..%2F..%2Fadmin'],
      ['x?admin=1#y', '/articles/x%3Fadmin%3D1%23y'],
      ['a\r\nSet-Cookie: s=1', '/articles/a%0D%0ASet-Cookie%3A%20s%3D1'],
      ['https://evil.example', '/articles/https%3A%2F%2Fevil.example'],
    ];
    for (const [slug, location] of cases) {
      const response = await create(slug);
      expect(response.status, slug).toBe(201);
      expect(response.headers.location, slug).toBe(location);
      expect(new URL(headerText(response.headers.location)!, 'https://api.example').pathname.startsWith('/articles/'), slug).toBe(true);
    }
  });

  // An id of '..', '.' or '' percent-encodes as itself, and every URL parser resolves such a Location to
  // another resource (`/articles/..` is `/`, `/articles/.` and `/articles/` the collection); NaN and
  // Infinity would be the text "NaN" and "Infinity". Such an id is reported, and the 201 goes without Location.
  it("an id of '..', '.', '' or NaN gives no Location that resolves to another resource: the 201 goes without one, reported", async () => {
    for (const idOf of [undefined, (created: { slug: unknown }) => created.slug as string]) {
      const { create, reported } = articlesApi(idOf);
      for (const slug of ['..', '.', '']) {
        const response = await create(slug);
        expect(response.status, slug).toBe(201);
        expect(response.headers.location, slug).toBeUndefined();
      }
      expect(reported.length).toBe(3);
    }
    const { api } = articlesApi((created) => Number(created.slug));
    const response = await api.handle({ method: 'POST', url: '/articles', headers: { 'content-type': 'application/json' }, body: '{"slug":"x"}' });
    expect(response.headers.location).toBeUndefined();
  });

  // A parent's param of "..": /tenants/%2E%2E/orders would create below the tenant "..", and its
  // Location /tenants/../orders/5 resolve to /orders/5. No param matches a dot segment.
  it('a parent param of %2E%2E reaches no route, so nothing is created and no Location resolves above the collection', async () => {
    const { api } = articlesApi();
    const response = await api.handle({ method: 'POST', url: '/tenants/%2E%2E/orders', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(404);
    expect(response.headers.location).toBeUndefined();
  });
});

describe('ctx.set: headers that are restcanon’s', () => {
  function apiSetting(name: string, value: string) {
    const reported: unknown[] = [];
    const api = createApi({
      onError: (error) => reported.push(error),
      resources: [
        collection('notes', {
          etag: (note: { version: number }) => String(note.version),
          read: (ctx) => {
            ctx.set(name, value);
            return { id: 1, version: 3 };
          },
        }),
      ],
    });
    return { api, reported };
  }

  it.each([
    ['Content-Length', '0'],
    ['content-length', '100000'],
    ['CONTENT-LENGTH', '1'],
    ['Transfer-Encoding', 'chunked'],
    ['Connection', 'close'],
    ['Keep-Alive', 'timeout=1'],
    ['Upgrade', 'websocket'],
    ['TE', 'trailers'],
    ['Trailer', 'X-Checksum'],
    ['Proxy-Connection', 'close'],
    ['Content-Type', 'text/html'],
    ['Content-Encoding', 'gzip'],
    ['Content-Encoding', 'identity'],
  ])('%s: %s, which would misframe or mislabel the body restcanon writes, is a masked 500 naming ctx.set', async (name, value) => {
    const { api, reported } = apiSetting(name, value);
    const response = await api.handle({ method: 'GET', url: '/notes/1' });
    expectProblem(response, { status: 500, code: 'RC_INTERNAL' });
    expect(response.headers[name.toLowerCase()]).not.toBe(value);
    expect(String((reported[0] as Error).message)).toMatch(new RegExp(`ctx\\.set: "${name.toLowerCase()}" is set by restcanon`));
  });

  it.each([['Content-Length '], ['X-Note:'], ['Set-Cookie\r\nX-Evil'], ['']])('a name that is no header name (%j) is a masked 500', async (name) => {
    const { api } = apiSetting(name, 'x');
    expectProblem(await api.handle({ method: 'GET', url: '/notes/1' }), { status: 500, code: 'RC_INTERNAL' });
  });

  it('an ETag a handler sets on an item with validators is replaced by the item’s own: If-None-Match with the forged tag is a 200, not a 304', async () => {
    const { api } = apiSetting('ETag', '"forged"');
    const response = await api.handle({ method: 'GET', url: '/notes/1', headers: { 'if-none-match': '"forged"' } });
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe('"3"');
  });

  it('a Vary: * a handler sets stays *, with CORS on too', async () => {
    const api = createApi({
      cors: { origins: ['https://app.example'] },
      endpoints: [endpoint('GET', '/articles', { handle: (ctx) => { ctx.set('Vary', '*'); return {}; } })],
    });
    const response = await api.handle({ method: 'GET', url: '/articles', headers: { origin: 'https://app.example' } });
    expect(response.headers.vary).toBe('*');
  });
});

describe('ctx.outcome: only the successes an endpoint declares', () => {
  const reported: unknown[] = [];
  const choose = (outcome: string) =>
    endpoint('POST', `/jobs-${outcome.replace(/\W/g, '')}`, {
      body: 'unvalidated',
      outcomes: ['accepted'],
      handle: (ctx) => {
        ctx.outcome(outcome as never);
        return { chosen: outcome };
      },
    });
  const names = ['notFound', 'internalError', 'forbidden', 'options', 'notModified', 'empty', 'create', '__proto__', 'toString', 'constructor', 'hasOwnProperty', ''];
  const api = createApi({ onError: (error) => reported.push(error), endpoints: names.map(choose) });

  it.each(names)('ctx.outcome(%j) outside outcomes is a masked 500: never that status with a success body, never a 2xx for an error', async (outcome) => {
    reported.length = 0;
    const response = await api.handle({ method: 'POST', url: `/jobs-${outcome.replace(/\W/g, '')}`, headers: { 'content-type': 'application/json' }, body: '{}' });
    expectProblem(response, { status: 500, code: 'RC_INTERNAL' });
    expect(response.payload).not.toMatch(/chosen/);
    expect(String((reported[0] as Error).message)).toMatch(/ctx\.outcome: .* is not an outcome of this endpoint/);
  });

  it('an outcome and a header chosen before a throw never reach the error: a 409, not a 202, without the Retry-After', async () => {
    const failing = createApi({
      endpoints: [endpoint('POST', '/exports', { body: 'unvalidated', outcomes: ['accepted'], errors: { conflict: 'busy' }, handle: (ctx) => { ctx.outcome('accepted'); ctx.set('Retry-After', '1'); throw new ConflictError('busy'); } })],
    });
    const response = await failing.handle({ method: 'POST', url: '/exports', headers: { 'content-type': 'application/json' }, body: '{}' });
    expectProblem(response, { status: 409, code: 'RC_CONFLICT' });
    expect(response.headers['retry-after']).toBeUndefined();
  });
});

describe('problemBody: an API’s own error body', () => {
  it('build sees a 5xx problem without message, stack or cause, and a concealed 403 as the missing item it looks like', async () => {
    const seen: unknown[] = [];
    const api = createApi({
      authenticate,
      policy: createStatusPolicy({ forbidden: 404 }),
      onError: () => {},
      problemBody: { build: (problem) => (seen.push(problem), { error: problem.title, status: problem.status }) },
      resources: [
        collection('secrets', {
          owner: (secret: { ownerId: number }, principal) => secret.ownerId === (principal as { id: number }).id,
          read: (ctx) => (ctx.params.id === '1' ? { id: 1, ownerId: 1 } : ctx.params.id === '9' ? { id: 9, ownerId: 1, fail: true } : undefined),
          remove: () => {
            throw new Error('db-password=hunter2 at connect (/srv/db.js:1:1)');
          },
        }),
      ],
    }).handle;
    const foreign = await api({ method: 'GET', url: '/secrets/1', headers: as('bob') });
    const missing = await api({ method: 'GET', url: '/secrets/2', headers: as('bob') });
    expect(foreign.status).toBe(404);
    expect(foreign.payload).toBe(missing.payload);
    const failed = await api({ method: 'DELETE', url: '/secrets/1', headers: as('alice') });
    expect(failed.status).toBe(500);
    expect(JSON.stringify(seen)).not.toMatch(/hunter2|db\.js|stack/);
  });

  // A build that returns a promise was sent as "{}" under the error's status, and one that rejects was an
  // unhandled rejection, which ends a Node process by default. It is reported and the problem sent.
  it('an async build is reported and the problem sent, never {} or an unhandled rejection', async () => {
    const reported: unknown[] = [];
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const build of [async () => ({ error: 'x' }), async () => Promise.reject(new Error('build failed'))]) {
        const api = createApi({ problemBody: { build }, onError: (error) => reported.push(error), endpoints: [endpoint('GET', '/articles', { handle: () => undefined })] });
        const response = await api.handle({ method: 'GET', url: '/nowhere' });
        expectProblem(response, { status: 404, code: 'RC_NOT_FOUND' });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      expect(reported.length).toBe(2);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  // A body that build returns and the format cannot write (a BigInt, a toJSON that throws) threw out of
  // api.handle, and out of toNodeListener's synchronous path; it is reported and the problem sent.
  it('a build whose body cannot be written ({ n: 1n }) is reported and the problem sent; api.handle never rejects', async () => {
    const reported: unknown[] = [];
    const api = createApi({ problemBody: { build: () => ({ n: 1n }) }, onError: (error) => reported.push(error), endpoints: [endpoint('GET', '/articles', { handle: () => undefined })] });
    const response = await api.handle({ method: 'GET', url: '/nowhere' });
    expectProblem(response, { status: 404, code: 'RC_NOT_FOUND' });
    expect(reported.length).toBe(1);
  });
});

describe('conditional requests: tag lists, wildcards and weak tags', () => {
  function articlesApi(options: { tag?: string; requireIfMatch?: boolean } = {}) {
    const articles = new Map([[1, { id: 1, ownerId: 1, title: 'Draft', version: 4 }]]);
    let writes = 0;
    const api = createApi({
      authenticate,
      policy: createStatusPolicy({ forbidden: 404 }),
      resources: [
        collection('articles', {
          id: z.coerce.number().int(),
          body: z.object({ title: z.string() }),
          etag: (article: { version: number; ownerId: number }) => options.tag ?? String(article.version),
          requireIfMatch: options.requireIfMatch ?? false,
          owner: (article: { version: number; ownerId: number }, principal) => article.ownerId === (principal as { id: number }).id,
          read: (ctx) => articles.get(ctx.params.id),
          replace: (ctx) => {
            writes++;
            const article = { ...(ctx.item as { id: number; ownerId: number; version: number }), ...ctx.body, version: 5 };
            articles.set(article.id, article);
            return article;
          },
        }),
      ],
    });
    const put = (url: string, headers: Record<string, string>, caller = 'alice') =>
      api.handle({ method: 'PUT', url, headers: { ...as(caller), 'content-type': 'application/json', ...headers }, body: '{"title":"Mine"}' });
    return { api, put, writes: () => writes };
  }

  it.each([
    ['a weak tag for the strong current one', 'W/"4"'],
    ['* inside a list', '"4", *'],
    ['* before a tag', '*, "4"'],
    ['an unquoted tag', '4'],
    ['a tag with a character beyond ASCII', '"4\u00e9"'],
    ['an empty value', ''],
    ['a list cut short', '"3", "4'],
  ])('If-Match with %s (%j) is a 412: nothing is written', async (_name, ifMatch) => {
    const { put, writes } = articlesApi();
    expectProblem(await put('/articles/1', { 'if-match': ifMatch }), { status: 412, code: 'RC_PRECONDITION_FAILED' });
    expect(writes()).toBe(0);
  });

  it('If-Match: "3", "4" and If-Match: * name the current copy and write; so does a weak tag in a list that also holds the strong one', async () => {
    for (const ifMatch of ['"3", "4"', '*', 'W/"4", "4"', ' "4" ']) {
      const { put, writes } = articlesApi();
      expect((await put('/articles/1', { 'if-match': ifMatch })).status, ifMatch).toBe(200);
      expect(writes()).toBe(1);
    }
  });

  it('an item whose etag is weak (W/"4") is never changed under If-Match, which compares strongly: a 412, even with W/"4"', async () => {
    const { put, writes } = articlesApi({ tag: 'W/"4"' });
    for (const ifMatch of ['W/"4"', '"4"']) expectProblem(await put('/articles/1', { 'if-match': ifMatch }), { status: 412, code: 'RC_PRECONDITION_FAILED' });
    expect(writes()).toBe(0);
  });

  it('If-None-Match: * on a PUT to an item that exists is a 412 (no overwrite); to one that is missing a 404, nothing created', async () => {
    const { put, writes } = articlesApi();
    expectProblem(await put('/articles/1', { 'if-none-match': '*' }), { status: 412, code: 'RC_PRECONDITION_FAILED' });
    expectProblem(await put('/articles/2', { 'if-none-match': '*' }), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await put('/articles/2', { 'if-match': '*' }), { status: 404, code: 'RC_NOT_FOUND' });
    expect(writes()).toBe(0);
  });

  it('with requireIfMatch, If-Match: * is taken as a deliberate overwrite, and a header that names no copy is a 412, not a pass', async () => {
    const { put, writes } = articlesApi({ requireIfMatch: true });
    expectProblem(await put('/articles/1', {}), { status: 428, code: 'RC_PRECONDITION_REQUIRED' });
    expectProblem(await put('/articles/1', { 'if-match': 'W/"4"' }), { status: 412, code: 'RC_PRECONDITION_FAILED' });
    expectProblem(await put('/articles/1', { 'if-none-match': '"0"' }), { status: 428, code: 'RC_PRECONDITION_REQUIRED' });
    expect((await put('/articles/1', { 'if-match': '*' })).status).toBe(200);
    expect(writes()).toBe(1);
  });

  it('with forbidden: 404, If-None-Match: * and If-Match: * on someone else’s item answer exactly as a missing one: no 304, no 412', async () => {
    const { api, put } = articlesApi();
    const missing = await api.handle({ method: 'GET', url: '/articles/2', headers: as('bob') });
    for (const headers of [{ 'if-none-match': '*' }, { 'if-none-match': '"4"' }, { 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' }]) {
      const foreign = await api.handle({ method: 'GET', url: '/articles/1', headers: { ...as('bob'), ...headers } });
      expect(foreign.status).toBe(404);
      expect(withoutInstance(foreign.body)).toEqual(withoutInstance(missing.body));
    }
    for (const headers of [{ 'if-match': '"0"' }, { 'if-match': '*' }, { 'if-none-match': '*' }]) {
      const foreign = await put('/articles/1', headers, 'bob');
      expect(foreign.status).toBe(404);
      expect(withoutInstance(foreign.body)).toEqual(withoutInstance(missing.body));
    }
  });
});

describe('CORS from outside', () => {
  const APP = 'https://app.example';
  const grantOf = (response: ApiResponse) => Object.fromEntries(Object.entries(response.headers).filter(([name]) => name.startsWith('access-control-')));
  function corsApi(origins: readonly string[] | ((origin: string) => boolean), credentials = true) {
    return createApi({
      cors: { origins, credentials },
      authenticate,
      bodyLimit: 32,
      timeout: 100,
      onError: () => {},
      resources: [
        collection('articles', {
          id: z.coerce.number().int(),
          body: z.object({ title: z.string() }),
          etag: () => '"1"',
          read: (ctx) => (ctx.params.id === 1 ? { id: 1, title: 'x' } : ctx.params.id === 2 ? Promise.reject(new Error('down')) : ctx.params.id === 3 ? new Promise(() => {}) : undefined),
          replace: (ctx) => ({ id: 1, ...ctx.body }),
        }),
      ],
    });
  }

  it.each([
    ['a trailing dot', 'https://app.example.'],
    ['upper case', 'HTTPS://APP.EXAMPLE'],
    ['a host in upper case', 'https://APP.example'],
    ['its default port', 'https://app.example:443'],
    ['userinfo', 'https://user@app.example'],
    ['the listed origin as userinfo of another host', 'https://app.example@evil.example'],
    ['a path', 'https://app.example/'],
    ['another scheme', 'http://app.example'],
    ['a suffix', 'https://app.example.evil.example'],
    ['a prefix', 'https://evil-app.example'],
    ['null', 'null'],
    ['the listed origin twice', 'https://app.example, https://app.example'],
    ['a space before it', ' https://app.example'],
  ])('a list grants nothing to an Origin with %s (%j), and says Vary: Origin', async (_name, origin) => {
    const api = corsApi([APP]);
    const response = await api.handle({ method: 'GET', url: '/articles/1', headers: { ...as('alice'), origin } });
    expect(response.status).toBe(200);
    expect(grantOf(response)).toEqual({});
    expect(response.headers.vary).toBe('Origin');
    const preflight = await api.handle({ method: 'OPTIONS', url: '/articles/1', headers: { origin, 'access-control-request-method': 'PUT' } });
    expect(grantOf(preflight)).toEqual({});
  });

  it("the origin 'null' with credentials: true is refused when the API is built: any page sends it from a sandboxed frame", () => {
    expect(() => corsApi([APP, 'null'], true)).toThrow(/cannot allow the origin 'null' with credentials: true/);
    expect(() => corsApi([APP, 'null'], false)).not.toThrow();
  });

  it('a function is asked only about a serialized origin: never about userinfo, a path, upper case or a port that is no number', async () => {
    const asked: string[] = [];
    const api = corsApi((origin) => (asked.push(origin), origin.startsWith(APP)));
    for (const origin of ['https://app.example@evil.example', 'https://app.example.evil.example/', 'HTTPS://app.example', 'https://app.example:x', 'https://app.example\\@evil.example', 'https://app.example%40evil.example']) {
      const response = await api.handle({ method: 'GET', url: '/articles/1', headers: { ...as('alice'), origin } });
      if (origin === 'https://app.example.evil.example/') continue;
      expect(grantOf(response), origin).toEqual({});
    }
    expect(asked).toEqual([]);
    // Well-formed origins are asked: a host, an IPv6 literal, a port.
    for (const origin of [APP, 'http://[::1]:5173', 'https://app.example:8443', 'https://app.example.evil.example']) await api.handle({ method: 'GET', url: '/articles/1', headers: { ...as('alice'), origin } });
    expect(asked).toEqual([APP, 'http://[::1]:5173', 'https://app.example:8443', 'https://app.example.evil.example']);
  });

  it('every answer to an allowed origin carries its grant and Vary: Origin: 200, 304, 400, 401, 404, 405, 412, 413, 415, 500, 503, OPTIONS', async () => {
    const api = corsApi([APP]);
    const json = { 'content-type': 'application/json' };
    const cases: [number, Parameters<Api['handle']>[0]][] = [
      [200, { method: 'GET', url: '/articles/1', headers: as('alice') }],
      [304, { method: 'GET', url: '/articles/1', headers: { ...as('alice'), 'if-none-match': '"1"' } }],
      [400, { method: 'GET', url: '/articles/x', headers: as('alice') }],
      [401, { method: 'GET', url: '/articles/1' }],
      [404, { method: 'GET', url: '/articles/9', headers: as('alice') }],
      [404, { method: 'GET', url: '/nowhere' }],
      [405, { method: 'DELETE', url: '/articles/1', headers: as('alice') }],
      [412, { method: 'PUT', url: '/articles/1', headers: { ...as('alice'), ...json, 'if-match': '"0"' }, body: '{"title":"y"}' }],
      [413, { method: 'PUT', url: '/articles/1', headers: { ...as('alice'), ...json }, body: JSON.stringify({ title: 'y'.repeat(64) }) }],
      [415, { method: 'PUT', url: '/articles/1', headers: { ...as('alice'), 'content-type': 'text/plain' }, body: 'y' }],
      [500, { method: 'GET', url: '/articles/2', headers: as('alice') }],
      [503, { method: 'GET', url: '/articles/3', headers: as('alice') }],
      [204, { method: 'OPTIONS', url: '/articles/1' }],
      [200, { method: 'HEAD', url: '/articles/1', headers: as('alice') }],
    ];
    for (const [status, request] of cases) {
      const response = await api.handle({ ...request, headers: { ...request.headers, origin: APP } });
      const what = `${request.method} ${request.url}`;
      expect(response.status, what).toBe(status);
      expect(response.headers['access-control-allow-origin'], what).toBe(APP);
      expect(response.headers['access-control-allow-credentials'], what).toBe('true');
      expect(headerText(response.headers.vary)?.split(', '), what).toContain('Origin');
    }
  });

  it('a preflight for a method the path does not serve, or on a path that 404s, grants nothing and says what it varies on', async () => {
    const api = corsApi([APP]);
    const wrongMethod = await api.handle({ method: 'OPTIONS', url: '/articles/1', headers: { origin: APP, 'access-control-request-method': 'DELETE' } });
    expect(wrongMethod.status).toBe(204);
    expect(grantOf(wrongMethod)).toEqual({});
    expect(wrongMethod.headers.vary).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    const nowhere = await api.handle({ method: 'OPTIONS', url: '/nowhere', headers: { origin: APP, 'access-control-request-method': 'GET' } });
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers['access-control-allow-methods']).toBeUndefined();
    expect(nowhere.headers.vary).toBe('Origin');
  });

  for (const [adapter, mount] of Object.entries(ADAPTER_SETUPS)) {
    describe(`over ${adapter}`, () => {
      let server: MountedServer;
      beforeAll(async () => {
        server = await mount(corsApi([APP]));
      });
      afterAll(() => server.close());

      it('a 304, a 405, a 500 and a preflight to an allowed origin carry its grant and their Vary; another origin gets none', async () => {
        const get = (id: number, headers: string[]) => rawRequest(server, [`GET /articles/${id} HTTP/1.1`, 'Authorization: Bearer alice', ...headers]);
        const notModified = await get(1, [`Origin: ${APP}`, 'If-None-Match: "1"']);
        expect(notModified.status).toBe(304);
        expect(notModified.headers['access-control-allow-origin']).toBe(APP);
        expect(notModified.headers.vary).toMatch(/\bOrigin\b/);
        const failed = await get(2, [`Origin: ${APP}`]);
        expect(failed.status).toBe(500);
        expect(failed.headers['access-control-allow-origin']).toBe(APP);
        const notAllowed = await rawRequest(server, ['DELETE /articles/1 HTTP/1.1', `Origin: ${APP}`]);
        expect(notAllowed.status).toBe(405);
        expect(notAllowed.headers['access-control-allow-origin']).toBe(APP);
        expect(notAllowed.headers.vary).toMatch(/\bOrigin\b/);
        const preflight = await rawRequest(server, ['OPTIONS /articles/1 HTTP/1.1', `Origin: ${APP}`, 'Access-Control-Request-Method: PUT', 'Access-Control-Request-Headers: content-type, if-match']);
        expect(preflight.status).toBe(204);
        expect(preflight.headers['access-control-allow-methods']).toMatch(/\bPUT\b/);
        expect(preflight.headers.vary).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
        for (const origin of ['https://app.example.', 'https://app.example@evil.example', 'null']) {
          const refused = await get(1, [`Origin: ${origin}`, 'If-None-Match: "1"']);
          expect(refused.status).toBe(304);
          expect(Object.keys(refused.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
          expect(refused.headers.vary).toMatch(/\bOrigin\b/);
        }
      });
    });
  }
});

describe('the typed client: what a kept copy is keyed by, and where pages() goes', () => {
  const keys: Record<string, { id: number }> = { 'key-alice': { id: 1 }, 'key-bob': { id: 2 } };
  /** Profiles behind an API key header: the owner sees the email, others the name only, under the same ETag. */
  const profilesApi = createApi({
    authenticate: (request) => keys[String(request.headers?.['x-api-key'])],
    formats: [json, text],
    resources: [
      collection('profiles', {
        id: z.coerce.number().int(),
        etag: () => '"v1"',
        read: (ctx) => ({ id: ctx.params.id, name: 'Ada', ...(ctx.params.id === (ctx.principal as { id: number }).id ? { email: 'ada@example.com' } : {}) }),
      }),
    ],
  });
  let server: MountedServer;
  beforeAll(async () => {
    server = await listen(http.createServer(toNodeListener(profilesApi)));
  });
  afterAll(() => server.close());

  it("a 304 never answers one caller's call with the copy another caller's API key was sent (x-api-key, not Authorization)", async () => {
    const client = createClient<typeof profilesApi>({ baseUrl: server.baseUrl, etags: true });
    const alice = await client.get('/profiles/:id', { params: { id: 1 }, headers: { 'x-api-key': 'key-alice' } });
    expect(alice).toMatchObject({ status: 200, body: { email: 'ada@example.com' } });
    const bob = await client.get('/profiles/:id', { params: { id: 1 }, headers: { 'x-api-key': 'key-bob' } });
    expect(bob.status).toBe(200);
    expect((bob as { body?: unknown }).body).toEqual({ id: 1, name: 'Ada' });
    // Alice's own copy still answers her 304.
    expect(await client.get('/profiles/:id', { params: { id: 1 }, headers: { 'x-api-key': 'key-alice' } })).toMatchObject({ status: 304, body: { email: 'ada@example.com' } });
  });

  it('a 304 never answers a call for text with the JSON body kept for a call with another Accept', async () => {
    const client = createClient<typeof profilesApi>({ api: profilesApi, etags: true, headers: { 'x-api-key': 'key-alice' } });
    const asJson = await client.get('/profiles/:id', { params: { id: 1 } });
    expect(asJson.headers.get('content-type')).toMatch(/json/);
    const asText = await client.get('/profiles/:id', { params: { id: 1 }, headers: { accept: 'text/plain' } });
    expect(asText.status).toBe(200);
    expect(asText.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(typeof (asText as { body?: unknown }).body).toBe('string');
  });

  it('a copy kept for a query string answers only that query string', async () => {
    const seen: string[] = [];
    const api = createApi({ resources: [collection('profiles', { etag: () => '"v1"', read: (ctx) => (seen.push(ctx.request.url), { id: 1, url: ctx.request.url }) })] });
    const client = createClient<typeof api>({ api, etags: true });
    await client.get('/profiles/:id', { params: { id: '1' } });
    const other = await client.get('/profiles/:id', { params: { id: '1' }, query: { view: 'full' } as never });
    expect(other).toMatchObject({ status: 200, body: { url: '/profiles/1?view=full' } });
  });

  it('the If-Match a change sends comes from the copy of the same caller: the same headers but for Content-Type', async () => {
    const sent: (string | undefined)[] = [];
    const api = createApi({
      authenticate: (request) => keys[String(request.headers?.['x-api-key'])],
      resources: [collection('notes', { body: z.object({ text: z.string() }), etag: () => '"v1"', read: () => ({ id: 1 }), replace: (ctx) => (sent.push(ctx.headers['if-match'] as string | undefined), { id: 1 }) })],
    });
    const client = createClient<typeof api>({ api, etags: true });
    await client.get('/notes/:id', { params: { id: '1' }, headers: { 'x-api-key': 'key-alice' } });
    await client.put('/notes/:id', { params: { id: '1' }, body: { text: 'a' }, headers: { 'x-api-key': 'key-bob' } });
    await client.put('/notes/:id', { params: { id: '1' }, body: { text: 'a' }, headers: { 'x-api-key': 'key-alice', 'content-type': 'application/json' } });
    expect(sent).toEqual([undefined, '"v1"']);
  });

  it('keeps at most 1000 copies: those used least recently are forgotten, 1100 URLs later', async () => {
    const api = createApi({ resources: [collection('profiles', { etag: () => '"v1"', read: (ctx) => ({ id: ctx.params.id }) })] });
    const client = createClient<typeof api>({ api, etags: true });
    await client.get('/profiles/:id', { params: { id: 'first' } });
    for (let id = 0; id < 1100; id++) {
      await client.get('/profiles/:id', { params: { id: String(id) } });
      // A copy in use is kept.
      if (id % 100 === 0) expect((await client.get('/profiles/:id', { params: { id: 'first' } })).status).toBe(304);
    }
    expect((await client.get('/profiles/:id', { params: { id: '1099' } })).status).toBe(304);
    expect((await client.get('/profiles/:id', { params: { id: '0' } })).status).toBe(200);
  });

  describe('pages() and a next link that leads away', () => {
    /** A server that answers its first request with a page whose next is `next`, and records every request target. */
    async function hostile(next: (origin: string) => string) {
      const targets: string[] = [];
      const pageServer = await listen(
        http.createServer((request, response) => {
          targets.push(`${request.headers.host}${request.url}`);
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify({ items: [targets.length], next: targets.length === 1 ? next(`127.0.0.1:${new URL(`http://${request.headers.host}`).port}`) : null, prev: null }));
        }),
      );
      return { pageServer, targets };
    }
    const api = createApi({ resources: [collection('numbers', { page: { by: 'offset' }, list: () => [] })] });

    it.each([
      ['a backslash for the slashes', (host: string) => `/\\evil.example/steal`],
      ['two backslashes', () => '\\\\evil.example/steal'],
      ['the API as userinfo of another host', (host: string) => `http://${host}@evil.example/steal`],
      ['another scheme', (host: string) => `https://${host}/numbers?offset=1`],
      ['javascript:', () => 'javascript:alert(1)'],
      ['a tab inside the slashes', () => '/\t/evil.example/steal'],
    ])('over HTTP, a next link with %s is not followed and no request leaves for it', async (_name, next) => {
      const { pageServer, targets } = await hostile(next);
      try {
        const client = createClient<typeof api>({ baseUrl: pageServer.baseUrl, headers: { authorization: 'Bearer secret' } });
        const walk = async () => {
          for await (const _page of client.pages('/numbers'));
        };
        await expect(walk()).rejects.toThrow(/leads away from the API/);
        expect(targets.length).toBe(1);
      } finally {
        await pageServer.close();
      }
    });

    it.each(['//evil.example/numbers', '/\\evil.example/numbers', 'numbers?offset=1', 'http://evil.example/numbers'])('in memory, a next link %j is not followed', async (next) => {
      const odd = createApi({ endpoints: [endpoint('GET', '/numbers', { handle: () => ({ items: [1], next, prev: null }) })] });
      const walk = async () => {
        for await (const _page of createClient<typeof api>({ api: odd }).pages('/numbers'));
      };
      await expect(walk()).rejects.toThrow(/leads away from the API/);
    });
  });
});

describe('validation: a value of another type where a string is expected, in every library', () => {
  const LIBRARIES: Record<string, { text: StandardSchema; query: StandardSchema; body: StandardSchema }> = {
    zod: { text: z.string(), query: z.object({ q: z.string() }), body: z.object({ title: z.string() }) },
    valibot: { text: v.string(), query: v.object({ q: v.string() }), body: v.object({ title: v.string() }) },
    arktype: { text: type('string'), query: type({ q: 'string' }), body: type({ title: 'string' }) },
  };
  for (const [library, { text: textSchema, query, body }] of Object.entries(LIBRARIES)) {
    it(`${library}: a repeated filter (?status=a&status=b), a repeated query field and a parsed body holding an object or array are 400s naming the field, never coerced`, async () => {
      const seen: unknown[] = [];
      const api = createApi({
        resources: [collection('tickets', { filter: { status: textSchema }, body, list: (ctx) => (seen.push(ctx.filter), []), create: (ctx) => (seen.push(ctx.body), { id: 1 }) })],
        endpoints: [endpoint('GET', '/searches', { query, handle: (ctx) => (seen.push(ctx.query), {}) })],
      });
      const filtered = expectProblem(await api.handle({ method: 'GET', url: '/tickets?status=a&status=b' }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(filtered.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '#/status' })]);
      const queried = expectProblem(await api.handle({ method: 'GET', url: '/searches?q=a&q=b' }), { status: 400, code: 'RC_INVALID_INPUT' });
      expect(queried.errors).toEqual([expect.objectContaining({ in: 'query', pointer: '#/q' })]);
      // A body a framework parsed already (Express's body-parser) is checked as any other.
      for (const title of [{ toString: 'x' }, ['x'], 1, null]) {
        const created = expectProblem(await api.handle({ method: 'POST', url: '/tickets', headers: { 'content-type': 'application/json' }, body: { title } }), { status: 400, code: 'RC_INVALID_INPUT' });
        expect(created.errors).toEqual([expect.objectContaining({ in: 'body', pointer: '#/title' })]);
      }
      expect(seen).toEqual([]);
    });
  }
});

describe('validation: what a 400 says of the value it refused', () => {
  const SCHEMAS: Record<string, StandardSchema> = {
    zod: z.object({ code: z.string().regex(/^[a-z]+$/), kind: z.enum(['a', 'b']), exact: z.literal('x'), email: z.string().email() }),
    valibot: v.object({ code: v.pipe(v.string(), v.regex(/^[a-z]+$/)), kind: v.picklist(['a', 'b']), exact: v.literal('x'), email: v.pipe(v.string(), v.email()) }),
    arktype: type({ code: /^[a-z]+$/, kind: "'a' | 'b'", exact: "'x'", email: 'string.email' }),
  };
  it.each(Object.entries(SCHEMAS))('%s: a pattern, an enum, a literal and an email refused never echo the value sent (a password typed in the wrong field)', async (_library, body) => {
    const api = createApi({ endpoints: [endpoint('POST', '/searches', { body, handle: () => ({}) })] });
    const response = await api.handle({ method: 'POST', url: '/searches', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: 'hunter2-A', kind: 'hunter2-B', exact: 'hunter2-C', email: 'hunter2-D' }) });
    const problem = expectProblem(response, { status: 400, code: 'RC_INVALID_INPUT' });
    expect((problem.errors as { pointer: string }[] | undefined)?.map((issue) => issue.pointer)).toEqual(['#/code', '#/email', '#/exact', '#/kind']);
    expect(response.payload).not.toMatch(/hunter2/);
  });
});

describe('page links over every adapter: what the request target can put in them', () => {
  const api = createApi({ resources: [collection('orders', { page: { by: 'offset', limit: { default: 1 } }, list: () => [{ id: 1 }, { id: 2 }] })] });
  for (const [adapter, mount] of Object.entries(ADAPTER_SETUPS)) {
    describe(adapter, () => {
      let server: MountedServer;
      beforeAll(async () => {
        server = await mount(api);
      });
      afterAll(() => server.close());

      it('an absolute-form target (GET http://evil.example/orders) and X-Forwarded-Host or -Prefix naming evil.example give links to a path, never to that host', async () => {
        for (const head of [['GET http://evil.example/orders HTTP/1.1'], ['GET /orders HTTP/1.1', 'X-Forwarded-Host: evil.example', 'X-Forwarded-Prefix: //evil.example']]) {
          const answer = await rawRequest(server, head);
          expect(answer.status, head[0]).toBe(200);
          expect(answer.headers.link, head[0]).toBe('</orders?limit=1&offset=1>; rel="next"');
          expect(JSON.parse(answer.body).next).toBe('/orders?limit=1&offset=1');
        }
      });
    });
  }
});
