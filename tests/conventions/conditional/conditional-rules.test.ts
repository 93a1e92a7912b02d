/**
 * The `conditional` convention as a caller of `api.handle` sees it: which answers carry the item's
 * validators (RFC 9110 §8.8: `ETag` and `Last-Modified` of the representation sent), which requests
 * its 428 applies to (RFC 6585 §3), and what a 304 carries (RFC 9110 §15.4.5), whether the
 * precondition answered it or the handler chose it. Each case names the rule it pins.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint, json, type ApiRequest } from '../../../src/index.js';
import { xml } from '../../../src/formats/xml.js';

const CHANGED = new Date(Date.UTC(2026, 0, 1));
const CHANGED_AT = 'Thu, 01 Jan 2026 00:00:00 GMT';
const JSON_BODY = { 'content-type': 'application/json' };

interface Article {
  id: number;
  version: number;
  title: string;
}

/** Articles whose validators are those of `validators`; requireIfMatch as given; onError kept. */
function articlesApi(validators: { etag?: boolean; lastModified?: boolean } = { etag: true, lastModified: true }, requireIfMatch = false) {
  const reported: unknown[] = [];
  const article: Article = { id: 1, version: 3, title: 'Draft' };
  const api = createApi({
    onError: (error) => reported.push(error),
    formats: [json, xml],
    resources: [
      collection('articles', {
        id: z.coerce.number().int(),
        body: z.object({ title: z.string() }),
        patch: z.object({ title: z.string() }).partial(),
        ...(validators.etag === true ? { etag: (item: Article) => String(item.version) } : {}),
        ...(validators.lastModified === true ? { lastModified: () => CHANGED } : {}),
        requireIfMatch,
        read: (ctx) => {
          ctx.set('Cache-Control', 'max-age=60');
          return ctx.params.id === 1 ? article : undefined;
        },
        create: (ctx) => ({ id: 2, version: 1, ...ctx.body }),
        update: (ctx) => ({ ...article, ...ctx.body, version: 4 }),
        remove: () => article,
      }),
    ],
  });
  const send = (method: string, url: string, headers: Record<string, string> = {}, body?: unknown) =>
    api.handle({ method, url, headers: body === undefined ? headers : { ...JSON_BODY, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) } as ApiRequest);
  return { send, reported };
}

describe('the answers that carry the item\'s validators (RFC 9110 §8.8.2, §8.8.3)', () => {
  it('a read: ETag and Last-Modified of the item', async () => {
    const response = await articlesApi().send('GET', '/articles/1');
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({ etag: '"3"', 'last-modified': CHANGED_AT });
  });

  it('a create: those of the item it made, with no precondition asked of it even under requireIfMatch', async () => {
    const { send, reported } = articlesApi(undefined, true);
    const response = await send('POST', '/articles', {}, { title: 'New' });
    expect(response.status).toBe(201);
    expect(response.headers).toMatchObject({ etag: '"1"', 'last-modified': CHANGED_AT, location: '/articles/2' });
    expect(reported).toEqual([]);
  });

  it('an update: those of the item as changed', async () => {
    const response = await articlesApi().send('PATCH', '/articles/1', {}, { title: 'Final' });
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({ etag: '"4"', 'last-modified': CHANGED_AT });
  });

  it('a remove: none, the item is gone', async () => {
    const response = await articlesApi().send('DELETE', '/articles/1');
    expect(response.status).toBe(200);
    expect(response.headers).not.toHaveProperty('etag');
    expect(response.headers).not.toHaveProperty('last-modified');
  });

  it.each([
    ['an ETag alone', { etag: true }, { etag: '"3"' }],
    ['a Last-Modified alone', { lastModified: true }, { 'last-modified': CHANGED_AT }],
  ])('an item with %s: the answer has that header and no empty other', async (_what, validators, expected) => {
    const response = await articlesApi(validators).send('GET', '/articles/1');
    expect(response.headers).toStrictEqual({ ...expected, 'cache-control': 'max-age=60', vary: 'Accept', 'content-type': 'application/json; charset=utf-8' });
  });

  it('an endpoint\'s change, which may answer anything, carries none and reports nothing', async () => {
    const reported: unknown[] = [];
    const replace = endpoint('PUT', '/docs/:id', { body: 'unvalidated', conditional: { load: () => ({ rev: 3 }), etag: (doc: { rev: number }) => `r${doc.rev}` }, handle: () => ({ saved: true }) });
    const response = await createApi({ endpoints: [replace], onError: (error) => reported.push(error) }).handle({ method: 'PUT', url: '/docs/a', headers: JSON_BODY, body: '{}' });
    expect(response.status).toBe(200);
    expect(response.headers).not.toHaveProperty('etag');
    expect(reported).toEqual([]);
  });
});

