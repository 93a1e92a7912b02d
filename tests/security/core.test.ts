/**
 * Regression tests for holes that failed open, each with the input that opened it. They run in
 * memory through `api.handle`: the pipeline decides every one of them, so every adapter inherits it
 * (the adapter-specific cases are in tests/security/adapters-*.test.ts).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collection, createApi, createStatusPolicy, endpoint, HttpError, json, text, type ApiRequest, type ErrorInfo } from '../../src/index.js';
import { defineEndpoint } from '../../src/engine.js';
import { openApi } from '../../src/openapi/index.js';
import { xml } from '../../src/formats/xml.js';
import { createTestClient, createTestContext } from '../../src/testing.js';
import { expectProblem } from '../helpers/problem.js';

const SECRET = 'confidential-plan';

/** A store of projects owned by users 1 and 2, behind an `authenticate` the test chooses. */
function projectsApi(authenticate: (request: ApiRequest) => unknown, onError: (error: unknown, info: ErrorInfo) => void = () => {}) {
  const projects = collection('projects', {
    owner: (project: { ownerId: number }, principal) => project.ownerId === (principal as { id: number }).id,
    list: () => [{ id: 1, ownerId: 1, plan: SECRET }],
    read: (ctx) => (ctx.params.id === '1' ? { id: 1, ownerId: 1, plan: SECRET } : undefined),
  });
  const me = endpoint('GET', '/me', { handle: (ctx) => ({ plan: SECRET, caller: ctx.principal }) });
  return createApi({ resources: [projects], endpoints: [me], authenticate: authenticate as never, onError });
}

