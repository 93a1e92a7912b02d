/**
 * An answer's headers as text, one string a name, as a Fetch client's `Object.fromEntries(headers)`
 * reads them: the lines of `Set-Cookie` joined with commas.
 */
import type { ResponseHeaders } from '../../src/index.js';
import { headerText } from '../../src/core/http.js';

export { headerText };

/** Each header of an answer as one string. */
export function textHeaders(headers: ResponseHeaders): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, headerText(value)!]));
}
