import { BadRequestError, withoutStack } from './errors.js';
import { ERROR_CODES } from './error-codes.js';

/**
 * One set of credentials per request: an `Authorization` header that holds two is refused before
 * anyone reads it, whichever adapter brought it.
 */

const AMBIGUOUS_CREDENTIALS = /* @__PURE__ */ withoutStack(
  () => new BadRequestError('The request carries more than one set of credentials', { code: ERROR_CODES.AMBIGUOUS_CREDENTIALS }),
);

/**
 * Refuses an `Authorization` header that holds two credentials: two headers (given as an array), or
 * two joined with a comma, as a Fetch `Headers` joins repeated headers (`Bearer a, Bearer b`). Which
 * one counts would depend on the adapter; neither does. A comma inside one credential's parameters
 * (`Digest realm="a, b", nonce=x`) is part of it: after a comma outside quotes, only `name=value`
 * may follow.
 *
 * @example
 * checkCredentials('Bearer a, Bearer b'); // throws a 400
 */
export function checkCredentials(value: string | string[]): void {
  if (Array.isArray(value)) {
    if (value.length > 1) throw AMBIGUOUS_CREDENTIALS;
    if (value.length === 0) return;
    value = value[0]!;
  }
  let quoted = false;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code === 0x22) quoted = !quoted;
    else if (code === 0x5c && quoted) index++;
    else if (code === 0x2c && !quoted && startsCredential(value, index + 1)) throw AMBIGUOUS_CREDENTIALS;
  }
}

/**
 * Whether the list element from `start` is `scheme [credentials]` rather than an `auth-param`
 * (`name = value`): a token not followed by `=`. An empty element counts as a credential: two
 * headers, one of them empty, are joined by a Fetch `Headers` as `Bearer a, `, and are ambiguous on
 * every adapter alike.
 */
function startsCredential(value: string, start: number): boolean {
  let index = start;
  while (index < value.length && (value.charCodeAt(index) === 0x20 || value.charCodeAt(index) === 0x09)) index++;
  if (index === value.length) return true;
  const tokenStart = index;
  while (index < value.length && isTokenCode(value.charCodeAt(index))) index++;
  if (index === tokenStart) return false;
  while (index < value.length && (value.charCodeAt(index) === 0x20 || value.charCodeAt(index) === 0x09)) index++;
  // `scheme,` is a scheme without credentials, a second credential as much as `scheme token`.
  return index === value.length || value.charCodeAt(index) !== 0x3d;
}

function isTokenCode(code: number): boolean {
  // tchar of RFC 9110 §5.6.2: visible ASCII but delimiters.
  return code > 0x20 && code < 0x7f && '"(),/:;<=>?@[\\]{}'.indexOf(String.fromCharCode(code)) === -1;
}
