import type { HeaderRecord } from '../../core/contract.js';
import { PreconditionFailedError, PreconditionRequiredError, withoutStack } from '../../core/errors.js';
import { single } from '../../core/request.js';

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

const DATE_TIME = Date.prototype.getTime;
const DATE_UTC = Date.prototype.toUTCString;

// Visible ASCII only: RFC 9110 also admits obs-text, which clients and servers encode differently, so such a tag never matches.
const QUOTED = /^(?:W\/)?"[\x21\x23-\x7E]*"$/;
const OPAQUE = /^[\x21\x23-\x7E]*$/;

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
    if (!(date instanceof Date)) throw new TypeError(`lastModified returned ${typeof date}; return a valid Date`);
    // Date's own methods: a date whose getTime or toUTCString was replaced cannot put its own text in the header.
    const time = DATE_TIME.call(date);
    if (Number.isNaN(time)) throw new TypeError('lastModified returned an invalid Date; return a valid Date');
    seconds = Math.floor(time / 1000);
    lastModified = DATE_UTC.call(date);
  }
  return { etag, lastModified, seconds };
}

const PRECONDITION_FAILED = /* @__PURE__ */ withoutStack(() => new PreconditionFailedError('The item has changed since the request\'s copy of it'));
const PRECONDITION_REQUIRED = /* @__PURE__ */ withoutStack(
  () => new PreconditionRequiredError('A change of this item needs If-Match with the ETag of the copy it changes'),
);

/**
 * Throws a 428 when a change of an item carries no precondition the server can evaluate: `If-Match`,
 * or an `If-Unmodified-Since` that is an HTTP date when the item has a last change (`byDate`). The
 * server then cannot tell a lost update from a deliberate one.
 *
 * @example
 * requireCondition({ 'if-match': '"7"' }, false); // passes
 */
export function requireCondition(headers: HeaderRecord, byDate: boolean): void {
  if (headers['if-match'] !== undefined) return;
  if (byDate && dateSeconds(headers['if-unmodified-since']) !== undefined) return;
  throw PRECONDITION_REQUIRED;
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

/**
 * The entity tags of a list, in order, its empty elements skipped (RFC 9110 section 5.6.1.2); none
 * for a list with anything else in it, which then matches nothing.
 */
function tagsOf(list: string): string[] {
  const tags: string[] = [];
  const pattern = /[ \t]*(?:((?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*")[ \t]*)?(?:,|$)/y;
  while (pattern.lastIndex < list.length) {
    const match = pattern.exec(list);
    if (match === null) return [];
    if (match[1] !== undefined) tags.push(match[1]);
  }
  return tags;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** IMF-fixdate, the obsolete RFC 850 date and asctime's (RFC 9110 section 5.6.7), all in GMT. */
const HTTP_DATES = [
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/,
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/,
];
const ASCTIME = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/**
 * The headers of a 200 that its 304 carries too (RFC 9110 section 15.4.5), besides the validators.
 *
 * @example
 * for (const name of CACHE_HEADERS) if (ok.headers[name] !== undefined) notModified.headers[name] = ok.headers[name];
 */
export const CACHE_HEADERS: readonly string[] = ['cache-control', 'content-location', 'expires', 'vary'];

/**
 * An HTTP date in whole seconds, or undefined for anything else, which the RFC says to ignore. Every
 * form is read as GMT, whatever the server's time zone.
 *
 * @example
 * dateSeconds('Fri, 02 Jan 2026 03:04:05 GMT'); // 1767323045
 */
export function dateSeconds(value: string | string[] | undefined): number | undefined {
  const text = single(value)?.trim();
  if (text === undefined) return undefined;
  let parts: (string | undefined)[] | undefined;
  for (const pattern of HTTP_DATES) {
    const match = pattern.exec(text);
    if (match !== null) parts = [match[3], match[2], match[1], match[4], match[5], match[6]];
  }
  const asctime = parts === undefined ? ASCTIME.exec(text) : null;
  if (asctime !== null) parts = [asctime[6], asctime[1], asctime[2], asctime[3], asctime[4], asctime[5]];
  if (parts === undefined) return undefined;
  const [yearText, monthName, day, hours, minutes, seconds] = parts.map((part) => part!.trim());
  const month = MONTHS.indexOf(monthName!);
  if (month === -1) return undefined;
  let year = Number(yearText);
  // A two-digit year more than 50 years ahead is in the past century (RFC 9110 section 5.6.7).
  if (yearText!.length === 2) {
    const now = new Date().getUTCFullYear();
    year += Math.floor(now / 100) * 100;
    if (year > now + 50) year -= 100;
  }
  const [date, hour, minute, second] = [day, hours, minutes, seconds].map(Number) as [number, number, number, number];
  // Date.UTC would roll a day or time out of range over (31 Feb, 24:00) and read a year below 100 as 19xx: such a date is invalid.
  if (year < 100 || date < 1 || date > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  return Date.UTC(year, month, date, hour, minute, second) / 1000;
}

/** The days of a month (0 for January) of a year from 100 on. */
function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}
