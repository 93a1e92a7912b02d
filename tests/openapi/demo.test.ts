/**
 * The demo API's OpenAPI document against the demo itself: for every operation, the statuses the
 * document lists are exactly the statuses that requests exercising each case get from `api.handle`,
 * and every path answers other methods with the 405 and `Allow` the document states. The demo comes
 * from the built package (`examples/demo-api.mjs` imports 'restcanon'): run `npx tsup` first.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStatusPolicy, type Api, type ApiOptions, type ApiRequest, type ApiResponse, type RouteInfo } from 'restcanon';
import { createDemoApi } from '../../examples/demo-api.mjs';
import { DEMO_AVATAR_PNG } from '../../examples/avatars.mjs';
import { OPEN_TIMEOUT, downDatabase, downStore, heldDatabase, openDemoDatabase, resetDemoData } from '../helpers/demo-database.js';
import type { Store } from '../../src/store/store.js';
import { createOpenApiDocument, type JsonSchema, type OpenApiDocument } from '../../src/openapi/index.js';
import { headerText } from '../helpers/headers.js';

type Database = Awaited<ReturnType<typeof openDemoDatabase>>;
// No deadline: the probes cannot make a demo handler hang, so a listed 503 could never be observed.
const quiet: ApiOptions = { onError: () => {}, timeout: false };
const admin = { authorization: 'Bearer admin-token' };
const alice = { authorization: 'Bearer alice-token' };
const jsonType = { 'content-type': 'application/json' };

let db: Database;
beforeAll(async () => {
  db = await openDemoDatabase();
}, OPEN_TIMEOUT);
afterAll(() => db.close());

const isAvatar = (path: string) => path.endsWith('/avatar');
const validBody = (path: string) => (path.includes('/orders') ? { item: 'Pen', quantity: 1 } : { name: 'Zed', email: 'zed@example.com' });
/** A valid body as the route takes it: a PNG for an avatar, else JSON. */
const bodyOf = (path: string): string | Uint8Array => (isAvatar(path) ? DEMO_AVATAR_PNG : JSON.stringify(validBody(path)));
/** The Content-Type of that body; the probes' other bodies go under it too, so an avatar's are bytes that are no PNG. */
const typeOf = (path: string) => (isAvatar(path) ? { 'content-type': 'image/png' } : jsonType);
const urlOf = (path: string, userId: string | number, id: string | number) => path.replace(':userId', String(userId)).replace(':id', String(id));

/** What createDemoApi takes besides createApi's options. */
interface DemoOptions {
  store?: Store;
  rateLimit?: { quota: number; window: number } | false;
  streams?: { perUser: number; total: number };
}

/** The demo a probe's request goes to, and how it is sent: once through `api.handle` unless `send` says otherwise. */
interface Setup {
  database?: Database;
  demo?: DemoOptions;
  send?: (api: Api, request: ApiRequest) => Promise<ApiResponse>;
}

interface Probe {
  /** The case it exercises, for failure messages. */
  name: string;
  setup?: () => Setup;
  request: (route: RouteInfo) => ApiRequest;
}

/** A valid request with an Idempotency-Key, and one more header where given. */
const keyed = ({ method, path }: RouteInfo, key: string, body: unknown = validBody(path)): ApiRequest => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...jsonType, 'idempotency-key': key }, body: JSON.stringify(body) });
/** The same fields, another value: another request under the same key. */
const otherBody = (path: string) => (path.includes('/orders') ? { item: 'Pen', quantity: 2 } : { name: 'Zoe', email: 'zed@example.com' });

