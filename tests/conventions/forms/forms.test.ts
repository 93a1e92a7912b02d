/**
 * The `forms` convention on restcanon/engine: without it, an endpoint that takes
 * `application/x-www-form-urlencoded` (by name, or within `*\/*` or `application/*`, where the form
 * would otherwise reach the handler as text instead of a record) is refused when the API is built,
 * naming the module; with it in `use`, the API reads forms as restcanon's createApi does, on every
 * adapter, and documents them alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApi as createFullApi, endpoint, type ApiRequest, type ApiResponse, type Endpoint } from '../../../src/index.js';
import { createApi, createEndpointHandler, forms } from '../../../src/engine.js';
import { createOpenApiDocument } from '../../../src/openapi/index.js';
import { createSettings } from '../../../src/core/settings.js';
import { compile } from '../../../src/core/compile.js';
import { TAKE_WHOLE, type RawBody } from '../../../src/core/body.js';
import type { MountedServer } from '../../adapters/conformance.js';
import { MOUNTS } from '../../adapters/mounts.js';
import { expectProblem } from '../../helpers/problem.js';

const FORM = 'application/x-www-form-urlencoded';
const REFUSED = "it consumes application/x-www-form-urlencoded, which the API reads only with a module; add forms from restcanon/engine to createApi({ use: [...] }), or take the bytes as they come with body: 'stream'";
const info = { title: 'Signups', version: '1.0.0' };
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
/** What a handler got: a record or text as it is, bytes as hex. */
const got = (body: unknown): unknown => (body instanceof Uint8Array ? { hex: hex(body) } : body);

function endpoints() {
  return [
    endpoint('POST', '/signups', {
      consumes: [FORM, 'application/json'],
      body: z.object({ name: z.string(), tags: z.array(z.string()).optional(), age: z.coerce.number().optional() }),
      handle: (ctx) => ctx.body,
    }),
    endpoint('POST', '/raw', { consumes: [FORM], body: 'unvalidated', handle: (ctx) => ({ got: got(ctx.body) }) }),
    endpoint('POST', '/limited', { consumes: [FORM], body: 'unvalidated', bodyLimit: 16, handle: (ctx) => ({ got: got(ctx.body) }) }),
    endpoint('POST', '/anything', { consumes: ['*/*'], body: 'unvalidated', handle: (ctx) => ({ got: got(ctx.body) }) }),
    endpoint('PUT', '/documents/:id', { consumes: ['application/*'], body: 'unvalidated', handle: (ctx) => ({ got: got(ctx.body) }) }),
    endpoint('POST', '/bytes', { consumes: ['*/*'], body: 'bytes', handle: (ctx) => ({ got: got(ctx.body) }) }),
    endpoint('POST', '/tags', { consumes: ['Application/X-WWW-Form-Urlencoded'], body: z.object({ tags: z.array(z.string()) }), handle: (ctx) => ctx.body }),
    endpoint('POST', '/any-tags', { consumes: ['*/*'], body: z.object({ tags: z.array(z.string()) }), handle: (ctx) => ctx.body }),
  ];
}

const fields = (count: number): string => Array.from({ length: count }, (_, index) => `f${index}=1`).join('&');

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

/** A body whole in memory already, as an adapter gives one that arrived with its headers: taken at once, without a promise. */
function whole(text: string): RawBody {
  const bytes = new TextEncoder().encode(text);
  return Object.assign(chunks(text), { [TAKE_WHOLE]: () => bytes });
}

/** What the answer holds: its status, and its body on a success or its problem's code. */
type Expected = { status: number; body?: unknown; code?: string };

