/**
 * Response schemas: `response` on an endpoint, `item` on a collection, and the JSON serializers
 * `serializerCompiler` compiles from them (here with fast-json-stringify, as Fastify does).
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import fastJson from 'fast-json-stringify';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, createEndpointHandler, endpoint, text, type Api, type ApiOptions } from '../../src/index.js';
import { createOpenApiDocument } from '../../src/openapi/index.js';

const User = z.object({ id: z.number().int(), name: z.string() });
/** What the store holds: more than a client may see. */
const STORED = [
  { id: 1, name: 'Ada', passwordHash: 'x1' },
  { id: 2, name: 'Grace', passwordHash: 'x2' },
];
const JSON_TYPE = 'application/json; charset=utf-8';

const compiler: NonNullable<ApiOptions['serializerCompiler']> = fastJson;

function usersApi(options: Partial<ApiOptions> = {}, compiles = true): Api {
  const users = collection('users', {
    id: z.coerce.number(),
    body: z.object({ name: z.string() }),
    item: User,
    list: () => STORED,
    read: (ctx) => STORED.find((user) => user.id === ctx.params.id),
    create: (ctx) => ({ id: 3, passwordHash: 'x3', ...ctx.body }),
  });
  return createApi({ ...(compiles ? { serializerCompiler: compiler } : {}), resources: [users], ...options });
}

const get = (api: Api, url: string, headers: Record<string, string> = {}) => api.handle({ method: 'GET', url, headers });

describe('a collection item schema with a serializer compiler', () => {
  it('writes read and create with the compiled serializer: fields the item does not declare stay out', async () => {
    const api = usersApi();
    const read = await get(api, '/users/1');
    expect(read).toMatchObject({ status: 200, headers: { 'content-type': JSON_TYPE }, payload: '{"id":1,"name":"Ada"}' });
    const created = await api.handle({ method: 'POST', url: '/users', headers: { 'content-type': 'application/json' }, body: '{"name":"Lin"}' });
    expect(created).toMatchObject({ status: 201, headers: { location: '/users/3', 'content-type': JSON_TYPE }, payload: '{"id":3,"name":"Lin"}' });
  });

  it('writes a list as an array of items', async () => {
    expect((await get(usersApi(), '/users')).payload).toBe('[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]');
  });

  it('gives the compiler the draft-07 JSON Schema of the item, once for each endpoint, list included', () => {
    const seen: Record<string, unknown>[] = [];
    usersApi({ serializerCompiler: (schema) => (seen.push(schema), fastJson(schema)) });
    expect(seen).toHaveLength(3);
    for (const schema of seen) {
      expect(schema).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: ['id', 'name'] });
    }
  });

  it('a list whose handler returns no array is a masked 500, not a body the schema does not describe', async () => {
    const errors: unknown[] = [];
    // @ts-expect-error: list should return an array of items (the type check says so too)
    const users = collection('users', { item: User, list: () => ({ id: 1, name: 'Ada', passwordHash: 'x1' }) });
    const api = createApi({ serializerCompiler: compiler, resources: [users], onError: (error) => errors.push(error) });
    const response = await get(api, '/users');
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.body).toMatchObject({ title: 'Internal Server Error', status: 500 });
    expect(String(response.payload)).not.toContain('x1');
    expect(String(errors[0])).toBe('TypeError: The result of GET /users is not the array its item schema needs');
  });

  it('without a compiler, JSON.stringify writes the result cut down to the item schema', async () => {
    const read = await get(usersApi({}, false), '/users/1');
    expect(read.payload).toBe('{"id":1,"name":"Ada"}');
    expect(STORED[0]!.passwordHash).toBe('x1');
  });

  it('an operation’s own response replaces the item (a list in an envelope)', async () => {
    const users = collection('users', {
      item: User,
      list: { response: z.object({ items: z.array(User), total: z.number() }), handle: () => ({ items: STORED, total: 2, cursor: 'c' }) },
    });
    const api = createApi({ serializerCompiler: compiler, resources: [users] });
    expect((await get(api, '/users')).payload).toBe('{"items":[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}],"total":2}');
  });

  it('HEAD answers without a body, and other formats use their own serializer', async () => {
    const api = usersApi({ formats: [{ ...text, type: 'application/json', contentType: JSON_TYPE }, text] });
    const head = await api.handle({ method: 'HEAD', url: '/users/1' });
    expect(head).toMatchObject({ status: 200, headers: { 'content-type': JSON_TYPE }, body: undefined, payload: undefined });
    const plain = await get(api, '/users/1', { accept: 'text/plain' });
    // Another format writes the same projected result: what the schema hides stays hidden.
    expect(plain).toMatchObject({ status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, payload: '{"id":1,"name":"Ada"}' });
  });
});