describe('an answer without a result carries no validators: there is no representation to validate (RFC 9110 §8.8)', () => {
  it.each([undefined, null])('a create that returns %s: 201 without them, and nothing reported', async (made) => {
    const reported: unknown[] = [];
    const drafts = collection('drafts', { body: 'unvalidated', etag: (draft: { version: number }) => String(draft.version), read: () => ({ version: 1 }), create: () => made });
    const response = await createApi({ resources: [drafts], onError: (error) => reported.push(error) }).handle({ method: 'POST', url: '/drafts', headers: JSON_BODY, body: '{}' });
    expect(response).toStrictEqual({ status: 201, headers: {}, body: undefined, payload: undefined });
    expect(reported).toEqual([]);
  });

  it.each([undefined, null])('a read that chooses the empty outcome and returns %s: 204 without them, though the item was loaded', async (given) => {
    const flags = endpoint('GET', '/flags/:name', {
      conditional: { load: () => ({ version: 2 }), etag: (flag: { version: number }) => String(flag.version) },
      outcomes: ['empty'],
      handle: (ctx) => (ctx.outcome('empty'), given),
    });
    const response = await createApi({ endpoints: [flags] }).handle({ method: 'GET', url: '/flags/beta' });
    expect(response).toStrictEqual({ status: 204, headers: {}, body: undefined, payload: undefined });
  });
});

describe('requireIfMatch asks a precondition of changes only (RFC 6585 §3)', () => {
  it('a HEAD endpoint of one\'s own is safe: no 428 without If-Match', async () => {
    const head = endpoint('HEAD', '/files/:id', { conditional: { load: () => ({ v: 1 }), etag: () => '1', requireIfMatch: true }, handle: () => ({}) });
    const response = await createApi({ endpoints: [head] }).handle({ method: 'HEAD', url: '/files/1' });
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe('"1"');
  });

  it('a change without If-Match is a 428', async () => {
    expect((await articlesApi(undefined, true).send('PATCH', '/articles/1', {}, { title: 'x' })).status).toBe(428);
  });
});

describe('what a 304 carries (RFC 9110 §15.4.5)', () => {
  it('the precondition\'s 304: ETag, the Cache-Control the 200 carries, Vary when the format is negotiated; no Last-Modified beside an ETag, and no header without a value', async () => {
    const response = await articlesApi().send('GET', '/articles/1', { 'if-none-match': '"3"' });
    expect(response).toStrictEqual({ status: 304, headers: { 'cache-control': 'max-age=60', vary: 'Accept', etag: '"3"' }, body: undefined, payload: undefined });
  });

  describe('a 304 the handler chose (ctx.outcome(\'notModified\')) carried no ETag', () => {
    const feed = { version: 3, changedAt: CHANGED };
    function feedsApi(validators: { etag?: (item: typeof feed) => string; lastModified?: (item: typeof feed) => Date }, returns: 'the item' | 'nothing') {
      return createApi({
        endpoints: [
          endpoint('GET', '/feeds/:id', {
            conditional: { load: () => feed, ...validators },
            outcomes: ['notModified'],
            handle: (ctx) => {
              if (ctx.headers['x-client-copy'] === 'current') ctx.outcome('notModified');
              return returns === 'the item' ? ctx.item : undefined;
            },
          }),
        ],
      });
    }
    const fresh = { method: 'GET', url: '/feeds/1', headers: { 'x-client-copy': 'current' } };

    it.each(['the item', 'nothing'] as const)('returning %s: the ETag, without Last-Modified', async (returns) => {
      const response = await feedsApi({ etag: (item) => String(item.version), lastModified: (item) => item.changedAt }, returns).handle(fresh);
      expect(response).toStrictEqual({ status: 304, headers: { etag: '"3"' }, body: undefined, payload: undefined });
    });

    it('with a last change only: Last-Modified', async () => {
      const response = await feedsApi({ lastModified: (item) => item.changedAt }, 'the item').handle(fresh);
      expect(response).toStrictEqual({ status: 304, headers: { 'last-modified': CHANGED_AT }, body: undefined, payload: undefined });
    });
  });
});
