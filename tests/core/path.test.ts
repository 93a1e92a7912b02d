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
    ['/caf\u00e9', 'café'],
    ['/a%20b', 'a%20b'],
    ['/%61dmin/stats', '%61dmin'],
    ["/it's", "it's"],
    ['/a\\b', 'a\\b'],
    ['/a"b', 'a"b'],
    ['/users/..', '..'],
    ['/./users', '.'],
    ['/a/.b/./c', '.'],
  ])('refuses the static segment of %s with a sentence naming the fix', (template, segment) => {
    expect(() => parseTemplate(template)).toThrow(
      `Path template ${template} has the static segment "${segment}", which is matched exactly as sent: write it with letters, digits and - . _ ~ ! $ & ( ) * + , ; = : @ only (no percent-escape, not "." or ".."), or make it a param`,
    );
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
