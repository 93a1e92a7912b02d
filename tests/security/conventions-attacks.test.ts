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
import { collection, createApi, endpoint, type Api, type ApiResponse, type StandardSchema } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expectProblem } from '../helpers/problem.js';
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
    ['valibot object', v.object({ title: v.string() })],
    ['valibot looseObject', v.looseObject({ title: v.string() })],
    ['valibot strictObject', v.strictObject({ title: v.string() })],
    ['valibot objectWithRest', v.objectWithRest({ title: v.string() }, v.string())],
  ])('a merge checked by a schema without a JSON Schema (%s) is refused when the API is built: restcanon cannot tell which members a client may write', (_name, body) => {
    const posts = collection('posts', { body, read: () => first(), update: { merge: true, handle: (ctx) => ctx.body } });
    expect(() => createApi({ resources: [posts] })).toThrow(/PATCH \/posts\/:id: "update" with "merge" needs a body schema with a JSON Schema.*toStandardJsonSchema/);
  });
});