describe('an endpoint response schema with a serializer compiler', () => {
  it('writes the endpoint with the compiled serializer, also through createEndpointHandler', async () => {
    const readMe = endpoint('GET', '/me', { response: User, handle: () => STORED[0] });
    const api = createApi({ serializerCompiler: compiler, endpoints: [readMe] });
    expect((await get(api, '/me')).payload).toBe('{"id":1,"name":"Ada"}');
    const handler = createEndpointHandler(readMe, { serializerCompiler: compiler });
    expect((await handler({ method: 'GET', url: '/me' }, {})).payload).toBe('{"id":1,"name":"Ada"}');
  });

  it('a result the compiled serializer refuses is a masked 500 that onError sees', async () => {
    const errors: unknown[] = [];
    // @ts-expect-error: a string id is not what the response schema accepts (the type check fails too, on purpose)
    const readBroken = endpoint('GET', '/broken', { response: User, handle: () => ({ id: 'db-password=hunter2', name: 'Ada' }) });
    const api = createApi({ serializerCompiler: compiler, endpoints: [readBroken], onError: (error) => errors.push(error) });
    const response = await get(api, '/broken');
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.body).toMatchObject({ title: 'Internal Server Error', status: 500 });
    expect(String(response.payload)).not.toContain('hunter2');
    expect(errors).toHaveLength(1);
  });

  it('valibot (through toStandardJsonSchema) and arktype schemas are compiled too', async () => {
    const valibotUser = toStandardJsonSchema(v.object({ id: v.number(), name: v.string() }));
    const arktypeUser = type({ id: 'number', name: 'string' });
    const api = createApi({
      serializerCompiler: compiler,
      endpoints: [
        endpoint('GET', '/valibot', { response: valibotUser, handle: () => STORED[0] }),
        endpoint('GET', '/arktype', { response: arktypeUser, handle: () => STORED[1] }),
      ],
    });
    expect((await get(api, '/valibot')).payload).toBe('{"id":1,"name":"Ada"}');
    expect((await get(api, '/arktype')).payload).toBe('{"id":2,"name":"Grace"}');
  });

  it('a schema without a JSON Schema (a custom type) keeps JSON.stringify; a recursive item is compiled, in a list too', async () => {
    const compiled: unknown[] = [];
    interface Node {
      name: string;
      children: Node[];
    }
    const Tree: z.ZodType<Node> = z.object({
      name: z.string(),
      get children() {
        return z.array(Tree);
      },
    });
    const tree = { name: 'a', children: [{ name: 'b', children: [], extra: 2 }], extra: 1 };
    const trees = collection('trees', { item: Tree, list: () => [tree, tree], read: () => tree });
    const api = createApi({
      serializerCompiler: (schema) => (compiled.push(schema.$schema), fastJson(schema)),
      resources: [trees],
      endpoints: [endpoint('GET', '/clock', { response: z.custom<{ at: number }>(() => true), handle: () => ({ at: 1, extra: 2 }) })],
    });
    // The trees' list and read; the clock's custom schema has no JSON Schema.
    expect(compiled).toEqual(['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema#']);
    expect((await get(api, '/clock')).payload).toBe('{"at":1,"extra":2}');
    const written = '{"name":"a","children":[{"name":"b","children":[]}]}';
    expect((await get(api, '/trees/1')).payload).toBe(written);
    expect((await get(api, '/trees')).payload).toBe(`[${written},${written}]`);
  });
});

describe('response schemas are checked when declared', () => {
  it('endpoint() and collection() refuse a response that is not a Standard Schema', () => {
    const jsonSchema = { type: 'object' } as never;
    expect(() => endpoint('GET', '/me', { response: jsonSchema, handle: () => 1 as never })).toThrow('endpoint(GET /me): "response" must be a Standard Schema, such as a zod schema');
    expect(() => collection('users', { item: jsonSchema, read: () => 1 as never })).toThrow('collection("users"): "item" must be a Standard Schema, such as a zod schema');
    expect(() => collection('users', { list: { response: jsonSchema, handle: () => [] } })).toThrow('collection("users"): the "response" of "list" must be a Standard Schema');
  });

  it('createApi names the endpoint whose serializer failed to compile', () => {
    const readMe = endpoint('GET', '/me', { response: User, handle: () => STORED[0] });
    const failing = () => {
      throw new Error('unsupported keyword');
    };
    expect(() => createApi({ serializerCompiler: failing, endpoints: [readMe] })).toThrow('createApi: serializerCompiler failed for GET /me: unsupported keyword');
  });
});

describe('response schemas in the OpenAPI document', () => {
  it('documents the success body of each operation: an item, or an array of items for list', () => {
    const document = createOpenApiDocument(usersApi(), { info: { title: 'Users', version: '1' } });
    const item = { type: 'object', properties: { id: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }, name: { type: 'string' } }, required: ['id', 'name'] };
    const user = { $ref: '#/components/schemas/User' };
    expect(document.components.schemas.User).toEqual(item);
    expect(document.paths['/users/{id}']!.get!.responses['200']).toEqual({ description: 'OK: the item', content: { 'application/json': { schema: user } } });
    expect(document.paths['/users']!.get!.responses['200']).toEqual({ description: 'OK: the items', content: { 'application/json': { schema: { type: 'array', items: user } } } });
    expect(document.paths['/users']!.post!.responses['201']!.content).toEqual({ 'application/json': { schema: user } });
  });
});
