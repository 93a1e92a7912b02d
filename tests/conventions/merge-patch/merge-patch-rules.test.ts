/**
 * JSON Merge Patch (RFC 7396) as a user of restcanon sees it: what `mergePatch` gives back, the
 * answers of an update with `merge: true` through `api.handle`, and the mistakes refused when the
 * API is built, on a collection and on an endpoint of one's own (`restcanon/engine`). Each case
 * names the rule it pins.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint, mergePatch, type StandardSchema } from '../../../src/index.js';
import { createApi as createEngineApi, defineEndpoint, mergePatch as mergePatchConvention } from '../../../src/engine.js';
import { expectProblem } from '../../helpers/problem.js';

/** A Standard Schema that validates, and says nothing of its JSON Schema. */
const opaque: StandardSchema = { '~standard': { version: 1, vendor: 'opaque', validate: (value: unknown) => ({ value }) } };

describe('mergePatch gives plain data (RFC 7396 §2: the result is a JSON document)', () => {
  it('every member of the result, at every depth, is writable, enumerable and deletable, as JSON.parse makes them', () => {
    const merged = mergePatch({ a: 'b', c: { d: 'e' } }, { a: 'z', c: { f: 'g' }, h: 'i' }) as Record<string, Record<string, unknown>>;
    const parsed = JSON.parse('{"a":"z","c":{"d":"e","f":"g"},"h":"i"}') as Record<string, Record<string, unknown>>;
    expect(Object.getOwnPropertyDescriptors(merged)).toEqual(Object.getOwnPropertyDescriptors(parsed));
    expect(Object.getOwnPropertyDescriptors(merged.c)).toEqual(Object.getOwnPropertyDescriptors(parsed.c));
    merged.c!.f = 'changed';
    delete merged.c!.d;
    expect(merged.c).toEqual({ f: 'changed' });
  });

  it('a result merged again takes the second patch: set, removed and nested alike', () => {
    const once = mergePatch({ a: 1 }, { b: { c: 2 }, d: 3 });
    expect(mergePatch(once, { a: null, b: { c: null, e: 4 }, d: 5 })).toEqual({ b: { e: 4 }, d: 5 });
  });
});

describe('an update with merge: true through api.handle (docs/resources.md)', () => {
  const articles = () =>
    createApi({
      resources: [
        collection('articles', {
          id: z.coerce.number().int(),
          body: z.object({ title: z.string() }),
          read: () => ({ id: 1, title: 'Draft' }),
          update: { merge: true, handle: (ctx) => ({ id: 1, ...ctx.body }) },
        }),
      ],
    });

  it('a PATCH without a body is a 400 that says a merge patch is needed', async () => {
    const response = await articles().handle({ method: 'PATCH', url: '/articles/1', headers: { 'content-type': 'application/merge-patch+json' }, body: '' });
    expectProblem(response, { status: 400, code: 'RC_MALFORMED_BODY', detail: 'The request needs a body: a JSON merge patch of the item', exact: true });
  });

  it('a patch is applied to the loaded item and the merged item answered', async () => {
    const response = await articles().handle({ method: 'PATCH', url: '/articles/1', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"title":"Final"}' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: 1, title: 'Final' });
  });
});

describe('a merge patch that cannot work is refused when the API is built', () => {
  it('a body schema without a JSON Schema names nothing a client may write', () => {
    const rows = collection('rows', { body: opaque, read: () => ({ id: 'r' }), update: { merge: true, handle: (ctx) => ctx.body } });
    expect(() => createApi({ resources: [rows] })).toThrow(
      new TypeError('PATCH /rows/:id: "update" with "merge" needs a body schema with a JSON Schema, to name what a client may write (valibot: toStandardJsonSchema())'),
    );
  });

  it('an endpoint of one\'s own that asks for a merge patch and loads no item (restcanon/engine)', () => {
    const patchProfile = defineEndpoint({ ...endpoint('PATCH', '/profile', { body: 'unvalidated', handle: (ctx) => ctx.body }), conventions: { mergePatch: { schema: z.object({ name: z.string() }) } } });
    expect(() => createEngineApi({ endpoints: [patchProfile], use: [mergePatchConvention] })).toThrow(
      new TypeError('PATCH /profile: a merge patch is applied to the item the URL names, which it does not load'),
    );
  });
});

describe('the merge patch step declares the 400 it answers (docs/extending.md: a step\'s outcomes)', () => {
  it('an endpoint whose body is ignored, so that only the merge can answer 400, lists badRequest among its outcomes', async () => {
    const profile = { name: 'Ada' };
    const patchProfile = defineEndpoint({
      ...endpoint('PATCH', '/profile', { body: 'ignored', handle: (ctx) => ctx.body }),
      current: { load: () => profile, isHandler: false, answersItem: false },
      conventions: { mergePatch: { schema: z.object({ name: z.string() }) } },
    });
    const api = createEngineApi({ endpoints: [patchProfile], use: [mergePatchConvention], timeout: false });
    expect(api.routes.find((route) => route.path === '/profile')!.outcomes).toEqual(['update', 'badRequest', 'notFound', 'notAcceptable', 'internalError']);
    expectProblem(await api.handle({ method: 'PATCH', url: '/profile', headers: { 'content-type': 'application/json' }, body: '{"name":"Grace"}' }), { status: 400, code: 'RC_MALFORMED_BODY' });
  });
});
