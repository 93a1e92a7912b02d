import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isHttpError } from '../../src/index.js';
import { createRouter, type Router } from '../../src/engine.js';
import { FIXED_SEED } from '../fuzz/settings.js';

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
  });

  // Regression: static segments were matched after percent-decoding, so `/%61dmin/stats` reached
  // `/admin/stats` past a host's guard on `/admin`, which matches the path as it was sent.
  it('matches a static segment only as it is sent: /%75sers/7 and /%75%73%65%72%73 are no route', () => {
    expect(router.find('/%75sers/7')).toBeUndefined();
    expect(router.find('/%75%73%65%72%73')).toBeUndefined();
    expect(router.find('/users/me/s%65ttings')).toBeUndefined();
    // An escaped static segment is no static segment, but it is a param value like any other.
    expect(router.find('/users/%6De')).toMatchObject({ route: { template: '/users/:id' }, params: { id: 'me' } });
  });

  // Regression: a param took `..`, so `/users/..` was read by `/users/:id`, where a URL parser in
  // front (WHATWG's, a proxy's) resolves it to `/`, outside any guard on `/users`.
  it.each(['.', '..', '%2e', '%2E%2e', '.%2E', '%2e.'])('matches no param with the dot segment %s', (dots) => {
    expect(router.find(`/users/${dots}`)).toBeUndefined();
    expect(router.find(`/users/${dots}/orders`)).toBeUndefined();
    expect(router.find(`/users/7/orders/${dots}/`)).toBeUndefined();
    expect(router.find(`/users/${dots}x`)?.params).toEqual({ id: `${decodeURIComponent(dots)}x` });
  });

  it('decodes an escape met after a static branch was taken, and still backtracks to the param', () => {
    // `me` matches the static segment first, whose branch has no `orders`; the param branch has, and decodes `%37`.
    expect(router.find('/users/me/orders/%37')).toMatchObject({ route: { template: '/users/:userId/orders/:id' }, params: { userId: 'me', id: '7' } });
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

describe('router lookups, generated and walked', () => {
  /**
   * What `find` must answer, worked out the slow way from the templates alone: of the templates that
   * fit the path, segment by segment (a static segment as sent, a param decoded, neither empty nor a
   * dot segment), the one with a static segment earliest wins (`/users/me` before `/users/:id`, and
   * `/users/me/orders` falls back to `/users/:userId/orders`).
   */
  function expectedMatch(templates: readonly string[], path: string): { template: string; params: Record<string, string> } | undefined {
    if (!path.startsWith('/')) return undefined;
    const body = path.slice(1).replace(/\/$/, '');
    const segments = path === '/' ? [] : body.split('/');
    let best: { template: string; params: Record<string, string>; rank: string } | undefined;
    for (const template of templates) {
      const parts = template === '/' ? [] : template.slice(1).split('/');
      if (parts.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let rank = '';
      const fits = parts.every((part, index) => {
        const raw = segments[index]!;
        const value = decodeURIComponent(raw);
        const isParam = part.startsWith(':');
        rank += isParam ? '1' : '0';
        if (isParam) params[part.slice(1)] = value;
        return isParam ? value !== '' && value !== '.' && value !== '..' : part === raw;
      });
      if (fits && (best === undefined || rank < best.rank)) best = { template, params, rank };
    }
    return best && { template: best.template, params: best.params };
  }

  const found = (router: Router<string>, path: string) => {
    const match = router.find(path);
    return match && { template: match.route.template, params: { ...match.params } };
  };

  /**
   * A router whose first lookup finds code generation refused, as under a strict CSP: `new Function`
   * throws. That lookup is for a path no static route has, so that it reaches the tree.
   */
  function withoutCodeGeneration(router: Router<string>): Router<string> {
    const original = globalThis.Function;
    globalThis.Function = function refuse() {
      throw new EvalError('Code generation from strings disallowed for this context');
    } as unknown as FunctionConstructor;
    try {
      router.find('/\0');
    } finally {
      globalThis.Function = original;
    }
    return router;
  }

  const STATIC = ['users', 'me', 'orders', 'a', 'ab', 'b', 'items', 'a:b', '~x.y'];
  // Param names by position, so that two templates of one shape name their params alike.
  const template = fc
    .array(fc.oneof(fc.constantFrom(...STATIC), fc.constant(':')), { maxLength: 4 })
    .map((parts) => '/' + parts.map((part, index) => (part === ':' ? `:p${index}` : part)).join('/'));
  const segment = fc.oneof(fc.constantFrom(...STATIC), fc.constantFrom('7', 'x-y.z', '%6De', 'a%2Fb', '%75sers', 'caf%C3%A9', '%25', '', '.', '..', '%2e%2E', '.x'));
  const path = fc.tuple(fc.array(segment, { maxLength: 5 }), fc.boolean()).map(([parts, slash]) => '/' + parts.join('/') + (slash && parts.length > 0 ? '/' : ''));
  const table = fc.uniqueArray(template, { minLength: 1, maxLength: 12 });

  for (const [name, build] of [
    ['the generated matcher', (router: Router<string>) => router],
    ['the walk, where code generation is refused', withoutCodeGeneration],
  ] as const) {
    it(`finds what the templates say, by ${name}`, () => {
      fc.assert(
        fc.property(table, fc.array(path, { minLength: 1, maxLength: 20 }), (templates, paths) => {
          const router = createRouter<string>();
          for (const each of templates) router.add('GET', each, each);
          build(router);
          for (const each of paths) expect(found(router, each), each).toEqual(expectedMatch(templates, each));
        }),
        { seed: FIXED_SEED, numRuns: 300 },
      );
    });
  }

  it('finds a route added after the first lookup', () => {
    const router = createRouter<string>();
    router.add('GET', '/users/:id', 'readUser');
    expect(router.find('/users/7/orders')).toBeUndefined();
    router.add('GET', '/users/:id/orders', 'listOrders');
    router.add('GET', '/health', 'health');
    expect(router.find('/users/7/orders')).toMatchObject({ route: { template: '/users/:id/orders' }, params: { id: '7' } });
    expect(router.find('/health')?.route.handlers.GET).toBe('health');
    expect(router.find('/users/7')?.params).toEqual({ id: '7' });
  });

  /** The source the router hands to `new Function` on its first lookup, recorded on its way there. */
  function generatedSource(router: Router<string>): string {
    const original = globalThis.Function;
    const sources: string[] = [];
    globalThis.Function = function record(...parameters: string[]) {
      sources.push(parameters.at(-1)!);
      return original(...parameters);
    } as unknown as FunctionConstructor;
    try {
      router.find('/\0');
    } finally {
      globalThis.Function = original;
    }
    expect(sources).toHaveLength(1);
    return sources[0]!;
  }

  it('generates this matcher for static, param and nested param routes', () => {
    const router = createRouter<string>();
    router.add('GET', '/health', 'readHealth');
    router.add('GET', '/users', 'listUsers');
    router.add('GET', '/users/:id', 'readUser');
    router.add('GET', '/users/:userId/orders', 'listOrders');
    router.add('GET', '/users/:userId/orders/:id', 'readOrder');
    expect(generatedSource(router)).toMatchInlineSnapshot(`
      "return (p) => {
      switch (p.length) {
      case 7:
      if (p === "/health") return r[0].staticMatch;
      if (p === "/users/") return r[1].staticMatch;
      break;
      case 8:
      if (p === "/health/") return r[0].staticMatch;
      break;
      case 6:
      if (p === "/users") return r[1].staticMatch;
      break;
      }
      const s0 = 1;
      let e0 = p.indexOf("/", s0); if (e0 < 0) e0 = p.length;
      if (e0 - s0 === 6 && p.charCodeAt(s0 + 0) === 104 && p.charCodeAt(s0 + 1) === 101 && p.charCodeAt(s0 + 2) === 97 && p.charCodeAt(s0 + 3) === 108 && p.charCodeAt(s0 + 4) === 116 && p.charCodeAt(s0 + 5) === 104) { const s1 = e0 + 1;
      }
      if (e0 - s0 === 5 && p.charCodeAt(s0 + 0) === 117 && p.charCodeAt(s0 + 1) === 115 && p.charCodeAt(s0 + 2) === 101 && p.charCodeAt(s0 + 3) === 114 && p.charCodeAt(s0 + 4) === 115) { const s1 = e0 + 1;
      let e1 = p.indexOf("/", s1); if (e1 < 0) e1 = p.length;
      if (e1 > s1 && (p.charCodeAt(s1) !== 46 || e1 - s1 > 2 || (e1 - s1 === 2 && p.charCodeAt(s1 + 1) !== 46))) { const s2 = e1 + 1;
      if (s2 >= p.length) return { route: r[2], params: { "id": p.slice(s1, e1) } };
      let e2 = p.indexOf("/", s2); if (e2 < 0) e2 = p.length;
      if (e2 - s2 === 6 && p.charCodeAt(s2 + 0) === 111 && p.charCodeAt(s2 + 1) === 114 && p.charCodeAt(s2 + 2) === 100 && p.charCodeAt(s2 + 3) === 101 && p.charCodeAt(s2 + 4) === 114 && p.charCodeAt(s2 + 5) === 115) { const s3 = e2 + 1;
      if (s3 >= p.length) return { route: r[3], params: { "userId": p.slice(s1, e1) } };
      let e3 = p.indexOf("/", s3); if (e3 < 0) e3 = p.length;
      if (e3 > s3 && (p.charCodeAt(s3) !== 46 || e3 - s3 > 2 || (e3 - s3 === 2 && p.charCodeAt(s3 + 1) !== 46))) { const s4 = e3 + 1;
      if (s4 >= p.length) return { route: r[4], params: { "userId": p.slice(s1, e1), "id": p.slice(s3, e3) } };
      }
      }
      }
      }
      }"
    `);
    // The matcher the source became answers as the templates say.
    expect(router.find('/health/')?.route.handlers.GET).toBe('readHealth');
    expect(router.find('/users/7')?.params).toEqual({ id: '7' });
    expect(router.find('/users/7/orders')?.params).toEqual({ userId: '7' });
    expect(router.find('/users/7/orders/9')?.params).toEqual({ userId: '7', id: '9' });
    expect(router.find('/users/7/items')).toBeUndefined();
  });

  it('serves a table too large to generate a matcher for', () => {
    const router = createRouter<string>();
    for (let index = 0; index < 300; index++) {
      router.add('GET', `/resources${index}/:id`, `read${index}`);
      router.add('GET', `/resources${index}/:id/parts/:partId`, `readPart${index}`);
    }
    expect(router.find('/resources299/7')).toMatchObject({ route: { handlers: { GET: 'read299' } }, params: { id: '7' } });
    expect(router.find('/resources0/7/parts/x')?.params).toEqual({ id: '7', partId: 'x' });
    expect(router.find('/resources300/7')).toBeUndefined();
  });
});
