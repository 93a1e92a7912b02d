import { describe, expect, it } from 'vitest';
import { createRouter, isHttpError } from '../../src/index.js';

function table() {
  const router = createRouter<string>();
  router.add('GET', '/users', 'listUsers');
  router.add('POST', '/users', 'createUser');
  router.add('GET', '/users/me', 'readMe');
  router.add('GET', '/users/:id', 'readUser');
  router.add('DELETE', '/users/:id', 'removeUser');
  router.add('GET', '/users/:userId/orders', 'listOrders');
  router.add('GET', '/users/:userId/orders/:id', 'readOrder');
  router.add('GET', '/users/me/settings', 'readSettings');
  return router;
}

describe('router', () => {
  const router = table();

  it('finds static and param routes with their params', () => {
    expect(router.find('/users')?.route.handlers.GET).toBe('listUsers');
    expect(router.find('/users/7')).toMatchObject({ route: { template: '/users/:id' }, params: { id: '7' } });
    expect(router.find('/users/7/orders/9')?.params).toEqual({ userId: '7', id: '9' });
  });

  it('lets a static segment beat a param', () => {
    expect(router.find('/users/me')?.route.handlers.GET).toBe('readMe');
  });

  it('walks a path as long as a static one that is not it, and finds a static one with its trailing slash', () => {
    expect(router.find('/users/42')).toMatchObject({ route: { template: '/users/:id' }, params: { id: '42' } });
    expect(router.find('/users/mee')).toMatchObject({ route: { template: '/users/:id' }, params: { id: 'mee' } });
    expect(router.find('/users/me/')?.route.handlers.GET).toBe('readMe');
    expect(router.find('/users/me/')?.params).toEqual({});
  });

  it('backtracks to a param when the static branch dead-ends', () => {
    expect(router.find('/users/me/orders')).toMatchObject({ route: { template: '/users/:userId/orders' }, params: { userId: 'me' } });
    expect(router.find('/users/me/settings')?.route.handlers.GET).toBe('readSettings');
  });

  it('ignores one trailing slash and the empty path segment is no match', () => {
    expect(router.find('/users/')?.route.handlers.GET).toBe('listUsers');
    expect(router.find('/users/7/')?.params).toEqual({ id: '7' });
    expect(router.find('/users//orders')).toBeUndefined();
    expect(router.find('users')).toBeUndefined();
  });

  it('answers undefined for unknown paths', () => {
    expect(router.find('/orders')).toBeUndefined();
    expect(router.find('/users/7/orders/9/items')).toBeUndefined();
  });

  it('lists the methods of a path for Allow, with HEAD for GET and OPTIONS', () => {
    expect(router.find('/users')?.route.allow).toBe('GET, HEAD, POST, OPTIONS');
    expect(router.find('/users/7')?.route.allow).toBe('GET, HEAD, DELETE, OPTIONS');
  });

  it('finds no handler for a method named like an inherited key, and lists only declared methods', () => {
    const { route } = router.find('/users/7')!;
    for (const method of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'PUT']) expect(route.handlers[method]).toBeUndefined();
    expect(route.handlers.DELETE).toBe('removeUser');
    expect(Object.entries(route.handlers).filter(([, handler]) => handler !== undefined)).toEqual([
      ['GET', 'readUser'],
      ['DELETE', 'removeUser'],
    ]);
  });

  it('percent-decodes params exactly once', () => {
    expect(router.find('/users/a%2Fb')?.params).toEqual({ id: 'a/b' });
    expect(router.find('/users/%2541')?.params).toEqual({ id: '%41' });
    expect(router.find('/users/caf%C3%A9')?.params).toEqual({ id: 'café' });
    expect(router.find('/%75sers/7')?.params).toEqual({ id: '7' });
  });

  it('decodes an escape met after a static branch was taken, and still backtracks to the param', () => {
    // `me` matches the static segment first; the escape in `ord%65rs` comes after it, and only the param branch has `orders`.
    expect(router.find('/users/me/ord%65rs')).toMatchObject({ route: { template: '/users/:userId/orders' }, params: { userId: 'me' } });
    expect(router.find('/users/me/s%65ttings')).toMatchObject({ route: { template: '/users/me/settings' }, params: {} });
    expect(router.find('/users/7/orders/%37')?.params).toEqual({ userId: '7', id: '7' });
  });

  it('answers a malformed escape with a 400, not a crash', () => {
    let thrown: unknown;
    try {
      router.find('/users/%E0%A4%A');
    } catch (error) {
      thrown = error;
    }
    expect(isHttpError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ status: 400, code: 'RC_MALFORMED_URL' });
  });

  it('answers very long and very deep paths without a crash', () => {
    const long = '/users/' + 'a'.repeat(10_000);
    const deep = '/users' + '/x'.repeat(5_000);
    expect(router.find(long)?.params.id).toHaveLength(10_000);
    expect(router.find(deep)).toBeUndefined();
    expect(router.find('/users/me' + '/me'.repeat(5_000))).toBeUndefined();
  });

  it('refuses the same method and template twice, and mismatched param names', () => {
    const router = createRouter<string>();
    router.add('GET', '/users/:id', 'a');
    expect(() => router.add('GET', '/users/:id', 'b')).toThrow(/declared twice/);
    expect(() => router.add('PUT', '/users/:userId', 'c')).toThrow(/names its params differently/);
  });

  it('refuses malformed templates with a sentence', () => {
    const router = createRouter<string>();
    expect(() => router.add('GET', 'users', 'x')).toThrow(/starts with "\/"/);
    expect(() => router.add('GET', '/users//x', 'x')).toThrow(/empty segment/);
    expect(() => router.add('GET', '/users/:', 'x')).toThrow(/invalid param/);
    expect(() => router.add('GET', '/a/:id/b/:id', 'x')).toThrow(/twice/);
  });
});

describe('router params', () => {
  it('refuses __proto__ as a param name, which would set the prototype of the params object', () => {
    expect(() => createRouter<string>().add('GET', '/users/:__proto__', 'x')).toThrow(/invalid param/);
  });

  it('gives every route its own params shape', () => {
    const router = createRouter<string>();
    router.add('GET', '/shops/:shopId/items/:id', 'item');
    router.add('GET', '/shops/:shopId', 'shop');
    expect(router.find('/shops/s1/items/i2')?.params).toEqual({ shopId: 's1', id: 'i2' });
    expect(router.find('/shops/s1')?.params).toEqual({ shopId: 's1' });
    expect(Object.getPrototypeOf(router.find('/shops/s1')?.params)).toBe(Object.prototype);
  });
});
