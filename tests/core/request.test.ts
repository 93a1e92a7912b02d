import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyQuery, normalizeHeaders, parseQuery, single, splitUrl } from '../../src/core/request.js';

describe('splitUrl', () => {
  it.each([
    ['/users/7', { path: '/users/7', search: '' }],
    ['/users/7?expand=orders', { path: '/users/7', search: 'expand=orders' }],
    ['/users/7?a=1#frag', { path: '/users/7', search: 'a=1' }],
    ['/users/7#frag', { path: '/users/7', search: '' }],
    ['https://shop.test/users/7?expand=orders', { path: '/users/7', search: 'expand=orders' }],
    ['https://shop.test', { path: '/', search: '' }],
    // RFC 9112 §3.3: the asterisk-form names no path.
    ['*', { path: '', search: '' }],
  ])('%s', (url, parts) => {
    expect(splitUrl(url)).toEqual(parts);
  });

  // Regression, found by tests/fuzz: the path ran up to the "?" even after a "#", so node:http and
  // Express routed `/health#x?y` as `/health#x` (404) while the Fetch adapter's URL said `/health` (200).
  it('a "?" inside the fragment is not a query: /health#x?y is /health', () => {
    expect(splitUrl('/health#x?y')).toEqual({ path: '/health', search: '' });
    expect(splitUrl('http://example.test/health#x?y=1')).toEqual({ path: '/health', search: '' });
  });

  it('splits and parses every origin-form target as a WHATWG URL does (paths without dot segments)', () => {
    const char = fc.constantFrom(...'abcXYZ019-._~!$&\'()*+,;=:@%/?#');
    fc.assert(
      fc.property(fc.string({ unit: char, maxLength: 30 }), (rest) => {
        const target = `/${rest}`;
        fc.pre(!/(^|\/)\.{1,2}([/?#]|$)/.test(target.split(/[?#]/, 1)[0]!));
        const url = new URL(`http://example.test${target}`);
        const { path, search } = splitUrl(target);
        expect(path).toBe(url.pathname);
        const expected: Record<string, string | string[]> = {};
        for (const key of new Set(url.searchParams.keys())) {
          const values = url.searchParams.getAll(key);
          expected[key] = values.length === 1 ? values[0]! : values;
        }
        expect({ ...parseQuery(search) }).toEqual(expected);
      }),
      { seed: 20_260_517, numRuns: 500 },
    );
  });
});

describe('parseQuery', () => {
  // Regression, found by the property above: URLSearchParams drops a leading "?" from its argument, so
  // the query of `/users??x=1` (which is `?x=1`, the key `?x`) was read as the key `x`.
  it('keeps a "?" that starts the query: /users??x=1 has the key "?x"', () => {
    expect({ ...parseQuery(splitUrl('/users??x=1').search) }).toEqual({ '?x': '1' });
  });

  it('gives a repeated key as an array, in a record that inherits nothing', () => {
    const query = parseQuery('tag=a&tag=b&page=2&__proto__=x&constructor=y');
    for (const name of ['toString', 'hasOwnProperty', 'valueOf']) expect(name in query).toBe(false);
    expect(Object.isFrozen(Object.getPrototypeOf(query))).toBe(true);
    expect({ ...query }).toEqual({ tag: ['a', 'b'], page: '2', ['__proto__']: 'x', constructor: 'y' });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('gives each request an empty record of its own, whose shared prototype nobody can change', () => {
    const first = emptyQuery();
    const second = emptyQuery();
    expect('toString' in first).toBe(false);
    first.page = '2';
    expect(second.page).toBeUndefined();
    expect(() => {
      (Object.getPrototypeOf(first) as Record<string, string>).page = '3';
    }).toThrow(TypeError);
    expect(second.page).toBeUndefined();
  });
});

describe('headers', () => {
  it('lower-cases names, and joins a repeated value', () => {
    expect(normalizeHeaders({ Accept: 'application/json' })).toEqual({ accept: 'application/json' });
    expect(single(['a', 'b'])).toBe('a, b');
  });
});
