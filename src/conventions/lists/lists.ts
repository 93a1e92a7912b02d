import type { QueryRecord } from '../../core/contract.js';
import type { InputIssue } from '../../core/errors.js';
import { compileStructure } from '../../core/projection.js';
import type { StandardSchema } from '../../core/standard-schema.js';
import { takesOnlyArrays } from '../../core/query-arrays.js';
import { partValidator, toPointer, type PartResult } from '../../core/validation.js';

/**
 * The conventions of a list: pages (by cursor or by offset), sorting and filtering by allow-list,
 * read from the query and checked before the handler runs; and the page a list answers with, its
 * `next` and `prev` links and their `Link` header (RFC 8288).
 */

/**
 * How a list is paged. `by: 'cursor'` pages by opaque cursors that hold the position after the
 * last item sent (keyset paging: stable while items are added); `by: 'offset'` by `offset`.
 *
 * @example
 * const page: PageOption = { by: 'cursor', limit: { default: 20, max: 100 } };
 */
export interface PageOption {
  by: 'cursor' | 'offset';
  /** The page size a request may ask for with `limit`: default 20, at most 100 unless `max` says more. */
  limit?: { default?: number; max?: number };
  /** The field that tells items apart, last in every cursor (default `id`). */
  key?: string;
}

/**
 * The page a request asks for, as the list handler receives it in `ctx.page`. Fetch `limit` items:
 * one more than the page holds (`size`), so that restcanon knows whether a next page exists.
 *
 * @example
 * const rows = await db.orders.find({ where: after(ctx.page.after), orderBy: ctx.sort, take: ctx.page.limit });
 */
export interface PageRequest {
  /** How many items to fetch: `size + 1`. */
  limit: number;
  /** How many items the page holds. */
  size: number;
  /** Offset paging: how many items to skip. Always 0 when paging by cursor. */
  offset: number;
  /**
   * Cursor paging: the items come after this position, the values of the sort fields and the key of
   * the last item sent (`{ createdAt: '2026-01-02T…', id: 41 }`). Undefined on the first page.
   */
  after: Readonly<Record<string, CursorValue>> | undefined;
  /** Cursor paging, from a `prev` link: the items come before this position; fetch the last `limit` of them, in the list's order. */
  before: Readonly<Record<string, CursorValue>> | undefined;
  /** The field that tells items apart: order by `ctx.sort`, then by it ascending. */
  key: string;
}

/** A value of a cursor's position: what JSON holds (a `Date` becomes its ISO string). */
export type CursorValue = string | number | boolean | null;

/**
 * One field of the order a request asks for with `sort=name,-createdAt`.
 *
 * @example
 * const order: SortField<'name'> = { field: 'name', direction: 'asc' };
 */
export interface SortField<Field extends string = string> {
  field: Field;
  direction: 'asc' | 'desc';
}

/**
 * The body of a paged list: its items, and the links of the pages around it (`null` for none).
 *
 * @example
 * const page: Page<{ id: number }> = { items: [{ id: 1 }], next: '/orders?limit=1&cursor=WzFd', prev: null };
 */
export interface Page<Item = unknown> {
  items: Item[];
  next: string | null;
  prev: string | null;
}

/** A list's conventions, read once from its collection: what it asks of the `lists` convention. */
export interface ListRules {
  page: { by: 'cursor' | 'offset'; limit: number; max: number; key: string } | undefined;
  sort: readonly string[] | undefined;
  filter: Readonly<Record<string, StandardSchema>> | undefined;
  /** The query names of the conventions, which a `query` schema never sees. */
  reserved: ReadonlySet<string>;
  /** Whether other query parameters go to a `query` schema; without one they are refused. */
  openQuery: boolean;
}

/**
 * What a list handler receives besides the context: the page, the order and the filter a request
 * asked for, each checked against what the collection declares.
 *
 * @example
 * const list = (ctx: ListContext<'createdAt', { status: string }>) => db.orders.find(ctx.filter, ctx.sort, ctx.page);
 */
export interface ListContext<Sort extends string = string, Filter = Record<string, unknown>> {
  /** The page asked for, when the collection pages its list. */
  page: PageRequest;
  /** The order asked for with `sort`, first field first; empty for the list's own order. */
  sort: SortField<Sort>[];
  /** The filter values asked for, each its schema's output, with the owner's scope on top. */
  filter: Filter;
}

