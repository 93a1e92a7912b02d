import { apiWith, handlerWith } from './core/api.js';
import { CONVENTIONS } from './conventions/index.js';
import type { CorsOptions } from './conventions/cors/cors.js';

/**
 * The package's doors: the engine with every convention restcanon has built in. An API pays at run
 * time only for the conventions its definitions use; `restcanon/engine` builds one that bundles
 * only the conventions it is given.
 */

/**
 * Builds an API from endpoints and resources, with every convention restcanon has (lists, ownership,
 * conditional requests, merge patches, response projection, byte ranges, server-sent events, urlencoded
 * forms and, with `cors`, CORS). Every option is
 * checked now: a mistake throws with a sentence that says what to change, never at request time.
 *
 * @example
 * const api = createApi({
 *   basePath: '/api',
 *   endpoints: [endpoint('GET', '/health', { handle: () => ({ ok: true }) })],
 *   onError: (error, { requestId }) => console.error(requestId, error),
 * });
 * await api.handle({ method: 'GET', url: '/api/health' }); // { status: 200, body: { ok: true }, ... }
 */
export const createApi = /* @__PURE__ */ apiWith<{
  /**
   * Lets pages from other origins call the API from a browser: preflights answered, and the
   * `Access-Control-*` headers on every answer to an allowed origin. See {@link CorsOptions}.
   */
  cors?: CorsOptions;
}>(CONVENTIONS);

/**
 * Runs one endpoint through the pipeline with params that a host router already matched: for teams
 * that keep their own router and want validation, the status policy and safe errors on one route.
 * The framework wrappers (`expressHandler`, `fastifyHandler`, `nodeHandler`) are built on it.
 *
 * @example
 * const readUserHandler = createEndpointHandler(readUser);
 * const response = await readUserHandler({ method: 'GET', url: '/users/7' }, { id: '7' });
 */
export const createEndpointHandler = /* @__PURE__ */ handlerWith(CONVENTIONS);
