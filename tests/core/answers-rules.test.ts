/**
 * The answers of a request as a caller of `api.handle` sees them: the status of a success by the
 * policy and what the handler returned (docs/resources.md), the `Location` of a create (RFC 9110
 * §15.3.2), the problem answer in the negotiated format (RFC 9457, RFC 9110 §12.5.1), an API's own
 * problem body (`problemBody`), HEAD (RFC 9110 §9.3.2), and the masked 500 where an answer cannot
 * be built. Each case names the rule it pins.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint, HttpError, json, NotFoundError, UnauthorizedError, type ApiRequest, type ErrorInfo, type Serializer } from '../../src/index.js';
import { xml } from '../../src/formats/xml.js';
import { expectProblem, PROBLEM_TYPE } from '../helpers/problem.js';

const JSON_BODY = { 'content-type': 'application/json' };
const REQUEST_ID = /^urn:uuid:[0-9a-f-]{36}$/;
const NO_ROUTE = 'No resource matches this path';

/** An API whose `onError` keeps what it is given. */
function withReports(options: Parameters<typeof createApi>[0] & object) {
  const reported: { error: Error; info: ErrorInfo }[] = [];
  const api = createApi({ ...options, onError: (error, info) => reported.push({ error: error as Error, info }) });
  return { api, reported, messages: () => reported.map(({ error }) => error.message) };
}

const post = (url: string, body: unknown = {}): ApiRequest => ({ method: 'POST', url, headers: JSON_BODY, body: JSON.stringify(body) });

describe('a success is answered with the policy\'s status for what the handler returned (docs/resources.md)', () => {
  const results: unknown[] = [];
  const next = () => results.shift();
  const { api } = withReports({
    endpoints: [endpoint('POST', '/jobs', { body: 'unvalidated', handle: next })],
    resources: [collection('notes', { id: z.coerce.number().int(), body: 'unvalidated', read: next, create: next, remove: next })],
  });
  const answer = async (request: ApiRequest, result: unknown) => {
    results.length = 0;
    results.push(result);
    return api.handle(request);
  };

  it.each([undefined, null])('a submit that returns %s is done with nothing to send: 204 without a body or Content-Type', async (result) => {
    const response = await answer(post('/jobs'), result);
    expect(response).toEqual({ status: 204, headers: {}, body: undefined, payload: undefined });
  });

  it.each([true, false])('a submit that returns %s sends it: 200 (only a remove\'s true means empty)', async (result) => {
    const response = await answer(post('/jobs'), result);
    expect(response.status).toBe(200);
    expect(response.payload).toBe(String(result));
  });

  it('a remove that returns true answers the policy\'s empty status, 204, without a body', async () => {
    const response = await answer({ method: 'DELETE', url: '/notes/1' }, true);
    expect(response).toEqual({ status: 204, headers: {}, body: undefined, payload: undefined });
  });

  it('a remove that returns the removed item sends it with 200', async () => {
    const response = await answer({ method: 'DELETE', url: '/notes/1' }, { id: 1 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: 1 });
  });

  it.each([false, null, undefined])('a remove that returns %s found no item: 404', async (result) => {
    expectProblem(await answer({ method: 'DELETE', url: '/notes/1' }, result), { status: 404, code: 'RC_NOT_FOUND' });
  });

  it.each([null, undefined])('a read that returns %s found no item: 404', async (result) => {
    expectProblem(await answer({ method: 'GET', url: '/notes/1' }, result), { status: 404, code: 'RC_NOT_FOUND' });
  });

  it('a read that returns false sends it: only a remove\'s false is a missing item', async () => {
    const response = await answer({ method: 'GET', url: '/notes/1' }, false);
    expect(response.status).toBe(200);
    expect(response.payload).toBe('false');
  });

  it.each([null, undefined])('a create that returns %s answers 201 without a body or Content-Type', async (result) => {
    const response = await answer(post('/notes'), result);
    expect(response).toEqual({ status: 201, headers: {}, body: undefined, payload: undefined });
  });
});

