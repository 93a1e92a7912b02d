/**
 * Conditional requests (RFC 9110 §13) as a caller of `api.handle` sees them: which `If-*` dates count
 * as HTTP dates (§5.6.7), what an item's validators may be, what a 304 carries (§15.4.5), and the
 * problems of a failed or missing precondition (RFC 6585 §3 for 428).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collection, createApi, type ApiResponse } from '../../../src/index.js';
import { expectProblem } from '../../helpers/problem.js';

interface Article {
  id: number;
  version: string;
  changedAt: Date;
}

/** One article, its version and last change given; a read sets Content-Location and a header a 304 must not carry. */
function articlesApi(changedAt: Date, version = '7') {
  const article: Article = { id: 1, version, changedAt };
  const errors: unknown[] = [];
  const api = createApi({
    onError: (error) => errors.push(error),
    resources: [
      collection('articles', {
        id: z.coerce.number().int(),
        body: z.object({ title: z.string() }),
        etag: (item: Article) => item.version,
        lastModified: (item: Article) => item.changedAt,
        requireIfMatch: true,
        read: (ctx) => {
          ctx.set('Content-Location', '/articles/1');
          ctx.set('X-Served-By', 'reader');
          return ctx.params.id === 1 ? article : undefined;
        },
        replace: (ctx) => ({ ...article, ...ctx.body }),
      }),
    ],
  });
  const get = (headers: Record<string, string>): Promise<ApiResponse> => api.handle({ method: 'GET', url: '/articles/1', headers });
  const put = (headers: Record<string, string>): Promise<ApiResponse> =>
    api.handle({ method: 'PUT', url: '/articles/1', headers: { 'content-type': 'application/json', ...headers }, body: '{"title":"x"}' });
  return { get, put, errors };
}

const FEB_15 = new Date(Date.UTC(2026, 1, 15, 12, 0, 0));

describe('If-Modified-Since that is no valid HTTP date is ignored (RFC 9110 §13.1.3, §5.6.7)', () => {
  it.each([
    ['a day past the month\'s end', 'Sat, 31 Feb 2026 00:00:00 GMT'],
    ['hour 24', 'Sun, 15 Feb 2026 24:00:00 GMT'],
    ['minute 60', 'Sun, 15 Feb 2026 23:60:00 GMT'],
    ['second 60', 'Sun, 15 Feb 2026 23:59:60 GMT'],
    ['day 00', 'Sun, 00 Mar 2026 00:00:00 GMT'],
    ['29 Feb of a common year', 'Sun, 29 Feb 2026 13:00:00 GMT'],
    ['31 of a 30-day month', 'Thu, 31 Apr 2026 00:00:00 GMT'],
    ['an unknown month', 'Mon, 15 Fev 2027 00:00:00 GMT'],
    ['an RFC 850 date with text before it', 'xSunday, 15-Feb-26 12:00:00 GMT'],
    ['an RFC 850 date with text after it', 'Sunday, 15-Feb-26 12:00:00 GMTx'],
    ['an asctime date with text before it', 'xSun Feb 15 12:00:00 2026'],
    ['an asctime date with text after it', 'Sun Feb 15 12:00:00 2026x'],
  ])('%s (%s): a GET answers 200, not the 304 its rolled-over date would give', async (_rule, date) => {
    const response = await articlesApi(FEB_15).get({ 'if-modified-since': date });
    expect(response.status).toBe(200);
  });

  it.each([
    ['a day past the month\'s end', 'Sat, 31 Feb 2026 00:00:00 GMT'],
    ['a four-digit year below 100', 'Thu, 15 Jan 0026 00:00:00 GMT'],
  ])('%s (%s) as If-Unmodified-Since is no precondition: a PUT without If-Match is 428', async (_rule, date) => {
    const response = await articlesApi(FEB_15).put({ 'if-unmodified-since': date });
    expectProblem(response, { status: 428, code: 'RC_PRECONDITION_REQUIRED', detail: 'A change of this item needs If-Match with the ETag of the copy it changes', exact: true });
  });

  it('the last day of the month and the last second of the day are dates', async () => {
    const { get } = articlesApi(FEB_15);
    expect((await get({ 'if-modified-since': 'Sat, 28 Feb 2026 23:59:59 GMT' })).status).toBe(304);
    expect((await articlesApi(new Date(Date.UTC(2028, 1, 29, 12))).get({ 'if-modified-since': 'Tue, 29 Feb 2028 12:00:00 GMT' })).status).toBe(304);
  });

  it('the year 0100 is a date: as If-Unmodified-Since before the last change, a PUT is a 412', async () => {
    const response = await articlesApi(FEB_15).put({ 'if-unmodified-since': 'Fri, 01 Jan 0100 00:00:00 GMT' });
    expectProblem(response, { status: 412, code: 'RC_PRECONDITION_FAILED', detail: 'The item has changed since the request\'s copy of it', exact: true });
  });
});

