import { Validator } from '@seriousme/openapi-schema-validator';
import { toJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from '../../src/openapi/document.js';
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

type Verb = 'get' | 'post' | 'put' | 'patch' | 'delete';
const operationOf = (document: OpenApiDocument, path: string, verb: Verb) => {
  const operation = document.paths[path]?.[verb];
  if (operation === undefined) throw new Error(`${verb.toUpperCase()} ${path} is not in the document`);
  return operation;
};
const statusesOf = (document: OpenApiDocument, path: string, verb: Verb) => Object.keys(operationOf(document, path, verb).responses).map(Number);

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
  it('turns every template, with the basePath, into an OpenAPI path that lists what it allows', async () => {
    const document = await documentOf(apiOf({ basePath: '/api/v1' }));
    expect(Object.keys(document.paths)).toEqual(['/api/v1/users', '/api/v1/users/{id}', '/api/v1/users/{userId}/orders', '/api/v1/users/{userId}/orders/{id}']);
    expect(document.paths['/api/v1/users/{id}']!['x-allow']).toBe('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    expect(document.paths['/api/v1/users']!.description).toBe('Allow: GET, HEAD, POST, OPTIONS. Any other method answers 405 Method Not Allowed with this Allow header.');
    expect(Object.keys(document.paths['/api/v1/users/{userId}/orders/{id}']!).filter((key) => key.length < 7)).toEqual(['get']);
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
    expect(operationOf(document, '/api/users/{id}', 'get').summary).toBe('Read one user');
    expect(operationOf(document, '/api/users', 'get').summary).toBeUndefined();
    expect(operationOf(document, '/api/users/{userId}/orders/{id}', 'get').tags).toEqual(['users']);
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
    expect(operationOf(document, '/users', 'post').requestBody).toEqual({ required: true, content: { 'application/json': { schema: userSchema } } });
    expect(operationOf(document, '/users/{id}', 'patch').requestBody).toMatchObject({ required: true, content: { 'application/json': { schema: { type: 'object' } } } });
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
    const operation = operationOf(await documentOf(api), '/users/{userId}/notes/{id}', 'post');
    expect(operation.parameters).toEqual([
      { name: 'userId', in: 'path', required: true, schema: { type: 'number' } },
      { name: 'id', in: 'path', required: true, schema: expect.objectContaining({ type: 'string', format: 'uuid' }) },
      { name: 'x-request-id', in: 'header', required: true, schema: { type: 'string' } },
    ]);
    expect(operation.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { type: 'string', maxLength: 500 } }, 'text/plain': { schema: { type: 'string', maxLength: 500 } } },
    });
  });

  it('arktype: its Standard JSON Schema', async () => {
    const api = createApi({ endpoints: [endpoint('POST', '/notes', { body: type({ text: 'string > 0', 'tags?': 'string[]' }), handle: () => ({}) })] });
    const schema = (operationOf(await documentOf(api), '/notes', 'post').requestBody as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema;
    expect(schema).toEqual({ type: 'object', properties: { text: { type: 'string', minLength: 1 }, tags: { type: 'array', items: { type: 'string' } } }, required: ['text'] });
  });

  const valibotApi = () =>
    createApi({
      endpoints: [
        endpoint('GET', '/notes', { query: v.object({ q: v.pipe(v.string(), v.minLength(2)) }), operation: 'list', handle: () => [] }),
        endpoint('POST', '/notes', { body: v.object({ text: v.string() }), handle: () => ({}) }),
      ],
    });
  const bodySchema = (document: OpenApiDocument) => (operationOf(document, '/notes', 'post').requestBody as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema;

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
    expect((operationOf(document, '/events', 'post').requestBody as any).content['application/json'].schema).toEqual({ description: expect.stringMatching(/^No JSON Schema could be derived from this zod schema/) });
    expect(operationOf(document, '/events/{id}', 'put').parameters![0]!.schema).toEqual({ description: expect.stringMatching(/zod schema/) });
    // zod describes a transform's input (a string), which is what the client sends.
    expect((operationOf(document, '/events/{id}', 'put').requestBody as any).content['application/json'].schema).toEqual({ type: 'string' });
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
    expect((operationOf(document, '/folders', 'post').requestBody as any).content['application/json'].schema).toEqual({ $ref: '#/components/schemas/SubmitFolderBody' });
    expect(document.components.schemas.SubmitFolderBody).toMatchObject({ properties: { folders: { items: { $ref: '#/components/schemas/SubmitFolderBody' } } } });
    // arktype puts the type in $defs and refers to it: each definition is a component of its own.
    const tree = document.components.schemas.ReplaceTreeBody as { $ref: string };
    expect(tree).toEqual({ $ref: expect.stringMatching(/^#\/components\/schemas\/ReplaceTreeBody\.\w+$/) });
    const definition = document.components.schemas[tree.$ref.slice('#/components/schemas/'.length)] as { properties: { next: { $ref: string } } };
    expect(definition.properties.next.$ref).toBe(tree.$ref);
  });

  it("a POST without a body option takes no body; body: 'unvalidated' takes an optional body of any shape", async () => {
    const api = createApi({
      endpoints: [endpoint('POST', '/pings', { handle: () => undefined }), endpoint('POST', '/imports', { body: 'unvalidated', handle: () => undefined })],
    });
    const document = await documentOf(api);
    expect(operationOf(document, '/pings', 'post').requestBody).toBeUndefined();
    expect(operationOf(document, '/imports', 'post').requestBody).toEqual({ required: false, content: { 'application/json': { schema: {} } } });
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
          endpoints: [endpoint('POST', '/reports', { authorize: () => false, handle: () => ({}) }), endpoint('GET', '/news', { public: true, authorize: () => true, handle: () => [] })],
        },
        { owner },
      ),
    );
    expect(statusesOf(document, '/reports', 'post')).toContain(403);
    expect(statusesOf(document, '/news', 'get')).toContain(403); // a caller who sends credentials meets the rule
    expect(statusesOf(document, '/users/{id}', 'get')).toContain(403);
    expect(statusesOf(document, '/users/{id}', 'put')).toContain(403);
    expect(statusesOf(document, '/users/{userId}/orders', 'get')).toContain(403);
    expect(statusesOf(document, '/users', 'get')).not.toContain(403);
  });

  it('without authenticate, an authorize rule still runs on a protected endpoint and never on a public one', async () => {
    const api = createApi({
      endpoints: [endpoint('GET', '/reports', { authorize: () => false, handle: () => ({}) }), endpoint('GET', '/news', { public: true, authorize: () => false, handle: () => ({}) })],
    });
    const document = await documentOf(api);
    expect(statusesOf(document, '/reports', 'get')).toContain(403);
    expect((await api.handle({ method: 'GET', url: '/reports' })).status).toBe(403);
    expect(statusesOf(document, '/news', 'get')).not.toContain(403);
    expect((await api.handle({ method: 'GET', url: '/news' })).status).toBe(200);
  });
});

describe('the validator', () => {
  it('rejects a document with a dangling reference, so the checks above can fail', async () => {
    const document = createOpenApiDocument(apiOf(), { info });
    delete (document.components.schemas as Record<string, unknown>).ValidationProblem;
    expect((await validator.validate(structuredClone(document) as never)).valid).toBe(false);
  });
});