/** What a request asked of a list, parsed: what the handler receives, and what its links are built from. */
export interface ListRequest {
  by: 'cursor' | 'offset' | undefined;
  page: PageRequest | undefined;
  sort: SortField[];
  filter: Record<string, unknown>;
  /** The order as written (`name,-createdAt`) and a digest of the filter's values: a cursor holds both, so that it is used only with the query that made it. */
  order: string;
  filtered: string;
  /** The other query parameters, for a `query` schema. */
  rest: QueryRecord;
}

const DEFAULT_LIMIT = 20;
const DEFAULT_MAX = 100;
const LIST_OPTIONS = ['by', 'limit', 'key'];
const LIMIT_OPTIONS = ['default', 'max'];

/**
 * Reads a collection's `page`, `sort` and `filter` once, each checked; undefined when it has none.
 *
 * @example
 * listRules('collection("orders")', { by: 'cursor' }, ['createdAt'], undefined, false);
 */
export function listRules(
  where: string,
  page: PageOption | undefined,
  sort: readonly string[] | undefined,
  filter: Readonly<Record<string, StandardSchema>> | undefined,
  openQuery: boolean,
  check: (where: string, options: object, known: readonly string[]) => void,
  isSchema: (value: unknown) => boolean,
): ListRules | undefined {
  if (page === undefined && sort === undefined && filter === undefined) return undefined;
  let rules: ListRules['page'];
  if (page !== undefined) {
    if (typeof page !== 'object' || page === null) throw new TypeError(`${where}: "page" must be { by: 'cursor' } or { by: 'offset' }, with an optional limit: { default, max }`);
    check(`the "page" of ${where}`, page, LIST_OPTIONS);
    if (page.by !== 'cursor' && page.by !== 'offset') throw new TypeError(`${where}: the "by" of "page" must be 'cursor' or 'offset'`);
    if (page.limit !== undefined) check(`the "limit" of the "page" of ${where}`, page.limit, LIMIT_OPTIONS);
    const max = page.limit?.max ?? Math.max(DEFAULT_MAX, page.limit?.default ?? 0);
    const limit = page.limit?.default ?? Math.min(DEFAULT_LIMIT, max);
    for (const [name, value] of [['max', max], ['default', limit]] as const) {
      if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`${where}: the "${name}" of the page's limit must be a whole number of at least 1`);
    }
    if (limit > max) throw new TypeError(`${where}: the page's default limit (${limit}) is above its max (${max})`);
    const key = page.key ?? 'id';
    if (typeof key !== 'string' || key === '') throw new TypeError(`${where}: the "key" of "page" must be the name of the field that tells items apart`);
    rules = { by: page.by, limit, max, key };
  }
  if (sort !== undefined) {
    if (!Array.isArray(sort) || sort.length === 0 || sort.some((field) => typeof field !== 'string' || !/^[A-Za-z_][\w.]*$/.test(field))) {
      throw new TypeError(`${where}: "sort" must list the fields a request may sort by, such as ['name', 'createdAt']`);
    }
  }
  if (filter !== undefined) {
    if (typeof filter !== 'object' || filter === null) throw new TypeError(`${where}: "filter" must map each field a request may filter by to its schema, such as { status: z.enum(['open', 'paid']) }`);
    for (const [name, schema] of Object.entries(filter)) {
      if (!isSchema(schema)) throw new TypeError(`${where}: the "filter" of "${name}" must be a Standard Schema, such as z.enum(['open', 'paid'])`);
      if ((LIST_PARAMETERS as readonly string[]).includes(name)) throw new TypeError(`${where}: "${name}" cannot be a filter: the query's "${name}" is the list's own`);
    }
  }
  // The list's own parameters that this list uses, and its filter fields.
  const used = LIST_PARAMETERS.filter((name) => (name === 'sort' ? sort !== undefined : rules !== undefined && (name === 'limit' || name === rules.by)));
  const reserved = new Set<string>([...used, ...Object.keys(filter ?? {})]);
  return { page: rules, sort, filter, reserved, openQuery };
}

/** The query parameters a list may take for itself: none of them can be a filter field. */
const LIST_PARAMETERS = ['limit', 'cursor', 'offset', 'sort'] as const;

/**
 * Throws a `TypeError` when a list sorts by a field its item schema does not send, or pages by
 * cursor on a key it does not send: the order of the items tells how the hidden values compare, a
 * cursor carries them in plain base64 JSON, and a cursor a client writes itself starts a page after
 * any value it likes, which finds each hidden value by halving. Checked where the item schema has a
 * JSON Schema, which says what an item keeps (a part without one, such as a `Date`, keeps anything).
 *
 * @example
 * checkListFields(rules, z.object({ id: z.number(), name: z.string() }), 'GET /staff'); // throws for sort: ['salary']
 */
