import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, mergePatch, type ApiResponse } from '../../../src/index.js';
import { createTestClient } from '../../../src/testing.js';
import { fixtureApi } from '../../fixture/api.js';
import { expectProblem } from '../../helpers/problem.js';

/** RFC 7396 Appendix A: original, patch, result. Written as JSON, as the RFC writes them. */
const APPENDIX_A: readonly (readonly [string, string, string])[] = [
  ['{"a":"b"}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}'],
  ['{"a":"b"}', '{"a":null}', '{}'],
  ['{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}'],
  ['{"a":["b"]}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}'],
  ['{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}'],
  ['{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}'],
  ['["a","b"]', '["c","d"]', '["c","d"]'],
  ['{"a":"b"}', '["c"]', '["c"]'],
  ['{"a":"foo"}', 'null', 'null'],
  ['{"a":"foo"}', '"bar"', '"bar"'],
  ['{"e":null}', '{"a":1}', '{"e":null,"a":1}'],
  ['[1,2]', '{"a":"b","c":null}', '{"a":"b"}'],
  ['{}', '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}'],
];

describe('mergePatch: RFC 7396', () => {
  for (const [original, patch, result] of APPENDIX_A) {
    it(`Appendix A: ${original} + ${patch} → ${result}`, () => {
      const target: unknown = JSON.parse(original);
      const merged = mergePatch(target, JSON.parse(patch));
      expect(merged).toEqual(JSON.parse(result));
      // Member order too: a merged object keeps the target's members first.
      expect(JSON.stringify(merged)).toBe(result);
      expect(target, 'the target is not changed').toEqual(JSON.parse(original));
    });
  }

  it('the example of section 3', () => {
    const target = {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    };
    const patch = {
      title: 'Hello!',
      phoneNumber: '+01-123-456-7890',
      author: { familyName: null },
      tags: ['example'],
    };
    expect(mergePatch(target, patch)).toEqual({
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
    expect(target.author).toEqual({ givenName: 'John', familyName: 'Doe' });
    expect(target.tags).toEqual(['example', 'sample']);
  });

  it('a patch that sets nothing gives a copy equal to the target; null for a member that is not there changes nothing', () => {
    const target = { a: 1, b: { c: 2 } };
    expect(mergePatch(target, {})).toEqual(target);
    expect(mergePatch(target, {})).not.toBe(target);
    expect(mergePatch(target, { z: null, b: { y: null } })).toEqual(target);
    expect(mergePatch(undefined, { a: { b: null } })).toEqual({ a: {} });
  });

  it('a member named __proto__ is a member like any other: no prototype changes', () => {
    const patch: unknown = JSON.parse('{"__proto__":{"admin":true},"a":1}');
    const merged = mergePatch({ b: 2 }, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect((merged as { admin?: unknown }).admin).toBeUndefined();
    expect(Object.keys(merged)).toEqual(['b', '__proto__', 'a']);
    expect(JSON.stringify(merged)).toBe('{"b":2,"__proto__":{"admin":true},"a":1}');
    expect(({} as { admin?: unknown }).admin).toBeUndefined();
    // Removed as any other member.
    const removed = mergePatch(JSON.parse('{"__proto__":{"x":1},"a":1}'), JSON.parse('{"__proto__":null}'));
    expect(JSON.stringify(removed)).toBe('{"a":1}');
  });
});

describe("merge patch through the fixture's notes (update with merge: true)", () => {
  const asAlice = { authorization: 'Bearer alice', 'if-match': '"v1"' };
  const patch = async (body: unknown, headers: Record<string, string> = {}): Promise<{ response: ApiResponse; store: ReturnType<typeof fixtureApi>['store'] }> => {
    const { api, store } = fixtureApi();
    const response = await createTestClient(api).patch('/notes/1', { headers: { ...asAlice, 'content-type': 'application/merge-patch+json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { response, store };
  };

  it('applies the patch to the note as read gives it; the handler gets the merged note as the body schema gives it', async () => {
    const { response, store } = await patch({ text: 'oat milk', status: 'published' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: 1, title: 'groceries', text: 'oat milk', status: 'published', version: 2 });
    expect(store.notes.get(1)).toMatchObject({ title: 'groceries', text: 'oat milk', status: 'published', version: 2, reviewerNote: 'seen' });
  });

  it('a patch of another type than an object replaces the note whole, which the schema then refuses: 400', async () => {
    for (const body of ['"text"', '[1]', 'null', '7']) {
      const { response, store } = await patch(body);
      expectProblem(response, { status: 400, code: 'RC_INVALID_INPUT' });
      expect(store.noteCalls.update, body).toBe(0);
    }
  });

  it('a member of the wrong type is 400 naming it; an empty body is 400', async () => {
    const wrong = expectProblem((await patch({ status: 'lost' })).response, { status: 400, code: 'RC_INVALID_INPUT' });
    expect(wrong.errors).toEqual([expect.objectContaining({ in: 'body', pointer: '#/status' })]);
    expectProblem((await patch('')).response, { status: 400, code: 'RC_MALFORMED_BODY' });
  });

  it('a __proto__ member is refused before any merge', async () => {
    const { response, store } = await patch('{"__proto__":{"title":"x"}}');
    expectProblem(response, { status: 400, code: 'RC_FORBIDDEN_KEY' });
    expect(store.noteCalls.update).toBe(0);
  });

  it('the media types: merge-patch+json and json are taken, json-patch+json and others are 415 with Accept-Patch', async () => {
    expect((await patch({ title: 'a' }, { 'content-type': 'application/json' })).response.status).toBe(200);
    expect((await patch({ title: 'a' }, { 'content-type': 'application/merge-patch+json; charset=utf-8' })).response.status).toBe(200);
    for (const type of ['application/json-patch+json', 'text/plain', 'application/x-www-form-urlencoded']) {
      expectProblem((await patch([{ op: 'remove', path: '/title' }], { 'content-type': type })).response, {
        status: 415,
        code: 'RC_UNSUPPORTED_MEDIA_TYPE',
        headers: { 'accept-patch': 'application/merge-patch+json, application/json' },
      });
    }
  });
});

describe('merge patch: the schema the merged item must pass', () => {
  interface Row {
    id: string;
    name: string;
    size: number;
    secret: string;
  }
  const rows = (): Map<string, Row> => new Map([['r', { id: 'r', name: 'first', size: 1, secret: 's' }]]);
  const Item = z.object({ id: z.string(), name: z.string(), size: z.number() });
  const Body = z.object({ name: z.string(), size: z.number().max(10) });
  const Own = z.object({ name: z.string().max(3) });

  async function send(definition: Record<string, unknown>, patch: unknown): Promise<{ response: ApiResponse; received: unknown[]; loaded: unknown[] }> {
    const store = rows();
    const received: unknown[] = [];
    const loaded: unknown[] = [];
    const handle = (ctx: { body: unknown; item: unknown }) => {
      received.push(ctx.body);
      loaded.push(ctx.item);
      return { ...(ctx.item as Row), ...(ctx.body as object) };
    };
    const update = 'own' in definition ? { merge: true, body: definition.own, handle } : { merge: true, handle };
    const { own: _own, ...rest } = definition;
    const rowsCollection = collection('rows', { ...rest, read: (ctx: { params: { id: string } }) => store.get(ctx.params.id), update } as never);
    const response = await createApi({ resources: [rowsCollection] }).handle({ method: 'PATCH', url: '/rows/r', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(patch) });
    return { response, received, loaded };
  }

  it("update's own body wins over the collection's body and item", async () => {
    const { response, received } = await send({ own: Own, body: Body, item: Item }, { name: 'abc' });
    expect(response.status).toBe(200);
    expect(received).toEqual([{ name: 'abc' }]);
    expectProblem((await send({ own: Own, body: Body, item: Item }, { name: 'abcd' })).response, { status: 400, code: 'RC_INVALID_INPUT' });
  });

  it("without its own, the collection's body", async () => {
    const { received, loaded } = await send({ body: Body, item: Item }, { size: 5 });
    expect(received).toEqual([{ name: 'first', size: 5 }]);
    expect(loaded).toEqual([{ id: 'r', name: 'first', size: 1, secret: 's' }]);
    expectProblem((await send({ body: Body, item: Item }, { size: 11 })).response, { status: 400, code: 'RC_INVALID_INPUT' });
  });

  it("never the item: the item's fields the schema does not declare are dropped before it checks, so a strict schema takes the merged item", async () => {
    const Strict = z.strictObject({ name: z.string(), size: z.number() });
    const { response, received } = await send({ body: Strict, item: Item }, { size: 5 });
    expect(response.status).toBe(200);
    expect(received).toEqual([{ name: 'first', size: 5 }]);
    // What the patch sets beyond the schema is dropped as well.
    expect((await send({ body: Strict, item: Item }, { id: 'other', secret: 'mine', size: 6 })).received).toEqual([{ name: 'first', size: 6 }]);
    const problem = expectProblem((await send({ body: Strict, item: Item }, { name: null })).response, { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem.errors).toEqual([expect.objectContaining({ in: 'body', pointer: '#/name' })]);
  });

  it('a missing item is 404 before the patch is looked at', async () => {
    const rowsCollection = collection('rows', { body: Body, read: () => undefined, update: { merge: true, handle: () => ({ id: 'r', name: 'x', size: 1 }) } });
    const response = await createApi({ resources: [rowsCollection] }).handle({ method: 'PATCH', url: '/rows/r', headers: { 'content-type': 'application/json' }, body: '{"name":null}' });
    expectProblem(response, { status: 404, code: 'RC_NOT_FOUND' });
  });
});
