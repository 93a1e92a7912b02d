import { checkOptions } from '../../core/options.js';

/**
 * What an endpoint or a collection operation declares of its deprecation, checked once when the API
 * is built, and the header fields it gives: `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and their
 * `Link` relations.
 */

/**
 * The `conventions: { deprecation }` of an endpoint: since when it is deprecated, when it stops
 * answering, and where each is documented. Dates are `Date`s or ISO 8601 strings.
 *
 * @example
 * const declared: DeprecationDeclaration = { at: '2026-01-01T00:00:00Z', sunset: '2027-06-30T00:00:00Z', link: 'https://example.com/changes/v1' };
 */
export interface DeprecationDeclaration {
  at: Date | string;
  sunset?: Date | string;
  /** A page that documents the deprecation: `Link` with `rel="deprecation"`. */
  link?: string;
  /** A page about the sunset (a migration guide): `Link` with `rel="sunset"`. */
  sunsetLink?: string;
}

/** A declaration as checked: its dates in milliseconds, its header fields written once. */
export interface Deprecation {
  readonly at: number;
  readonly sunset: number | undefined;
  /** `deprecation`, `sunset` and the `link` to add, lower-case names. */
  readonly fields: Readonly<Record<string, string>>;
  readonly link: string | undefined;
}

const KEYS = ['at', 'sunset', 'link', 'sunsetLink'];

/**
 * The deprecation of an endpoint, checked: a valid `at`, a valid `sunset` no earlier than `at`, and
 * links that are absolute http(s) URLs. A mistake throws a sentence naming the endpoint.
 *
 * @example
 * checkDeprecation({ at: '2026-01-01T00:00:00Z', sunset: '2027-06-30T00:00:00Z' }, 'GET /v1/users').fields;
 * // { deprecation: '@1767225600', sunset: 'Wed, 30 Jun 2027 00:00:00 GMT' }
 */
export function checkDeprecation(declared: unknown, where: string): Deprecation {
  const what = `${where}: "conventions.deprecation"`;
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    throw new TypeError(`${what} must be { at, sunset?, link?, sunsetLink? }, such as { at: '2026-01-01T00:00:00Z', sunset: '2027-06-30T00:00:00Z' }`);
  }
  checkOptions(what, declared, KEYS);
  const given = declared as Partial<DeprecationDeclaration>;
  if (given.at === undefined) throw new TypeError(`${what} needs "at": the date from which it is deprecated, a Date or an ISO 8601 string`);
  const at = dateOf(given.at, `${what}: "at"`);
  const sunset = given.sunset === undefined ? undefined : dateOf(given.sunset, `${what}: "sunset"`);
  if (sunset !== undefined && sunset < at) {
    throw new TypeError(`${what}: its "sunset" (${new Date(sunset).toISOString()}) comes before its deprecation "at" (${new Date(at).toISOString()}); an endpoint is deprecated first and retired later`);
  }
  const links = [linkOf(given.link, 'deprecation', `${what}: "link"`), linkOf(given.sunsetLink, 'sunset', `${what}: "sunsetLink"`)].filter((link) => link !== undefined);
  if (given.sunsetLink !== undefined && sunset === undefined) throw new TypeError(`${what}: "sunsetLink" documents a sunset, and it has none; add "sunset" or leave the link out`);
  const fields: Record<string, string> = { deprecation: `@${Math.floor(at / 1000)}` };
  if (sunset !== undefined) fields.sunset = new Date(sunset).toUTCString();
  return { at, sunset, fields, link: links.length === 0 ? undefined : links.join(', ') };
}

/** A date of milliseconds since the epoch, from a valid `Date` or an ISO 8601 string with a time zone or none. */
function dateOf(value: unknown, what: string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' && ISO_DATE.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new TypeError(`${what} is not a valid date (${describe(value)}); give a Date or an ISO 8601 string such as '2027-06-30' or '2027-06-30T00:00:00Z'`);
  return ms;
}

/** An ISO 8601 date, with a time and an offset or none: what `Date.parse` reads the same everywhere. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** A `Link` value of one relation: an absolute http(s) URL with nothing that would end it (`>`, spaces, quotes). */
function linkOf(url: unknown, rel: string, what: string): string | undefined {
  if (url === undefined) return undefined;
  if (typeof url !== 'string' || !/^https?:\/\/[^\s<>"\\\u0000-\u001f\u007f-\uffff]+$/.test(url) || !URL.canParse(url)) {
    throw new TypeError(`${what} must be an absolute http(s) URL of a page that documents it, such as 'https://example.com/changes/v1', got ${describe(url)}`);
  }
  return `<${url}>; rel="${rel}"`;
}

function describe(value: unknown): string {
  return value instanceof Date ? 'an invalid Date' : typeof value === 'string' ? JSON.stringify(value) : String(value);
}