export function checkListFields(rules: ListRules, item: StandardSchema, where: string): void {
  const fields = rules.page?.by === 'cursor' ? [...(rules.sort ?? []), rules.page.key] : (rules.sort ?? []);
  const project = fields.length === 0 ? undefined : compileStructure(item);
  for (const field of project === undefined ? [] : fields) {
    if (valueAt(project!(probeOf(field)), field) !== PROBE) {
      throw new TypeError(`${where}: the item schema hides "${field}", so the list cannot sort or page by it: its order and cursors would tell it`);
    }
  }
}

/** A value no item holds: a field the projection keeps keeps it. */
const PROBE = Symbol();

/** An item holding only `field`, nested where its name has dots: `a.b` is `{ a: { b } }`. */
function probeOf(field: string): unknown {
  let value: unknown = PROBE;
  for (const part of field.split('.').reverse()) value = { [part]: value };
  return value;
}

/** A field of an item (a getter too): the property of that name, else the path its dots name (`customer.name`). */
function valueAt(item: unknown, field: string): unknown {
  let value = (item as Record<string, unknown> | null | undefined)?.[field];
  if (value !== undefined || !field.includes('.')) return value;
  value = item;
  for (const part of field.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[part];
  return value;
}

/**
 * Reads a list request from the query: the page, the order and the filter, each checked against
 * what the collection declares. The issues of all of them come back together, for one 400.
 *
 * @example
 * readList(rules, { limit: '5', sort: '-createdAt', status: 'paid' });
 */
export function readList(rules: ListRules, query: QueryRecord): { list: ListRequest; issues: InputIssue[] } | Promise<{ list: ListRequest; issues: InputIssue[] }> {
  const issues: InputIssue[] = [];
  const rest = Object.create(Object.getPrototypeOf(query) as object | null) as QueryRecord;
  for (const name of Object.keys(query)) {
    if (rules.reserved.has(name)) continue;
    if (rules.openQuery) rest[name] = query[name]!;
    else issues.push(issue(name, `is not a parameter of this list, which takes ${[...rules.reserved].join(', ')}`));
  }
  const sort = rules.sort === undefined ? [] : readSort(rules.sort, one(query, 'sort', issues), issues);
  const order = sort.map(({ field, direction }) => (direction === 'desc' ? `-${field}` : field)).join(',');
  const filterNames = Object.keys(rules.filter ?? {}).filter((name) => query[name] !== undefined);
  const filtered = filterNames.length === 0 ? '' : digestOf(JSON.stringify(filterNames.sort().map((name) => [name, query[name]])));
  const list: ListRequest = { by: rules.page?.by, page: undefined, sort, filter: {}, order, filtered, rest };
  if (rules.page !== undefined) list.page = readPage(rules.page, query, list, issues);
  const pending: Promise<void>[] = [];
  for (const name of filterNames) {
    const outcome = validatorOf(rules.filter!, name)({ [name]: query[name] });
    const keep = (result: PartResult): void => {
      if (result.ok) list.filter[name] = (result.value as Record<string, unknown>)[name];
      else issues.push(...result.issues);
    };
    if (outcome instanceof Promise) pending.push(outcome.then(keep));
    else keep(outcome);
  }
  if (pending.length === 0) return { list, issues };
  return Promise.all(pending).then(() => ({ list, issues }));
}

/**
 * A digest of a filter's values, which a cursor holds in their place: a cursor stays short however
 * long the values, and is still used only with the filter that made it. Two FNV-1a hashes of 32 bits
 * over the text's UTF-16 units; a cursor is no secret, so a collision only lets through a cursor a
 * client could have written anyway.
 */
function digestOf(text: string): string {
  let first = 0x811c9dc5;
  let second = 0x050c5d1f;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    first = Math.imul(first ^ unit, 0x01000193);
    second = Math.imul(second ^ unit, 0x01000193);
  }
  return `${(first >>> 0).toString(16).padStart(8, '0')}${(second >>> 0).toString(16).padStart(8, '0')}`;
}