/** One request per case of the issue; each runs against the demo's first data, so that none sees another's changes. */
const PROBES: readonly Probe[] = [
  { name: 'success as the admin', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'success as the owner', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...alice, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'an id that is not a number', request: ({ method, path }) => ({ method, url: urlOf(path, 'abc', 'abc'), headers: { ...admin, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'invalid fields', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path) }, body: '{"name":"","email":"x","item":"","quantity":0}' }) },
  { name: "the owner's bytes that are not what they claim", request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...alice, ...typeOf(path) }, body: '{"item":' }) },
  { name: 'malformed JSON', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path) }, body: '{"item":' }) },
  { name: 'anonymous', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: typeOf(path), body: bodyOf(path) }) },
  { name: 'two sets of credentials', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { authorization: 'Bearer admin-token, Bearer alice-token', ...typeOf(path) }, body: bodyOf(path) }) },
  { name: "another user's data", request: ({ method, path }) => ({ method, url: urlOf(path, 2, 2), headers: { ...alice, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'an unknown id or parent', request: ({ method, path }) => ({ method, url: urlOf(path, 99, 99), headers: { ...admin, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'an unknown id under a known parent', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 99), headers: { ...admin, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'Accept: image/png', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path), accept: 'image/png' }, body: bodyOf(path) }) },
  { name: 'Accept: text/csv', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path), accept: 'text/csv' }, body: bodyOf(path) }) },
  { name: 'a range of the bytes', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path), range: 'bytes=0-9' }, body: bodyOf(path) }) },
  { name: 'a range past their end', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path), range: 'bytes=1000-' }, body: bodyOf(path) }) },
  { name: 'a body over the limit', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path) }, body: JSON.stringify({ item: 'x'.repeat(1024 * 1024) }) }) },
  { name: 'a wrong content type', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, 'content-type': 'text/plain' }, body: 'hello' }) },
  { name: 'a copy that is current', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path), 'if-none-match': '"1"' }, body: bodyOf(path) }) },
  { name: 'a stale copy', request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path), 'if-match': '"0"' }, body: bodyOf(path) }) },
  { name: 'the database is down for the owner', setup: () => ({ database: downDatabase() }), request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...alice, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'the database is down', setup: () => ({ database: downDatabase() }), request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path) }, body: bodyOf(path) }) },
  {
    name: 'a caller over the rate limit',
    setup: () => ({ demo: { rateLimit: { quota: 1, window: 60 } }, send: async (api, request) => (await api.handle(request), api.handle(request)) }),
    request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...admin, ...typeOf(path) }, body: bodyOf(path) }),
  },
  { name: "more streams of one user than an instance serves", setup: () => ({ demo: { streams: { perUser: 0, total: 10 } } }), request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...alice, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'more streams than an instance serves', setup: () => ({ demo: { streams: { perUser: 10, total: 0 } } }), request: ({ method, path }) => ({ method, url: urlOf(path, 1, 1), headers: { ...alice, ...typeOf(path) }, body: bodyOf(path) }) },
  { name: 'a malformed Idempotency-Key', request: (route) => keyed(route, '"unterminated') },
  {
    name: 'an Idempotency-Key sent again with another request',
    setup: () => ({ send: async (api, request) => (await api.handle(request), api.handle({ ...request, body: JSON.stringify(otherBody(request.url)) })) }),
    request: (route) => keyed(route, '"k1"'),
  },
  {
    name: 'an Idempotency-Key whose first request still runs',
    setup: () => {
      const held = heldDatabase(db);
      return {
        database: held.db,
        send: async (api, request) => {
          const first = api.handle(request);
          await Promise.race([held.reached, first]);
          const second = await api.handle(request);
          held.release();
          await first;
          return second;
        },
      };
    },
    request: (route) => keyed(route, '"k2"'),
  },
  { name: 'the store is down', setup: () => ({ demo: { store: downStore() } }), request: (route) => keyed(route, '"k3"') },
];

const toOpenApiPath = (template: string) => template.replace(/:(\w+)/g, '{$1}');
const verbOf = (method: string) => method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';

async function documentOf(api: Api): Promise<OpenApiDocument> {
  const document = createOpenApiDocument(api, { info: { title: 'restcanon demo', version: '1.0.0' } });
  const result = await new Validator().validate(structuredClone(document) as never);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  return document;
}

/** Checks that a response is one the document describes: status, content type, Location. */
function expectDescribed(document: OpenApiDocument, route: RouteInfo, response: ApiResponse, probe: string): void {
  const listed = document.paths[toOpenApiPath(route.path)]![verbOf(route.method)]!.responses[response.status];
  expect(listed, `${route.method} ${route.path}, ${probe}: ${response.status} is not in the document`).toBeDefined();
  const contentType = headerText(response.headers['content-type'])?.split(';')[0];
  if (contentType === undefined) expect(response.payload).toBeUndefined();
  else expect(Object.keys((listed!.content ?? {}) as object), `${route.method} ${route.path}, ${probe}`).toContain(contentType);
  if (response.headers.location !== undefined) expect(listed!.headers).toHaveProperty('Location');
  // Every demo endpoint declares its success body, but the served document itself.
  if (response.status < 300 && contentType === 'application/json' && route.path !== '/openapi.json') {
    const { schema } = (listed!.content as Record<string, { schema?: JsonSchema }>)[contentType]!;
    expectShape(document, schema, response.body, `${route.method} ${route.path}, ${probe}`);
  }
}

/** A schema with its `$ref` followed into the document's components. */
function resolve(document: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  const ref = schema?.$ref;
  return typeof ref === 'string' ? resolve(document, document.components.schemas[ref.slice('#/components/schemas/'.length)]) : schema;
}