describe('authenticate: only an object is a caller', () => {
  it.each([
    ['null', null],
    ['false', false],
    ['undefined', undefined],
  ])('%s is an anonymous caller: 401 on protected endpoints, never their data', async (_name, value) => {
    const client = createTestClient(projectsApi(() => value));
    for (const url of ['/me', '/projects', '/projects/1']) {
      const response = await client.get(url, { headers: { authorization: 'Bearer unknown-token' } });
      expectProblem(response, { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer realm="api"' }, secrets: [SECRET] });
    }
  });

  it.each([
    ['0', 0],
    ['the empty string', ''],
    ['true', true],
    ['a string id', 'user-1'],
    ['a number id', 42],
    ['a function (a lookup that was never called)', () => ({ id: 1 })],
  ])('%s is a mistake in authenticate: a masked 500, reported, never a pass', async (_name, value) => {
    const reported: unknown[] = [];
    const api = projectsApi(
      () => value,
      (error) => reported.push(error),
    );
    const response = await api.handle({ method: 'GET', url: '/me', headers: { authorization: 'Bearer x' } });
    expectProblem(response, { status: 500, code: 'RC_INTERNAL', secrets: [SECRET] });
    expect(reported).toHaveLength(1);
    expect(String((reported[0] as Error).message)).toMatch(/authenticate returned/);
  });

  it('an ORM-style async lookup that finds nobody (null) is anonymous, and a public endpoint still answers', async () => {
    const health = endpoint('GET', '/health', { public: true, handle: (ctx) => ({ anonymous: ctx.principal === undefined }) });
    const api = createApi({ endpoints: [health], authenticate: async () => null });
    const response = await api.handle({ method: 'GET', url: '/health', headers: { authorization: 'Bearer nobody' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ anonymous: true });
  });
});

describe('unknown options are refused at definition time, with the nearest valid one', () => {
  const read = () => undefined;
  it.each([
    ['collection()', () => collection('projects', { ownr: () => true, read } as never), '`ownr` is not an option of collection("projects"); did you mean `owner`?'],
    ['an operation', () => collection('projects', { read: { handle: read, pubilc: true } } as never), '`pubilc` is not an option of the "read" of collection("projects"); did you mean `public`?'],
    ['a misspelled operation', () => collection('projects', { reed: read } as never), '`reed` is not an option of collection("projects"); did you mean `read`?'],
    ['createApi()', () => createApi({ resource: [] } as never), '`resource` is not an option of createApi(); did you mean `resources`?'],
    ['createApi() basePath', () => createApi({ basepath: '/api' } as never), '`basepath` is not an option of createApi(); did you mean `basePath`?'],
    ['endpoint()', () => endpoint('GET', '/me', { handle: read, pulbic: true } as never), '`pulbic` is not an option of endpoint(GET /me); did you mean `public`?'],
    ['createStatusPolicy()', () => createStatusPolicy({ forbiden: 404 } as never), '`forbiden` is not an option of createStatusPolicy(); did you mean `forbidden`?'],
    ['openApi()', () => openApi({ info: { title: 't', version: '1' }, pubic: false } as never), '`pubic` is not an option of openApi(); did you mean `public`?'],
    ['createTestContext()', () => createTestContext({ principle: { id: 1 } } as never), '`principle` is not an option of createTestContext(); did you mean `principal`?'],
  ])('%s', (_name, define, message) => {
    expect(define).toThrow(TypeError);
    expect(define).toThrow(message);
  });

  it('defineEndpoint, which rebases endpoints, checks its definition as endpoint() does', () => {
    const base = endpoint('POST', '/imports', { body: z.object({ name: z.string() }), handle: () => ({}) });
    expect(() => defineEndpoint({ ...base, body: { type: 'object' } as never })).toThrow("must be a Standard Schema, such as a zod schema, 'unvalidated' to take any body unchecked, 'bytes' or 'stream' to take its bytes, or 'ignored'");
    expect(() => defineEndpoint({ ...base, pubilc: true } as never)).toThrow('`pubilc` is not an option of defineEndpoint(POST /imports); did you mean `public`?');
    expect(defineEndpoint({ ...base, path: '/v2/imports' }).path).toBe('/v2/imports');
  });

  it('a key far from every option lists the options instead of guessing', () => {
    expect(() => createApi({ zzzzzzzz: 1 } as never)).toThrow(/`zzzzzzzz` is not an option of createApi\(\); the options are `authenticate`, /);
  });

  it("the test client refuses a body given in place of its options: client.post('/projects', { title })", () => {
    const client = createTestClient(createApi({ endpoints: [endpoint('POST', '/projects', { body: z.object({ title: z.string() }), handle: (ctx) => ctx.body })] }));
    expect(() => client.post('/projects', { title: 'Roadmap' } as never)).toThrow("`title` is not an option of the test client's POST /projects");
  });
});

describe('a body is validated, or refused', () => {
  const body = z.object({ name: z.string() });

  it('update without a patch schema is refused at definition time, with the fix', () => {
    expect(() => collection('users', { body, update: (ctx) => ctx.body })).toThrow('"update" receives a body, so the collection needs "patch" (patch: body.partial() with zod');
    expect(() => collection('users', { create: (ctx) => ctx.body })).toThrow('"create" receives a body, so the collection needs "body"');
    expect(() => collection('users', { body: { type: 'object' } as never, create: (ctx) => ctx.body })).toThrow("must be a Standard Schema, such as a zod schema, 'unvalidated' to take any body unchecked, or 'ignored'");
  });

  it('{"isAdmin":true} through PATCH reaches no handler without a patch schema; with patch: body.partial() it is validated', async () => {
    const store = new Map([['1', { id: '1', name: 'Ada', isAdmin: false }]]);
    const users = collection('users', {
      body,
      patch: body.partial().strict(),
      read: (ctx) => store.get(ctx.params.id),
      update: (ctx) => Object.assign(store.get(ctx.params.id)!, ctx.body),
    });
    const client = createTestClient(createApi({ resources: [users] }));
    const response = await client.patch('/users/1', { body: { isAdmin: true } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'RC_INVALID_INPUT', errors: [{ in: 'body', pointer: '#/isAdmin' }] });
    expect(store.get('1')!.isAdmin).toBe(false);
  });

  it("patch: 'unvalidated' is the explicit opt-out", async () => {
    const users = collection('users', { body, patch: 'unvalidated', read: () => ({ id: 1 }), update: (ctx) => ({ id: 1, got: ctx.body }) });
    const response = await createTestClient(createApi({ resources: [users] })).patch('/users/1', { body: { anything: 1 } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: 1, got: { anything: 1 } });
  });

  it('a POST endpoint without a body option refuses a body (400 RC_UNEXPECTED_BODY) and still answers without one', async () => {
    const handle = vi.fn(() => ({ ok: true }));
    const logout = endpoint('POST', '/logins/current/expiry', { handle });
    const api = createApi({ endpoints: [logout] });
    for (const request of [
      { headers: { 'content-type': 'application/json', 'content-length': '16' }, body: '{"isAdmin":true}' },
      { headers: { 'content-type': 'application/json' }, body: '{"isAdmin":true}' },
      { headers: { 'transfer-encoding': 'chunked' }, body: (async function* () { yield new TextEncoder().encode('{}'); })() },
      { headers: {}, body: (async function* () { yield new TextEncoder().encode('x'); })() },
      { headers: {}, body: { isAdmin: true } },
    ]) {
      const response = await api.handle({ method: 'POST', url: '/logins/current/expiry', ...request });
      expectProblem(response, { status: 400, code: 'RC_UNEXPECTED_BODY', detail: 'This endpoint takes no body; declare a body schema to accept one' });
    }
    expect(handle).not.toHaveBeenCalled();
    for (const request of [
      {},
      { headers: { 'content-length': '0' }, body: '' },
      { headers: { 'content-length': '00' }, body: (async function* () {})() },
      { headers: { 'transfer-encoding': 'chunked' }, body: (async function* () {})() },
      { body: (async function* () {})() },
    ]) {
      expect((await api.handle({ method: 'POST', url: '/logins/current/expiry', ...request })).status).toBe(200);
    }
  });
});

describe('owner on a list', () => {
  const owned = (items: unknown) =>
    collection('projects', {
      owner: (project: { ownerId: number }, principal) => project.ownerId === (principal as { id: number }).id,
      read: () => undefined,
      list: () => items,
    });
  const callerOne = () => ({ id: 1 });

  it('filters the items of an envelope ({ items, total }), as it filters an array', async () => {
    const api = createApi({
      resources: [owned({ items: [{ id: 1, ownerId: 1 }, { id: 2, ownerId: 2, plan: SECRET }], total: 2 })],
      authenticate: callerOne,
      onError: () => {},
    });
    const response = await api.handle({ method: 'GET', url: '/projects' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: [{ id: 1, ownerId: 1 }], total: 2 });
  });

  it('refuses any other shape with a masked 500, reported, never passing it through', async () => {
    for (const result of [{ rows: [{ id: 2, ownerId: 2, plan: SECRET }] }, { items: 'all' }, 'everything', 7]) {
      const reported: unknown[] = [];
      const api = createApi({ resources: [owned(result)], authenticate: callerOne, onError: (error) => reported.push(error) });
      const response = await api.handle({ method: 'GET', url: '/projects' });
      expectProblem(response, { status: 500, code: 'RC_INTERNAL', secrets: [SECRET] });
      expect(reported).toHaveLength(1);
    }
  });
});

describe('forbidden: 404 answers someone else\'s item exactly as a missing one', () => {
  it('the same status, headers and bytes, through the same prebuilt error', async () => {
    const api = createApi({
      resources: [
        collection('projects', {
          body: 'unvalidated',
          owner: (project: { ownerId: number }, principal) => project.ownerId === (principal as { id: number }).id,
          read: (ctx) => (ctx.params.id === '2' ? { id: 2, ownerId: 2 } : undefined),
          remove: () => true,
        }),
      ],
      authenticate: () => ({ id: 1 }),
      policy: createStatusPolicy({ forbidden: 404 }),
      // Each problem names its request: two requests of one id get the very same bytes.
      requestId: { from: 'x-request-id' },
    });
    const headers = { 'x-request-id': 'req-1' };
    for (const method of ['GET', 'DELETE']) {
      const foreign = await api.handle({ method, url: '/projects/2', headers });
      const missing = await api.handle({ method, url: '/projects/3', headers });
      expect(foreign.status).toBe(404);
      expect(foreign.headers).toEqual(missing.headers);
      expect(foreign.payload).toBe(missing.payload);
    }
  });
});

describe('Authorization carrying two credentials', () => {
  const api = createApi({ endpoints: [endpoint('GET', '/me', { handle: (ctx) => ctx.principal })], authenticate: (request) => ({ token: request.headers?.authorization }) });

  it.each([
    ['two headers', ['Bearer a', 'Bearer b']],
    ['two joined by a Fetch Headers', 'Bearer a, Bearer b'],
    ['Basic and Bearer joined', 'Basic YTpi,Bearer b'],
    ['a bare scheme after a comma', 'Bearer a, Negotiate'],
    ['a credential and an empty second header, joined', 'Bearer a, '],
    ['a credential and an empty second header', ['Bearer a', '']],
  ])('%s is a 400, before authenticate runs', async (_name, authorization) => {
    const response = await api.handle({ method: 'GET', url: '/me', headers: { authorization } });
    expectProblem(response, { status: 400, code: 'RC_AMBIGUOUS_CREDENTIALS', detail: 'The request carries more than one set of credentials', exact: true });
  });

  it.each([['Bearer a'], ['Digest username="a, b", realm="x", nonce=y'], ['Digest realm = "x" , nonce=y'], [['Bearer a']]])('one credential (%s) passes', async (authorization) => {
    expect((await api.handle({ method: 'GET', url: '/me', headers: { authorization } })).status).toBe(200);
  });
});

describe('the order of checks: an anonymous caller costs no parsing', () => {
  it('a protected POST answers 401 before it looks at Content-Type, Accept or the body', async () => {
    const api = createApi({ endpoints: [endpoint('POST', '/notes', { body: z.object({ text: z.string() }), handle: () => ({}) })], authenticate: () => undefined });
    const response = await api.handle({
      method: 'POST',
      url: '/notes',
      headers: { 'content-type': `a${' '.repeat(16_000)}x`, accept: 'image/png' },
      body: '{not json',
    });
    expectProblem(response, { status: 401, code: 'RC_UNAUTHORIZED', exact: true });
    expect(response.headers).toEqual({ 'content-type': 'application/problem+json; charset=utf-8', 'www-authenticate': 'Bearer realm="api"' });
  });
});

describe('a default deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a handler that never settles is answered 503 after 30 s, without any timeout option', async () => {
    vi.useFakeTimers();
    const reported: number[] = [];
    const api = createApi({ endpoints: [endpoint('GET', '/stuck', { handle: () => new Promise(() => {}) })], onError: (_error, { status }) => reported.push(status) });
    expect(api.routes[0]!.outcomes).toContain('timeout');
    const answer = api.handle({ method: 'GET', url: '/stuck' });
    await vi.advanceTimersByTimeAsync(30_000);
    expectProblem(await answer, { status: 503, code: 'RC_TIMEOUT' });
    expect(reported).toEqual([503]);
  });

  it('an authenticate that never settles is answered the same way', async () => {
    vi.useFakeTimers();
    const reported: number[] = [];
    const api = createApi({ endpoints: [endpoint('GET', '/me', { handle: () => ({}) })], authenticate: () => new Promise(() => {}), onError: (_error, { status }) => reported.push(status) });
    const answer = api.handle({ method: 'GET', url: '/me' });
    await vi.advanceTimersByTimeAsync(30_000);
    expect((await answer).status).toBe(503);
    expect(reported).toEqual([503]);
  });

  it('a body that stops arriving is let go at the deadline: 503, and its source is told to stop', async () => {
    let returned = false;
    const stalled: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => {
        let sent = false;
        return {
          next: () => (sent ? new Promise<IteratorResult<Uint8Array>>(() => {}) : ((sent = true), Promise.resolve({ done: false, value: new TextEncoder().encode('{"text":"') }))),
          return: () => {
            returned = true;
            return Promise.resolve({ done: true, value: undefined });
          },
        };
      },
    };
    const handle = vi.fn();
    const reported: number[] = [];
    const api = createApi({ endpoints: [endpoint('POST', '/feedback', { body: z.object({ text: z.string() }), handle })], timeout: 50, onError: (_error, { status }) => reported.push(status) });
    const response = await api.handle({ method: 'POST', url: '/feedback', headers: { 'content-type': 'application/json' }, body: stalled });
    expect(response.status).toBe(503);
    expect(reported).toEqual([503]);
    await vi.waitFor(() => expect(returned).toBe(true));
    expect(handle).not.toHaveBeenCalled();
  });

  it('timeout: false opts out; anything but a whole number of milliseconds a timer can hold, or false, is refused', () => {
    const ping = endpoint('GET', '/ping', { handle: () => ({}) });
    expect(createApi({ timeout: false, endpoints: [ping] }).routes[0]!.outcomes).not.toContain('timeout');
    expect(createApi({ timeout: 2 ** 31 - 1, endpoints: [ping] }).routes[0]!.outcomes).toContain('timeout');
    for (const timeout of [true, -1, 0, 1.5, 2 ** 31, '1000']) expect(() => createApi({ timeout } as never)).toThrow(/"timeout" must be a whole number of milliseconds from 1 to 2147483647, or false/);
  });

  it('a body source whose return() throws, stopped at the deadline, still gets its 503 and crashes nothing', async () => {
    const stalled: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<Uint8Array>>(() => {}),
        return: () => {
          throw new Error('return() failed');
        },
      }),
    };
    const reported: number[] = [];
    const api = createApi({ endpoints: [endpoint('POST', '/feedback', { body: 'unvalidated', handle: () => ({}) })], timeout: 20, onError: (_error, { status }) => reported.push(status) });
    const responses = await Promise.all(
      [1, 2].map(() => api.handle({ method: 'POST', url: '/feedback', headers: { 'content-type': 'application/json' }, body: stalled })),
    );
    expect(responses.map((response) => response.status)).toEqual([503, 503]);
    // The timeouts are reported; the failing return() is the source's own affair.
    expect(reported).toEqual([503, 503]);
  });
});

