/**
 * A walk through the pages of the fixture's notes while other notes are added between the requests:
 * the generator of such walks, the walk itself over any client, and what it must find. The core's
 * list tests walk in memory; the conformance suite walks over HTTP on every adapter.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { CALLERS, NOTE_STATUSES, type Note, type NoteStatus } from '../fixture/api.js';

/** The seed of every walk property: a failure reproduces on every machine. */
export const PAGING_SEED = 20_260_601;

interface NoteFields {
  ownerId: number;
  title: string;
  status: NoteStatus;
}

/** One walk: who walks, in which order, with which filter, and the page sizes and the notes added before each page. */
export interface Walk {
  caller: 'alice' | 'bob';
  /** The `sort` parameter, empty for the list's own order (by id). */
  sort: string;
  status: NoteStatus | undefined;
  /** Notes added before the walk starts, besides the fixture's. */
  initial: NoteFields[];
  /**
   * Each page request in turn: its size, and the notes added just before it. A longer walk takes the
   * sizes again from the first, and adds no more notes, so that it ends.
   */
  pages: { size: number; inserts: NoteFields[] }[];
}

/** Few titles, so that many notes share one and only the id tells them apart. */
const noteFields: fc.Arbitrary<NoteFields> = fc.record({
  ownerId: fc.constantFrom(1, 2),
  title: fc.constantFrom('apples', 'books', 'groceries', 'm', 'zebras'),
  status: fc.constantFrom(...NOTE_STATUSES),
});

/**
 * Walks of 2 to 10 page requests, mostly of 1 or 2 notes, at most 5 (the collection's max), over 2
 * to 12 notes besides the fixture's, with up to 3 notes of either user added before each request.
 */
export const walks: fc.Arbitrary<Walk> = fc.record({
  caller: fc.constantFrom('alice' as const, 'bob' as const),
  sort: fc.constantFrom('', 'title', '-title', 'status', '-status,title', 'title,-status', '+title'),
  status: fc.constantFrom(undefined, undefined, 'draft' as const, 'published' as const),
  initial: fc.array(noteFields, { minLength: 2, maxLength: 12 }),
  pages: fc.array(
    fc.record({
      size: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 2 }) }, { weight: 1, arbitrary: fc.integer({ min: 3, max: 5 }) }),
      inserts: fc.array(noteFields, { maxLength: 3 }),
    }),
    { minLength: 2, maxLength: 10 },
  ),
});

/** An answer of a page request, from memory or from the wire. */
export interface PageAnswer {
  status: number;
  headers: Readonly<Record<string, string | undefined>>;
  body: { items: Note[]; next: string | null; prev: string | null };
}

/** How a walk reaches the API: `get` one URL of the list (a `next` link as it came), `insert` a note into every store that answers. */
export interface WalkClient {
  /** The path of the list as the client reaches it (`/notes`, `/v1/notes`). */
  listPath: string;
  get(url: string): Promise<PageAnswer>;
  insert(fields: NoteFields): void;
}

/** Far more requests than any walk needs: a walk that loops fails instead of hanging. */
const MAX_REQUESTS = 200;

/**
 * Walks the list by its `next` links, each time with the page size of the walk's step, adding its
 * notes before every request but the first; checks every page as it comes, and in the end that each
 * note the caller could see at the start came exactly once and in the order asked for.
 */
export async function walkPages(walk: Walk, notesAtStart: () => Iterable<Note>, client: WalkClient): Promise<void> {
  for (const fields of walk.initial) client.insert(fields);
  const userId = CALLERS[walk.caller].userId;
  const order = orderOf(walk.sort);
  const expected = [...notesAtStart()]
    .filter((note) => note.ownerId === userId && (walk.status === undefined || note.status === walk.status))
    .sort((left, right) => compare(left, right, order))
    .map((note) => note.id);
  const query = new URLSearchParams();
  if (walk.sort !== '') query.set('sort', walk.sort);
  if (walk.status !== undefined) query.set('status', walk.status);
  let url: string | null = `${client.listPath}?${withLimit(query.toString(), walk.pages[0]!.size)}`;
  const seen: Note[] = [];
  for (let request = 0; url !== null; request++) {
    expect(request, 'the walk ends').toBeLessThan(MAX_REQUESTS);
    const step = walk.pages[request % walk.pages.length]!;
    if (request > 0) {
      if (request < walk.pages.length) for (const fields of step.inserts) client.insert(fields);
      url = withLimitIn(url, step.size);
    }
    const answer = await client.get(url);
    expect(answer.status, url).toBe(200);
    const { items, next } = answer.body;
    expect(items.length).toBeLessThanOrEqual(step.size);
    // A page is full unless it is the last.
    if (next !== null) expect(items).toHaveLength(step.size);
    for (const note of items) {
      expect(note.ownerId, `note ${note.id} is someone else's`).toBe(userId);
      if (walk.status !== undefined) expect(note.status).toBe(walk.status);
    }
    expect(answer.headers.link, 'the Link header names the next page').toBe(linkOf(answer.body));
    seen.push(...items);
    if (next !== null) expect(next.startsWith(`${client.listPath}?`), next).toBe(true);
    url = next;
  }
  const ids = seen.map((note) => note.id);
  expect(new Set(ids).size, `no note twice: ${ids.join(',')}`).toBe(ids.length);
  // Notes added during the walk may come too, where they fall after the position reached.
  for (let index = 1; index < seen.length; index++) expect(compare(seen[index - 1]!, seen[index]!, order), `in order: ${ids.join(',')}`).toBeLessThan(0);
  const atStart = new Set(expected);
  expect(ids.filter((id) => atStart.has(id))).toEqual(expected);
}

/** The `Link` header a page carries: its next and prev links, or none. */
export function linkOf(page: { next: string | null; prev: string | null }): string | undefined {
  const links = [page.next === null ? undefined : `<${page.next}>; rel="next"`, page.prev === null ? undefined : `<${page.prev}>; rel="prev"`].filter((link) => link !== undefined);
  return links.length === 0 ? undefined : links.join(', ');
}

type Order = { field: 'title' | 'status' | 'id'; descending: boolean }[];

/** The order a `sort` parameter asks for, then by id. */
function orderOf(sort: string): Order {
  const fields = sort === '' ? [] : sort.split(',').map((part) => ({ field: part.replace(/^[-+]/, '') as 'title' | 'status', descending: part.startsWith('-') }));
  return [...fields, { field: 'id', descending: false }];
}

function compare(left: Note, right: Note, order: Order): number {
  for (const { field, descending } of order) {
    if (left[field] === right[field]) continue;
    const sign = left[field] < right[field] ? -1 : 1;
    return descending ? -sign : sign;
  }
  return 0;
}

function withLimit(query: string, size: number): string {
  return query === '' ? `limit=${size}` : `${query}&limit=${size}`;
}

/** A link with another page size: the cursor holds the position, not the size. */
function withLimitIn(url: string, size: number): string {
  expect(url).toMatch(/[?&]limit=\d+(?:&|$)/);
  return url.replace(/([?&])limit=\d+/, `$1limit=${size}`);
}
