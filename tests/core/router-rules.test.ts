/**
 * The matcher as a caller of `api.handle` sees it: which path reaches which endpoint with which
 * params (RFC 3986 §2.1, §3.3, §5.2.4), what a trailing slash and an empty segment do, and the 405
 * with `Allow` and the OPTIONS answer of a path (RFC 9110 §15.5.6, §9.3.7, §10.2.1). Each path is
 * asked of the generated matcher and of the walk that serves paths with `%` and tables too large to
 * generate a matcher for. Each case names the rule it pins.
 */
import { describe, expect, it } from 'vitest';
import { createApi, endpoint, type ApiResponse } from '../../src/index.js';
import { createRouter } from '../../src/engine.js';
import { expectProblem } from '../helpers/problem.js';

/** The endpoint that answered and the params it received. */
const echo = (name: string) => (ctx: { params: unknown }) => ({ name, params: ctx.params });

function usersApi(padding = 0) {
  return createApi({
    onError: () => {},
    endpoints: [
      endpoint('GET', '/users', { handle: echo('listUsers') }),
      endpoint('POST', '/users', { body: 'ignored', handle: echo('createUser') }),
      endpoint('GET', '/users/me', { handle: echo('readMe') }),
      endpoint('GET', '/users/:id', { handle: echo('readUser') }),
      endpoint('DELETE', '/users/:id', { handle: echo('removeUser') }),
      endpoint('GET', '/users/:userId/orders', { handle: echo('listOrders') }),
      endpoint('GET', '/users/:userId/orders/:id', { handle: echo('readOrder') }),
      endpoint('GET', '/', { handle: echo('home') }),
      endpoint('POST', '/jobs', { body: 'ignored', handle: echo('createJob') }),
      // Enough routes that no matcher is generated: the walk serves every path.
      ...Array.from({ length: padding }, (_, index) => endpoint('GET', `/padding-route-number-${index}/:id/and-more/:other`, { handle: echo('padding') })),
    ],
  });
}

const MATCHERS = [
  ['the generated matcher', usersApi()],
  ['the walk', usersApi(400)],
] as const;

const answered = (response: ApiResponse) => response.body as { name: string; params: Record<string, string> };

