/**
 * Mistakes in a definition throw where it is declared, with a sentence that names the mistake and
 * the fix, rather than answering every request with a 400 or a 500 later.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint } from '../../src/index.js';

describe('params schemas and the path', () => {
  it('a params key the path does not have throws: endpoint(GET /widgets/:id) with params z.object({ wid })', () => {
    expect(() => endpoint('GET', '/widgets/:id', { params: z.object({ wid: z.string() }), handle: () => ({}) })).toThrow(
      'endpoint(GET /widgets/:id): the params schema requires "wid", which is not a param of the path, so every request would be a 400; rename it to a param of the path (:id), or add ":wid" to the path',
    );
  });

  it('reads the keys of any library that describes its schema as JSON Schema: valibot and arktype alike', () => {
    expect(() => endpoint('GET', '/widgets/:id', { params: toStandardJsonSchema(v.object({ wid: v.string() })), handle: () => ({}) })).toThrow(/requires "wid", which is not a param of the path/);
    expect(() => endpoint('GET', '/widgets/:id', { params: type({ wid: 'string' }), handle: () => ({}) })).toThrow(/requires "wid", which is not a param of the path/);
  });

  it('a schema per param throws for a name the path does not have', () => {
    expect(() => endpoint('GET', '/widgets/:id', { params: { wid: z.coerce.number() }, handle: () => ({}) })).toThrow(
      'endpoint(GET /widgets/:id): "params" has a schema for "wid", which is not a param of the path; rename it to a param of the path (:id), or add ":wid" to the path',
    );
  });

  it('a strict schema that lacks a param of the path throws: every request carries it', () => {
    expect(() => endpoint('GET', '/shops/:shopId/widgets/:id', { params: z.strictObject({ id: z.string() }), handle: () => ({}) })).toThrow(
      'endpoint(GET /shops/:shopId/widgets/:id): the params schema is strict and lacks "shopId", a param of the path, so every request would be a 400; add shopId to it, or let it take other keys',
    );
    expect(() => endpoint('GET', '/shops/:shopId/widgets/:id', { params: type({ '+': 'reject', id: 'string' }), handle: () => ({}) })).toThrow(/is strict and lacks "shopId"/);
  });

  it('says nothing where the keys cannot be known, or cannot go wrong', async () => {
    // No JSON Schema to read (valibot without toStandardJsonSchema), a union, a record: nothing is known.
    expect(() => endpoint('GET', '/widgets/:id', { params: v.object({ wid: v.string() }), handle: () => ({}) })).not.toThrow();
    expect(() => endpoint('GET', '/widgets/:id', { params: z.union([z.object({ id: z.string() }), z.object({ wid: z.string() })]), handle: () => ({}) })).not.toThrow();
    expect(() => endpoint('GET', '/widgets/:id', { params: z.record(z.string(), z.string()), handle: () => ({}) })).not.toThrow();
    // An optional key (a schema shared with a longer path) and a schema that leaves a param out and strips it.
    expect(() => endpoint('GET', '/articles/:slug', { params: z.object({ slug: z.string(), id: z.coerce.number().optional() }), handle: () => ({}) })).not.toThrow();
    const loose = endpoint('GET', '/shops/:shopId/widgets/:id', { params: z.object({ id: z.coerce.number() }), handle: (ctx) => ctx.params });
    expect((await createApi({ endpoints: [loose] }).handle({ method: 'GET', url: '/shops/s/widgets/7' })).body).toEqual({ id: 7 });
  });
});

describe('authorize on an endpoint or a collection', () => {
  it('an endpoint or a collection whose authorize is not a function throws', () => {
    expect(() => endpoint('GET', '/reports', { authorize: true as never, handle: () => [] })).toThrow('endpoint(GET /reports): "authorize" must be a function (ctx) => true to let the caller go on, got boolean true');
    expect(() => collection('reports', { authorize: 'admin' as never, list: () => [] })).toThrow(/collection\("reports"\): "authorize" must be a function/);
    expect(() => collection('reports', { list: { authorize: {} as never, handle: () => [] } })).toThrow(/collection\("reports"\): the "authorize" of "list" must be a function/);
  });
});

describe('messages name what the user called', () => {
  it('endpoint() names endpoint(...), never defineEndpoint', () => {
    const mistakes = [
      () => endpoint('POST', '/exports', { outcomes: ['conflict' as never], handle: () => ({}) }),
      () => endpoint('POST', '/exports', { errors: { ok: 'x' } as never, handle: () => ({}) }),
    ];
    for (const mistake of mistakes) {
      expect(mistake).toThrow(/^endpoint\(POST \/exports\): /);
      expect(mistake).not.toThrow(/defineEndpoint/);
    }
  });

  it('a collection names the collection and the operation', () => {
    expect(() => collection('notes', { remove: { outcomes: ['conflict' as never], handle: () => true } })).toThrow(/^the "remove" of collection\("notes"\): "outcomes" takes success outcomes/);
  });
});

describe('a body on a method whose body is never read', () => {
  it.each(['GET', 'HEAD', 'DELETE', 'OPTIONS'] as const)('endpoint(%s /reports) with a body schema throws: every request would be a 400 "The request needs a body"', (method) => {
    expect(() => endpoint(method, '/reports', { body: z.object({ since: z.string() }), handle: () => ({}) })).toThrow(
      `endpoint(${method} /reports): "body" is for POST, PUT and PATCH; the body of a ${method} is never read (a schema would answer every request 400), so drop "body"`,
    );
  });

  it("'unvalidated' and 'ignored' on a GET throw too: ctx.body would always be undefined", () => {
    for (const body of ['unvalidated', 'ignored'] as const) {
      expect(() => endpoint('GET', '/reports', { body, handle: () => ({}) })).toThrow(/^endpoint\(GET \/reports\): "body" is for POST, PUT and PATCH/);
    }
  });

  it('a POST, PUT or PATCH still takes every body option', () => {
    for (const method of ['POST', 'PUT', 'PATCH'] as const) {
      for (const body of [z.object({ since: z.string() }), 'unvalidated', 'ignored'] as const) expect(() => endpoint(method, '/reports', { body, handle: () => ({}) })).not.toThrow();
    }
  });
});

describe('location on an endpoint that never answers create', () => {
  it('endpoint(POST /searches) with location and neither operation create nor outcomes [create] throws: the location would never be sent', () => {
    expect(() => endpoint('POST', '/searches', { body: 'unvalidated', location: () => '/searches/1', handle: () => ({}) })).toThrow(
      'endpoint(POST /searches): "location" names what a create made, and this endpoint answers submit; declare operation: \'create\', or outcomes: [\'create\'] to choose it with ctx.outcome',
    );
  });

  it('an endpoint that may choose create takes location', () => {
    expect(() => endpoint('POST', '/searches', { body: 'unvalidated', outcomes: ['create'], location: () => '/searches/1', handle: () => ({}) })).not.toThrow();
  });
});

describe('consumes on an endpoint that reads no body', () => {
  it("endpoint(POST /imports) with consumes ['text/csv'] and no body, or body: 'ignored', throws: the media types of a body it never reads", () => {
    for (const config of [{}, { body: 'ignored' as const }]) {
      expect(() => endpoint('POST', '/imports', { ...config, consumes: ['text/csv'], handle: () => ({}) })).toThrow(
        'endpoint(POST /imports): "consumes" names the media types of the body it reads, and it reads none; give "body" a schema or \'unvalidated\', or drop "consumes"',
      );
    }
    expect(() => endpoint('GET', '/imports', { consumes: ['text/csv'], handle: () => ({}) })).toThrow(/^endpoint\(GET \/imports\): "consumes" names the media types/);
    expect(() => endpoint('POST', '/imports', { body: 'unvalidated', consumes: ['text/csv'], handle: () => ({}) })).not.toThrow();
  });
});
