/**
 * The request target, read as RFC 9112 §3.2 defines its four forms by the one parser every adapter
 * uses, and what the API answers for each: the path of an origin-form or absolute-form target is
 * routed, an asterisk-form or authority-form one names no path, anything else is a 400.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTarget, splitUrl, targetBelow } from '../../src/core/request.js';
import { createApi, endpoint, isHttpError } from '../../src/index.js';
import { expectProblem } from '../helpers/problem.js';
import { FIXED_SEED } from '../fuzz/settings.js';

describe('parseTarget: the four forms of RFC 9112 §3.2', () => {
  it.each([
    // origin-form (§3.2.1)
    ['/users/7', '/users/7', ''],
    ['/users/7?expand=orders', '/users/7', 'expand=orders'],
    ['/', '/', ''],
    ['//users', '//users', ''],
    ['/users/%61?x=%2F', '/users/%61', 'x=%2F'],
    ['/users?', '/users', ''],
    ['/users?a=1?b=2', '/users', 'a=1?b=2'],
    // absolute-form (§3.2.2): the authority ends at the first "/", "?" or "#" (RFC 3986 §3.2)
    ['http://shop.test/users/7?x=1', '/users/7', 'x=1'],
    ['https://shop.test:8443/users', '/users', ''],
    ['HTTP://SHOP.TEST:80/users', '/users', ''],
    ['hTtPs://shop.test/users', '/users', ''],
    ['http://127.0.0.1:3000/users', '/users', ''],
    ['http://[::1]:3000/users', '/users', ''],
    ['http://my_service/users', '/users', ''],
    ['http://shop.test:/users', '/users', ''],
    ['http://shop.test', '/', ''],
    ['http://shop.test?/admin/stats', '/', '/admin/stats'],
    ['http://shop.test?a=1/admin/stats', '/', 'a=1/admin/stats'],
    ['http://shop.test#/admin/stats', '/', ''],
    ['http://shop.test/v1?/admin/stats', '/v1', '/admin/stats'],
    ['http://shop.test/v1#/admin/stats', '/v1', ''],
    ['http://shop.test//admin', '//admin', ''],
    // a fragment, which no request target may hold, ends the path and the query as every host reads it
    ['/health#x?y', '/health', ''],
    ['/users/7?a=1#frag', '/users/7', 'a=1'],
    // asterisk-form (§3.2.4) and authority-form (§3.2.3): no path (RFC 9112 §3.3)
    ['*', '', ''],
    ['shop.test:443', '', ''],
    ['[::1]:443', '', ''],
  ])('%s is the path %j and the query %j', (target, path, search) => {
    expect(parseTarget(target)).toEqual({ path, search });
  });

  it.each([
    ['', 'nothing'],
    ['users/7', 'a relative reference'],
    ['shop.test', 'a host without a port'],
    ['**', 'more than one asterisk'],
    ['ftp://shop.test/admin/stats', 'another scheme'],
    ['http:/admin/stats', 'no authority'],
    ['http:admin', 'no authority'],
    ['http:///admin/stats', 'an empty host (RFC 9110 §4.2.1)'],
    ['http://user@shop.test/admin/stats', 'a userinfo (RFC 9110 §4.2.4)'],
    ['http://a@b/admin/stats', 'a userinfo'],
    ['http://x;y/admin/stats', 'a ";", where Express ends the host'],
    ["http://x'y/admin/stats", `a "'", where Express ends the host`],
    ['http://x%2F/admin/stats', 'a "%", where Express ends the host'],
    ['http://x\\y/admin/stats', 'a backslash, which Express and WHATWG read as "/"'],
    ['http://x:8a/admin/stats', 'a port that is not digits, where Express ends the host'],
    ['http://x!y/admin/stats', 'a sub-delimiter in the host'],
    ['http://[zz]/admin/stats', 'an IP literal that is not one'],
    ['http://[]/admin/stats', 'an empty IP literal'],
    ['/admin\\stats', 'a backslash in the path'],
    ['/\\admin/stats', 'a backslash in the path'],
    ['http://x/admin\\stats', 'a backslash in the path'],
  ])('%s is malformed: %s', (target) => {
    expect(parseTarget(target)).toBeUndefined();
  });

  it('keeps a backslash in the query, which no parser reads as a slash', () => {
    expect(parseTarget('/users?q=a\\b')).toEqual({ path: '/users', search: 'q=a\\b' });
  });

  it('splitUrl answers a malformed target with a 400 RC_MALFORMED_URL', () => {
    let thrown: unknown;
    try {
      splitUrl('ftp://shop.test/users');
    } catch (error) {
      thrown = error;
    }
    expect(isHttpError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ status: 400, code: 'RC_MALFORMED_URL' });
  });

  // Chars a WHATWG URL keeps as they are in a path and a query; dot segments are left out below.
  const pathChar = fc.constantFrom(...'abcXYZ019-._~!$&()*+,;=:@%/?#');
  const host = fc.stringMatching(/^[a-z][a-z0-9-]{0,6}(\.[a-z][a-z0-9-]{0,6}){0,2}$/);
  const port = fc.oneof(fc.constant(''), fc.integer({ min: 0, max: 65_535 }).map((value) => `:${value}`));

  it('reads every absolute-form http(s) target as a WHATWG URL does (paths without dot segments)', () => {
    fc.assert(
      fc.property(fc.constantFrom('http', 'https', 'HTTP', 'Https'), host, port, fc.constantFrom('', '/', '?', '#'), fc.string({ unit: pathChar, maxLength: 30 }), (scheme, name, number, first, more) => {
        const rest = first === '' ? '' : first + more;
        const target = `${scheme}://${name}${number}${rest}`;
        fc.pre(!/(^|\/)\.{1,2}([/?#]|$)/.test(rest.split(/[?#]/, 1)[0]!));
        const url = new URL(target);
        expect(parseTarget(target)).toEqual({ path: url.pathname, search: url.search.slice(1) });
      }),
      { seed: FIXED_SEED, numRuns: 500 },
    );
  });

  it('accepts no authority that a WHATWG URL reads as another host, or that moves where its path starts', () => {
    const hostile = fc.string({ unit: fc.constantFrom(...'ab1.-_:;@%\\\'![]'), maxLength: 12 });
    fc.assert(
      fc.property(hostile, fc.constantFrom('/admin/stats', '?/admin/stats', ''), (authority, rest) => {
        const target = `http://${authority}${rest}`;
        const parsed = parseTarget(target);
        if (parsed === undefined) return;
        let url: URL;
        try {
          url = new URL(target);
        } catch {
          return;
        }
        expect(parsed.path).toBe(url.pathname);
      }),
      { seed: FIXED_SEED, numRuns: 2000 },
    );
  });
});

describe('targetBelow: the target an adapter hands the API below a prefix', () => {
  it.each([
    ['/v1/users?page=2', '/v1', '/users?page=2'],
    ['/v1', '/v1', '/'],
    ['/v1/', '/v1', '/'],
    ['/v1?x=1', '/v1', '/?x=1'],
    ['/v1#x', '/v1', '/'],
    ['/v1//users', '/v1', '//users'],
    ['http://shop.test/v1/users?x', '/v1', '/users?x'],
    ['http://shop.test/v1?/admin/stats', '/v1', '/?/admin/stats'],
    ['http://shop.test?/v1/admin', '', '/?/v1/admin'],
    ['http://shop.test', '', '/'],
    ['/users?x#y', '', '/users?x'],
    ['*', '/v1', '*'],
    ['ftp://shop.test/v1/users', '/v1', 'ftp://shop.test/v1/users'],
  ])('%s below %j is %s', (target, prefix, below) => {
    expect(targetBelow(target, prefix)).toBe(below);
  });

  it('gives the same string for an origin-form target without a fragment and no prefix', () => {
    const target = '/users/7?x=1';
    expect(targetBelow(target, '')).toBe(target);
  });

  it.each([
    ['/%76%31/users', 'the prefix percent-encoded'],
    ['/V1/users', 'the prefix in another case'],
    ['/v10/users', 'a longer segment'],
    ['/v1%2Fusers', 'an encoded slash after the prefix'],
    ['//v1/users', 'an empty segment before the prefix'],
    ['http://shop.test?/v1/users', 'the prefix in the query'],
  ])('%s is not below /v1: %s', (target) => {
    expect(targetBelow(target, '/v1')).toBeUndefined();
  });
});

describe('what the API answers for each form', () => {
  const api = createApi({
    onError: () => {},
    endpoints: [
      endpoint('GET', '/', { handle: (ctx) => ({ at: 'root', query: { ...ctx.query } }) }),
      endpoint('GET', '/admin/stats', { handle: () => ({ secret: 'stats' }) }),
    ],
  });
  const get = (url: string) => api.handle({ method: 'GET', url });

  // Regression: the authority ran up to the first "/" even past a "?", so `http://x?/admin/stats`
  // was routed as /admin/stats, where every host reads the path "/" (and a guard on /admin nothing).
  it.each([
    ['http://x?/admin/stats', { '/admin/stats': '' }],
    ['http://x?a=1/admin/stats', { a: '1/admin/stats' }],
    ['http://x#/admin/stats', {}],
  ])('GET %s is the route at "/"', async (url, query) => {
    expect(await get(url)).toMatchObject({ status: 200, body: { at: 'root', query } });
  });

  it('GET http://x/admin/stats is /admin/stats', async () => {
    expect(await get('http://x/admin/stats')).toMatchObject({ status: 200, body: { secret: 'stats' } });
  });

  it.each(['*', 'shop.test:443'])('GET %s names no path: the 404 (or the host’s, when the API passes what it does not serve)', async (url) => {
    expectProblem(await get(url), { status: 404, code: 'RC_NOT_FOUND' });
    expect(await api.dispatch({ method: 'OPTIONS', url })).toBeUndefined();
  });

  it.each(['ftp://x/admin/stats', 'http://x;y/admin/stats', 'http://u@x/admin/stats', 'http:///admin/stats', '/admin\\stats', 'admin/stats'])(
    'GET %s is a 400 RC_MALFORMED_URL',
    async (url) => {
      expectProblem(await get(url), { status: 400, code: 'RC_MALFORMED_URL' });
    },
  );
});
