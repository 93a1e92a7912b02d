/**
 * The `cors` option of createApi, in memory through `api.handle` and `api.respond`: its checks at
 * definition time, preflights, and the `Access-Control-*` headers and `Vary` of every answer.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collection, createApi, createStatusPolicy, endpoint, ForbiddenError, json, text, type ApiOptions, type ApiRequest, type ApiResponse, type CorsOptions } from '../../../src/index.js';
import { textHeaders } from '../../helpers/headers.js';

const APP = 'http://localhost:5173';
const OTHER = 'https://evil.example';
const DEFAULT_EXPOSED = 'ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition, Accept-Ranges, Content-Range';
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

interface Note {
  id: number;
  text: string;
}

/** Notes behind bearer tokens (`Bearer reader`, `Bearer stranger`), a public health check, and a few failures. */
function notesApi(cors: CorsOptions, options: Partial<ApiOptions> = {}) {
  const notes = new Map<number, Note>([[1, { id: 1, text: 'first' }]]);
  const authenticate = vi.fn((request: ApiRequest) => {
    const authorization = request.headers?.authorization;
    if (authorization === 'Bearer reader') return { name: 'reader' };
    if (authorization === 'Bearer stranger') return { name: 'stranger' };
    return undefined;
  });
  const api = createApi({
    cors,
    authenticate,
    bodyLimit: 64,
    timeout: 200,
    onError: () => {},
    resources: [
      collection('notes', {
        id: z.coerce.number().int(),
        body: z.object({ text: z.string() }),
        list: (ctx) => {
          ctx.set('ETag', '"v1"');
          ctx.set('Link', '</notes?page=2>; rel="next"');
          return [...notes.values()];
        },
        read: (ctx) => {
          if ((ctx.principal as { name: string }).name === 'stranger') throw new ForbiddenError();
          return notes.get(ctx.params.id);
        },
        create: (ctx) => {
          const note = { id: notes.size + 1, text: ctx.body.text };
          notes.set(note.id, note);
          return note;
        },
      }),
    ],
    endpoints: [
      endpoint('GET', '/health', { public: true, handle: () => ({ ok: true }) }),
      endpoint('GET', '/later', { public: true, handle: async () => ({ waited: true }) }),
      endpoint('GET', '/never', { public: true, handle: () => new Promise(() => {}) }),
      endpoint('GET', '/broken', {
        public: true,
        handle: () => {
          throw new Error('db down');
        },
      }),
      endpoint('GET', '/self-granted', {
        public: true,
        handle: (ctx) => {
          ctx.set('Access-Control-Allow-Origin', '*');
          ctx.set('Access-Control-Allow-Credentials', 'true');
          return { ok: true };
        },
      }),
    ],
    ...options,
  });
  return { api, authenticate };
}

function preflight(api: { handle(request: ApiRequest): Promise<ApiResponse> }, path: string, origin: string, method: string, requestHeaders?: string) {
  const headers: Record<string, string> = { origin, 'access-control-request-method': method };
  if (requestHeaders !== undefined) headers['access-control-request-headers'] = requestHeaders;
  return api.handle({ method: 'OPTIONS', url: path, headers });
}

/** The `Access-Control-*` headers of an answer. */
function corsHeadersOf(response: ApiResponse): Record<string, string> {
  return Object.fromEntries(Object.entries(textHeaders(response.headers)).filter(([name]) => name.startsWith('access-control-')));
}

