import { decode, FORM_TYPE, readBody, takeWhole, tooLarge, type RawBody } from '../../core/body.js';
import { inspectBody } from '../../core/body-inspection.js';
import type { Exchange, Step } from '../../core/exchange.js';
import { arrayKeys } from '../../core/query-arrays.js';
import type { Convention, EndpointParts } from '../../core/seam.js';
import { isStandardSchema } from '../../core/standard-schema.js';
import { parseForm } from './form-body.js';

/**
 * Urlencoded forms as a convention: the reader of `application/x-www-form-urlencoded` bodies on the
 * engine's seam, which the engine alone does not read (an endpoint that takes them on an API without
 * this convention is refused when the API is built).
 */

/**
 * The `forms` convention: an endpoint that takes `application/x-www-form-urlencoded` (by name in
 * `consumes`, or within `*\/*` or `application/*`) gets a form as a record of its fields, read as the
 * query is: a name given twice is an array, and a name the body schema takes only as an array is one
 * even when given once. The record inherits nothing, a `__proto__` name is a 400
 * (`RC_FORBIDDEN_KEY`), more than 1,000 fields a 413 (`RC_TOO_MANY_FIELDS`), and the body schema
 * validates it as it does JSON. An endpoint declares nothing for it. `createApi` from `restcanon`
 * has it; from `restcanon/engine`, give it in `use`.
 *
 * @example
 * const api = createApi({
 *   use: [forms],
 *   endpoints: [endpoint('POST', '/signups', { consumes: ['application/x-www-form-urlencoded'], body: z.object({ name: z.string() }), handle: (ctx) => ctx.body })],
 * });
 */
export const forms: Convention = {
  name: 'forms',
  rank: 90,
  endpoint(endpoint): EndpointParts | undefined {
    if (endpoint.body === 'bytes' || endpoint.body === 'stream') return undefined;
    const consumes = endpoint.consumes.map((type) => type.toLowerCase());
    const named = consumes.includes(FORM_TYPE);
    if (!named && !consumes.includes('*/*') && !consumes.includes('application/*')) return undefined;
    // Only a form the endpoint names has its schema's array keys: within a range, a name given once stays a string.
    const arrays = named && isStandardSchema(endpoint.body) ? arrayKeys(endpoint.body) : [];
    return { readers: { [FORM_TYPE]: readForm(arrays) } };
  },
};

/** Reads a raw form as UTF-8 text within the body's limit, then into its record: an empty body is no body. */
function readForm(arrays: readonly string[]): Step {
  const keep = (exchange: Exchange, text: string): void => {
    if (text === '') return;
    const form = parseForm(text, arrays);
    inspectBody(form, exchange.compiled.bodyRules!.maxDepth);
    exchange.ctx.body = form;
  };
  return (exchange) => {
    const body = exchange.ctx.request.body as RawBody;
    const { limit } = exchange.compiled.bodyRules!;
    // A body whole in memory already is taken without a promise: the request goes on in the same turn.
    const whole = takeWhole(body);
    if (whole === undefined) return readBody(body, limit, exchange).then((text) => keep(exchange, text));
    if (whole.byteLength > limit) throw tooLarge(limit);
    keep(exchange, decode(whole));
    return undefined;
  };
}