/** A filter's validator, made once per schema. */
const validators = new WeakMap<object, ReturnType<typeof partValidator>>();
function validatorOf(filter: Readonly<Record<string, StandardSchema>>, name: string): ReturnType<typeof partValidator> {
  const schema = filter[name]!;
  let validator = validators.get(schema);
  if (validator === undefined) {
    const validate = partValidator({ [name]: schema }, 'query');
    // The query's rule for arrays (src/core/query-arrays.ts): `?tag=a` reaches a filter that takes only arrays as ['a'].
    validator = takesOnlyArrays(schema) ? (input) => validate(typeof (input as Record<string, unknown>)[name] === 'string' ? { [name]: [(input as Record<string, unknown>)[name]] } : input) : validate;
    validators.set(schema, validator);
  }
  return validator;
}

function issue(name: string, detail: string): InputIssue {
  return { in: 'query', pointer: toPointer([name]), detail };
}

/** One value of a parameter; a repeated one is an issue. */
function one(query: QueryRecord, name: string, issues: InputIssue[]): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) {
    issues.push(issue(name, 'is given more than once'));
    return undefined;
  }
  return value;
}

function readSort(allowed: readonly string[], value: string | undefined, issues: InputIssue[]): SortField[] {
  if (value === undefined || value === '') return [];
  const fields: SortField[] = [];
  const seen = new Set<string>();
  for (const part of value.split(',')) {
    const desc = part.startsWith('-');
    // `+name` as a query writes it unencoded arrives as ` name`: ascending either way.
    const field = desc || part.startsWith('+') || part.startsWith(' ') ? part.slice(1) : part;
    if (!allowed.includes(field)) {
      issues.push(issue('sort', `cannot sort by ${JSON.stringify(field)}; sortable: ${allowed.join(', ')}`));
      return [];
    }
    if (seen.has(field)) {
      issues.push(issue('sort', `names "${field}" twice`));
      return [];
    }
    seen.add(field);
    fields.push({ field, direction: desc ? 'desc' : 'asc' });
  }
  return fields;
}

function readPage(rules: NonNullable<ListRules['page']>, query: QueryRecord, list: ListRequest, issues: InputIssue[]): PageRequest {
  const page: PageRequest = { limit: rules.limit + 1, size: rules.limit, offset: 0, after: undefined, before: undefined, key: rules.key };
  const limit = one(query, 'limit', issues);
  if (limit !== undefined) {
    const size = /^[0-9]{1,9}$/.test(limit) ? Number(limit) : Number.NaN;
    if (!(size >= 1 && size <= rules.max)) issues.push(issue('limit', `must be a whole number from 1 to ${rules.max}`));
    else {
      page.size = size;
      page.limit = size + 1;
    }
  }
  if (rules.by === 'offset') {
    const offset = one(query, 'offset', issues);
    if (offset !== undefined) {
      if (!/^[0-9]{1,15}$/.test(offset)) issues.push(issue('offset', 'must be a whole number of 0 or more'));
      else page.offset = Number(offset);
    }
    return page;
  }
  const cursor = one(query, 'cursor', issues);
  if (cursor !== undefined) {
    const names = [...list.sort.map(({ field }) => field), rules.key];
    const position = decodeCursor(cursor, list.order, list.filtered, names.length);
    if (position === undefined) issues.push(issue('cursor', 'is not a cursor of this list with this sort and filter; start again from the first page'));
    else page[position.direction] = Object.fromEntries(names.map((name, index) => [name, position.values[index]!]));
  }
  return page;
}

/** A cursor's content: the order and filter it was made for, its direction, and the position's values. */
type CursorContent = [order: string, filtered: string, direction: 'a' | 'b', values: CursorValue[]];

const MAX_CURSOR = 4096;

/**
 * The position a cursor holds, when it is one this list made for the same order and filter; undefined
 * for anything else (forged, cut, or from another query).
 */