describe('every month name of an IMF-fixdate is read (RFC 9110 §5.6.7)', () => {
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  it.each(MONTHS.map((name, month) => [name, month] as const))('%s: the date of the last change is 304, one second before is 200', async (name, month) => {
    const changedAt = new Date(Date.UTC(2026, month, 15, 12, 0, 0));
    const { get } = articlesApi(changedAt);
    const at = changedAt.toUTCString();
    expect(at).toContain(` ${name} `);
    expect((await get({ 'if-modified-since': at })).status).toBe(304);
    expect((await get({ 'if-modified-since': new Date(changedAt.getTime() - 1000).toUTCString() })).status).toBe(200);
  });
});

describe('the obsolete forms of an HTTP date (RFC 9110 §5.6.7)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(Date.UTC(2026, 5, 1)) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('an RFC 850 date with the year 94 is 1994, not 2094: an item changed since answers 200', async () => {
    const { get } = articlesApi(FEB_15);
    expect((await get({ 'if-modified-since': 'Sunday, 06-Nov-94 08:49:37 GMT' })).status).toBe(200);
  });

  it('an RFC 850 year up to 50 years ahead is in this century (76 is 2076), one further is in the last (77 is 1977)', async () => {
    const { get } = articlesApi(FEB_15);
    expect((await get({ 'if-modified-since': 'Wednesday, 01-Jan-76 00:00:00 GMT' })).status).toBe(304);
    expect((await get({ 'if-modified-since': 'Friday, 01-Jan-77 00:00:00 GMT' })).status).toBe(200);
  });

  it('an RFC 850 date of the last change is 304, a second before is 200', async () => {
    const { get } = articlesApi(FEB_15);
    expect((await get({ 'if-modified-since': 'Sunday, 15-Feb-26 12:00:00 GMT' })).status).toBe(304);
    expect((await get({ 'if-modified-since': 'Sunday, 15-Feb-26 11:59:59 GMT' })).status).toBe(200);
  });

  it('an asctime date, its day padded with a space or not', async () => {
    expect((await articlesApi(FEB_15).get({ 'if-modified-since': 'Sun Feb 15 12:00:00 2026' })).status).toBe(304);
    expect((await articlesApi(FEB_15).get({ 'if-modified-since': 'Sun Feb 15 11:59:59 2026' })).status).toBe(200);
    const march = articlesApi(new Date(Date.UTC(2026, 2, 1, 12, 0, 0)));
    expect((await march.get({ 'if-modified-since': 'Sun Mar  1 12:00:00 2026' })).status).toBe(304);
    expect((await march.get({ 'if-modified-since': 'Sun Mar  1 11:59:59 2026' })).status).toBe(200);
  });

  it('a date with spaces around it is read; an RFC 850 date with a four-digit year is not', async () => {
    const { get } = articlesApi(FEB_15);
    expect((await get({ 'if-modified-since': '  Sun, 15 Feb 2026 12:00:00 GMT ' })).status).toBe(304);
    expect((await get({ 'if-modified-since': 'Sunday, 15-Feb-2026 12:00:00 GMT' })).status).toBe(200);
  });
});

describe('an entity tag as the item gives it (RFC 9110 §8.8.3)', () => {
  it.each([
    ['text after a quoted tag', '"7"junk'],
    ['text before a quoted tag', 'junk"7"'],
    ['a weak prefix without quotes', 'W/7"'],
    ['a space', '7 8'],
  ])('%s (%j) is refused: reported, and the answer goes out without validators', async (_rule, version) => {
    const { get, errors } = articlesApi(FEB_15, version);
    const response = await get({});
    expect(response.status).toBe(200);
    expect(response.headers).not.toHaveProperty('etag');
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/etag returned .*, which an entity tag cannot hold/);
  });

  it.each([
    ['a bare tag, quoted', '7', '"7"'],
    ['a quoted tag, as it is', '"7"', '"7"'],
    ['a weak tag, as it is', 'W/"7"', 'W/"7"'],
    ['every visible character but the quote', '!#~', '"!#~"'],
  ])('%s (%j → %s)', async (_rule, version, etag) => {
    const response = await articlesApi(FEB_15, version).get({});
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe(etag);
  });
});