/** A success body has the shape its documented schema gives: an array of items, or an object with exactly the declared keys. */
function expectShape(document: OpenApiDocument, given: JsonSchema | undefined, body: unknown, where: string): void {
  const schema = resolve(document, given);
  expect(schema, `${where}: the success body has no schema`).toBeDefined();
  if (schema!.type === 'array') {
    expect(Array.isArray(body), where).toBe(true);
    for (const entry of body as unknown[]) expectShape(document, schema!.items as JsonSchema, entry, where);
    return;
  }
  expect(schema!.type, where).toBe('object');
  const keys = Object.keys(schema!.properties as object).sort();
  expect(Object.keys(body as object).sort(), where).toEqual(keys);
  expect([...(schema!.required as string[])].sort(), where).toEqual(keys);
}

/**
 * Runs every probe against every route and compares what the document lists with what was observed.
 * `unobservable` names, per route, the statuses the demo's handlers cannot produce, with the reason.
 */
async function expectExactStatuses(options: ApiOptions, unobservable: Readonly<Record<string, readonly number[]>>): Promise<void> {
  const api = createDemoApi(db, { ...quiet, ...options });
  const document = await documentOf(api);
  for (const route of api.routes) {
    const observed = new Set<number>();
    for (const probe of PROBES) {
      await resetDemoData(db);
      // Alice and Bob have avatars of version 1: a read of one is a 200, a 304 or a 412 as the probe asks.
      await db.query(`insert into avatars (user_id, type, bytes, version) values (1, 'image/png', $1, 1), (2, 'image/png', $1, 1)`, [DEMO_AVATAR_PNG]);
      const { database = db, demo = {}, send = (api, request) => api.handle(request) } = probe.setup?.() ?? ({} as Setup);
      const fresh = createDemoApi(database, { ...quiet, ...options, ...demo } as ApiOptions);
      const response = await send(fresh, probe.request(route));
      // An event stream nobody reads is left, as a client that goes away leaves it.
      await response.stream?.[Symbol.asyncIterator]().return?.();
      expectDescribed(document, route, response, probe.name);
      observed.add(response.status);
    }
    const key = `${route.method} ${toOpenApiPath(route.path)}`;
    const listed = Object.keys(document.paths[toOpenApiPath(route.path)]![verbOf(route.method)]!.responses).map(Number);
    const exceptions = unobservable[key] ?? [];
    for (const status of exceptions) expect(observed.has(status), `${key}: ${status} is observable now; remove it from the exceptions`).toBe(false);
    expect(listed, key).toEqual([...observed, ...exceptions].sort((a, b) => a - b));
  }
}

