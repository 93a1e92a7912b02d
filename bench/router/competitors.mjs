/**
 * One adapter per router, each doing the same work per lookup: find the handler registered for the
 * method and path, and build the params as a plain object. Each adapter writes both into `out`
 * instead of returning a fresh object, so the benchmark times the router, not a wrapper allocation.
 *
 * Libraries are imported lazily: a worker process loads only the router it times.
 */

/**
 * @typedef {{ handler: string | undefined, params: Record<string, string> }} LookupResult
 * @typedef {(method: string, path: string, out: LookupResult) => void} Lookup
 * @typedef {{ name: string, description: string, create: (routes: import('./routes.mjs').RouteEntry[]) => Promise<{ lookup: Lookup, note?: string }> }} Competitor
 */

/** What an adapter reports for a static route or a miss: one shared object, as restcanon does. */
const NO_PARAMS = Object.freeze({});

/** @type {Competitor[]} */
export const COMPETITORS = [
  {
    name: 'restcanon',
    description: 'createRouter(), then router.find(path)?.route.handlers[method] and its params',
    async create(routes) {
      const { createRouter } = await import('../../dist/index.js');
      const router = createRouter();
      for (const { method, template, id } of routes) router.add(method, template, id);
      const lookup = (method, path, out) => {
        const match = router.find(path);
        if (match === undefined) {
          out.handler = undefined;
          out.params = NO_PARAMS;
          return;
        }
        out.handler = match.route.handlers[method];
        out.params = match.params;
      };
      return { lookup };
    },
  },
  {
    name: 'find-my-way',
    description: 'router.find(method, path): the id from its store, its params',
    async create(routes) {
      const { default: FindMyWay } = await import('find-my-way');
      const router = FindMyWay();
      const noop = () => {};
      // find-my-way wants a function as the handler; the id rides in the store.
      for (const { method, template, id } of routes) router.on(method, template, noop, id);
      const lookup = (method, path, out) => {
        const found = router.find(method, path);
        if (found === null) {
          out.handler = undefined;
          out.params = NO_PARAMS;
          return;
        }
        out.handler = found.store;
        out.params = found.params;
      };
      return { lookup };
    },
  },
  {
    name: 'rou3',
    description: 'findRoute(router, method, path): its data and params (none for a static route)',
    async create(routes) {
      const { createRouter, addRoute, findRoute } = await import('rou3');
      const router = createRouter();
      // rou3 >= 0.3 argument order: (context, method, path, data). Hono's benchmark still passes the
      // path as the method, so every one of its rou3 lookups is a miss.
      for (const { method, template, id } of routes) addRoute(router, method, template, id);
      const lookup = (method, path, out) => {
        const match = findRoute(router, method, path);
        if (match === undefined) {
          out.handler = undefined;
          out.params = NO_PARAMS;
          return;
        }
        out.handler = match.data;
        out.params = match.params ?? NO_PARAMS;
      };
      return { lookup };
    },
  },
  {
    name: 'rou3-compiled',
    description: "compileRouter(router) from 'rou3/compiler', called as (method, path)",
    async create(routes) {
      const { createRouter, addRoute } = await import('rou3');
      const { compileRouter } = await import('rou3/compiler');
      const router = createRouter();
      for (const { method, template, id } of routes) addRoute(router, method, template, id);
      const match = compileRouter(router);
      const lookup = (method, path, out) => {
        const found = match(method, path);
        if (found === undefined) {
          out.handler = undefined;
          out.params = NO_PARAMS;
          return;
        }
        out.handler = found.data;
        out.params = found.params ?? NO_PARAMS;
      };
      return { lookup };
    },
  },
  {
    name: 'hono-regexp',
    description: 'RegExpRouter: router.match(method, path), the first handler, params built from its index map and stash',
    async create(routes) {
      const { RegExpRouter } = await import('hono/router/reg-exp-router');
      const router = new RegExpRouter();
      for (const { method, template, id } of routes) router.add(method, template, id);
      // RegExpRouter compiles its matchers on the first match: do it here, not in a timed lookup.
      router.match('GET', '/');
      return { lookup: honoLookup(router) };
    },
  },
  {
    name: 'hono-smart',
    description: "Hono's default router (new Hono()): SmartRouter over RegExpRouter, then TrieRouter",
    async create(routes) {
      const { SmartRouter } = await import('hono/router/smart-router');
      const { RegExpRouter } = await import('hono/router/reg-exp-router');
      const { TrieRouter } = await import('hono/router/trie-router');
      const router = new SmartRouter({ routers: [new RegExpRouter(), new TrieRouter()] });
      for (const { method, template, id } of routes) router.add(method, template, id);
      // The first match picks the first router that accepts every route and rebinds match to it.
      router.match('GET', '/');
      return { lookup: honoLookup(router), note: `picked ${router.activeRouter.name}` };
    },
  },
];

/**
 * Hono routers return every matching handler in registration order (the first one that responds
 * wins), each with either param positions into a stash (RegExpRouter) or a params object (TrieRouter).
 * Hono builds the params object lazily in `c.req.param()`; building it here makes the work equal.
 *
 * @param {{ match(method: string, path: string): [[unknown, Record<string, number | string>][], string[]?] }} router
 * @returns {Lookup}
 */
function honoLookup(router) {
  return (method, path, out) => {
    const result = router.match(method, path);
    const first = result[0][0];
    const stash = result[1];
    if (first === undefined) {
      out.handler = undefined;
      out.params = NO_PARAMS;
      return;
    }
    out.handler = first[0];
    const paramMap = first[1];
    if (stash === undefined) {
      out.params = paramMap;
      return;
    }
    let params = NO_PARAMS;
    for (const key in paramMap) {
      if (params === NO_PARAMS) params = {};
      params[key] = stash[paramMap[key]];
    }
    out.params = params;
  };
}

/** The competitor every ratio is measured against. */
export const BASELINE = 'find-my-way';

/**
 * @param {string} name
 * @returns {Competitor}
 */
export function competitorNamed(name) {
  const competitor = COMPETITORS.find((candidate) => candidate.name === name);
  if (competitor === undefined) throw new TypeError(`No competitor "${name}"; use one of ${COMPETITORS.map((c) => c.name).join(', ')}`);
  return competitor;
}
