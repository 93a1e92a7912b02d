/**
 * The route sets the router benchmark runs, as data: what each router registers and which requests it
 * looks up, each with the handler id and params every router must return (the correctness gate).
 *
 * A request whose `expected` is null is a miss: no handler for that method and path.
 */

/**
 * @typedef {{ method: string, template: string, id: string }} RouteEntry
 * @typedef {{ method: string, path: string, expected: { id: string, params: Record<string, string> } | null }} BenchRequest
 * @typedef {{ name: string, title: string, note?: string, routes: RouteEntry[], requests: BenchRequest[] }} RouteSuite
 */

/** @param {string} method @param {string} template @param {string} id @returns {RouteEntry} */
const route = (method, template, id) => ({ method, template, id });

/** @param {string} method @param {string} path @param {string} id @param {Record<string, string>} [params] @returns {BenchRequest} */
const hit = (method, path, id, params = {}) => ({ method, path, expected: { id, params } });

/** @param {string} method @param {string} path @returns {BenchRequest} */
const miss = (method, path) => ({ method, path, expected: null });

/**
 * A REST API as restcanon users write it. Statics come before the params they shadow (`/users/me`
 * before `/users/:id`) because Hono's RegExpRouter returns every match in registration order.
 *
 * @type {RouteSuite}
 */
export const REST_SUITE = {
  name: 'rest',
  title: 'REST API: 26 routes, 25 requests (static, one param, nested params, 3 misses)',
  routes: [
    route('GET', '/health', 'health'),
    route('GET', '/users', 'listUsers'),
    route('POST', '/users', 'createUser'),
    route('GET', '/users/me', 'readMe'),
    route('GET', '/users/:id', 'readUser'),
    route('PUT', '/users/:id', 'replaceUser'),
    route('PATCH', '/users/:id', 'updateUser'),
    route('DELETE', '/users/:id', 'deleteUser'),
    route('GET', '/users/:userId/orders', 'listOrders'),
    route('POST', '/users/:userId/orders', 'createOrder'),
    route('GET', '/users/:userId/orders/:id', 'readOrder'),
    route('DELETE', '/users/:userId/orders/:id', 'cancelOrder'),
    route('GET', '/users/:userId/orders/:orderId/items', 'listOrderItems'),
    route('GET', '/users/:userId/orders/:orderId/items/:id', 'readOrderItem'),
    route('GET', '/products', 'listProducts'),
    route('POST', '/products', 'createProduct'),
    route('GET', '/products/:id', 'readProduct'),
    route('PUT', '/products/:id', 'replaceProduct'),
    route('GET', '/products/:id/reviews', 'listReviews'),
    route('POST', '/products/:id/reviews', 'createReview'),
    route('GET', '/api/v1/status', 'apiStatus'),
    route('GET', '/api/v1/catalog/categories', 'listCategories'),
    route('GET', '/api/v1/catalog/categories/:slug', 'readCategory'),
    route('GET', '/api/v1/catalog/categories/:slug/products', 'listCategoryProducts'),
    route('GET', '/api/v1/invoices/:invoiceId', 'readInvoice'),
    route('GET', '/api/v1/invoices/:invoiceId/lines/:lineId', 'readInvoiceLine'),
  ],
  requests: [
    hit('GET', '/health', 'health'),
    hit('GET', '/users', 'listUsers'),
    hit('POST', '/users', 'createUser'),
    hit('GET', '/users/me', 'readMe'),
    hit('GET', '/users/42', 'readUser', { id: '42' }),
    hit('PUT', '/users/42', 'replaceUser', { id: '42' }),
    hit('PATCH', '/users/7f3c9a', 'updateUser', { id: '7f3c9a' }),
    hit('DELETE', '/users/42', 'deleteUser', { id: '42' }),
    hit('GET', '/users/42/orders', 'listOrders', { userId: '42' }),
    // `me` takes the static branch first, dead-ends, and must fall back to the param.
    hit('GET', '/users/me/orders', 'listOrders', { userId: 'me' }),
    hit('POST', '/users/42/orders', 'createOrder', { userId: '42' }),
    hit('GET', '/users/42/orders/1001', 'readOrder', { userId: '42', id: '1001' }),
    hit('GET', '/users/42/orders/1001/items', 'listOrderItems', { userId: '42', orderId: '1001' }),
    hit('GET', '/users/42/orders/1001/items/3', 'readOrderItem', { userId: '42', orderId: '1001', id: '3' }),
    hit('GET', '/products', 'listProducts'),
    hit('GET', '/products/sku-123', 'readProduct', { id: 'sku-123' }),
    hit('GET', '/products/sku-123/reviews', 'listReviews', { id: 'sku-123' }),
    hit('POST', '/products/sku-123/reviews', 'createReview', { id: 'sku-123' }),
    hit('GET', '/api/v1/status', 'apiStatus'),
    hit('GET', '/api/v1/catalog/categories/garden-tools', 'readCategory', { slug: 'garden-tools' }),
    hit('GET', '/api/v1/catalog/categories/garden-tools/products', 'listCategoryProducts', { slug: 'garden-tools' }),
    hit('GET', '/api/v1/invoices/INV-2024-001/lines/4', 'readInvoiceLine', { invoiceId: 'INV-2024-001', lineId: '4' }),
    miss('GET', '/orders'),
    miss('GET', '/users/42/wishlist'),
    // The path exists, the method does not: a 405 for the app, a miss for the lookup.
    miss('DELETE', '/health'),
  ],
};

/**
 * The route set of delvedor/router-benchmark, also used by Hono's router benchmark, with Hono's request
 * list. restcanon's router has no wildcard, so `GET /static/*` and its request are left out.
 *
 * @type {RouteSuite}
 */
export const CLASSIC_SUITE = {
  name: 'classic',
  title: 'router-benchmark routes (delvedor, Hono): 11 routes, 6 requests',
  note: 'The wildcard route GET /static/* and its request GET /static/index.html are skipped: restcanon\'s router has no wildcard.',
  routes: [
    route('GET', '/user', 'user'),
    route('GET', '/user/comments', 'userComments'),
    route('GET', '/user/avatar', 'userAvatar'),
    route('GET', '/user/lookup/username/:username', 'lookupUsername'),
    route('GET', '/user/lookup/email/:address', 'lookupEmail'),
    route('GET', '/event/:id', 'event'),
    route('GET', '/event/:id/comments', 'eventComments'),
    route('POST', '/event/:id/comment', 'postEventComment'),
    route('GET', '/map/:location/events', 'mapEvents'),
    route('GET', '/status', 'status'),
    route('GET', '/very/deeply/nested/route/hello/there', 'deeplyNested'),
  ],
  requests: [
    hit('GET', '/user', 'user'),
    hit('GET', '/user/comments', 'userComments'),
    hit('GET', '/user/lookup/username/hey', 'lookupUsername', { username: 'hey' }),
    hit('GET', '/event/abcd1234/comments', 'eventComments', { id: 'abcd1234' }),
    hit('POST', '/event/abcd1234/comment', 'postEventComment', { id: 'abcd1234' }),
    hit('GET', '/very/deeply/nested/route/hello/there', 'deeplyNested'),
  ],
};

/** Every suite, in the order the tables print. */
export const SUITES = [REST_SUITE, CLASSIC_SUITE];

/**
 * @param {string} name
 * @returns {RouteSuite}
 */
export function suiteNamed(name) {
  const suite = SUITES.find((candidate) => candidate.name === name);
  if (suite === undefined) throw new TypeError(`No route suite "${name}"; use one of ${SUITES.map((s) => s.name).join(', ')}`);
  return suite;
}