function decodeCursor(cursor: string, order: string, filtered: string, length: number): { direction: 'after' | 'before'; values: CursorValue[] } | undefined {
  if (cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let content: unknown;
  try {
    const binary = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    content = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (!Array.isArray(content) || content.length !== 4) return undefined;
  const [madeFor, filter, direction, values] = content as unknown[];
  if (madeFor !== order || filter !== filtered || (direction !== 'a' && direction !== 'b')) return undefined;
  if (!Array.isArray(values) || values.length !== length || !values.every(isCursorValue)) return undefined;
  // The key tells items apart: a cursor this list made always holds one, a string or a number.
  const key: unknown = values[length - 1];
  if (typeof key !== 'string' && typeof key !== 'number') return undefined;
  return { direction: direction === 'a' ? 'after' : 'before', values };
}

function isCursorValue(value: unknown): value is CursorValue {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * A cursor for the position of an item: its sort fields' values and its key. A value that is no
 * string, finite number, boolean, `null` or `Date` cannot be held, and a missing key throws.
 */
function encodeCursor(list: ListRequest, item: unknown, direction: 'a' | 'b'): string {
  const page = list.page!;
  const key = valueAt(item, page.key);
  if (key === undefined || key === null) throw new TypeError(`A list item has no "${page.key}", which cursors need to tell items apart; set the page's "key"`);
  // A dotted field (`customer.name`) is read along its path, as the handler sorts by it.
  const values = [...list.sort.map(({ field }) => valueAt(item, field)), key].map(cursorValueOf);
  const content: CursorContent = [list.order, list.filtered, direction, values];
  const bytes = new TextEncoder().encode(JSON.stringify(content));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/={1,2}$/, '');
}

function cursorValueOf(value: unknown): CursorValue {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return String(value);
  if (isCursorValue(value)) return value;
  throw new TypeError(`A list item's sort field or key is ${typeof value === 'number' ? String(value) : `a ${typeof value}`}, which a cursor cannot hold`);
}

/**
 * The page a list answers with, from what its handler returned (up to `limit` items: one more than
 * the page holds tells that there are more), and the links of the pages around it.
 *
 * @example
 * const { page, links } = pageOf(list, items, '/orders', 'limit=2&status=paid');
 */
export function pageOf(list: ListRequest, items: readonly unknown[], path: string, search: string): Page {
  const page = list.page!;
  const more = items.length > page.size;
  const link = (name: 'cursor' | 'offset', value: string): string => uriSafe(`${path}?${withPage(search, page.size, name, value)}`);
  const cursor = (item: unknown, direction: 'a' | 'b'): string => link('cursor', encodeCursor(list, item, direction));
  if (list.by === 'offset') {
    const sent = more ? items.slice(0, page.size) : [...items];
    return {
      items: sent,
      next: more ? link('offset', String(page.offset + page.size)) : null,
      prev: page.offset > 0 ? link('offset', String(Math.max(0, page.offset - page.size))) : null,
    };
  }
  if (page.before !== undefined) {
    // Going back, the extra item is the first: there are more before it.
    const sent = more ? items.slice(items.length - page.size) : [...items];
    return { items: sent, next: sent.length > 0 ? cursor(sent[sent.length - 1], 'a') : null, prev: more ? cursor(sent[0], 'b') : null };
  }
  const sent = more ? items.slice(0, page.size) : [...items];
  return { items: sent, next: more ? cursor(sent[sent.length - 1], 'a') : null, prev: page.after !== undefined && sent.length > 0 ? cursor(sent[0], 'b') : null };
}

/**
 * A link as a URI reference (RFC 3986): any character a URI cannot hold, such as `<`, `>`, `"`, a
 * space or text beyond ASCII, percent-encoded, so that a query cannot close the `<...>` of a `Link`
 * and add links of its own. Escapes already in it stay as they are.
 */
function uriSafe(link: string): string {
  return link.replace(/[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+/g, (run) => {
    // UTF-8 through TextEncoder, which writes a lone surrogate as U+FFFD where encodeURIComponent throws.
    let escaped = '';
    for (const byte of new TextEncoder().encode(run)) escaped += `%${byte < 16 ? '0' : ''}${byte.toString(16).toUpperCase()}`;
    return escaped;
  });
}

/** The query string of a link: the request's, with its page parameters replaced. */
function withPage(search: string, size: number, name: 'cursor' | 'offset', value: string): string {
  const kept = search === '' ? [] : search.split('&').filter((pair) => {
    const key = decodeName(pair.split('=', 1)[0]!);
    return key !== 'limit' && key !== 'cursor' && key !== 'offset' && pair !== '';
  });
  kept.push(`limit=${size}`, `${name}=${value}`);
  return kept.join('&');
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * The `Link` header of a page (RFC 8288), after any the handler set.
 *
 * @example
 * linkHeader({ items: [], next: '/orders?limit=1&cursor=x', prev: null }, undefined); // '</orders?limit=1&cursor=x>; rel="next"'
 */
export function linkHeader(page: Page, existing: string | undefined): string | undefined {
  const links: string[] = existing === undefined ? [] : [existing];
  if (page.next !== null) links.push(`<${page.next}>; rel="next"`);
  if (page.prev !== null) links.push(`<${page.prev}>; rel="prev"`);
  return links.length === 0 ? undefined : links.join(', ');
}