describe('what a success carries besides its result', () => {
  const articles = () =>
    createApi({ resources: [collection('articles', { id: z.coerce.number().int(), etag: (article: { version: number }) => String(article.version), read: () => ({ id: 1, version: 7 }) })] });

  it('a read carries the validators its conventions add: ETag (RFC 9110 §8.8.3)', async () => {
    const response = await articles().handle({ method: 'GET', url: '/articles/1' });
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe('"7"');
  });

  it('a GET whose copy is current is the 304 its precondition answered, without a body (RFC 9110 §13.2.2, §15.4.5)', async () => {
    const response = await articles().handle({ method: 'GET', url: '/articles/1', headers: { 'if-none-match': '"7"' } });
    expect(response).toEqual({ status: 304, headers: { etag: '"7"' }, body: undefined, payload: undefined });
  });

  it('a result no format can write is a masked 500 that onError learns of, naming the endpoint (docs/errors.md)', async () => {
    const { api, reported, messages } = withReports({ endpoints: [endpoint('GET', '/tags', { handle: () => new Map([['a', 1]]) })] });
    const response = await api.handle({ method: 'GET', url: '/tags' });
    const problem = expectProblem(response, { status: 500, code: 'RC_INTERNAL', exact: false });
    expect(messages()).toEqual(['The result of GET /tags is a Map or Set: JSON writes it as {}; give an object or an array']);
    expect(reported[0]!.info.requestId).toBe(problem.instance);
  });
});