describe('the OpenAPI document of the demo API', () => {
  it('is a valid OpenAPI 3.1 document with the operations of the demo', async () => {
    const document = await documentOf(createDemoApi(db, quiet));
    const operations = Object.values(document.paths).flatMap((item) => (['get', 'post', 'put', 'patch', 'delete'] as const).flatMap((verb) => (item[verb] ? [item[verb]!.operationId] : [])));
    expect(operations).toEqual([
      'readHealth',
      'readUserAvatar',
      'replaceUserAvatar',
      'removeUserAvatar',
      'readUserOrdersEvent',
      'readOpenapiJson',
      'listUsers',
      'createUser',
      'readUser',
      'replaceUser',
      'updateUser',
      'removeUser',
      'listUserOrders',
      'createUserOrder',
      'readUserOrder',
      'updateUserOrder',
      'removeUserOrder',
    ]);
    expect(document.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer', description: '401 answers carry WWW-Authenticate: Bearer realm="api"' } });
    expect(document.paths['/health']!.get!.security).toEqual([]);
  });

  it('lists, for every operation, exactly the statuses the demo answers', async () => {
    await expectExactStatuses({}, {
      // The health and document handlers touch no database: no request makes them fail.
      'GET /health': [500],
      'GET /openapi.json': [500],
      // The demo's remove handlers return the removed item, never `true`, so their 204 never comes.
      'DELETE /users/{id}': [204],
      'DELETE /users/{userId}/orders/{id}': [204],
      // Only a user sends their own avatar, and a user who is not there calls nothing: the 403 comes first.
      'PUT /users/{id}/avatar': [404],
      // The avatar's remove handler returns true, never the removed avatar: its 200 never comes.
      'DELETE /users/{id}/avatar': [200],
    });
    // Among them, observed: the 400, 409, 422 and 503 of an Idempotency-Key, and the 429 of the rate limit.
    const document = await documentOf(createDemoApi(db, quiet));
    expect(Object.keys(document.paths['/users/{userId}/orders']!.post!.responses)).toEqual(['201', '400', '401', '403', '404', '406', '409', '413', '415', '422', '429', '500', '503']);
    // And the 422 of an avatar whose bytes are not its type, the 206 and 416 of its ranges, the 304 and 412 of its ETag, the 429 and 503 of the stream limits.
    expect(Object.keys(document.paths['/users/{id}/avatar']!.put!.responses)).toEqual(['200', '400', '401', '403', '404', '406', '413', '415', '422', '429', '500']);
    expect(Object.keys(document.paths['/users/{id}/avatar']!.get!.responses)).toEqual(['200', '206', '304', '400', '404', '406', '412', '416', '429', '500']);
    expect(Object.keys(document.paths['/users/{userId}/orders/events']!.get!.responses)).toEqual(['200', '400', '401', '403', '404', '406', '429', '500', '503']);
  });

  it('follows a changed policy: remove 204, forbidden 404, JSON instead of 406', async () => {
    const policy = createStatusPolicy({ remove: 204, forbidden: 404, unacceptable: 'json' });
    await expectExactStatuses({ policy }, { 'GET /health': [500], 'GET /openapi.json': [500] });
    const document = await documentOf(createDemoApi(db, { ...quiet, policy }));
    expect(Object.keys(document.paths['/users/{id}']!.delete!.responses)).toEqual(['204', '400', '401', '404', '412', '429', '500']);
  });

  it('every path answers any other method with the 405 and the Allow it states', async () => {
    const api = createDemoApi(db, quiet);
    const document = await documentOf(api);
    for (const [path, item] of Object.entries(document.paths)) {
      const method = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((candidate) => !item['x-allow'].split(', ').includes(candidate))!;
      const response = await api.handle({ method, url: path.replace(/\{\w+\}/g, '1'), headers: admin });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.allow).toBe(item['x-allow']);
      expect(item.description).toBe(`Allow: ${item['x-allow']}. Any other method answers 405 Method Not Allowed with this Allow header.`);
    }
  });

  it('OPTIONS on every path answers the status and the Allow header it documents', async () => {
    const api = createDemoApi(db, quiet);
    const document = await documentOf(api);
    for (const [path, item] of Object.entries(document.paths)) {
      const documented = item.options!.responses;
      const response = await api.handle({ method: 'OPTIONS', url: path.replace(/\{\w+\}/g, '1') });
      expect(Object.keys(documented), path).toEqual([String(response.status)]);
      expect(documented[response.status]!.headers).toEqual({ Allow: { description: 'The methods of this path.', schema: { type: 'string', const: response.headers.allow } } });
      expect(response.headers.allow).toBe(item['x-allow']);
    }
  });

  it('HEAD on every path with GET answers a status it documents, without a body', async () => {
    const api = createDemoApi(db, quiet);
    const document = await documentOf(api);
    const requests = [{ who: admin, id: 1 }, { who: {}, id: 1 }, { who: alice, id: 2 }, { who: admin, id: 99 }, { who: admin, id: 'abc' }];
    for (const [path, item] of Object.entries(document.paths)) {
      expect(item.head, path).toBeDefined();
      expect(Object.keys(item.head!.responses), path).toEqual(Object.keys(item.get!.responses));
      for (const { who, id } of requests) {
        const response = await api.handle({ method: 'HEAD', url: path.replace(/\{\w+\}/g, String(id)), headers: who });
        const documented = item.head!.responses[response.status];
        expect(documented, `HEAD ${path}: ${response.status}`).toBeDefined();
        expect(documented!.content).toBeUndefined();
        expect(response.payload).toBeUndefined();
      }
    }
  });

  it('names each model once: the user schema is one component, referred to from every operation', async () => {
    const document = await documentOf(createDemoApi(db, quiet));
    const text = JSON.stringify(document.paths);
    // The users' update takes a merge patch of UserBody: UserPatch, its members, none required.
    expect(Object.keys(document.components.schemas).sort()).toEqual(['Avatar', 'Health', 'OpenApiDocument', 'Order', 'OrderBody', 'OrderPatch', 'Problem', 'User', 'UserBody', 'UserPatch', 'ValidationProblem']);
    // read, create, replace, update and remove answer a User, list an array of them; HEAD documents no body.
    expect(text.split('"#/components/schemas/User"').length - 1).toBe(6);
    expect(text).not.toContain('"email"');
    expect(document.components.schemas.User).toMatchObject({ type: 'object', required: ['id', 'name', 'email'] });
    const patch = document.components.schemas.UserPatch!;
    expect(patch.required).toBeUndefined();
    expect(patch.properties).toEqual((document.components.schemas.UserBody as { properties: unknown }).properties);
    for (const type of ['application/merge-patch+json', 'application/json']) {
      expect(document.paths['/users/{id}']!.patch!.requestBody).toHaveProperty(['content', type, 'schema'], { $ref: '#/components/schemas/UserPatch' });
    }
  });
});