describe('cors: checked at definition time', () => {
  const build = (cors: unknown) => () => createApi({ cors: cors as CorsOptions, endpoints: [endpoint('GET', '/health', { handle: () => ({}) })] });

  it.each([
    ['an unknown key, with the nearest known one', { origins: [APP], origin: [APP] }, /`origin` is not an option of createApi\(\): "cors"; did you mean `origins`\?/],
    ['a cors that is not an object', 'http://localhost:5173', /The options of createApi\(\): "cors" must be an object/],
    ['no origins', {}, /"cors" needs "origins": a list such as \['https:\/\/app\.example\.com'\], '\*' for any origin, or a function/],
    ['one origin not in a list', { origins: APP }, /write origins: \["http:\/\/localhost:5173"\]/],
    ['an origin with a path', { origins: ['http://localhost:5173/app'] }, /not an origin as a browser sends it .*; write "http:\/\/localhost:5173"/],
    ['an origin with a trailing slash', { origins: ['https://app.example.com/'] }, /write "https:\/\/app\.example\.com"$/],
    ['an origin without a scheme', { origins: ['localhost:5173'] }, /add its scheme: "https:\/\/localhost:5173" or "http:\/\/localhost:5173"/],
    ['an origin in upper case', { origins: ['https://App.Example.com'] }, /write "https:\/\/app\.example\.com"/],
    ['an origin with its default port', { origins: ['https://app.example.com:443'] }, /write "https:\/\/app\.example\.com"/],
    ['an origin pattern', { origins: ['https://*.example.com'] }, /lists the pattern "https:\/\/\*\.example\.com", but a list holds exact origins; give a function/],
    ["'*' inside a list", { origins: ['*'] }, /write origins: '\*' \(not in a list\)/],
    ['an empty list', { origins: [] }, /lists no origin; list at least one, or leave "cors" out/],
    ['an origin that is no string', { origins: [5173] }, /lists 5173; list each origin as a string/],
    ["'*' with credentials", { origins: '*', credentials: true }, /cannot allow origins: '\*' with credentials: true .*list the origins/],
    ['credentials that are no boolean', { origins: [APP], credentials: 'yes' }, /"cors\.credentials" must be true or false, got "yes"/],
    ['a negative maxAge', { origins: [APP], maxAge: -1 }, /"cors\.maxAge" must be a whole number of seconds of at least 0, such as 600; got -1/],
    ['a fractional maxAge', { origins: [APP], maxAge: 1.5 }, /"cors\.maxAge" must be a whole number .*; got 1\.5/],
    ['a maxAge in a string', { origins: [APP], maxAge: '600' }, /"cors\.maxAge" must be a whole number .*; got "600"/],
    ['a header name with a space', { origins: [APP], allowHeaders: ['X Request Id'] }, /"cors\.allowHeaders" lists "X Request Id", which is not a header name; write the name alone/],
    ['a header with its value', { origins: [APP], exposeHeaders: ['X-Total: 1'] }, /"cors\.exposeHeaders" lists "X-Total: 1", which is not a header name/],
    ["'*' as a header name", { origins: [APP], allowHeaders: ['*'] }, /"cors\.allowHeaders" lists '\*'; list the header names/],
    ['header names not in a list', { origins: [APP], exposeHeaders: 'X-Total' }, /"cors\.exposeHeaders" must be a list of header names/],
    ['a method in lower case', { origins: [APP], methods: ['get'] }, /"cors\.methods" lists "get"; write "GET" \(methods are case-sensitive\)/],
    ['a method restcanon does not route', { origins: [APP], methods: ['FETCH'] }, /"cors\.methods" lists "FETCH"; the methods are GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS/],
    ['an empty method list', { origins: [APP], methods: [] }, /"cors\.methods" must be a list of methods, such as \['GET', 'POST'\], or left out/],
  ])('refuses %s', (_name, cors, message) => {
    expect(build(cors)).toThrow(TypeError);
    expect(build(cors)).toThrow(message);
  });

  it('refuses a misspelled cors option of createApi itself', () => {
    expect(() => createApi({ cros: { origins: [APP] } } as ApiOptions)).toThrow(/`cros` is not an option of createApi\(\); did you mean `cors`\?/);
  });

  it("accepts exact origins (IPv6, a port, 'null' listed verbatim), '*' and a function", () => {
    expect(build({ origins: ['http://[::1]:8080', 'https://app.example.com', 'null', 'chrome-extension://abcdef'] })).not.toThrow();
    expect(build({ origins: '*', maxAge: 0 })).not.toThrow();
    expect(build({ origins: () => true, credentials: true })).not.toThrow();
  });
});