describe('a compiled serializer writes JSON only (createApi: serializerCompiler)', () => {
  const books = (compile: (schema: Record<string, unknown>) => (value: unknown) => string) =>
    withReports({
      formats: [json, xml],
      serializerCompiler: compile,
      endpoints: [endpoint('GET', '/books/1', { response: z.object({ title: z.string() }), handle: () => ({ title: 'Dune' }) })],
    });

  it('another format negotiated by Accept writes with its own serializer: XML stays XML', async () => {
    const { api } = books(() => (value) => `{"compiled":${JSON.stringify(value)}}`);
    const asXml = await api.handle({ method: 'GET', url: '/books/1', headers: { accept: 'application/xml' } });
    expect(asXml.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(String(asXml.payload)).toMatch(/^<\?xml[^>]*\?>\s*<result><title>Dune<\/title><\/result>\s*$/);
    const asJson = await api.handle({ method: 'GET', url: '/books/1' });
    expect(asJson.payload).toBe('{"compiled":{"title":"Dune"}}');
  });

  it('a compiled serializer that gives no string is a masked 500 that names it', async () => {
    const { api, messages } = books(() => () => 42 as unknown as string);
    expectProblem(await api.handle({ method: 'GET', url: '/books/1' }), { status: 500, code: 'RC_INTERNAL' });
    expect(messages()).toEqual(['The compiled application/json serializer gave a number; give a string or a Uint8Array']);
  });
});

describe('Location of a create (RFC 9110 §15.3.2: a 201 names what it made, when it can)', () => {
  function imports(location: (result: unknown) => unknown) {
    return withReports({ endpoints: [endpoint('POST', '/imports', { operation: 'create', body: 'unvalidated', location: location as () => string, handle: () => ({ id: 'imp-1' }) })] });
  }

  it.each([undefined, ''])('a location that gives %j sends no Location and reports nothing: the item has no URL', async (given) => {
    const { api, reported } = imports(() => given);
    const created = await api.handle(post('/imports'));
    expect(created.status).toBe(201);
    expect(created.headers).not.toHaveProperty('location');
    expect(reported).toEqual([]);
  });

  it('a location that gives no string sends no Location, and the mistake is reported', async () => {
    const { api, messages } = imports(() => 42);
    const created = await api.handle(post('/imports'));
    expect(created.status).toBe(201);
    expect(created.headers).not.toHaveProperty('location');
    expect(messages()).toEqual(['The location of POST /imports returned a number, not a string']);
  });

  it('a location that throws sends no Location, and what it threw is reported', async () => {
    const { api, messages } = imports(() => {
      throw new Error('no route to the import');
    });
    const created = await api.handle(post('/imports'));
    expect(created.status).toBe(201);
    expect(created.headers).not.toHaveProperty('location');
    expect(messages()).toEqual(['no route to the import']);
  });

  it('a submit that chooses create, without a location of its own, has no item URL to give: 201 without Location, nothing reported', async () => {
    const { api, reported } = withReports({
      endpoints: [endpoint('POST', '/imports', { outcomes: ['create'], body: 'unvalidated', handle: (ctx) => (ctx.outcome('create'), { id: 'imp-1' }) })],
    });
    const created = await api.handle(post('/imports'));
    expect(created.status).toBe(201);
    expect(created.headers).not.toHaveProperty('location');
    expect(created.body).toEqual({ id: 'imp-1' });
    expect(reported).toEqual([]);
  });

  describe('an id that names no item as a path segment gives no Location, and is reported (RFC 3986 §5.2.4: `.` and `..` are removed)', () => {
    const fix = 'so the 201 has no Location: give a string or number id, with the collection\'s "idOf" or the endpoint\'s "location"';
    it.each([
      ['', '""'],
      ['.', '"."'],
      ['..', '".."'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      [true, 'a boolean'],
    ])('id %s', async (id, what) => {
      const { api, messages } = withReports({ resources: [collection('articles', { body: 'unvalidated', create: () => ({ id, title: 'x' }) })] });
      const created = await api.handle(post('/articles'));
      expect(created.status).toBe(201);
      expect(created.headers).not.toHaveProperty('location');
      expect(messages()).toEqual([`POST /articles: the created item's "id" is ${what}, ${fix}`]);
    });
  });

  it.each([
    ['a string with dots', 'v1.2', '/articles/v1.2'],
    ['a number', 7, '/articles/7'],
    ['zero', 0, '/articles/0'],
    ['a bigint', 12345678901234567890n, '/articles/12345678901234567890'],
  ])('%s names an item: Location %s', async (_kind, id, location) => {
    const { api, reported } = withReports({ resources: [collection('articles', { body: 'unvalidated', idOf: () => id, create: () => ({ title: 'x' }) })] });
    const created = await api.handle(post('/articles'));
    expect(created.headers.location).toBe(location);
    expect(reported).toEqual([]);
  });

  it.each([
    ['a number that is no segment (NaN)', z.string().transform(Number), '/users/abc/articles', '/users/abc/articles/7'],
    ['a value that is no id (a Date)', z.coerce.date(), '/users/2026-02-15/articles', '/users/2026-02-15/articles/7'],
  ])('a parent id whose schema reads %s is named in Location as the URL gave it', async (_kind, id, url, location) => {
    const users = collection('users', { id, read: () => ({ id: 1 }) });
    users.collection('articles', { body: 'unvalidated', create: () => ({ id: 7 }) });
    const { api, reported } = withReports({ resources: [users] });
    const created = await api.handle(post(url));
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(location);
    expect(reported).toEqual([]);
  });
});

describe('a link below no mount prefix is the path the client sent (docs/lists.md)', () => {
  it.each([undefined, '', '/'])('baseUrl %j', async (baseUrl) => {
    const api = createApi({ resources: [collection('articles', { page: { by: 'offset', limit: { default: 1, max: 10 } }, list: () => [{ id: 1 }, { id: 2 }] })] });
    const response = await api.handle({ method: 'GET', url: '/articles/', ...(baseUrl === undefined ? {} : { baseUrl }) });
    expect(response.status).toBe(200);
    expect(response.headers.link).toBe('</articles/?limit=1&offset=1>; rel="next"');
  });
});

describe('the problem answer (RFC 9457)', () => {
  it('a 401 without a challenge of its own carries the API\'s challenge (RFC 9110 §11.6.1, createApi: challenge)', async () => {
    const challenge = 'Basic realm="files"';
    const { api } = withReports({
      challenge,
      endpoints: [
        endpoint('GET', '/plain', { handle: () => { throw new UnauthorizedError(); } }),
        endpoint('GET', '/status', { handle: () => { throw new HttpError(401); } }),
        endpoint('GET', '/own', { handle: () => { throw new UnauthorizedError('The token expired', { challenge: 'Bearer error="invalid_token"' }); } }),
      ],
    });
    for (const url of ['/plain', '/status']) {
      expectProblem(await api.handle({ method: 'GET', url }), { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': challenge } });
    }
    expectProblem(await api.handle({ method: 'GET', url: '/own' }), { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
  });

  it('with more than one format a problem varies on Accept; with one it does not (RFC 9110 §12.5.5)', async () => {
    const nowhere: ApiRequest = { method: 'GET', url: '/nowhere' };
    expectProblem(await createApi({ formats: [json, xml] }).handle(nowhere), { status: 404, code: 'RC_NOT_FOUND', headers: { vary: 'Accept' } });
    expectProblem(await createApi({}).handle(nowhere), { status: 404, code: 'RC_NOT_FOUND', headers: { vary: undefined } });
  });

  it('a format that writes problems sends its problem type with charset=utf-8: application/problem+xml', async () => {
    const response = await createApi({ formats: [json, xml] }).handle({ method: 'GET', url: '/nowhere', headers: { accept: 'application/xml' } });
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
    expect(String(response.payload)).toMatch(/<problem [^>]*><type>about:blank<\/type><title>Not Found<\/title><status>404<\/status>/);
  });

  it('an application/json format of one\'s own without a problemType writes problems as application/problem+json', async () => {
    const tagged: Serializer = { type: 'application/json', contentType: 'application/json; charset=utf-8', serialize: JSON.stringify, serializeProblem: (problem) => JSON.stringify({ tagged: true, ...problem }) };
    const response = await createApi({ formats: [tagged] }).handle({ method: 'GET', url: '/nowhere' });
    expect(response.headers['content-type']).toBe(PROBLEM_TYPE);
    expect(JSON.parse(String(response.payload))).toMatchObject({ tagged: true, status: 404, code: 'RC_NOT_FOUND' });
  });

  it('a format with a problemType and no serializeProblem is refused when the API is built: its problems would go out as JSON labelled with that type', () => {
    const half = { type: 'application/vnd.half', contentType: 'application/vnd.half', serialize: String, problemType: 'application/problem+half' } as Serializer;
    expect(() => createApi({ formats: [json, half] })).toThrow(
      'createApi: the format "application/vnd.half" has the problemType "application/problem+half" but no serializeProblem to write its problems: give it serializeProblem(problem), or drop problemType so that its problems go out in JSON',
    );
  });

  describe('a serializeProblem that fails is reported, and the problem goes out in JSON (docs/response-formats.md)', () => {
    const failing = (serializeProblem: () => unknown): Serializer => ({ ...xml, serializeProblem: serializeProblem as NonNullable<Serializer['serializeProblem']> });
    const asXml = { accept: 'application/xml' };

    it.each([
      ['throws', () => { throw new Error('xml writer down'); }, 'xml writer down'],
      ['gives no string or bytes', () => 7, 'The application/problem+xml; charset=utf-8 serializer gave a number; give a string or a Uint8Array'],
    ])('one that %s, under a 404: the report has an id of its own', async (_how, serializeProblem, message) => {
      const { api, reported, messages } = withReports({ formats: [json, failing(serializeProblem)] });
      const response = await api.handle({ method: 'GET', url: '/nowhere', headers: asXml });
      expectProblem(response, { status: 404, code: 'RC_NOT_FOUND', detail: NO_ROUTE, exact: true, headers: { vary: 'Accept' } });
      expect(messages()).toEqual([message]);
      expect(reported[0]!.info).toMatchObject({ status: 404, requestId: expect.stringMatching(REQUEST_ID), request: { url: '/nowhere' } });
    });

    it('under a 500: the failure and the error are reported with the instance the client got', async () => {
      const { api, reported, messages } = withReports({ formats: [json, failing(() => { throw new Error('xml writer down'); })], endpoints: [endpoint('GET', '/broken', { handle: () => { throw new Error('db down'); } })] });
      const problem = expectProblem(await api.handle({ method: 'GET', url: '/broken', headers: asXml }), { status: 500, code: 'RC_INTERNAL' });
      expect(problem.instance).toMatch(REQUEST_ID);
      expect(messages()).toEqual(['xml writer down', 'db down']);
      expect(reported.map(({ info }) => info.requestId)).toEqual([problem.instance, problem.instance]);
    });
  });
});

describe('an API\'s own problem body (createApi: problemBody)', () => {
  const broken = endpoint('GET', '/broken', { handle: () => { throw new Error('db down'); } });

  it.each([
    ['undefined', () => undefined, 'The body problemBody.build returned is undefined'],
    ['a Map', () => new Map(), 'The body problemBody.build returned is a Map or Set: JSON writes it as {}; give an object or an array'],
    ['a promise', async () => ({ error: 'late' }), 'The body problemBody.build returned is a promise: await it'],
  ])('a build that gives %s is reported, and the problem itself goes out', async (_what, build, message) => {
    const { api, reported, messages } = withReports({ problemBody: { build } });
    const response = await api.handle({ method: 'GET', url: '/nowhere' });
    expectProblem(response, { status: 404, code: 'RC_NOT_FOUND', detail: NO_ROUTE, exact: true });
    expect(messages()).toEqual([message]);
    expect(reported[0]!.info).toMatchObject({ status: 404, requestId: expect.stringMatching(REQUEST_ID), request: { url: '/nowhere' } });
  });

  it('a build that rejects leaves no unhandled rejection, which would end the process', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const { api, messages } = withReports({ problemBody: { build: () => Promise.reject(new Error('shaper down')) } });
      expectProblem(await api.handle({ method: 'GET', url: '/nowhere' }), { status: 404, code: 'RC_NOT_FOUND', detail: NO_ROUTE, exact: true });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      expect(messages()).toEqual(['The body problemBody.build returned is a promise: await it']);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('under a 500, a build that fails is reported with the instance the client got, and so is the error', async () => {
    const { api, reported, messages } = withReports({ problemBody: { build: () => undefined }, endpoints: [broken] });
    const problem = expectProblem(await api.handle({ method: 'GET', url: '/broken' }), { status: 500, code: 'RC_INTERNAL' });
    expect(messages()).toEqual(['The body problemBody.build returned is undefined', 'db down']);
    expect(reported.map(({ info }) => info.requestId)).toEqual([problem.instance, problem.instance]);
  });
});

describe('the masked 500 where no answer can be built (docs/errors.md)', () => {
  it('an HttpError that cannot be answered as it stands (its status changed to 200) is a masked 500, and the reason is reported', async () => {
    const changed = new NotFoundError('No note 7');
    (changed as { status: number }).status = 200;
    const { api, reported, messages } = withReports({ endpoints: [endpoint('GET', '/notes/7', { handle: () => { throw changed; } })] });
    const problem = expectProblem(await api.handle({ method: 'GET', url: '/notes/7' }), { status: 500, code: 'RC_INTERNAL', secrets: ['No note 7'] });
    expect(messages()).toEqual(['A thrown HttpError cannot be answered, so it is a 500: its status is not a whole number from 400 to 599']);
    expect(reported[0]!.error.cause).toBe(changed);
    expect(reported[0]!.info.requestId).toBe(problem.instance);
  });

  // A request built by hand for api.handle may carry any value; an Accept that is no string cannot be negotiated.
  const unreadable = { accept: 7 as unknown as string };

  it('a 404 whose Accept cannot be read is a 500 of constants in JSON, and what failed is reported with its instance', async () => {
    const { api, reported, messages } = withReports({});
    const response = await api.handle({ method: 'GET', url: '/nowhere', headers: unreadable });
    const problem = expectProblem(response, { status: 500, code: 'RC_INTERNAL', exact: false });
    expect(Object.keys(response.headers)).toEqual(['content-type']);
    expect(problem.instance).toMatch(REQUEST_ID);
    expect(messages()).toHaveLength(1);
    expect(reported[0]!.error).toBeInstanceOf(TypeError);
    expect(reported[0]!.info).toMatchObject({ status: 500, requestId: problem.instance, request: { url: '/nowhere' } });
  });

  it('a HEAD whose Accept cannot be read gets the same 500 without a body (RFC 9110 §9.3.2)', async () => {
    const { api } = withReports({});
    const response = await api.handle({ method: 'HEAD', url: '/nowhere', headers: unreadable });
    expect(response).toEqual({ status: 500, headers: { 'content-type': PROBLEM_TYPE }, body: undefined, payload: undefined });
  });

  it('a 500 whose Accept cannot be read reports the error it answers, once, with the instance the client got', async () => {
    // authenticate runs before Accept is read: its failure is the error the 500 answers.
    const failure = new Error('token store down');
    const { api, reported } = withReports({ authenticate: () => { throw failure; }, endpoints: [endpoint('GET', '/me', { handle: () => ({}) })] });
    const problem = expectProblem(await api.handle({ method: 'GET', url: '/me', headers: unreadable }), { status: 500, code: 'RC_INTERNAL' });
    expect(reported.map(({ error }) => error)).toEqual([failure]);
    expect(reported[0]!.info.requestId).toBe(problem.instance);
  });
});
