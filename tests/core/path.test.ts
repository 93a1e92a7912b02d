import { describe, expect, it } from 'vitest';
import { joinPaths, parseTemplate } from '../../src/core/path.js';
import { buildPath } from '../../src/index.js';

describe('path templates', () => {
  it('parses static and param segments', () => {
    expect(parseTemplate('/users/:userId/orders/:id')).toEqual([
      { kind: 'static', value: 'users' },
      { kind: 'param', name: 'userId' },
      { kind: 'static', value: 'orders' },
      { kind: 'param', name: 'id' },
    ]);
    expect(parseTemplate('/')).toEqual([]);
  });

  // Regression: a static segment matched the decoded path, so `/%61dmin/stats` reached `/admin/stats`
  // past a host's guard on `/admin`. Now it matches as sent, and so must be written as it is sent.
  it.each([
    ['/caf\u00e9', /holds "é" in "café", which a client may send percent-encoded; a static segment is matched against the path exactly as it is sent/],
    ['/a%20b', /holds a percent-escape in "a%20b"; .* or make the segment a param/],
    ['/%61dmin/stats', /holds a percent-escape in "%61dmin"/],
    ["/it's", /holds "'" in "it's"/],
    ['/a\\b', /holds "\\" in "a\\b"/],
    ['/a"b', /holds """ in "a"b"/],
    ['/users/..', /has the dot segment ".."[^;]*; remove it/],
    ['/./users', /has the dot segment "\."/],
  ])('refuses the static segment of %s with a sentence naming the fix', (template, message) => {
    expect(() => parseTemplate(template)).toThrow(message);
  });

  it("accepts every character of RFC 3986's pchar but ' in a static segment", () => {
    const segment = 'aZ09-._~!$&()*+,;=:@';
    expect(parseTemplate(`/${segment}/:id`)).toEqual([
      { kind: 'static', value: segment },
      { kind: 'param', name: 'id' },
    ]);
    expect(parseTemplate('/v1.2/.well-known/..x')).toHaveLength(3);
  });

  it('joins base paths without doubled or trailing slashes', () => {
    expect(joinPaths('/api/v1/', '/users')).toBe('/api/v1/users');
    expect(joinPaths('/', '/users')).toBe('/users');
    expect(joinPaths('api', 'users/')).toBe('/api/users');
    expect(joinPaths('/', '/')).toBe('/');
  });

  it('builds URLs with every value percent-encoded', () => {
    expect(buildPath('/users/:userId/orders/:id', { userId: 7, id: 'a/b?c' })).toBe('/users/7/orders/a%2Fb%3Fc');
    expect(() => buildPath('/users/:id', {})).toThrow(/no value for ":id"/);
  });
});
