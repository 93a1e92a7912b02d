import { Validator } from '@seriousme/openapi-schema-validator';
import { toJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenApiDocument, type JsonSchema, type OpenApiDocument, type OpenApiOptions } from '../../src/openapi/document.js';
import { openApi } from '../../src/openapi/index.js';
import { collection, createApi, createStatusPolicy, endpoint, json, text, type Api, type ApiOptions, type StandardSchema } from '../../src/index.js';
import { xml } from '../../src/formats/xml.js';

const info = { title: 'Test API', version: '1.0.0' };
const validator = new Validator();

/** The document of an API, after the real OpenAPI 3.1 validator (schema and references) accepted it. */
async function documentOf(api: Api, options: Partial<OpenApiOptions> = {}): Promise<OpenApiDocument> {
  const document = createOpenApiDocument(api, { info, ...options });
  const result = await validator.validate(structuredClone(document) as never);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
  return document;
}

type Verb = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';
const operationOf = (document: OpenApiDocument, path: string, verb: Verb) => {
  const operation = document.paths[path]?.[verb];
  if (operation === undefined) throw new Error(`${verb.toUpperCase()} ${path} is not in the document`);
  return operation;
};
const statusesOf = (document: OpenApiDocument, path: string, verb: Verb) => Object.keys(operationOf(document, path, verb).responses).map(Number);
/** A schema with its `$ref` followed, as a reader of the document does. */
const resolve = (document: OpenApiDocument, schema: unknown): Record<string, unknown> => {
  const ref = (schema as { $ref?: string }).$ref;
  return ref === undefined ? (schema as Record<string, unknown>) : resolve(document, document.components.schemas[ref.slice('#/components/schemas/'.length)]);
};
/** The schema of the request body of an operation, in one media type, with its `$ref` followed. */
const bodyOf = (document: OpenApiDocument, path: string, verb: Verb, type = 'application/json') =>
  resolve(document, (operationOf(document, path, verb).requestBody as { content: Record<string, { schema: unknown }> }).content[type]!.schema);

const UserId = z.coerce.number().int().positive();
const NewUser = z.object({ name: z.string().min(1), email: z.email() });

/** A users collection with all six operations and nested orders, over an empty store. */
function usersAndOrders(extra: { owner?: (item: any, principal: any) => boolean } = {}) {
  const users = collection('users', {
    id: UserId,
    body: NewUser,
    patch: NewUser.partial(),
    query: z.object({ page: z.coerce.number().int().min(1).optional(), sort: z.enum(['name', 'email']) }),
    ...extra,
    list: () => [],
    read: { summary: 'Read one user', handle: () => undefined },
    create: (ctx) => ({ id: 1, ...ctx.body }),
    replace: () => undefined,
    update: () => undefined,
    remove: () => undefined,
  });
  users.collection('orders', { id: z.coerce.number().int(), body: z.object({ item: z.string() }), list: () => [], read: () => undefined, create: () => ({ id: 1 }) });
  return users;
}

function apiOf(options: ApiOptions = {}, extra: Parameters<typeof usersAndOrders>[0] = {}): Api {
  // Without a deadline, so that 503 shows only where a test asks for it.
  return createApi({ resources: [usersAndOrders(extra)], onError: () => {}, timeout: false, ...options });
}