describe('cors: preflight', () => {
  const { api, authenticate } = notesApi({ origins: [APP], credentials: true, maxAge: 600 });

  it('grants an allowed origin on a path the API serves: its origin, the path’s methods, the requested headers, Max-Age and credentials', async () => {
    authenticate.mockClear();
    const response = await preflight(api, '/notes', APP, 'POST', 'authorization,content-type');
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(response.payload).toBeUndefined();
    expect(response.headers).toEqual({
      allow: 'GET, HEAD, POST, OPTIONS',
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
      'access-control-allow-credentials': 'true',
      vary: PREFLIGHT_VARY,
    });
    // A preflight carries no credentials: it is answered before authentication.
    expect(authenticate).not.toHaveBeenCalled();
  });

  it('grants without Access-Control-Allow-Headers when no header is requested', async () => {
    const response = await preflight(api, '/notes/1', APP, 'GET');
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(APP);
    expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(response.headers).not.toHaveProperty('access-control-allow-headers');
  });

  it('reads requested headers in any case and spacing, and answers them in lower case', async () => {
    const response = await preflight(api, '/notes', APP, 'POST', ' Content-Type ,  If-None-Match,');
    expect(response.headers['access-control-allow-headers']).toBe('content-type, if-none-match');
  });

  it('gives another origin the plain OPTIONS answer, without any Access-Control-* header', async () => {
    const response = await preflight(api, '/notes', OTHER, 'POST', 'content-type');
    expect(response.status).toBe(204);
    expect(response.headers).toEqual({ allow: 'GET, HEAD, POST, OPTIONS', vary: PREFLIGHT_VARY });
  });

  it('grants nothing for a method the path does not serve', async () => {
    const response = await preflight(api, '/notes', APP, 'DELETE');
    expect(response.status).toBe(204);
    expect(corsHeadersOf(response)).toEqual({});
    expect(response.headers.vary).toBe(PREFLIGHT_VARY);
  });

  it('grants nothing for a method in lower case (methods are case-sensitive, and browsers send `patch` as written)', async () => {
    const response = await preflight(api, '/notes', APP, 'post');
    expect(corsHeadersOf(response)).toEqual({});
  });

  it('grants nothing when one requested header is not allowed, even beside allowed ones', async () => {
    const response = await preflight(api, '/notes', APP, 'POST', 'content-type,x-debug');
    expect(response.status).toBe(204);
    expect(corsHeadersOf(response)).toEqual({});
  });

  it('allows the headers of allowHeaders besides the defaults', async () => {
    const { api: extended } = notesApi({ origins: [APP], allowHeaders: ['X-Debug'] });
    const response = await preflight(extended, '/notes', APP, 'POST', 'authorization,x-debug');
    expect(response.headers['access-control-allow-headers']).toBe('authorization, x-debug');
    expect(response.headers).not.toHaveProperty('access-control-allow-credentials');
    expect(response.headers).not.toHaveProperty('access-control-max-age');
  });

  it('answers a preflight on a path the API does not serve with its 404', async () => {
    const response = await preflight(api, '/nowhere', APP, 'GET');
    expect(response.status).toBe(404);
    expect(response.headers['access-control-allow-origin']).toBe(APP);
  });

  it('answers a plain OPTIONS (no Access-Control-Request-Method) as an actual request', async () => {
    const response = await api.handle({ method: 'OPTIONS', url: '/notes', headers: { origin: APP } });
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(APP);
    expect(response.headers['access-control-expose-headers']).toBe(DEFAULT_EXPOSED);
    expect(response.headers).not.toHaveProperty('access-control-allow-methods');
    expect(response.headers.vary).toBe('Origin');
  });

  it('answers the preflight itself before an OPTIONS endpoint, which still answers a plain OPTIONS', async () => {
    const options = vi.fn(() => ({ own: true }));
    const withOptions = createApi({ cors: { origins: [APP] }, endpoints: [endpoint('OPTIONS', '/documents', { handle: options }), endpoint('PUT', '/documents', { body: 'unvalidated', handle: () => ({}) })] });
    const answer = await preflight(withOptions, '/documents', APP, 'PUT');
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-methods']).toBe('PUT, OPTIONS');
    expect(options).not.toHaveBeenCalled();
    const plain = await withOptions.handle({ method: 'OPTIONS', url: '/documents', headers: { origin: APP } });
    expect(plain.body).toEqual({ own: true });
    expect(plain.headers['access-control-allow-origin']).toBe(APP);
  });

  it('answers with the policy’s OPTIONS status', async () => {
    const { api: ok } = notesApi({ origins: [APP] }, { policy: createStatusPolicy({ options: 200 }) });
    const response = await preflight(ok, '/notes', APP, 'GET');
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(APP);
  });
});

describe('cors: methods', () => {
  const { api } = notesApi({ origins: [APP], methods: ['GET'] });

  it('lists only the allowed methods the path serves, HEAD with GET', async () => {
    const response = await preflight(api, '/notes', APP, 'GET');
    expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD');
  });

  it('grants no preflight for a served method outside methods', async () => {
    expect(corsHeadersOf(await preflight(api, '/notes', APP, 'POST', 'content-type'))).toEqual({});
  });

  it('grants no actual response to a method outside methods', async () => {
    const response = await api.handle({ method: 'POST', url: '/notes', headers: { origin: APP, authorization: 'Bearer reader', 'content-type': 'application/json' }, body: '{"text":"x"}' });
    expect(response.status).toBe(201);
    expect(corsHeadersOf(response)).toEqual({});
    expect(response.headers.vary).toBe('Origin');
    const head = await api.handle({ method: 'HEAD', url: '/health', headers: { origin: APP } });
    expect(head.headers['access-control-allow-origin']).toBe(APP);
  });
});

