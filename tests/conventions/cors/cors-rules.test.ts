/**
 * CORS (the Fetch standard's CORS protocol) as a page's browser sees it through `api.handle`: what
 * a preflight is, the `Vary` an answer ends with, and the grant each answer path carries.
 */
import { describe, expect, it, vi } from 'vitest';
import { createApi, endpoint, type ApiResponse, type CorsOptions } from '../../../src/index.js';
import { textHeaders } from '../../helpers/headers.js';

const APP = 'http://localhost:5173';
const OTHER = 'https://evil.example';
const DEFAULT_EXPOSED = 'ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition, Accept-Ranges, Content-Range';
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';

function notesApi(cors: CorsOptions = { origins: [APP] }) {
  const created = vi.fn(() => ({ id: 1 }));
  const api = createApi({
    cors,
    onError: () => {},
    endpoints: [
      endpoint('GET', '/notes', {
        public: true,
        handle: (ctx) => {
          ctx.set('Vary', 'Accept-Language');
          return [];
        },
      }),
      endpoint('POST', '/notes', { public: true, operation: 'create', body: 'unvalidated', handle: created }),
      endpoint('GET', '/anything', {
        public: true,
        handle: (ctx) => {
          ctx.set('Vary', '*');
          return {};
        },
      }),
      endpoint('GET', '/negotiated', {
        public: true,
        handle: (ctx) => {
          ctx.set('Vary', 'accept-language, ORIGIN');
          return {};
        },
      }),
      endpoint('GET', '/blank-vary', {
        public: true,
        handle: (ctx) => {
          ctx.set('Vary', ctx.query.blank === 'space' ? ' ' : '');
          return {};
        },
      }),
      endpoint('GET', '/self-granted', {
        public: true,
        handle: (ctx) => {
          ctx.set('Access-Control-Allow-Origin', '*');
          return {};
        },
      }),
    ],
  });
  return { api, created };
}

function corsHeadersOf(response: ApiResponse): Record<string, string> {
  return Object.fromEntries(Object.entries(textHeaders(response.headers)).filter(([name]) => name.startsWith('access-control-')));
}

