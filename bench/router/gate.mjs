/**
 * The correctness gate: before any timing, every router must return, for every request, the handler id
 * and the params the suite expects. A router that misses fast must not win.
 */

/**
 * @param {Record<string, string>} params
 * @returns {string} the params as `{a=1, b=2}`, keys sorted, whatever their prototype
 */
function describeParams(params) {
  return `{${Object.keys(params)
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join(', ')}}`;
}

/**
 * Runs every request of the suite once through `lookup`.
 *
 * @param {import('./competitors.mjs').Lookup} lookup
 * @param {import('./routes.mjs').RouteSuite} suite
 * @returns {string[]} one line per request whose result differs from the expected one
 */
export function checkLookup(lookup, suite) {
  const mismatches = [];
  /** @type {import('./competitors.mjs').LookupResult} */
  const out = { handler: undefined, params: {} };
  for (const { method, path, expected } of suite.requests) {
    out.handler = undefined;
    out.params = {};
    lookup(method, path, out);
    const got = out.handler === undefined ? 'miss' : `${out.handler} ${describeParams(out.params)}`;
    const want = expected === null ? 'miss' : `${expected.id} ${describeParams(expected.params)}`;
    if (got !== want) mismatches.push(`${method} ${path}: got ${got}, expected ${want}`);
  }
  return mismatches;
}