describe('cors: actual responses', () => {
  const { api } = notesApi({ origins: [APP], credentials: true, exposeHeaders: ['X-Request-Id', 'etag'] });
  const exposed = `${DEFAULT_EXPOSED}, X-Request-Id`;
  const granted = { 'access-control-allow-origin': APP, 'access-control-expose-headers': exposed, 'access-control-allow-credentials': 'true' };
  const get = (url: string, headers: Record<string, string> = {}) => api.handle({ method: 'GET', url, headers: { origin: APP, ...headers } });

  it('grants a success: the exact origin (never *), the exposed headers, credentials, Vary: Origin', async () => {
    const response = await get('/notes', { authorization: 'Bearer reader' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([{ id: 1, text: 'first' }]);
    expect(corsHeadersOf(response)).toEqual(granted);
    expect(response.headers.etag).toBe('"v1"');
    expect(response.headers.link).toBe('</notes?page=2>; rel="next"');
    expect(response.headers.vary).toBe('Origin');
  });

  it('grants a 201 with its Location', async () => {
    const response = await api.handle({ method: 'POST', url: '/notes', headers: { origin: APP, authorization: 'Bearer reader', 'content-type': 'application/json' }, body: '{"text":"second"}' });
    expect(response.status).toBe(201);
    expect(response.headers.location).toMatch(/^\/notes\/\d+$/);
    expect(corsHeadersOf(response)).toEqual(granted);
  });

  it.each([
    ['401 without a caller', { method: 'GET', url: '/notes' }, 401],
    ['403 for a caller without permission', { method: 'GET', url: '/notes/1', headers: { authorization: 'Bearer stranger' } }, 403],
    ['404 for an unknown path', { method: 'GET', url: '/nowhere' }, 404],
    ['404 for a missing item', { method: 'GET', url: '/notes/99', headers: { authorization: 'Bearer reader' } }, 404],
    ['405 for a method the path does not serve', { method: 'DELETE', url: '/notes' }, 405],
    ['413 for a body over the limit', { method: 'POST', url: '/notes', headers: { authorization: 'Bearer reader', 'content-type': 'application/json' }, body: `{"text":"${'x'.repeat(100)}"}` }, 413],
    ['500 for a handler that throws', { method: 'GET', url: '/broken' }, 500],
    ['503 past the timeout, from the promise', { method: 'GET', url: '/never' }, 503],
  ] as const)('grants an error: %s', async (_name, request, status) => {
    const headers: Record<string, string> = { origin: APP, ...('headers' in request ? request.headers : {}) };
    const response = await api.handle({ ...request, headers });
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(corsHeadersOf(response)).toEqual(granted);
    expect(response.headers.vary).toBe('Origin');
    if (status === 401) expect(response.headers['www-authenticate']).toBe('Bearer realm="api"');
    if (status === 405) expect(response.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  });

  it('grants HEAD, without a body', async () => {
    const response = await api.handle({ method: 'HEAD', url: '/notes', headers: { origin: APP, authorization: 'Bearer reader' } });
    expect(response.status).toBe(200);
    expect(response.payload).toBeUndefined();
    expect(corsHeadersOf(response)).toEqual(granted);
  });

  it('gives another origin no Access-Control-* header, and Vary: Origin for caches', async () => {
    for (const url of ['/health', '/nowhere', '/broken']) {
      const response = await api.handle({ method: 'GET', url, headers: { origin: OTHER } });
      expect(corsHeadersOf(response), url).toEqual({});
      expect(response.headers.vary, url).toBe('Origin');
    }
  });

  it('replaces what a handler set: the policy alone grants', async () => {
    const allowed = await get('/self-granted');
    expect(corsHeadersOf(allowed)).toEqual(granted);
    const other = await api.handle({ method: 'GET', url: '/self-granted', headers: { origin: OTHER } });
    expect(corsHeadersOf(other)).toEqual({});
  });

  it('leaves a request without Origin as it was: no Access-Control-* header, no Vary', async () => {
    const response = await api.handle({ method: 'GET', url: '/health' });
    expect(response.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
  });

  it('reads Origin in any case of its name', async () => {
    const response = await api.handle({ method: 'GET', url: '/health', headers: { Origin: APP } });
    expect(response.headers['access-control-allow-origin']).toBe(APP);
  });

  it('allows no request that carries several Origin headers', async () => {
    const response = await api.handle({ method: 'GET', url: '/health', headers: { origin: [APP, APP] } });
    expect(response.status).toBe(200);
    expect(corsHeadersOf(response)).toEqual({});
    expect(response.headers.vary).toBe('Origin');
  });

  it('keeps the Vary of content negotiation: Accept, Origin', async () => {
    const { api: negotiated } = notesApi({ origins: [APP] }, { formats: [json, text] });
    const response = await negotiated.handle({ method: 'GET', url: '/health', headers: { origin: APP } });
    expect(response.headers.vary).toBe('Accept, Origin');
    const failed = await negotiated.handle({ method: 'GET', url: '/nowhere', headers: { origin: OTHER } });
    expect(failed.headers.vary).toBe('Accept, Origin');
    const preflighted = await preflight(negotiated, '/notes', APP, 'GET');
    expect(preflighted.headers.vary).toBe(PREFLIGHT_VARY);
  });

  it('keeps a Vary a handler set, and adds Origin once', async () => {
    const varied = createApi({
      cors: { origins: [APP] },
      endpoints: [
        endpoint('GET', '/language', { handle: (ctx) => (ctx.set('Vary', 'Accept-Language'), {}) }),
        endpoint('GET', '/origin', { handle: (ctx) => (ctx.set('Vary', 'origin'), {}) }),
        endpoint('GET', '/any', { handle: (ctx) => (ctx.set('Vary', '*'), {}) }),
      ],
    });
    const vary = async (url: string) => (await varied.handle({ method: 'GET', url, headers: { origin: APP } })).headers.vary;
    expect(await vary('/language')).toBe('Accept-Language, Origin');
    expect(await vary('/origin')).toBe('origin');
    expect(await vary('/any')).toBe('*');
  });
});

describe("cors: origins '*'", () => {
  const { api } = notesApi({ origins: '*' });

  it('answers * to any origin, without credentials', async () => {
    const response = await api.handle({ method: 'GET', url: '/health', headers: { origin: OTHER } });
    expect(corsHeadersOf(response)).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': DEFAULT_EXPOSED });
    expect(response.headers.vary).toBe('Origin');
  });

  it('grants a preflight with *', async () => {
    const response = await preflight(api, '/notes', 'null', 'POST', 'authorization,content-type');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['access-control-allow-headers']).toBe('authorization, content-type');
    expect(response.headers).not.toHaveProperty('access-control-allow-credentials');
  });
});

describe('cors: the origin null', () => {
  it('is not allowed by a list that does not name it', async () => {
    const { api } = notesApi({ origins: [APP] });
    expect(corsHeadersOf(await api.handle({ method: 'GET', url: '/health', headers: { origin: 'null' } }))).toEqual({});
    expect(corsHeadersOf(await preflight(api, '/notes', 'null', 'GET'))).toEqual({});
  });

  it("is allowed by a list that names 'null', and echoed", async () => {
    const { api } = notesApi({ origins: [APP, 'null'] });
    const response = await api.handle({ method: 'GET', url: '/health', headers: { origin: 'null' } });
    expect(response.headers['access-control-allow-origin']).toBe('null');
  });
});

describe('cors: a function of origins', () => {
  it('allows what it returns true for, with the request, and echoes the origin', async () => {
    const seen: Array<[string, string | undefined]> = [];
    const { api } = notesApi({
      origins: (origin, request) => {
        seen.push([origin, request.url]);
        return /^https:\/\/[a-z0-9-]+\.example\.com$/.test(origin);
      },
      credentials: true,
    });
    const allowed = await api.handle({ method: 'GET', url: '/health', headers: { origin: 'https://app.example.com' } });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    const refused = await api.handle({ method: 'GET', url: '/health', headers: { origin: 'https://example.com.evil.test' } });
    expect(corsHeadersOf(refused)).toEqual({});
    expect(seen).toEqual([
      ['https://app.example.com', '/health'],
      ['https://example.com.evil.test', '/health'],
    ]);
  });

  it.each([
    ['a truthy value that is not true', () => 'yes'],
    ['1', () => 1],
    ['a promise', async () => true],
  ])('refuses an origin it answers with %s', async (_name, check) => {
    const { api } = notesApi({ origins: check as unknown as CorsOptions['origins'] });
    expect(corsHeadersOf(await api.handle({ method: 'GET', url: '/health', headers: { origin: APP } }))).toEqual({});
    expect(corsHeadersOf(await preflight(api, '/notes', APP, 'GET'))).toEqual({});
  });

  it('refuses an origin when it throws, reports the error, and still answers', async () => {
    const reported: unknown[] = [];
    const api = createApi({
      cors: {
        origins: () => {
          throw new Error('origin table unavailable');
        },
      },
      onError: (error) => reported.push(error),
      endpoints: [endpoint('GET', '/health', { handle: () => ({ ok: true }) }), endpoint('GET', '/later', { handle: async () => ({ ok: true }) })],
    });
    const sync = api.respond({ method: 'GET', url: '/health', headers: { origin: APP } }) as ApiResponse;
    expect(sync.status).toBe(200);
    expect(corsHeadersOf(sync)).toEqual({});
    const later = await api.respond({ method: 'GET', url: '/later', headers: { origin: APP } });
    expect(later.status).toBe(200);
    expect(corsHeadersOf(later)).toEqual({});
    const preflighted = await preflight(api, '/health', APP, 'GET');
    expect(preflighted.status).toBe(204);
    expect(corsHeadersOf(preflighted)).toEqual({});
    expect(reported.map(String)).toEqual(Array(3).fill('Error: origin table unavailable'));
  });

  it('is not asked about an Origin value that is no origin', async () => {
    const check = vi.fn(() => true);
    const { api } = notesApi({ origins: check });
    const response = await api.handle({ method: 'GET', url: '/health', headers: { origin: 'https://a.example, https://b.example' } });
    expect(corsHeadersOf(response)).toEqual({});
    expect(check).not.toHaveBeenCalled();
  });
});

describe('cors: api.respond', () => {
  const { api } = notesApi({ origins: [APP] });

  it('grants a synchronous answer synchronously, and a later one in its promise', async () => {
    // Without `authenticate`, every step of GET /health is synchronous.
    const direct = createApi({ cors: { origins: [APP] }, endpoints: [endpoint('GET', '/health', { handle: () => ({}) }), endpoint('GET', '/later', { handle: async () => ({}) })] });
    const now = direct.respond({ method: 'GET', url: '/health', headers: { origin: APP } });
    expect(now).not.toBeInstanceOf(Promise);
    expect((now as ApiResponse).headers['access-control-allow-origin']).toBe(APP);
    const later = direct.respond({ method: 'GET', url: '/later', headers: { origin: APP } });
    expect(later).toBeInstanceOf(Promise);
    expect((await later).headers['access-control-allow-origin']).toBe(APP);
  });

  it("passes an unknown path on as undefined with unmatched: 'pass', preflight or not", () => {
    expect(api.respond({ method: 'GET', url: '/nowhere', headers: { origin: APP } }, { unmatched: 'pass' })).toBeUndefined();
    expect(api.respond({ method: 'OPTIONS', url: '/nowhere', headers: { origin: APP, 'access-control-request-method': 'GET' } }, { unmatched: 'pass' })).toBeUndefined();
  });

  it('never throws on header values of the wrong type in a request built by hand', async () => {
    const request = { method: 'OPTIONS', url: '/health', headers: { origin: APP, 'access-control-request-method': 'GET', 'access-control-request-headers': 7 } } as unknown as ApiRequest;
    const response = await api.respond(request);
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(APP);
    expect(response.headers).not.toHaveProperty('access-control-allow-headers');
    const odd = await api.respond({ method: 'GET', url: '/health', headers: { origin: 42 } } as unknown as ApiRequest);
    expect(odd.status).toBe(200);
    expect(corsHeadersOf(odd)).toEqual({});
  });

  it('answers a preflight with a malformed path as the path’s own answer, without throwing', async () => {
    const response = await api.respond({ method: 'OPTIONS', url: '/notes/%E0%A4%A', headers: { origin: APP, 'access-control-request-method': 'GET' } });
    expect(response.status).toBe(400);
    expect(response.headers['access-control-allow-origin']).toBe(APP);
  });

  it('costs nothing without the option: no Access-Control-* header and no Vary for an Origin', async () => {
    const plain = createApi({ endpoints: [endpoint('GET', '/health', { handle: () => ({}) })] });
    const response = await plain.handle({ method: 'GET', url: '/health', headers: { origin: APP } });
    expect(response.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
    const options = await preflight(plain, '/health', APP, 'GET');
    expect(options.headers).toEqual({ allow: 'GET, HEAD, OPTIONS' });
  });
});