describe('header values restcanon writes are safe on the wire', () => {
  it('a created id holding a lone surrogate still gets its 201, with an encoded Location', async () => {
    const created: unknown[] = [];
    const notes = collection('notes', { body: 'unvalidated', create: () => (created.push(1), { id: '\ud800' }) });
    const response = await createApi({ resources: [notes] }).handle({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/notes/%EF%BF%BD');
    expect(created).toHaveLength(1);
  });

  it.each([
    ['CR LF', '/notes/1\r\nSet-Cookie: sid=stolen', '/notes/1%0D%0ASet-Cookie:%20sid=stolen'],
    ['NUL', '/notes/\u00001', '/notes/%001'],
    ['text beyond Latin-1', '/notes/日本', '/notes/%E6%97%A5%E6%9C%AC'],
    ['a lone surrogate', '/notes/\udc00', '/notes/%EF%BF%BD'],
    ['an escape already there', '/notes/a%20b', '/notes/a%20b'],
  ])('a custom location with %s is encoded, not dropped with the 201', async (_name, location, sent) => {
    const create = endpoint('POST', '/notes', { operation: 'create', body: 'unvalidated', location: () => location, handle: () => ({ id: 1 }) });
    const response = await createApi({ endpoints: [create] }).handle({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe(sent);
  });

  it('a location that gives an empty string: the 201 without a Location header', async () => {
    const create = endpoint('POST', '/notes', { operation: 'create', body: 'unvalidated', location: () => '', handle: () => ({ id: 1 }) });
    const response = await createApi({ endpoints: [create] }).handle({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(201);
    expect(response.headers).not.toHaveProperty('location');
  });

  it('a location that throws or gives no string: the 201 without Location, and the mistake reported', async () => {
    for (const location of [() => { throw new Error('no url'); }, () => 42]) {
      const reported: unknown[] = [];
      const create = endpoint('POST', '/notes', { operation: 'create', body: 'unvalidated', location: location as never, handle: () => ({ id: 1 }) });
      const api = createApi({ endpoints: [create], onError: (error) => reported.push(error) });
      const response = await api.handle({ method: 'POST', url: '/notes', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(201);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toEqual({ id: 1 });
      expect(reported).toHaveLength(1);
    }
  });

  it('an HttpError with a header value that could split the response is a masked 500, reported', async () => {
    const reported: unknown[] = [];
    const conflict = endpoint('GET', '/conflicts', {
      handle: () => {
        throw new HttpError(409, { headers: { 'x-reason': 'taken\r\nSet-Cookie: a=b' } });
      },
    });
    const response = await createApi({ endpoints: [conflict], onError: (error) => reported.push(error) }).handle({ method: 'GET', url: '/conflicts' });
    expectProblem(response, { status: 500, code: 'RC_INTERNAL', headers: { 'set-cookie': undefined } });
    expect(reported).toHaveLength(1);
  });

  it('a challenge or a serializer content type with CR or LF is refused at definition time', () => {
    expect(() => createApi({ challenge: 'Bearer\r\nSet-Cookie: a=b' })).toThrow(TypeError);
    expect(() => createApi({ formats: [{ type: 'text/csv', contentType: 'text/csv\r\nx: y', serialize: String }] })).toThrow(TypeError);
  });
});

describe('a 500 without onError', () => {
  it('is written once to console.error with the request id, method, path and stack; the client sees none of it', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const broken = endpoint('GET', '/reports/:id', {
        handle: () => {
          throw new Error(SECRET);
        },
      });
      const response = await createApi({ endpoints: [broken] }).handle({ method: 'GET', url: '/reports/7?token=abc' });
      const { instance } = expectProblem(response, { status: 500, code: 'RC_INTERNAL', secrets: [SECRET] });
      expect(log).toHaveBeenCalledTimes(1);
      const [line, error] = log.mock.calls[0]!;
      expect(line).toBe(`restcanon: 500 ${instance} GET /reports/7`);
      expect((error as Error).message).toBe(SECRET);
      expect((error as Error).stack).toContain('core.test.ts');
    } finally {
      log.mockRestore();
    }
  });

  it('with onError, nothing goes to the console', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const broken = endpoint('GET', '/reports', {
        handle: () => {
          throw 'a thrown string';
        },
      });
      const reported: unknown[] = [];
      const response = await createApi({ endpoints: [broken], onError: (error) => reported.push(error) }).handle({ method: 'GET', url: '/reports' });
      expect(response.status).toBe(500);
      expect(reported).toEqual(['a thrown string']);
      expect(log).not.toHaveBeenCalled();
    } finally {
      log.mockRestore();
    }
  });
});

describe('what a response schema hides is hidden in every format', () => {
  const User = z.object({ id: z.number(), name: z.string() });
  const stored = { id: 1, name: 'Ada', passwordHash: '$argon2id$secret' };
  const users = collection('users', { item: User, list: () => [stored], read: () => stored });

  it.each([
    ['JSON', 'application/json', [], false],
    ['JSON with a compiled serializer', 'application/json', [], true],
    ['text', 'text/plain', [text], false],
    ['XML', 'application/xml', [xml], false],
  ] as const)('%s never carries a field the item schema leaves out', async (_name, accept, formats, compiled) => {
    const api = createApi({
      resources: [users],
      formats: [json, ...formats],
      // A compiler that strips nothing itself: the projection before it must.
      ...(compiled ? { serializerCompiler: () => (value: unknown) => JSON.stringify(value) } : {}),
    });
    for (const url of ['/users/1', '/users']) {
      const response = await api.handle({ method: 'GET', url, headers: { accept } });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toContain(accept);
      expect(String(response.payload)).toContain('Ada');
      expect(String(response.payload)).not.toContain('argon2id');
      expect(JSON.stringify(response.body)).not.toContain('passwordHash');
    }
    expect(stored.passwordHash).toBe('$argon2id$secret');
  });
});

describe('one item, one URL', () => {
  it('the Location of a nested create uses the parent id as its schema read it, not as it was spelled', async () => {
    const users = collection('users', { id: z.coerce.number().int(), read: (ctx) => ({ id: ctx.params.id }) });
    users.collection('orders', { body: 'unvalidated', create: () => ({ id: 7 }) });
    const api = createApi({ resources: [users] });
    for (const spelled of ['0x1', '1e0', '01', '%201']) {
      const response = await api.handle({ method: 'POST', url: `/users/${spelled}/orders`, headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(201);
      expect(response.headers.location).toBe('/users/1/orders/7');
    }
  });
});