describe.each(MATCHERS)('paths, by %s', (_matcher, api) => {
  const get = (url: string, method = 'GET') => api.handle({ method, url });

  it('a static segment beats a param, and a dead-end static branch falls back to the param (docs/endpoints.md)', async () => {
    expect(answered(await get('/users/me'))).toEqual({ name: 'readMe', params: {} });
    expect(answered(await get('/users/me/orders'))).toEqual({ name: 'listOrders', params: { userId: 'me' } });
    expect(answered(await get('/users/mee'))).toEqual({ name: 'readUser', params: { id: 'mee' } });
    expect(answered(await get('/users/m'))).toEqual({ name: 'readUser', params: { id: 'm' } });
    expect(answered(await get('/users/7/orders/9'))).toEqual({ name: 'readOrder', params: { userId: '7', id: '9' } });
    expect(answered(await get('/'))).toEqual({ name: 'home', params: {} });
  });

  it('RFC 3986 §2.1: a param is percent-decoded exactly once, and an encoded slash stays inside it', async () => {
    expect(answered(await get('/users/a%2Fb'))).toEqual({ name: 'readUser', params: { id: 'a/b' } });
    expect(answered(await get('/users/a%2Fb/orders'))).toEqual({ name: 'listOrders', params: { userId: 'a/b' } });
    expect(answered(await get('/users/%2541'))).toEqual({ name: 'readUser', params: { id: '%41' } });
    expect(answered(await get('/users/caf%C3%A9/orders/%37'))).toEqual({ name: 'readOrder', params: { userId: 'café', id: '7' } });
  });

  it('a static segment matches only as sent: /%75sers is no route, /users/%6De is the param "me"', async () => {
    expectProblem(await get('/%75sers'), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await get('/users/m%65/orders/1/x'), { status: 404, code: 'RC_NOT_FOUND' });
    expect(answered(await get('/users/%6De'))).toEqual({ name: 'readUser', params: { id: 'me' } });
  });

  it('one trailing slash is the same path; an empty segment or a second slash is no route', async () => {
    expect(answered(await get('/users/'))).toEqual({ name: 'listUsers', params: {} });
    expect(answered(await get('/users/me/'))).toEqual({ name: 'readMe', params: {} });
    expect(answered(await get('/users/7/'))).toEqual({ name: 'readUser', params: { id: '7' } });
    expect(answered(await get('/users/7/orders/'))).toEqual({ name: 'listOrders', params: { userId: '7' } });
    for (const path of ['/users//', '/users//orders', '/users/7//', '//', '/users/me//']) expectProblem(await get(path), { status: 404, code: 'RC_NOT_FOUND' });
  });

  it.each(['.', '..', '%2e', '%2E%2e', '.%2E'])('RFC 3986 §5.2.4: the dot segment %s is no param', async (dots) => {
    expectProblem(await get(`/users/${dots}`), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await get(`/users/${dots}/orders`), { status: 404, code: 'RC_NOT_FOUND' });
    expect(answered(await get(`/users/${dots}x`))).toEqual({ name: 'readUser', params: { id: `${decodeURIComponent(dots)}x` } });
    expect(answered(await get(`/users/x${dots}`))).toEqual({ name: 'readUser', params: { id: `x${decodeURIComponent(dots)}` } });
  });

  it('a malformed percent-escape is a 400 that says so, wherever it sits', async () => {
    for (const path of ['/users/%E0%A4%A', '/users/%zz/orders', '/users/me/%']) {
      expectProblem(await get(path), { status: 400, code: 'RC_MALFORMED_URL', detail: 'The URL holds a malformed percent-escape' });
    }
  });

  it('RFC 9110 §15.5.6: a method the path does not take is a 405 whose Allow lists those it takes, HEAD with GET and OPTIONS', async () => {
    expectProblem(await get('/users', 'DELETE'), { status: 405, code: 'RC_METHOD_NOT_ALLOWED', headers: { allow: 'GET, HEAD, POST, OPTIONS' } });
    expectProblem(await get('/users/7', 'PUT'), { status: 405, code: 'RC_METHOD_NOT_ALLOWED', headers: { allow: 'GET, HEAD, DELETE, OPTIONS' } });
    // HEAD comes only with GET.
    expectProblem(await get('/jobs', 'GET'), { status: 405, code: 'RC_METHOD_NOT_ALLOWED', headers: { allow: 'POST, OPTIONS' } });
  });

  it('RFC 9110 §9.3.7: OPTIONS answers the Allow of the path; HEAD is answered as GET', async () => {
    expect(await get('/users/7/orders', 'OPTIONS')).toMatchObject({ status: 204, headers: { allow: 'GET, HEAD, OPTIONS' } });
    expect((await get('/users/me', 'HEAD')).status).toBe(200);
  });
});

describe('the router of restcanon/engine (createRouter)', () => {
  it('lists the methods RFC 9110 defines in its order, then the others in alphabetical order', () => {
    const router = createRouter<string>();
    router.add('PURGE', '/cache', 'purge');
    router.add('GET', '/cache', 'read');
    router.add('LINK', '/cache', 'link');
    expect(router.find('/cache')?.route.allow).toBe('GET, HEAD, OPTIONS, LINK, PURGE');
  });

  it('lists every route once, in the order its template was first added', () => {
    const router = createRouter<string>();
    router.add('GET', '/users/:id', 'read');
    router.add('GET', '/users', 'list');
    router.add('DELETE', '/users/:id', 'remove');
    expect(router.list().map((route) => [route.template, route.allow])).toEqual([
      ['/users/:id', 'GET, HEAD, DELETE, OPTIONS'],
      ['/users', 'GET, HEAD, OPTIONS'],
    ]);
  });

  it('refuses a second template of the same path whose params are named apart, however the names split; takes one named alike', () => {
    const router = createRouter<string>();
    router.add('GET', '/pairs/:ab/:c', 'read');
    expect(() => router.add('PUT', '/pairs/:a/:bc', 'replace')).toThrow('Route /pairs/:a/:bc names its params differently from /pairs/:ab/:c; use the same names for the same path');
    router.add('DELETE', '/pairs/:ab/:c', 'remove');
    expect(router.find('/pairs/1/2')).toMatchObject({ route: { allow: 'GET, HEAD, DELETE, OPTIONS' }, params: { ab: '1', c: '2' } });
  });

  it('RFC 9112 §3.2.1: a path that does not start with "/" is no route, even where the rest of it is one', () => {
    const router = createRouter<string>();
    router.add('GET', '/users/:id', 'read');
    expect(router.find('/users/7')?.params).toEqual({ id: '7' });
    for (const path of ['xusers/7', 'xusers/%37', '']) expect(router.find(path), path).toBeUndefined();
  });
});