describe('a preflight is an OPTIONS request (Fetch standard, CORS-preflight request)', () => {
  it('a POST carrying Origin and Access-Control-Request-Method is an actual request: its handler runs and it gets the grant of an answer', async () => {
    const { api, created } = notesApi();
    const response = await api.handle({
      method: 'POST',
      url: '/notes',
      headers: { origin: APP, 'access-control-request-method': 'POST', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: 1 });
    expect(created).toHaveBeenCalledTimes(1);
    expect(corsHeadersOf(response)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': DEFAULT_EXPOSED });
    expect(response.headers.vary).toBe('Origin');
  });

  it('a GET carrying the preflight headers is answered by its handler too', async () => {
    const { api } = notesApi();
    const response = await api.handle({ method: 'GET', url: '/notes', headers: { origin: APP, 'access-control-request-method': 'GET' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(response.headers).not.toHaveProperty('access-control-allow-methods');
  });
});

describe('Vary lists what an answer depends on, each name once (RFC 9110 §12.5.5)', () => {
  it('a preflight varies by Origin and both request headers', async () => {
    const { api } = notesApi();
    const response = await api.handle({ method: 'OPTIONS', url: '/notes', headers: { origin: APP, 'access-control-request-method': 'POST' } });
    expect(response.headers.vary).toBe(PREFLIGHT_VARY);
  });

  it('an answer adds Origin after the names the handler set, separated by a comma', async () => {
    const response = await notesApi().api.handle({ method: 'GET', url: '/notes', headers: { origin: APP } });
    expect(response.headers.vary).toBe('Accept-Language, Origin');
  });

  it('a name already listed, in any case, is not added again', async () => {
    const response = await notesApi().api.handle({ method: 'GET', url: '/negotiated', headers: { origin: APP } });
    expect(response.headers.vary).toBe('accept-language, ORIGIN');
  });

  it.each([['empty', ''], ['blank', 'space']])('a Vary the handler left %s becomes Origin alone, with no empty name before it', async (_name, blank) => {
    const response = await notesApi().api.handle({ method: 'GET', url: `/blank-vary?blank=${blank}`, headers: { origin: APP } });
    expect(response.headers.vary).toBe('Origin');
  });

  it('Vary: * stays *: it already says the answer depends on anything', async () => {
    const response = await notesApi().api.handle({ method: 'GET', url: '/anything', headers: { origin: OTHER } });
    expect(response.headers.vary).toBe('*');
  });
});

describe('the headers a page may send and read', () => {
  it('exposeHeaders lists each name once, whatever its case, after the defaults', async () => {
    const { api } = notesApi({ origins: [APP], exposeHeaders: ['X-Total', 'x-total', 'etag', 'X-Request-Id'] });
    const response = await api.handle({ method: 'GET', url: '/notes', headers: { origin: APP } });
    expect(response.headers['access-control-expose-headers']).toBe(`${DEFAULT_EXPOSED}, X-Total, X-Request-Id`);
  });

  it('an empty allowHeaders allows the defaults only', async () => {
    const { api } = notesApi({ origins: [APP], allowHeaders: [] });
    const preflight = (requested: string) =>
      api.handle({ method: 'OPTIONS', url: '/notes', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': requested } });
    expect(corsHeadersOf(await preflight('Content-Type, Authorization'))).toMatchObject({ 'access-control-allow-headers': 'content-type, authorization' });
    expect(corsHeadersOf(await preflight('x-request-id'))).toEqual({});
  });

  it('an allowHeaders name is allowed in any case, and answered in lower case', async () => {
    const { api } = notesApi({ origins: [APP], allowHeaders: ['X-Request-Id'] });
    const response = await api.handle({ method: 'OPTIONS', url: '/notes', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'X-REQUEST-ID' } });
    expect(response.headers['access-control-allow-headers']).toBe('x-request-id');
  });
});

describe('only the policy grants, on every answer path', () => {
  it.each([
    ['a handler that tries to grant', 'GET', '/self-granted'],
    ['a path the API does not serve', 'GET', '/nowhere'],
    ['a method the path does not serve', 'DELETE', '/notes'],
    ['a plain OPTIONS', 'OPTIONS', '/notes'],
  ])('%s: the allowed origin gets the policy\'s grant, another none', async (_path, method, url) => {
    const { api } = notesApi();
    const allowed = await api.handle({ method, url, headers: { origin: APP } });
    expect(corsHeadersOf(allowed)).toEqual({ 'access-control-allow-origin': APP, 'access-control-expose-headers': DEFAULT_EXPOSED });
    const other = await api.handle({ method, url, headers: { origin: OTHER } });
    expect(corsHeadersOf(other)).toEqual({});
    expect(other.headers.vary).toMatch(/Origin$/);
  });
});

describe('the grant of an answer and of a preflight, by method and origin', () => {
  it('methods without GET grant no HEAD: HEAD comes only with GET', async () => {
    const { api } = notesApi({ origins: [APP], methods: ['POST'] });
    const head = await api.handle({ method: 'HEAD', url: '/notes', headers: { origin: APP } });
    expect(head.status).toBe(200);
    expect(corsHeadersOf(head)).toEqual({});
    const preflight = await api.handle({ method: 'OPTIONS', url: '/notes', headers: { origin: APP, 'access-control-request-method': 'HEAD' } });
    expect(corsHeadersOf(preflight)).toEqual({});
  });

  it('several Origin headers get no grant, even from origins: \'*\'', async () => {
    const { api } = notesApi({ origins: '*' });
    const response = await api.handle({ method: 'GET', url: '/notes', headers: { origin: [APP, OTHER] } });
    expect(corsHeadersOf(response)).toEqual({});
  });

  it('an origin function is asked about an IPv6 origin with a port, and grants it', async () => {
    const asked: string[] = [];
    const { api } = notesApi({ origins: (origin) => asked.push(origin) > 0 });
    const response = await api.handle({ method: 'GET', url: '/notes', headers: { origin: 'http://[::1]:8080' } });
    expect(asked).toEqual(['http://[::1]:8080']);
    expect(response.headers['access-control-allow-origin']).toBe('http://[::1]:8080');
  });

  it.each(['accept', 'authorization', 'content-type', 'if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since'])(
    'the default request header %s is allowed in a preflight',
    async (name) => {
      const { api } = notesApi();
      const response = await api.handle({ method: 'OPTIONS', url: '/notes', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': name } });
      expect(response.headers['access-control-allow-headers']).toBe(name);
    },
  );

  it('a preflight that requests only empty header names gets no Access-Control-Allow-Headers', async () => {
    const { api } = notesApi();
    const response = await api.handle({ method: 'OPTIONS', url: '/notes', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': ' , ' } });
    expect(response.headers['access-control-allow-origin']).toBe(APP);
    expect(response.headers).not.toHaveProperty('access-control-allow-headers');
  });
});

describe('cors mistakes throw when the API is built, naming what was given', () => {
  const build = (cors: unknown) => () => createApi({ cors: cors as CorsOptions, endpoints: [endpoint('GET', '/health', { public: true, handle: () => ({}) })] });

  it.each([
    ['the origin null with credentials', { origins: [APP, 'null'], credentials: true }, "createApi: \"cors\" cannot allow the origin 'null' with credentials: true: any page can send it, from a sandboxed frame"],
    ['credentials in a list', { origins: [APP], credentials: ['yes'] }, 'createApi: "cors.credentials" must be true or false, got a list'],
    ['origins null', { origins: null }, "; got null"],
    ['credentials an object', { origins: [APP], credentials: {} }, 'createApi: "cors.credentials" must be true or false, got an object'],
    ['credentials a number', { origins: [APP], credentials: 1 }, 'createApi: "cors.credentials" must be true or false, got 1'],
    ['a method that is no string', { origins: [APP], methods: [5] }, 'createApi: "cors.methods" lists 5; the methods are GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
    ['a header name that is no string', { origins: [APP], allowHeaders: [5] }, 'createApi: "cors.allowHeaders" lists 5, which is not a header name'],
    ['an origin no URL can hold', { origins: ['app example'] }, 'add its scheme: "https://app example" or "http://app example"'],
    ['an origin with a scheme and no host', { origins: ['https://'] }, "which is not an origin as a browser sends it (a scheme, a host in lower case and a port other than the default, with no path, not even a trailing slash); such as 'https://app.example.com'"],
  ])('%s', (_name, cors, message) => {
    expect(build(cors)).toThrow(message);
  });
});
