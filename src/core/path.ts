/**
 * Path templates such as `/users/:userId/orders/:id`: parsing, the param types, and building URLs.
 */

import { remember } from './memo.js';

type ParamNames<Path extends string> = Path extends `${string}:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? Name | ParamNames<Tail>
    : Rest
  : never;

/**
 * The params of a path template, each a string (before any schema parses it).
 *
 * @example
 * type P = PathParams<'/users/:userId/orders/:id'>; // { userId: string; id: string }
 */
export type PathParams<Path extends string> = { [Name in ParamNames<Path>]: string };

/** One segment of a parsed template. */
export type TemplateSegment = { kind: 'static'; value: string } | { kind: 'param'; name: string };

const PARAM_NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * Splits a template into segments and checks it: it starts with `/`, has no empty segment, each
 * static segment is written as it is sent (no percent-escape, no character beyond RFC 3986's
 * `pchar`, no `.` or `..`), and each param has a valid, unique name. A mistake throws with a
 * sentence that says what to change.
 *
 * @example
 * parseTemplate('/users/:id'); // [{ kind: 'static', value: 'users' }, { kind: 'param', name: 'id' }]
 */
export function parseTemplate(template: string): TemplateSegment[] {
  if (typeof template !== 'string' || !template.startsWith('/')) {
    throw new TypeError(`Path template ${JSON.stringify(template)} must be a string that starts with "/"`);
  }
  if (template === '/') return [];
  const seen = new Set<string>();
  const body = template.endsWith('/') ? template.slice(1, -1) : template.slice(1);
  return body.split('/').map((part): TemplateSegment => {
    if (part === '') throw new TypeError(`Path template ${template} has an empty segment ("//"); remove it`);
    if (/[?#\s]/.test(part)) throw new TypeError(`Path template ${template} holds "?", "#" or white space in "${part}"; a template names only the path`);
    if (!part.startsWith(':')) return { kind: 'static', value: staticSegment(template, part) };
    const name = part.slice(1);
    if (!PARAM_NAME.test(name) || name === '__proto__') throw new TypeError(`Path template ${template} has an invalid param "${part}"; a param is ":" and a name such as ":id"`);
    if (seen.has(name)) throw new TypeError(`Path template ${template} uses the param ":${name}" twice; give each param its own name`);
    seen.add(name);
    return { kind: 'param', name };
  });
}

/**
 * The characters a static segment may hold: RFC 3986's `pchar` without percent-escapes and without
 * `'`, which Node's `url.parse` (and so Express, for some targets) sends on percent-encoded.
 */
const STATIC_SEGMENT = /^[\w\-.~!$&()*+,;=:@]+$/;

/**
 * A static segment, checked: the router matches it byte for byte against the path as sent, so it
 * must be written as it goes on the wire, in no spelling a client or a host may change.
 */
function staticSegment(template: string, part: string): string {
  if (part !== '.' && part !== '..' && STATIC_SEGMENT.test(part)) return part;
  throw new TypeError(
    `Path template ${template} has the static segment "${part}", which is matched exactly as sent: write it with letters, digits and - . _ ~ ! $ & ( ) * + , ; = : @ only (no percent-escape, not "." or ".."), or make it a param`,
  );
}

/**
 * Joins a base path and a path into one normalized template (`/api` + `/users` → `/api/users`).
 *
 * @example
 * joinPaths('/api/v1/', '/users'); // '/api/v1/users'
 */
export function joinPaths(base: string, path: string): string {
  const joined = `/${base}/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
}

/**
 * Fills a template with values, each percent-encoded, so that a value holding `/`, `?`, CR or LF
 * can neither change the path nor inject a header.
 *
 * @example
 * buildPath('/users/:id', { id: 'a/b' }); // '/users/a%2Fb'
 */
export function buildPath(template: string, params: Readonly<Record<string, unknown>>): string {
  // Split once per template (static text at even indexes, param names at odd ones): a 201's Location
  // is built on every create, and a `replace` with a callback per call is costly on that path.
  const parts = remember(TEMPLATE_PARTS, template, splitTemplate, undefined);
  let path = parts[0]!;
  for (let index = 1; index < parts.length; index += 2) {
    const name = parts[index]!;
    const value = params[name];
    if (value === undefined || value === null) throw new TypeError(`buildPath: no value for ":${name}" in ${template}`);
    path += encodeURIComponent(wellFormed(String(value))) + parts[index + 1]!;
  }
  return path;
}

/**
 * A URL made safe to send as a header value: every character outside printable ASCII (controls, CR,
 * LF, NUL, spaces, non-ASCII text) and every character a URI may not hold (`"<>\^`{|}`) is
 * percent-encoded as UTF-8, so no value can split a header or make a server refuse the response.
 * Percent-escapes already there are kept; a lone surrogate becomes U+FFFD first.
 *
 * @example
 * headerSafeUrl('/files/naïve report\r\nSet-Cookie: a'); // '/files/na%C3%AFve%20report%0D%0ASet-Cookie:%20a'
 */
export function headerSafeUrl(url: string): string {
  for (let index = 0; index < url.length; index++) {
    if (isUnsafeInUrl(url.charCodeAt(index))) return encodeUnsafe(url);
  }
  return url;
}

function isUnsafeInUrl(code: number): boolean {
  return code <= 0x20 || code >= 0x7f || code === 0x22 || code === 0x3c || code === 0x3e || code === 0x5c || code === 0x5e || code === 0x60 || (code >= 0x7b && code <= 0x7d);
}

function encodeUnsafe(url: string): string {
  let safe = '';
  for (const character of wellFormed(url)) safe += isUnsafeInUrl(character.charCodeAt(0)) ? encodeURIComponent(character) : character;
  return safe;
}

/** The text with every lone surrogate replaced by U+FFFD, which `encodeURIComponent` cannot encode. */
export function wellFormed(text: string): string {
  return (text as unknown as { toWellFormed(): string }).toWellFormed();
}

/** Templates split by {@link buildPath}, bounded: buildPath is public and may see any template. */
const TEMPLATE_PARTS = new Map<string, string[]>();

function splitTemplate(template: string): string[] {
  return template.split(/:([A-Za-z_$][\w$]*)/);
}