describe('If-None-Match and If-Match lists (RFC 9110 §13.1.1, §13.1.2)', () => {
  it.each([
    ['the tag alone', '"7"', 304],
    ['the tag among others', '"5", "7"', 304],
    ['the tag after an empty element', ', "7"', 304],
    ['the tag with tabs around it', '\t"7"\t', 304],
    ['the weak tag (weak comparison)', 'W/"7"', 304],
    ['a list with text after the tag', '"7" junk', 200],
    ['a list with a tag and trailing text', '"7"x', 200],
    ['an unquoted tag', '7', 200],
    ['another tag', '"8"', 200],
  ])('If-None-Match with %s (%j) answers %i', async (_rule, list, status) => {
    const response = await articlesApi(FEB_15).get({ 'if-none-match': list });
    expect(response.status).toBe(status);
  });

  it('If-Match with a stale tag is a 412 that says why (RFC 9110 §13.1.1)', async () => {
    const response = await articlesApi(FEB_15).put({ 'if-match': '"6"' });
    expectProblem(response, { status: 412, code: 'RC_PRECONDITION_FAILED', detail: 'The item has changed since the request\'s copy of it', exact: true });
  });

  it('If-Match with the weak form of the current tag is a 412: If-Match compares strongly (RFC 9110 §8.8.3.2)', async () => {
    expectProblem(await articlesApi(FEB_15).put({ 'if-match': 'W/"7"' }), { status: 412, code: 'RC_PRECONDITION_FAILED' });
    expect((await articlesApi(FEB_15).put({ 'if-match': '"5", "7"' })).status).toBe(200);
  });
});

describe('an item without a last change ignores the dates of a request (RFC 9110 §13.1.3, §13.1.4)', () => {
  function taggedApi() {
    return createApi({
      resources: [collection('tags', { id: z.coerce.number().int(), body: z.object({ title: z.string() }), etag: () => '7', read: () => ({ id: 1 }), replace: () => ({ id: 1 }) })],
    });
  }

  it('If-Modified-Since: a GET answers 200', async () => {
    const response = await taggedApi().handle({ method: 'GET', url: '/tags/1', headers: { 'if-modified-since': 'Fri, 01 Jan 2100 00:00:00 GMT' } });
    expect(response.status).toBe(200);
  });

  it('If-Unmodified-Since: a PUT goes on', async () => {
    const response = await taggedApi().handle({
      method: 'PUT',
      url: '/tags/1',
      headers: { 'content-type': 'application/json', 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
      body: '{"title":"x"}',
    });
    expect(response.status).toBe(200);
  });
});

describe('validators that cannot go on the wire are reported, and the answer goes out without them', () => {
  it.each([
    ['an etag that is no string', { etag: () => 7 }, "etag returned number; return the item's version as a string"],
    ['a lastModified that is no Date', { lastModified: () => '2026-01-01' }, 'lastModified returned string; return a valid Date'],
    ['a lastModified that is an invalid Date', { lastModified: () => new Date(Number.NaN) }, 'lastModified returned an invalid Date; return a valid Date'],
  ])('%s', async (_case, validators, message) => {
    const errors: unknown[] = [];
    const api = createApi({ onError: (error) => errors.push(error), resources: [collection('items', { id: z.coerce.number().int(), ...(validators as object), read: () => ({ id: 1 }) })] });
    const response = await api.handle({ method: 'GET', url: '/items/1' });
    expect(response.status).toBe(200);
    expect(response.headers).not.toHaveProperty('etag');
    expect(response.headers).not.toHaveProperty('last-modified');
    expect(errors.map(String)).toEqual([`TypeError: ${message}`]);
  });
});

describe('what a 304 carries (RFC 9110 §15.4.5)', () => {
  it('Content-Location the 200 carries, the ETag, and nothing else the handler set', async () => {
    const { get } = articlesApi(FEB_15);
    const ok = await get({});
    expect(ok.headers['content-location']).toBe('/articles/1');
    const response = await get({ 'if-none-match': '"7"' });
    expect(response).toEqual({ status: 304, headers: { etag: '"7"', 'content-location': '/articles/1' }, body: undefined, payload: undefined });
  });
});
