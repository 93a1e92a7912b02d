/**
 * The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): a Structured
 * Field String (RFC 8941 section 3.3.3), read strictly, with the bare form most clients send.
 */

/** What is wrong with a header that is no key, in a sentence the client reads. */
export type KeyMistake = string;

/**
 * The key an `Idempotency-Key` header carries, or the mistake that makes it none. The draft's form is
 * a quoted string (`"8e03978e-40d5"`), whose `\"` and `\\` stand for `"` and `\`; a bare key of token
 * characters (`8e03978e-40d5`) is read as the same key, since most clients send Stripe's bare form and
 * its meaning is as plain. Anything else is refused rather than read loosely: text beyond ASCII, a
 * control character, whitespace or a comma in a bare key, parameters or text after the closing quote,
 * an empty key, a key longer than `maxLength` characters, and a header sent twice (an array, or two
 * values joined by a comma as Node and Fetch join them). Keys that differ only in case are different
 * keys. The work is bounded by `maxLength` however long the header.
 *
 * @example
 * keyOf('"8e03978e-40d5"', 255); // { key: '8e03978e-40d5' }
 * keyOf('a b', 255); // { mistake: 'a bare key holds only letters, digits and !#$%&\'*+-.^_`|~:/ ...' }
 */
export function keyOf(header: string | readonly string[], maxLength: number): { key: string } | { mistake: KeyMistake } {
  if (typeof header !== 'string') return { mistake: 'the request carries more than one Idempotency-Key header; send one' };
  const value = withoutOws(header);
  if (value === '') return { mistake: 'the key is empty' };
  // A quoted key of maxLength characters takes at most twice as many, each escaped, and its two quotes.
  if (value.length > maxLength * 2 + 2) return { mistake: tooLong(maxLength) };
  return value.startsWith('"') ? quoted(value, maxLength) : bare(value, maxLength);
}

/**
 * The value without the spaces and tabs around it (HTTP's OWS), and no other whitespace: a loop, so
 * that a long run of spaces inside a key costs one pass (a regular expression anchored at the end
 * would try it again from each space).
 */
function withoutOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text.charCodeAt(start) === 32 || text.charCodeAt(start) === 9)) start++;
  while (end > start && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--;
  return text.slice(start, end);
}

/** RFC 8941's tchar, with `:` and `/` as its sf-token has them, and with a digit first as keys often begin. */
const BARE = /^[A-Za-z0-9!#$%&'*+\-.^_`|~:/]+$/;

function bare(value: string, maxLength: number): { key: string } | { mistake: KeyMistake } {
  if (value.includes(',')) return { mistake: 'the request carries more than one Idempotency-Key; send one' };
  if (!BARE.test(value)) return { mistake: 'a bare key holds only letters, digits and !#$%&\'*+-.^_`|~:/; quote any other key as a string, such as "order 7"' };
  if (value.length > maxLength) return { mistake: tooLong(maxLength) };
  return { key: value };
}

/** An sf-string: printable ASCII between quotes, where a backslash escapes only `"` and `\`. */
function quoted(value: string, maxLength: number): { key: string } | { mistake: KeyMistake } {
  let key = '';
  for (let index = 1; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code === 0x5c) {
      const next = value.charCodeAt(++index);
      if (next !== 0x22 && next !== 0x5c) return { mistake: 'a backslash in a quoted key escapes only " and \\' };
      key += value[index];
    } else if (code === 0x22) {
      const rest = withoutOws(value.slice(index + 1));
      if (rest.startsWith(',')) return { mistake: 'the request carries more than one Idempotency-Key; send one' };
      if (rest !== '') return { mistake: 'nothing may follow the quoted key (no parameters)' };
      if (key === '') return { mistake: 'the key is empty' };
      if (key.length > maxLength) return { mistake: tooLong(maxLength) };
      return { key };
    } else if (code < 0x20 || code > 0x7e) {
      return { mistake: 'a key holds printable ASCII only: no control characters, no text beyond ASCII' };
    } else key += value[index];
  }
  return { mistake: 'the quoted key has no closing quote' };
}

function tooLong(maxLength: number): KeyMistake {
  return `the key is longer than ${maxLength} characters`;
}
