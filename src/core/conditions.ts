import type { HeaderRecord } from './contract.js';
import { PreconditionFailedError, PreconditionRequiredError, withoutStack } from './errors.js';
import { single } from './request.js';

/**
 * Conditional requests (RFC 9110 section 13): an item's validators (`ETag`, `Last-Modified`) as
 * they go on the wire, and the preconditions of a request evaluated against them, in the order of
 * section 13.2.2.
 */

/**
 * How an item's validators are found: a function for its entity tag, one for its last change, or
 * both. The tag is any text of the characters an entity tag may hold (restcanon adds the quotes), or
 * a whole entity tag (`"v7"`, `W/"v7"`).
 *
 * @example
 * const validators: Validators<Article> = { etag: (article) => String(article.version), lastModified: (article) => article.updatedAt };
 */
export interface Validators<Item = any> {
  etag?: ((item: Item) => string) | undefined;
  lastModified?: ((item: Item) => Date) | undefined;
}

/** An item's validators as they go on the wire. */
export interface WireValidators {
  etag: string | undefined;
  lastModified: string | undefined;
  /** The last change in whole seconds since the epoch, as HTTP dates compare. */
  seconds: number | undefined;
}

/** What a request's preconditions decide: go on, or answer 304 (a GET or HEAD whose copy is current). */
export type Verdict = 'proceed' | 'notModified';

const QUOTED = /^(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"$/;
const OPAQUE = /^[\x21\x23-\x7E\x80-\xFF]*$/;

/**
 * The validators of an item, computed by the functions given: a tag that is no string, holds a
 * character an entity tag cannot, or a date that is no valid `Date`, throws.
 *
 * @example
 * validatorsOf({ etag: (item) => item.version }, { version: '7' }); // { etag: '"7"', ... }
 */
export function validatorsOf(validators: Validators, item: unknown): WireValidators {
  let etag: string | undefined;
  let lastModified: string | undefined;
  let seconds: number | undefined;
  if (validators.etag !== undefined) {
    const tag: unknown = validators.etag(item);
    if (typeof tag !== 'string') throw new TypeError(`etag returned ${typeof tag}; return the item's version as a string`);
    if (QUOTED.test(tag)) etag = tag;
    else if (OPAQUE.test(tag)) etag = `"${tag}"`;
    else throw new TypeError(`etag returned ${JSON.stringify(tag)}, which an entity tag cannot hold (quotes, spaces or control characters)`);
  }
  if (validators.lastModified !== undefined) {
    const date: unknown = validators.lastModified(item);
    if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new TypeError(`lastModified returned ${date instanceof Date ? 'an invalid Date' : typeof date}; return a valid Date`);
    seconds = Math.floor(date.getTime() / 1000);
    lastModified = date.toUTCString();
  }
  return { etag, lastModified, seconds };
}

const PRECONDITION_FAILED = withoutStack(() => new PreconditionFailedError('The item has changed since the request\'s copy of it'));
const PRECONDITION_REQUIRED = withoutStack(
  () => new PreconditionRequiredError('A change of this item needs If-Match with the ETag of the copy it changes'),
);

/**
 * Throws a 428 when a change of an item carries no precondition (`If-Match`, or `If-Unmodified-Since`):
 * the server then cannot tell a lost update from a deliberate one.
 *
 * @example
 * requireCondition({ 'if-match': '"7"' }); // passes
 */
export function requireCondition(headers: HeaderRecord): void {
  if (headers['if-match'] === undefined && headers['if-unmodified-since'] === undefined) throw PRECONDITION_REQUIRED;
}

/**
 * Evaluates a request's preconditions against the current item (RFC 9110 section 13.2.2): If-Match,
 * else If-Unmodified-Since; then If-None-Match, else (GET and HEAD) If-Modified-Since. A failed one
 * throws a 412, or for GET and HEAD answers `'notModified'` where the RFC says 304. A date that is
 * no HTTP date is ignored, as the RFC says; a tag list that cannot be read matches nothing.
 *
 * @example
 * evaluate('PUT', { 'if-match': '"6"' }, { etag: '"7"', lastModified: undefined, seconds: undefined }); // throws a 412
 */
export function evaluate(method: string, headers: HeaderRecord, current: WireValidators): Verdict {
  const ifMatch = single(headers['if-match']);
  if (ifMatch !== undefined) {
    if (!matches(ifMatch, current.etag, true)) throw PRECONDITION_FAILED;
  } else {
    const since = dateSeconds(headers['if-unmodified-since']);
    if (since !== undefined && current.seconds !== undefined && current.seconds > since) throw PRECONDITION_FAILED;
  }
  const safe = method === 'GET' || method === 'HEAD';
  const ifNoneMatch = single(headers['if-none-match']);
  if (ifNoneMatch !== undefined) {
    if (matches(ifNoneMatch, current.etag, false)) {
      if (safe) return 'notModified';
      throw PRECONDITION_FAILED;
    }
  } else if (safe) {
    const since = dateSeconds(headers['if-modified-since']);
    if (since !== undefined && current.seconds !== undefined && current.seconds <= since) return 'notModified';
  }
  return 'proceed';
}

/**
 * Whether an `If-Match` / `If-None-Match` value names the current tag: `*` names any current item;
 * strong comparison (both strong and equal) for If-Match, weak (equal once `W/` is set aside) for
 * If-None-Match. An item without a tag matches only `*`.
 */
function matches(list: string, current: string | undefined, strong: boolean): boolean {
  const value = list.trim();
  if (value === '*') return true;
  if (current === undefined) return false;
  if (strong && current.startsWith('W/')) return false;
  const opaque = current.startsWith('W/') ? current.slice(2) : current;
  for (const tag of tagsOf(value)) {
    if (tag.startsWith('W/')) {
      if (!strong && tag.slice(2) === opaque) return true;
    } else if (tag === opaque) return true;
  }
  return false;
}

/** The entity tags of a list, in order; the reading stops at the first thing that is none. */
function tagsOf(list: string): string[] {
  const tags: string[] = [];
  const pattern = /\s*((?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*")\s*(?:,|$)/y;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < list.length && (match = pattern.exec(list)) !== null) tags.push(match[1]!);
  return tags;
}

/** An HTTP date in whole seconds, or undefined for anything else (which the RFC says to ignore). */
function dateSeconds(value: string | string[] | undefined): number | undefined {
  const text = single(value);
  if (text === undefined || !/^[A-Za-z]{3,9},? /.test(text.trim())) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : Math.floor(time / 1000);
}
