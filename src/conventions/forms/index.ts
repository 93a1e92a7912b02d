import { FORM_TYPE } from '../../core/body.js';
import { arrayKeys } from '../../core/query-arrays.js';
import type { Convention, EndpointParts } from '../../core/seam.js';
import { isStandardSchema } from '../../core/standard-schema.js';
import { textReader } from '../../core/steps.js';
import { parseForm } from './form-body.js';

/**
 * Urlencoded forms as a convention: the reader of `application/x-www-form-urlencoded` bodies on the
 * engine's seam, which the engine alone does not read (an endpoint that takes them on an API without
 * this convention is refused when the API is built).
 */

/**
 * The `forms` convention: an endpoint that takes `application/x-www-form-urlencoded` (by name in
 * `consumes`, or within `*\/*` or `application/*`) gets a form as a record of its fields, read as the
 * query is: a name given twice is an array, and, where `consumes` names the type, a name the body
 * schema takes only as an array is one even when given once. The record inherits nothing, a `__proto__` name is a 400
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
  endpoint({ body, consumes }): EndpointParts {
    // Only a form the endpoint names has its schema's array keys: within a range, a name given once stays a string.
    const arrays = new Set(isStandardSchema(body) && consumes.some((type) => type.toLowerCase() === FORM_TYPE) ? arrayKeys(body) : []);
    // The API keeps a reader only where the endpoint takes its type: one that takes no form gets none, and its requests pay nothing for it.
    return { readers: { [FORM_TYPE]: textReader((text) => parseForm(text, arrays)) } };
  },
};
