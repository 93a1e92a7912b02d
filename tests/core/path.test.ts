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
