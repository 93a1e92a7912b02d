import { PayloadTooLargeError, withoutStack } from '../../core/errors.js';
import { ERROR_CODES } from '../../core/error-codes.js';

/**
 * Reading an `application/x-www-form-urlencoded` body: the query's own rule (a repeated key gives an
 * array), on a record that inherits nothing, within a bound on its fields.
 */

/** The most fields a urlencoded form may hold: each is a string and an entry of the record. */
export const MAX_FORM_FIELDS = 1000;

/**
 * Parses a urlencoded form into a record that inherits nothing; a repeated key gives an array, and a
 * key of `arrays` given once a one-element array, as a query's is. More than
 * {@link MAX_FORM_FIELDS} fields is a 413 (`RC_TOO_MANY_FIELDS`), counted before anything is decoded.
 *
 * @example
 * parseForm('tag=a&tag=b&name=Ada+L', new Set()); // { tag: ['a', 'b'], name: 'Ada L' }
 */
export function parseForm(text: string, arrays: ReadonlySet<string>): Record<string, string | string[]> {
  let fields = 0;
  for (let index = text.indexOf('&'); index !== -1; index = text.indexOf('&', index + 1)) {
    if (++fields >= MAX_FORM_FIELDS) throw tooManyFields();
  }
  // No prototype at all, so that a `__proto__` key is an own key that the body's inspection refuses.
  const form = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of new URLSearchParams(text)) {
    const existing = form[key];
    if (existing === undefined) form[key] = arrays.has(key) ? [value] : value;
    else if (typeof existing === 'string') form[key] = [existing, value];
    else existing.push(value);
  }
  return form;
}

function tooManyFields(): PayloadTooLargeError {
  return withoutStack(() => new PayloadTooLargeError(`The form holds more than ${MAX_FORM_FIELDS} fields`, { code: ERROR_CODES.TOO_MANY_FIELDS }));
}