describe('paths and operations', () => {
  it('turns every template into an OpenAPI path below the basePath, the server, that lists what it allows', async () => {
    const document = await documentOf(apiOf({ basePath: '/api/v1' }));
    expect(document.servers).toEqual([{ url: '/api/v1' }]);
    expect(Object.keys(document.paths)).toEqual(['/users', '/users/{id}', '/users/{userId}/orders', '/users/{userId}/orders/{id}']);
    expect(document.paths['/users/{id}']!['x-allow']).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    expect(document.paths['/users']!.description).toBe('Allow: GET, HEAD, POST, OPTIONS. Any other method answers 405 Method Not Allowed with this Allow header.');
    expect(Object.keys(document.paths['/users/{userId}/orders/{id}']!)).toEqual(['description', 'x-allow', 'get', 'head', 'options']);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toEqual(info);
  });

  it('the x-allow of each path is the Allow header a wrong method gets', async () => {
    const api = apiOf();
    const document = await documentOf(api);
    const wrong = await api.handle({ method: 'POST', url: '/users/1' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe(document.paths['/users/{id}']!['x-allow']);
  });

  it('derives stable, unique operationIds from the operation and the path', async () => {
    const api = createApi({
      resources: [usersAndOrders(), collection('categories', { read: () => undefined })],
      endpoints: [
        endpoint('POST', '/searches', { handle: () => undefined }),
        endpoint('GET', '/status', { handle: () => ({}) }),
        endpoint('GET', '/user/:id', { handle: () => ({}) }),
        endpoint('GET', '/', { handle: () => ({}) }),
        endpoint('POST', '/gift-cards', { operation: 'create', handle: () => ({ id: 1 }) }),
      ],
    });
    const document = await documentOf(api);
    const ids = Object.fromEntries(
      Object.entries(document.paths).flatMap(([path, item]) => (['get', 'post', 'put', 'patch', 'delete'] as const).flatMap((verb) => (item[verb] ? [[`${verb} ${path}`, item[verb]!.operationId]] : []))),
    );
    expect(ids).toEqual({
      'post /searches': 'submitSearch',
      'get /status': 'readStatus',
      'get /user/{id}': 'readUser',
      'get /': 'readRoot',
      'post /gift-cards': 'createGiftCard',
      'get /users': 'listUsers',
      'post /users': 'createUser',
      'get /users/{id}': 'readUser2',
      'put /users/{id}': 'replaceUser',
      'patch /users/{id}': 'updateUser',
      'delete /users/{id}': 'removeUser',
      'get /users/{userId}/orders': 'listUserOrders',
      'post /users/{userId}/orders': 'createUserOrder',
      'get /users/{userId}/orders/{id}': 'readUserOrder',
      'get /categories/{id}': 'readCategory',
    });
    expect(new Set(Object.values(ids)).size).toBe(Object.values(ids).length);
  });

  it('takes the summary from the definition and the tag from the first static segment', async () => {
    const document = await documentOf(apiOf({ basePath: '/api' }));
    expect(operationOf(document, '/users/{id}', 'get').summary).toBe('Read one user');
    expect(operationOf(document, '/users', 'get').summary).toBe('List users');
    expect(operationOf(document, '/users/{userId}/orders/{id}', 'get').tags).toEqual(['users']);
  });

  it('passes servers through', async () => {
    const document = await documentOf(apiOf(), { servers: [{ url: 'https://shop.example', description: 'production' }] });
    expect(document.servers).toEqual([{ url: 'https://shop.example', description: 'production' }]);
  });
});

describe('parameters and bodies from the Standard Schemas', () => {
  it('zod: path params per param, every query property a parameter, the body for each consumed type', async () => {
    const document = await documentOf(apiOf());
    expect(operationOf(document, '/users/{userId}/orders/{id}', 'get').parameters).toEqual([
      { name: 'userId', in: 'path', required: true, schema: { type: 'integer', exclusiveMinimum: 0, maximum: Number.MAX_SAFE_INTEGER } },
      { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } },
    ]);
    expect(operationOf(document, '/users', 'get').parameters).toEqual([
      { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
      { name: 'sort', in: 'query', required: true, schema: { type: 'string', enum: ['name', 'email'] } },
    ]);
    const { $schema: _dialect, ...userSchema } = z.toJSONSchema(NewUser, { io: 'input' });
    expect(operationOf(document, '/users', 'post').requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/UserBody' } } } });
    expect(document.components.schemas.UserBody).toEqual(userSchema);
    expect(bodyOf(document, '/users/{id}', 'patch')).toMatchObject({ type: 'object' });
  });

  it('one object schema for all path params, headers as parameters (without the ones OpenAPI reserves), several media types', async () => {
    const api = createApi({
      endpoints: [
        endpoint('POST', '/users/:userId/notes/:id', {
          params: z.object({ userId: z.coerce.number(), id: z.uuid() }),
          headers: z.object({ 'x-request-id': z.string(), 'content-type': z.string(), accept: z.string().optional() }),
          consumes: ['application/json', 'text/plain'],
          body: z.string().max(500),
          handle: () => ({}),
        }),
      ],
    });
    const document = await documentOf(api);
    const operation = operationOf(document, '/users/{userId}/notes/{id}', 'post');
    expect(operation.parameters).toEqual([
      { name: 'userId', in: 'path', required: true, schema: { type: 'number' } },
      { name: 'id', in: 'path', required: true, schema: expect.objectContaining({ type: 'string', format: 'uuid' }) },
      { name: 'x-request-id', in: 'header', required: true, schema: { type: 'string' } },
    ]);
    expect(operation.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NoteBody' } }, 'text/plain': { schema: { $ref: '#/components/schemas/NoteBody' } } },
    });
    expect(document.components.schemas.NoteBody).toEqual({ type: 'string', maxLength: 500 });
  });

  it('arktype: its Standard JSON Schema', async () => {
    const api = createApi({ endpoints: [endpoint('POST', '/notes', { body: type({ text: 'string > 0', 'tags?': 'string[]' }), handle: () => ({}) })] });
    expect(bodyOf(await documentOf(api), '/notes', 'post')).toEqual({ type: 'object', properties: { text: { type: 'string', minLength: 1 }, tags: { type: 'array', items: { type: 'string' } } }, required: ['text'] });
  });

  const valibotApi = () =>
    createApi({
      endpoints: [
        endpoint('GET', '/notes', { query: v.object({ q: v.pipe(v.string(), v.minLength(2)) }), operation: 'list', handle: () => [] }),
        endpoint('POST', '/notes', { body: v.object({ text: v.string() }), handle: () => ({}) }),
      ],
    });
  const bodySchema = (document: OpenApiDocument) => bodyOf(document, '/notes', 'post');

  it('valibot: through the toJsonSchema converter option', async () => {
    const document = await documentOf(valibotApi(), {
      toJsonSchema: (schema) => (schema['~standard'].vendor === 'valibot' ? (toJsonSchema(schema as never, { target: 'draft-2020-12' }) as Record<string, unknown>) : undefined),
    });
    expect(bodySchema(document)).toEqual({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(operationOf(document, '/notes', 'get').parameters).toEqual([{ name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 2 } }]);
  });

  it('a schema without JSON Schema is permissive, with a note, and never throws', async () => {
    const document = await documentOf(valibotApi());
    expect(bodySchema(document)).toEqual({ description: 'No JSON Schema could be derived from this valibot schema; the server still validates it.' });
    // A query that cannot be split into named parameters stays one free-form object.
    expect(operationOf(document, '/notes', 'get').parameters).toEqual([
      { name: 'query', in: 'query', style: 'form', explode: true, schema: { description: expect.stringMatching(/valibot schema/) } },
    ]);
  });

  it('a zod type JSON Schema cannot express (a Date, a custom check), or a converter that throws, is permissive too', async () => {
    const throwing = () => {
      throw new Error('unsupported');
    };
    const api = createApi({
      endpoints: [
        endpoint('POST', '/events', { body: z.object({ at: z.date() }), handle: () => ({}) }),
        endpoint('PUT', '/events/:id', { params: { id: z.custom<string>(() => true) }, body: z.string().transform(Number), handle: () => ({}) }),
      ],
    });
    const document = await documentOf(api, { toJsonSchema: throwing });
    expect(bodyOf(document, '/events', 'post')).toEqual({ description: expect.stringMatching(/^No JSON Schema could be derived from this zod schema/) });
    expect(operationOf(document, '/events/{id}', 'put').parameters![0]!.schema).toEqual({ description: expect.stringMatching(/zod schema/) });
    // zod describes a transform's input (a string), which is what the client sends.
    expect(bodyOf(document, '/events/{id}', 'put')).toEqual({ type: 'string' });
  });

  it('a recursive schema becomes a component whose references point inside it', async () => {
    interface Folder {
      name: string;
      folders: Folder[];
    }
    const Folder: z.ZodType<Folder> = z.object({ name: z.string(), get folders() { return z.array(Folder); } });
    const Tree = type({ name: 'string', 'next?': 'this' });
    const api = createApi({
      endpoints: [endpoint('POST', '/folders', { body: Folder, handle: () => ({}) }), endpoint('PUT', '/trees/:id', { body: Tree as StandardSchema, handle: () => ({}) })],
    });
    const document = await documentOf(api);
    expect((operationOf(document, '/folders', 'post').requestBody as any).content['application/json'].schema).toEqual({ $ref: '#/components/schemas/FolderBody' });
    expect(document.components.schemas.FolderBody).toMatchObject({ properties: { folders: { items: { $ref: '#/components/schemas/FolderBody' } } } });
    // arktype puts the type in $defs and refers to it: each definition is a component of its own.
    const tree = document.components.schemas.TreeBody as { $ref: string };
    expect(tree).toEqual({ $ref: expect.stringMatching(/^#\/components\/schemas\/TreeBody\.\w+$/) });
    const definition = document.components.schemas[tree.$ref.slice('#/components/schemas/'.length)] as { properties: { next: { $ref: string } } };
    expect(definition.properties.next.$ref).toBe(tree.$ref);
  });

  it('a merge patch lists the members a client may write, none required, null for the optional ones (it was { type: object } with no members)', async () => {
    const Profile = z.object({ name: z.string().min(1), bio: z.string().optional(), note: z.unknown().optional() });
    const profiles = collection('profiles', { body: Profile, read: () => undefined, update: { merge: true, handle: () => undefined } });
    const shapes = collection('shapes', {
      body: z.union([z.object({ radius: z.number() }), z.object({ side: z.number() })]),
      read: () => undefined,
      update: { merge: true, handle: () => undefined },
    });
    const document = await documentOf(createApi({ resources: [profiles, shapes] }));
    const patch = bodyOf(document, '/profiles/{id}', 'patch', 'application/merge-patch+json');
    expect(patch).toEqual({
      type: 'object',
      description: 'A JSON merge patch (RFC 7396) of the item: the members to change, null to remove an optional one. The item it makes must be valid as a whole.',
      properties: { name: { type: 'string', minLength: 1 }, bio: { anyOf: [{ type: 'string' }, { type: 'null' }] }, note: {} },
    });
    expect(bodyOf(document, '/profiles/{id}', 'patch')).toEqual(patch);
    // A union has no members to list: any object.
    expect(bodyOf(document, '/shapes/{id}', 'patch', 'application/merge-patch+json')).toEqual({ type: 'object', description: patch.description });
  });

  it("a POST without a body option takes no body; body: 'unvalidated' takes an optional body of any shape", async () => {
    const api = createApi({
      endpoints: [endpoint('POST', '/pings', { handle: () => undefined }), endpoint('POST', '/imports', { body: 'unvalidated', handle: () => undefined })],
    });
    const document = await documentOf(api);
    expect(operationOf(document, '/pings', 'post').requestBody).toBeUndefined();
    expect(operationOf(document, '/imports', 'post').requestBody).toEqual({ required: false, content: { 'application/json': { schema: {} } } });
  });

  it("body: 'ignored' documents no request body, and none of the answers a body could get (400, 413, 415)", async () => {
    const api = createApi({ timeout: false, endpoints: [endpoint('POST', '/follows', { body: 'ignored', handle: () => ({ following: true }) })] });
    const document = await documentOf(api);
    expect(operationOf(document, '/follows', 'post').requestBody).toBeUndefined();
    expect(statusesOf(document, '/follows', 'post')).toEqual([200, 204, 406, 500]);
  });
});

describe('responses follow the status policy', () => {
  it('each operation lists its success statuses and exactly the errors it can answer', async () => {
    const document = await documentOf(apiOf());
    expect(statusesOf(document, '/users', 'get')).toEqual([200, 400, 406, 500]); // 400: the query schema
    expect(statusesOf(document, '/users', 'post')).toEqual([201, 400, 406, 413, 415, 500]);
    expect(statusesOf(document, '/users/{id}', 'get')).toEqual([200, 400, 404, 406, 500]);
    expect(statusesOf(document, '/users/{id}', 'put')).toEqual([200, 400, 404, 406, 413, 415, 500]);
    expect(statusesOf(document, '/users/{id}', 'patch')).toEqual([200, 400, 404, 406, 413, 415, 500]);
    expect(statusesOf(document, '/users/{id}', 'delete')).toEqual([200, 204, 400, 404, 406, 500]); // 204: remove returned true
    // The nested guard loads the user (404), and would check its owner (403): the document cannot see
    // inside a guard, so it lists both even though users declares no owner here.
    expect(statusesOf(document, '/users/{userId}/orders', 'get')).toEqual([200, 400, 403, 404, 406, 500]);
  });

  it('400 only where something is validated or a body is read; 404 only for items and nested paths', async () => {
    const api = createApi({
      endpoints: [
        endpoint('GET', '/health', { handle: () => ({ ok: true }) }),
        endpoint('GET', '/notes/:id', { handle: () => ({}) }),
        endpoint('POST', '/searches', { handle: () => ({ hits: [] }) }),
      ],
      timeout: false,
    });
    const document = await documentOf(api);
    expect(statusesOf(document, '/health', 'get')).toEqual([200, 406, 500]);
    expect(statusesOf(document, '/notes/{id}', 'get')).toEqual([200, 400, 404, 406, 500]);
    // No body option: a body is refused with a 400, and never read (no 413 or 415).
    expect(statusesOf(document, '/searches', 'post')).toEqual([200, 204, 400, 406, 500]);
    // Without a schema, a path param is still percent-decoded, and a malformed escape is that 400.
    expect((await api.handle({ method: 'GET', url: '/notes/%E0%A4%A' })).status).toBe(400);
    expect((await api.handle({ method: 'GET', url: '/notes/1' })).status).toBe(200);
  });

  it('remove: 204 lists 204 without a body and no 200', async () => {
    const document = await documentOf(apiOf({ policy: createStatusPolicy({ remove: 204 }) }));
    expect(statusesOf(document, '/users/{id}', 'delete')).toEqual([204, 400, 404, 406, 500]);
    expect(operationOf(document, '/users/{id}', 'delete').responses['204']).toEqual({ description: 'No Content: done, nothing to send' });
  });

  it('forbidden: 404 lists no 403, and its 404 says both', async () => {
    const owner = (user: { id: number }, principal: { id: number }) => user.id === principal.id;
    const authenticate = () => ({ id: 1 });
    const plain = await documentOf(apiOf({ authenticate }, { owner }));
    expect(statusesOf(plain, '/users/{id}', 'get')).toEqual([200, 400, 401, 403, 404, 406, 500]);
    const hidden = await documentOf(apiOf({ authenticate, policy: createStatusPolicy({ forbidden: 404 }) }, { owner }));
    expect(statusesOf(hidden, '/users/{id}', 'get')).toEqual([200, 400, 401, 404, 406, 500]);
    expect(operationOf(hidden, '/users/{id}', 'get').responses['404']!.description).toBe('Not Found: the caller may not do this, or the item is not theirs; or no such item, or no such parent item.');
  });

  it("unacceptable: 'json' lists no 406", async () => {
    const document = await documentOf(apiOf({ policy: createStatusPolicy({ unacceptable: 'json' }) }));
    expect(statusesOf(document, '/users', 'get')).toEqual([200, 400, 500]);
  });

  it('a status moved by the policy is listed where it goes', async () => {
    const document = await documentOf(apiOf({ policy: createStatusPolicy({ create: 200, badRequest: 422, internalError: 503 }) }));
    expect(statusesOf(document, '/users', 'post')).toEqual([200, 406, 413, 415, 422, 503]);
    expect(operationOf(document, '/users', 'post').responses['422']!.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/ValidationProblem' } } });
  });

  it('create answers 201 with Location; 413 names the limit; 415 names the accepted types', async () => {
    const document = await documentOf(apiOf({ bodyLimit: 2048 }));
    const created = operationOf(document, '/users', 'post').responses;
    expect(created['201']).toEqual({
      description: 'Created: the new item; Location is its URL',
      content: { 'application/json': {} },
      headers: { Location: { description: 'The URL of the new item.', schema: { type: 'string', format: 'uri-reference' } } },
    });
    expect(created['413']!.description).toBe('Content Too Large: the body is larger than the limit (2048 bytes).');
    expect(created['415']!.headers).toEqual({ 'Accept-Post': { description: 'The media types accepted: application/json', schema: { type: 'string' } } });
    expect(operationOf(document, '/users/{id}', 'patch').responses['415']!.headers).toHaveProperty('Accept-Patch');
    expect(operationOf(document, '/users/{id}', 'put').responses['415']!.headers).toBeUndefined();
  });

  it('every error points to the one Problem schema (400 to ValidationProblem), in problem+json', async () => {
    const document = await documentOf(apiOf());
    const responses = operationOf(document, '/users', 'post').responses;
    expect(responses['400']!.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/ValidationProblem' } } });
    expect(responses['500']!.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    expect(document.components.schemas.Problem).toMatchObject({ required: ['type', 'title', 'status', 'code'] });
    expect(Object.keys((document.components.schemas.Problem as { properties: object }).properties)).toEqual(['type', 'title', 'status', 'code', 'detail', 'instance']);
    expect(document.components.schemas.ValidationProblem).toMatchObject({
      allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { errors: { items: { required: ['in', 'pointer', 'detail'] } } } }],
    });
  });

  it('success content types come from the formats; problem+xml joins when xml is configured', async () => {
    const withXml = await documentOf(apiOf({ formats: [json, xml] }));
    expect(operationOf(withXml, '/users', 'get').responses['200']!.content).toEqual({ 'application/json': {}, 'application/xml': {} });
    expect(Object.keys(operationOf(withXml, '/users', 'get').responses['500']!.content as object)).toEqual(['application/problem+json', 'application/problem+xml']);
    const withText = await documentOf(apiOf({ formats: [json, text] }));
    expect(operationOf(withText, '/users', 'get').responses['200']!.content).toEqual({ 'application/json': {}, 'text/plain': {} });
    expect(Object.keys(operationOf(withText, '/users', 'get').responses['500']!.content as object)).toEqual(['application/problem+json']);
  });

  it('an API with a deadline (30 s unless timeout: false) lists 503, and one with an API-wide authorize lists 403', async () => {
    expect(statusesOf(await documentOf(createApi({ resources: [usersAndOrders()] })), '/users', 'get')).toEqual([200, 400, 406, 500, 503]);
    expect(statusesOf(await documentOf(apiOf({ timeout: 1000 })), '/users', 'get')).toEqual([200, 400, 406, 500, 503]);
    expect(statusesOf(await documentOf(apiOf({ authorize: () => true })), '/users', 'get')).toEqual([200, 400, 403, 406, 500]);
  });
});

describe('authentication and authorization', () => {
  const health = endpoint('GET', '/health', { public: true, handle: () => ({ ok: true }) });
  const authApi = (options: ApiOptions = {}) => apiOf({ endpoints: [health], authenticate: () => undefined, ...options });

  it('Bearer: an http bearer scheme applied globally; public endpoints have security [] and no 401', async () => {
    const document = await documentOf(authApi());
    expect(document.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer', description: '401 answers carry WWW-Authenticate: Bearer realm="api"' } });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(operationOf(document, '/health', 'get').security).toEqual([]);
    // A public endpoint still reads credentials: two of them are a 400.
    expect(statusesOf(document, '/health', 'get')).toEqual([200, 400, 406, 500]);
    expect(operationOf(document, '/users', 'get').security).toBeUndefined();
    expect(operationOf(document, '/users', 'get').responses['401']!.headers).toEqual({ 'WWW-Authenticate': { description: 'How to authenticate: Bearer realm="api"', schema: { type: 'string' } } });
  });

  it('Basic: an http basic scheme', async () => {
    const document = await documentOf(authApi({ challenge: 'Basic realm="shop", charset="UTF-8"' }));
    expect(document.components.securitySchemes).toEqual({ basicAuth: { type: 'http', scheme: 'basic', description: expect.stringContaining('Basic realm="shop"') } });
    expect(document.security).toEqual([{ basicAuth: [] }]);
  });

  it('any other scheme: an apiKey in Authorization that quotes the challenge', async () => {
    const document = await documentOf(authApi({ challenge: 'ApiKey realm="shop"' }));
    expect(document.components.securitySchemes).toEqual({
      apiKeyAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: expect.stringContaining('WWW-Authenticate: ApiKey realm="shop"') },
    });
    expect(document.security).toEqual([{ apiKeyAuth: [] }]);
  });

  it('securitySchemes replaces the derived scheme', async () => {
    const securitySchemes = { shopKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } };
    const document = await documentOf(authApi({ challenge: 'ApiKey realm="shop"' }), { securitySchemes });
    expect(document.components.securitySchemes).toEqual(securitySchemes);
    expect(document.security).toEqual([{ shopKey: [] }]);
  });

  it('an API without authenticate has no security and no 401, whatever securitySchemes says', async () => {
    const document = await documentOf(apiOf({ endpoints: [health] }), { securitySchemes: { key: { type: 'http', scheme: 'bearer' } } });
    expect(document.components.securitySchemes).toBeUndefined();
    expect(document.security).toBeUndefined();
    expect(operationOf(document, '/health', 'get').security).toBeUndefined();
    expect(statusesOf(document, '/users', 'get')).not.toContain(401);
  });

  it('403 where authorize rules run, guards check owners, or a read checks its owner; not for a list that only drops items', async () => {
    const owner = (user: { id: number }, principal: { id: number }) => user.id === principal.id;
    const document = await documentOf(
      apiOf(
        {
          authenticate: () => ({ id: 1 }),
          endpoints: [endpoint('POST', '/reports', { authorize: () => false, handle: () => ({}) })],
        },
        { owner },
      ),
    );
    expect(statusesOf(document, '/reports', 'post')).toContain(403);
    expect(statusesOf(document, '/users/{id}', 'get')).toContain(403);
    expect(statusesOf(document, '/users/{id}', 'put')).toContain(403);
    expect(statusesOf(document, '/users/{userId}/orders', 'get')).toContain(403);
    expect(statusesOf(document, '/users', 'get')).not.toContain(403);
  });

  it('without authenticate, an authorize rule still runs on a protected endpoint and never on a public one', async () => {
    const api = createApi({
      authorize: () => false,
      endpoints: [endpoint('GET', '/reports', { handle: () => ({}) }), endpoint('GET', '/news', { public: true, handle: () => ({}) })],
    });
    const document = await documentOf(api);
    expect(statusesOf(document, '/reports', 'get')).toContain(403);
    expect((await api.handle({ method: 'GET', url: '/reports' })).status).toBe(403);
    expect(statusesOf(document, '/news', 'get')).not.toContain(403);
    expect((await api.handle({ method: 'GET', url: '/news' })).status).toBe(200);
  });
});

describe('summaries and tags', () => {
  const verbs = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;
  /** `verb path` → what `pick` reads from each operation. */
  const eachOperation = <T>(document: OpenApiDocument, pick: (operation: NonNullable<OpenApiDocument['paths'][string]['get']>) => T) =>
    Object.fromEntries(Object.entries(document.paths).flatMap(([path, item]) => verbs.flatMap((verb) => (item[verb] ? [[`${verb} ${path}`, pick(item[verb]!)]] : []))));

  it('every operation has a summary from its operation and path (singular items, plural lists, parents with "of"), unless its definition gives one', async () => {
    const api = createApi({
      resources: [usersAndOrders(), collection('categories', { read: () => undefined })],
      endpoints: [
        endpoint('POST', '/searches', { handle: () => undefined }),
        endpoint('GET', '/status', { handle: () => ({}) }),
        endpoint('GET', '/', { handle: () => ({}) }),
        endpoint('POST', '/gift-cards', { operation: 'create', handle: () => ({ id: 1 }) }),
        endpoint('GET', '/users/:userId/orders/:id/lines', { operation: 'list', handle: () => [] }),
      ],
    });
    const summaries = eachOperation(await documentOf(api), (operation) => operation.summary);
    expect(summaries).toMatchObject({
      'get /users': 'List users',
      'head /users': 'List users, headers only',
      'post /users': 'Create a user',
      'options /users': 'List the methods of users',
      'get /users/{id}': 'Read one user',
      'head /users/{id}': 'Read one user, headers only',
      'put /users/{id}': 'Replace a user',
      'patch /users/{id}': 'Update a user',
      'delete /users/{id}': 'Remove a user',
      'options /users/{id}': 'List the methods of a user',
      'get /users/{userId}/orders': 'List orders of a user',
      'post /users/{userId}/orders': 'Create an order of a user',
      'get /users/{userId}/orders/{id}': 'Read an order of a user',
      'get /users/{userId}/orders/{id}/lines': 'List lines of an order of a user',
      'get /categories/{id}': 'Read a category',
      'post /searches': 'Submit a search',
      'get /status': 'Read status',
      'get /': 'Read the root',
      'post /gift-cards': 'Create a gift card',
      'options /gift-cards': 'List the methods of gift cards',
    });
    expect(Object.values(summaries).every((summary) => typeof summary === 'string' && summary.length > 0)).toBe(true);
  });

  it('lists every tag at the top level, in the order the paths use them, and each operation names one of them', async () => {
    const api = apiOf({ endpoints: [endpoint('GET', '/health', { handle: () => ({}) })] });
    const document = await documentOf(api);
    expect(document.tags).toEqual([
      { name: 'health', description: 'The operations on /health and the paths below it.' },
      { name: 'users', description: 'The operations on /users and the paths below it.' },
    ]);
    const names = document.tags!.map((tag) => tag.name);
    for (const [where, tags] of Object.entries(eachOperation(document, (operation) => operation.tags))) expect(names, where).toEqual(expect.arrayContaining(tags!));
  });
});

describe('servers', () => {
  it("defaults to one server at the API's basePath, and the paths are relative to it", async () => {
    expect((await documentOf(apiOf())).servers).toEqual([{ url: '/' }]);
    const document = await documentOf(apiOf({ basePath: '/api/v1/' }));
    expect(document.servers).toEqual([{ url: '/api/v1' }]);
    expect(Object.keys(document.paths)[0]).toBe('/users');
  });

  it('servers given replace the default; the paths stay relative to the basePath', async () => {
    const document = await documentOf(apiOf({ basePath: '/api' }), { servers: [{ url: 'https://shop.example/api' }] });
    expect(document.servers).toEqual([{ url: 'https://shop.example/api' }]);
    expect(Object.keys(document.paths)[0]).toBe('/users');
  });
});

describe('named component schemas', () => {
  const User = z.object({ id: z.number().int(), name: z.string(), tags: z.array(z.string()) });
  const NewOrder = z.object({ item: z.string() });
  const Order = z.object({ id: z.number().int(), item: z.string() });
  const content = (document: OpenApiDocument, path: string, verb: Verb, status: string, type = 'application/json') =>
    (operationOf(document, path, verb).responses[status]!.content as Record<string, { schema: JsonSchema }>)[type]!.schema;
  const requestOf = (document: OpenApiDocument, path: string, verb: Verb) => (operationOf(document, path, verb).requestBody as { content: Record<string, { schema: JsonSchema }> }).content['application/json']!.schema;
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

  /** Users with items, bodies and patches, their orders, and a second `orders` collection with its own schemas. */
  function shop(options: ApiOptions = {}): Api {
    const users = collection('users', {
      id: UserId,
      body: NewUser,
      patch: NewUser.partial(),
      item: User,
      list: () => [{ id: 1, name: 'Ada', tags: ['a', 'b'] }],
      read: () => ({ id: 1, name: 'Ada', tags: ['a'] }),
      create: (ctx) => ({ id: 2, tags: [], ...ctx.body }),
      replace: () => undefined,
      update: () => undefined,
    });
    users.collection('orders', { id: z.coerce.number(), body: NewOrder, item: Order, list: () => [], create: () => ({ id: 1, item: 'x' }) });
    const projects = collection('projects', { id: z.coerce.number(), read: () => undefined });
    projects.collection('orders', { item: z.object({ id: z.string() }), list: () => [] });
    return createApi({
      resources: [users, projects],
      endpoints: [endpoint('GET', '/me', { response: User, handle: () => undefined })],
      onError: () => {},
      timeout: false,
      ...options,
    });
  }

  it('the item, body and patch of a collection become components named after it, each referred to by $ref', async () => {
    const document = await documentOf(shop());
    expect(content(document, '/users', 'get', '200')).toEqual({ type: 'array', items: ref('User') });
    expect(content(document, '/users/{id}', 'get', '200')).toEqual(ref('User'));
    expect(content(document, '/users', 'post', '201')).toEqual(ref('User'));
    expect(requestOf(document, '/users', 'post')).toEqual(ref('UserBody'));
    expect(requestOf(document, '/users/{id}', 'patch')).toEqual(ref('UserPatch'));
    expect(requestOf(document, '/users/{userId}/orders', 'post')).toEqual(ref('OrderBody'));
    expect(content(document, '/users/{userId}/orders', 'get', '200')).toEqual({ type: 'array', items: ref('Order') });
    const { $schema: _dialect, ...user } = z.toJSONSchema(User, { io: 'input' });
    expect(document.components.schemas.User).toEqual(user);
  });

  it('one schema object is one component wherever it is used; another schema under a taken name takes the next free name', async () => {
    const document = await documentOf(shop());
    // NewUser is the body of create and of replace; User is also the answer of GET /me.
    expect(requestOf(document, '/users/{id}', 'put')).toEqual(ref('UserBody'));
    expect(content(document, '/me', 'get', '200')).toEqual(ref('User'));
    // The orders of a project have a schema of their own: the name with its parent.
    expect(content(document, '/projects/{projectId}/orders', 'get', '200')).toEqual({ type: 'array', items: ref('ProjectOrder') });
    expect(Object.keys(document.components.schemas).sort()).toEqual(['Order', 'OrderBody', 'Problem', 'ProjectOrder', 'User', 'UserBody', 'UserPatch', 'ValidationProblem']);
  });

  it("a list's own response (an envelope) is <Name>List, and a submit's answer <Name>Result", async () => {
    const Page = z.object({ items: z.array(z.object({ id: z.number() })), total: z.number() });
    const api = createApi({
      resources: [collection('users', { list: { response: Page, handle: () => ({ items: [], total: 0 }) } })],
      endpoints: [endpoint('POST', '/searches', { body: z.object({ q: z.string() }), response: z.object({ hits: z.number() }), handle: () => ({ hits: 0 }) })],
    });
    const document = await documentOf(api);
    expect(content(document, '/users', 'get', '200')).toEqual(ref('UserList'));
    expect(requestOf(document, '/searches', 'post')).toEqual(ref('SearchBody'));
    expect(content(document, '/searches', 'post', '200')).toEqual(ref('SearchResult'));
  });

  it('holds only the components its operations refer to', async () => {
    const api = createApi({ endpoints: [endpoint('GET', '/health', { handle: () => ({ ok: true }) })], timeout: false });
    expect(Object.keys((await documentOf(api)).components.schemas)).toEqual(['Problem']);
  });
});

describe('HEAD and OPTIONS', () => {
  const authenticated = () => apiOf({ authenticate: () => ({ id: 1 }) });

  it("HEAD is documented on every path with GET: GET's parameters, security and statuses, without bodies", async () => {
    const document = await documentOf(authenticated());
    const get = operationOf(document, '/users', 'get');
    const head = operationOf(document, '/users', 'head');
    expect(head).toMatchObject({ operationId: 'listUsersHead', summary: 'List users, headers only', description: 'The answer GET gives, without its body.', tags: ['users'], parameters: get.parameters });
    expect(Object.keys(head.responses)).toEqual(Object.keys(get.responses));
    expect(Object.values(head.responses).every((response) => response.content === undefined)).toBe(true);
    expect(head.responses['401']!.headers).toEqual(get.responses['401']!.headers);
    expect(head.security).toBeUndefined();
    expect(document.paths['/users']!.post).toBeDefined();
    expect(document.paths['/users/{userId}/orders/{id}']!.head).toBeDefined();
  });

  it("OPTIONS is documented on every path: the policy's status with Allow, for any caller, before any param is validated", async () => {
    const api = apiOf({ authenticate: () => undefined, policy: createStatusPolicy({ options: 200 }) });
    const document = await documentOf(api);
    const options = operationOf(document, '/users/{id}', 'options');
    expect(options).toEqual({
      operationId: 'optionsUser',
      summary: 'List the methods of a user',
      tags: ['users'],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': { description: 'OK: Allow lists the methods of this path', headers: { Allow: { description: 'The methods of this path.', schema: { type: 'string', const: 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS' } } } },
      },
      security: [],
    });
    const answer = await api.handle({ method: 'OPTIONS', url: '/users/not-a-number' });
    expect(answer.status).toBe(200);
    expect(answer.headers.allow).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    expect(operationOf(document, '/users', 'options').operationId).toBe('optionsUsers');
  });

  it('an endpoint that declares HEAD or OPTIONS itself is documented as declared', async () => {
    const api = createApi({
      endpoints: [
        endpoint('GET', '/files/:id', { handle: () => ({}) }),
        endpoint('HEAD', '/files/:id', { summary: 'Check a file', handle: () => ({}) }),
        endpoint('OPTIONS', '/files/:id', { summary: 'Describe a file', handle: () => undefined }),
      ],
    });
    const document = await documentOf(api);
    expect(operationOf(document, '/files/{id}', 'head').summary).toBe('Check a file');
    expect(operationOf(document, '/files/{id}', 'options').summary).toBe('Describe a file');
  });

  it('a 405 among the answers of an operation carries the Allow of its path', async () => {
    const api = apiOf();
    const routes = api.routes.map((route) => ({ ...route, outcomes: [...route.outcomes, 'methodNotAllowed' as const] }));
    const document = await documentOf({ ...api, routes });
    expect(operationOf(document, '/users', 'get').responses['405']!.headers).toEqual({ Allow: { description: 'The methods of this path: GET, HEAD, POST, OPTIONS', schema: { type: 'string' } } });
  });
});

describe('problem schemas', () => {
  it('every part of ValidationProblem is an object, and the `in` of an issue is a string', async () => {
    const { ValidationProblem } = (await documentOf(apiOf())).components.schemas as { ValidationProblem: { type: string; allOf: JsonSchema[] } };
    expect(ValidationProblem.type).toBe('object');
    expect(ValidationProblem.allOf.map((part) => part.type)).toEqual(['object', 'object']);
    expect(ValidationProblem.allOf[1]).toMatchObject({ properties: { errors: { items: { properties: { in: { type: 'string', enum: ['path', 'query', 'header', 'body'] } } } } } });
  });

  it('the route that serves the document answers an OpenApiDocument, wherever it is served and however the document is built', async () => {
    for (const path of ['/openapi.json', '/docs/openapi']) {
      const api = createApi({ basePath: '/v1', endpoints: [endpoint('GET', '/health', { handle: () => ({}) })], openapi: openApi({ info, path }) });
      const served = (await api.handle({ method: 'GET', url: `/v1${path}` })).body as OpenApiDocument;
      for (const document of [served, await documentOf(api)]) {
        expect(operationOf(document, path, 'get').responses['200']!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/OpenApiDocument' } } });
        expect(document.components.schemas.OpenApiDocument).toMatchObject({ type: 'object', required: ['openapi', 'info', 'paths'] });
        expect(operationOf(document, '/health', 'get').responses['200']!.content).toEqual({ 'application/json': {} });
      }
      expect(served).toMatchObject({ openapi: expect.stringMatching(/^3\.1\.\d+$/), info: { title: info.title, version: info.version }, paths: expect.any(Object) });
    }
  });
});

describe('XML', () => {
  const Tagged = z.object({ id: z.number(), tags: z.array(z.string()) });
  const xmlApi = () =>
    createApi({
      formats: [json, xml],
      resources: [collection('notes', { id: z.coerce.number(), body: z.object({ text: z.string().min(1) }), item: Tagged, list: () => [{ id: 1, tags: ['a', 'b'] }], read: () => ({ id: 1, tags: ['a'] }), create: () => ({ id: 2, tags: [] }) })],
      timeout: false,
    });
  const schemaIn = (document: OpenApiDocument, path: string, verb: Verb, status: string, type: string) =>
    (operationOf(document, path, verb).responses[status]!.content as Record<string, { schema: JsonSchema & { xml?: { name?: string; namespace?: string; wrapped?: boolean }; items?: JsonSchema & { xml?: { name?: string } } } }>)[type]!.schema;
  /** The name of the root element of an XML text, and its xmlns. */
  const rootOf = (text: string) => /^<\?xml[^>]*\?>\s*<([\w.-]+)(?:\s+xmlns="([^"]*)")?/.exec(text)!.slice(1);

  it('an item and a list in XML name the elements the XML format writes: <result>, each entry an <item>', async () => {
    const api = xmlApi();
    const document = await documentOf(api);
    const one = schemaIn(document, '/notes/{id}', 'get', '200', 'application/xml');
    expect(one).toEqual({ $ref: '#/components/schemas/Note', xml: { name: 'result' } });
    expect(schemaIn(document, '/notes/{id}', 'get', '200', 'application/json')).toEqual({ $ref: '#/components/schemas/Note' });
    const list = schemaIn(document, '/notes', 'get', '200', 'application/xml');
    expect(list).toEqual({ type: 'array', xml: { name: 'result', wrapped: true }, items: { $ref: '#/components/schemas/Note', xml: { name: 'item' } } });
    expect(document.components.schemas.Note).toMatchObject({ properties: { tags: { type: 'array', xml: { wrapped: true }, items: { xml: { name: 'item' } } } } });

    const read = (await api.handle({ method: 'GET', url: '/notes/1', headers: { accept: 'application/xml' } })).payload as string;
    expect(rootOf(read)[0]).toBe(one.xml!.name);
    expect(read).toContain(`<tags><${list.items!.xml!.name}>a</${list.items!.xml!.name}></tags>`);
    const listed = (await api.handle({ method: 'GET', url: '/notes', headers: { accept: 'application/xml' } })).payload as string;
    expect(rootOf(listed)[0]).toBe(list.xml!.name);
    expect(listed).toMatch(new RegExp(`<result><${list.items!.xml!.name}><id>1</id>`));
  });

  it('a problem in XML is <problem> in the RFC 9457 namespace, the entries of its errors <i>', async () => {
    const api = xmlApi();
    const document = await documentOf(api);
    const problem = schemaIn(document, '/notes', 'post', '400', 'application/problem+xml');
    expect(problem).toEqual({ $ref: '#/components/schemas/ValidationProblem', xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' } });
    expect(schemaIn(document, '/notes', 'post', '400', 'application/problem+json')).toEqual({ $ref: '#/components/schemas/ValidationProblem' });
    const errors = ((document.components.schemas.ValidationProblem as { allOf: JsonSchema[] }).allOf[1]!.properties as Record<string, JsonSchema & { items: JsonSchema }>).errors!;
    expect(errors.xml).toEqual({ wrapped: true });
    expect(errors.items.xml).toEqual({ name: 'i' });

    const answer = await api.handle({ method: 'POST', url: '/notes', headers: { accept: 'application/xml', 'content-type': 'application/json' }, body: '{"text":""}' });
    expect(answer.status).toBe(400);
    expect(rootOf(answer.payload as string)).toEqual([problem.xml!.name, problem.xml!.namespace]);
    expect(answer.payload).toContain('<errors><i><in>body</in>');
  });

  it('a document without an XML format has no xml hints', async () => {
    expect(JSON.stringify(await documentOf(apiOf()))).not.toContain('"xml"');
  });
});

describe('the validator', () => {
  it('rejects a document with a dangling reference, so the checks above can fail', async () => {
    const document = createOpenApiDocument(apiOf(), { info });
    delete (document.components.schemas as Record<string, unknown>).ValidationProblem;
    expect((await validator.validate(structuredClone(document) as never)).valid).toBe(false);
  });
});

describe('declared errors, chosen outcomes and the API\'s own error body', () => {
  const signup = endpoint('POST', '/accounts', {
    body: z.object({ email: z.string() }),
    outcomes: ['accepted'],
    errors: { conflict: 'An account with this email exists', tooManyRequests: { description: 'Too many sign-ups from this address', schema: z.object({ limit: z.number() }) } },
    handle: (ctx) => ctx.body,
  });

  it('lists each declared error with its description, its extra members and its headers; a chosen outcome too', async () => {
    const document = await documentOf(createApi({ endpoints: [signup], timeout: false }));
    expect(statusesOf(document, '/accounts', 'post')).toEqual([200, 202, 204, 400, 406, 409, 413, 415, 429, 500]);
    const responses = operationOf(document, '/accounts', 'post').responses;
    expect(responses['409']!.description).toBe('Conflict: An account with this email exists.');
    expect(responses['202']!.description).toBe('Accepted: accepted; the work goes on after this answer');
    const limited = responses['429']!;
    expect(limited.description).toBe('Too Many Requests: Too many sign-ups from this address.');
    expect(limited.headers).toEqual({ 'Retry-After': { description: expect.stringMatching(/^When to try again/), schema: { type: 'string' } } });
    const schema = (limited.content as Record<string, { schema: { allOf: JsonSchema[] } }>)['application/problem+json']!.schema;
    expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(resolve(document, schema.allOf[1])).toMatchObject({ type: 'object', properties: { limit: { type: 'number' } } });
  });

  it('describes problemBody\'s schema in each format\'s own media type', async () => {
    const ErrorBody = z.object({ errors: z.record(z.string(), z.array(z.string())) });
    const document = await documentOf(createApi({ endpoints: [signup], timeout: false, problemBody: { build: () => ({ errors: {} }), schema: ErrorBody } }));
    const content = operationOf(document, '/accounts', 'post').responses['409']!.content as Record<string, { schema: unknown }>;
    expect(Object.keys(content)).toEqual(['application/json']);
    expect(content['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
    expect(document.components.schemas.ErrorBody).toMatchObject({ type: 'object', required: ['errors'] });
  });
});

describe('a module of the API adds its part to the document', () => {
  it('the headers of its part are on the success answers of the endpoints that declare it, and of no other', async () => {
    const stamp = {
      name: 'stamp',
      endpoint: (_endpoint: unknown, declared: unknown) => (declared === undefined ? undefined : { answer: (_exchange: unknown, headers: Record<string, string>, body: unknown) => ((headers['x-stamp'] = String(declared)), body) }),
      openapi: {
        headers: (declaring: { conventions?: Record<string, unknown> }, outcome: string) =>
          declaring.conventions?.stamp === undefined || outcome !== 'read' ? undefined : { 'X-Stamp': { description: 'The stamp of the answer.', schema: { type: 'string' } } },
      },
    };
    const api = createApi({
      endpoints: [endpoint('GET', '/stamped', { handle: () => 'ok', conventions: { stamp: 'v1' } }), endpoint('GET', '/plain', { handle: () => 'ok' })],
      use: [stamp as never],
    });
    const document = await documentOf(api);
    expect(document.paths['/stamped']!.get!.responses['200']!.headers).toEqual({ 'X-Stamp': { description: 'The stamp of the answer.', schema: { type: 'string' } } });
    expect(document.paths['/plain']!.get!.responses['200']!.headers).toBeUndefined();
    expect((await api.handle({ method: 'GET', url: '/stamped' })).headers['x-stamp']).toBe('v1');
  });
});