/** Each request a fresh one (a streamed body is read once), with what it is answered. */
const CASES: [string, () => ApiRequest, Expected][] = [
  ['a form parsed and validated', () => post('/signups', 'name=Ada+Lovelace&age=36&tags=math&tags=poetry'), { status: 200, body: { name: 'Ada Lovelace', age: 36, tags: ['math', 'poetry'] } }],
  ['an array key sent once', () => post('/signups', 'name=Ada&tags=math'), { status: 200, body: { name: 'Ada', tags: ['math'] } }],
  ['JSON beside forms', () => post('/signups', '{"name":"Ada"}', 'application/json'), { status: 200, body: { name: 'Ada' } }],
  ['a form the schema refuses', () => post('/signups', 'age=36'), { status: 400, code: 'RC_INVALID_INPUT' }],
  ['an empty form', () => post('/signups', ''), { status: 400, code: 'RC_MALFORMED_BODY' }],
  ['repeated keys and percent-escapes', () => post('/raw', 'a=1&a=2&b=%E2%82%AC'), { status: 200, body: { got: { a: ['1', '2'], b: '€' } } }],
  ['a __proto__ key', () => post('/raw', '__proto__=x&a=1'), { status: 400, code: 'RC_FORBIDDEN_KEY' }],
  ['1,000 fields', () => post('/raw', fields(1000)), { status: 200 }],
  ['1,001 fields', () => post('/raw', fields(1001)), { status: 413, code: 'RC_TOO_MANY_FIELDS' }],
  ['a charset other than UTF-8', () => post('/raw', 'a=1', `${FORM}; charset=iso-8859-1`), { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE' }],
  ['a charset of UTF-8', () => post('/raw', 'a=1', `${FORM};charset=UTF-8`), { status: 200, body: { got: { a: '1' } } }],
  ['a form as bytes', () => post('/raw', new TextEncoder().encode('a=1&b=2')), { status: 200, body: { got: { a: '1', b: '2' } } }],
  ['a form in chunks', () => post('/raw', chunks('a=1&', 'b=2')), { status: 200, body: { got: { a: '1', b: '2' } } }],
  ['a form whole in memory', () => post('/raw', whole('a=1&b=2')), { status: 200, body: { got: { a: '1', b: '2' } } }],
  ['a form whole in memory that is not UTF-8', () => post('/raw', Object.assign(chunks(''), { [TAKE_WHOLE]: () => Uint8Array.of(0x61, 0x3d, 0xff) })), { status: 400, code: 'RC_MALFORMED_BODY' }],
  ['a form after a byte order mark', () => post('/raw', '\uFEFFa=1'), { status: 200, body: { got: { a: '1' } } }],
  ['bytes that are not UTF-8', () => post('/raw', Uint8Array.of(0x61, 0x3d, 0xff)), { status: 400, code: 'RC_MALFORMED_BODY' }],
  ['a form past the body limit', () => post('/limited', 'a=0123456789abcdef'), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' }],
  ['a form as bytes past the body limit', () => post('/limited', new TextEncoder().encode('a=0123456789abcdef')), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' }],
  ['a form whole in memory past the body limit', () => post('/limited', whole('a=0123456789abcdef')), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' }],
  ['a form in chunks past the body limit', () => post('/limited', chunks('a=01234567', '89abcdef')), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' }],
  ['a form in a Content-Type of another case', () => post('/raw', 'a=1', 'Application/X-WWW-Form-Urlencoded'), { status: 200, body: { got: { a: '1' } } }],
  ['a form within */*', () => post('/anything', 'a=1&a=2'), { status: 200, body: { got: { a: ['1', '2'] } } }],
  ['JSON within */*', () => post('/anything', '{"a":1}', 'application/json'), { status: 200, body: { got: { a: 1 } } }],
  ['text within */*', () => post('/anything', 'a=1', 'text/plain'), { status: 200, body: { got: 'a=1' } }],
  ['bytes within */*', () => post('/anything', Uint8Array.of(0xff, 0x00), 'application/octet-stream'), { status: 200, body: { got: { hex: 'ff00' } } }],
  ['a form within application/*', () => ({ ...post('/documents/7', 'a=1'), method: 'PUT' }), { status: 200, body: { got: { a: '1' } } }],
  ['an array key sent once where consumes names the form in another case', () => post('/tags', 'tags=a'), { status: 200, body: { tags: ['a'] } }],
  // Only a form named in consumes has the schema's array keys: within a range, a name given once stays a string.
  ['an array key sent once within */*', () => post('/any-tags', 'tags=a'), { status: 400, code: 'RC_INVALID_INPUT' }],
  ['an array key sent twice within */*', () => post('/any-tags', 'tags=a&tags=b'), { status: 200, body: { tags: ['a', 'b'] } }],
  ['a form as bytes on body: bytes', () => post('/bytes', 'a=1'), { status: 200, body: { got: { hex: '613d31' } } }],
];

function post(url: string, body: ApiRequest['body'], type = FORM): ApiRequest {
  return { method: 'POST', url, headers: { 'content-type': type }, body };
}

/** What a client sees of an answer: its status, the headers a body's reading decides, and its body (a problem's instance is new on every answer). */
function seen(response: ApiResponse) {
  const body = response.body as Record<string, unknown> | undefined;
  return {
    status: response.status,
    'content-type': response.headers['content-type'],
    'accept-post': response.headers['accept-post'],
    body: typeof body === 'object' && body !== null && 'instance' in body ? { ...body, instance: 'ID' } : body,
  };
}

describe('an API from restcanon/engine without forms', () => {
  const build = (definition: Endpoint) => () => createApi({ naming: 'off', endpoints: [definition] });

  it('an endpoint that consumes application/x-www-form-urlencoded is refused when the API is built, naming forms and restcanon/engine', () => {
    const signup = endpoint('POST', '/signups', { consumes: [FORM], body: z.object({ name: z.string() }), handle: (ctx) => ctx.body });
    expect(build(signup)).toThrow(`POST /signups: ${REFUSED}`);
  });

  it('so is one that names it in another case (Application/X-WWW-Form-Urlencoded) or beside JSON', () => {
    expect(build(endpoint('POST', '/signups', { consumes: ['Application/X-WWW-Form-Urlencoded'], body: 'unvalidated', handle: () => ({}) }))).toThrow(/add forms from restcanon\/engine/);
    expect(build(endpoint('POST', '/signups', { consumes: ['application/json', FORM], body: 'unvalidated', handle: () => ({}) }))).toThrow(/add forms from restcanon\/engine/);
  });

  it.each(['*/*', 'application/*'])('an endpoint that consumes %s, which takes a form, is refused when built: the form would reach it as text where createApi gives a record', (range) => {
    expect(build(endpoint('PUT', '/documents/:id', { consumes: [range], body: 'unvalidated', handle: () => ({}) }))).toThrow(`PUT /documents/:id: ${REFUSED}`);
  });

  it('createEndpointHandler refuses it too', () => {
    const signup = endpoint('POST', '/signups', { consumes: [FORM], body: 'unvalidated', handle: () => ({}) });
    expect(() => createEndpointHandler(signup)).toThrow(/add forms from restcanon\/engine/);
  });

  it('an endpoint that takes a form as bytes or a stream, or a range that holds no form (text/*, image/*), is built and reads as createApi does', async () => {
    const definitions = [
      endpoint('POST', '/bytes', { consumes: ['*/*'], body: 'bytes', handle: (ctx) => ({ got: got(ctx.body) }) }),
      endpoint('POST', '/streams', {
        consumes: [FORM],
        body: 'stream',
        handle: async (ctx) => {
          let text = '';
          for await (const chunk of ctx.body) text += Buffer.from(chunk).toString();
          return { text };
        },
      }),
      endpoint('POST', '/texts', { consumes: ['text/*', 'image/*'], body: 'unvalidated', handle: (ctx) => ({ got: got(ctx.body) }) }),
    ];
    const lean = createApi({ naming: 'off', endpoints: definitions });
    const full = createFullApi({ naming: 'off', endpoints: definitions });
    const requests = [post('/bytes', 'a=1'), post('/streams', 'a=1'), post('/texts', 'a=1'), post('/texts', 'a=1', 'text/plain')];
    for (const request of requests) expect(seen(await lean.handle(request))).toEqual(seen(await full.handle(request)));
    expect((await lean.handle(post('/bytes', 'a=1'))).body).toEqual({ got: { hex: '613d31' } });
    expect((await lean.handle(post('/streams', 'a=1'))).body).toEqual({ text: 'a=1' });
    expectProblem(await lean.handle(post('/texts', 'a=1')), { status: 415 });
  });
});

describe('an API from restcanon/engine with forms in use', () => {
  const lean = createApi({ naming: 'off', endpoints: endpoints(), use: [forms] });
  const full = createFullApi({ naming: 'off', endpoints: endpoints() });

  it.each(CASES)('%s: answered as restcanon’s createApi answers it', async (_, request, expected) => {
    const answer = seen(await lean.handle(request()));
    expect(answer).toEqual(seen(await full.handle(request())));
    expect(answer.status).toBe(expected.status);
    if (expected.body !== undefined) expect(answer.body).toEqual(expected.body);
    if (expected.code !== undefined) expect(answer.body).toMatchObject({ code: expected.code });
  });

  it('its OpenAPI document is the one restcanon’s createApi gives', () => {
    const document = createOpenApiDocument(lean, { info });
    expect(document).toEqual(createOpenApiDocument(full, { info }));
    const content = (document.paths['/signups']!.post!.requestBody as { content: Record<string, unknown> }).content;
    expect(content[FORM]).toEqual(content['application/json']);
  });

  it('createEndpointHandler takes it too', async () => {
    const [signup] = endpoints();
    const answer = await createEndpointHandler(signup!, { use: [forms] })(post('/signups', 'name=Ada&tags=math'), {});
    expect(answer.body).toEqual({ name: 'Ada', tags: ['math'] });
  });
});

describe('what the forms convention adds to an endpoint', () => {
  const settings = createSettings({});
  const readersOf = (definition: Endpoint) => compile(definition, definition.path, settings, [forms]).bodyRules?.readers;

  it('no reader where the endpoint takes no form (JSON, text/*, image/*, no body): its requests pay nothing for it', () => {
    expect(readersOf(endpoint('POST', '/x', { body: z.object({}), handle: () => ({}) }))).toBeUndefined();
    expect(readersOf(endpoint('POST', '/x', { consumes: ['application/json', 'text/*', 'image/*'], body: 'unvalidated', handle: () => ({}) }))).toBeUndefined();
    expect(readersOf(endpoint('GET', '/x', { handle: () => ({}) }))).toBeUndefined();
  });

  it.each([[FORM], ['Application/X-WWW-Form-Urlencoded'], ['*/*'], ['application/*']])('a reader of urlencoded forms where it consumes %s', (type) => {
    expect([...readersOf(endpoint('POST', '/x', { consumes: [type], body: 'unvalidated', handle: () => ({}) }))!.keys()]).toEqual([FORM]);
  });

  it('endpoint() refuses conventions: { forms }, naming consumes', () => {
    expect(() => endpoint('POST', '/x', { consumes: [FORM], body: 'unvalidated', conventions: { forms: {} }, handle: () => ({}) })).toThrow('"conventions" cannot declare "forms": ask for it through "consumes"');
  });
});

/** What a client sees over the wire: status, Content-Type and body (a problem's instance is new on every answer). */
async function sent(response: Response) {
  const text = await response.text();
  return { status: response.status, 'content-type': response.headers.get('content-type'), body: text.replace(/"instance":"[^"]*"/, '"instance":"ID"') };
}

const WIRE_CASES: [string, string, string][] = [
  ['/signups', 'name=Ada+Lovelace&age=36&tags=math', FORM],
  ['/signups', 'age=36', FORM],
  ['/raw', '__proto__=x&a=1', FORM],
  ['/raw', fields(1001), FORM],
  ['/raw', 'a=1', `${FORM}; charset=iso-8859-1`],
  ['/limited', 'a=0123456789abcdef', FORM],
  ['/anything', 'a=1&a=2', FORM],
];

for (const [name, mount] of Object.entries(MOUNTS)) {
  describe(`restcanon/engine with forms on ${name}`, () => {
    let lean: MountedServer;
    let full: MountedServer;
    beforeAll(async () => {
      lean = await mount(createApi({ naming: 'off', endpoints: endpoints(), use: [forms] }), {});
      full = await mount(createFullApi({ naming: 'off', endpoints: endpoints() }), {});
    });
    afterAll(async () => {
      await lean.close();
      await full.close();
    });

    it('a form is answered as restcanon’s createApi answers it: a record, a 400, a 413, a 415', async () => {
      const answers = [];
      for (const [path, body, type] of WIRE_CASES) {
        const send = (server: MountedServer) => fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
        const answer = await sent(await send(lean));
        expect(answer, `${path} ${body.slice(0, 40)}`).toEqual(await sent(await send(full)));
        answers.push(answer);
      }
      expect(answers.map((answer) => answer.status)).toEqual([200, 400, 400, 413, 415, 413, 200]);
      expect(JSON.parse(answers[0]!.body)).toEqual({ name: 'Ada Lovelace', age: 36, tags: ['math'] });
      expect(JSON.parse(answers[6]!.body)).toEqual({ got: { a: ['1', '2'] } });
    });

    it('a form a browser sends (URLSearchParams, charset=UTF-8) is read', async () => {
      const response = await fetch(`${lean.baseUrl}/signups`, { method: 'POST', body: new URLSearchParams([['name', 'Ada'], ['tags', 'math'], ['tags', 'poetry']]) });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ name: 'Ada', tags: ['math', 'poetry'] });
    });
  });
}
