/**
 * Attacks on the HTTP conventions (conditional requests, list pages, merge patches), each kept as
 * the request that once got through, with what it gets now.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toNodeListener } from '../../src/adapters/node.js';
import { collection, createApi, type Api } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expectProblem } from '../helpers/problem.js';

const caller = (name: string) => ({ authorization: `Bearer ${name}` });
const callers: Record<string, { id: number }> = { 'Bearer alice': { id: 1 }, 'Bearer bob': { id: 2 } };
const authenticate = (request: { headers?: Record<string, unknown> | undefined }) => callers[String(request.headers?.authorization)];

describe('merge patches cannot set what the server owns', () => {
  const Post = z.object({ id: z.number(), ownerId: z.number(), title: z.string(), verified: z.boolean() });

  it('a merge checked against item alone is refused at definition: item holds id and owner, which a patch would set', () => {
    expect(() =>
      collection('posts', {
        item: Post,
        read: () => undefined,
        update: { merge: true, handle: (ctx) => ctx.body },
      }),
    ).toThrow(/"update" with "merge" checks the merged item against what a client may write: give update a "body"/);
  });

  it('{"ownerId":2,"verified":true,"id":2} changes only the title a strict body schema allows; id, owner and flag stay', async () => {
    const posts = new Map([[1, { id: 1, ownerId: 1, title: 'Mine', verified: false }], [2, { id: 2, ownerId: 2, title: 'Bob', verified: false }]]);
    const api = createApi({
      authenticate,
      resources: [
        collection('posts', {
          id: z.coerce.number().int(),
          body: z.strictObject({ title: z.string().min(1) }),
          item: Post,
          owner: (post, principal) => post.ownerId === (principal as { id: number }).id,
          read: (ctx) => posts.get(ctx.params.id),
          update: {
            merge: true,
            handle: (ctx) => {
              const post = { ...(ctx.item as typeof Post._output), ...ctx.body };
              posts.set(post.id, post);
              return post;
            },
          },
        }),
      ],
    });
    const response = await api.handle({
      method: 'PATCH',
      url: '/posts/1',
      headers: { ...caller('alice'), 'content-type': 'application/merge-patch+json' },
      body: '{"ownerId":2,"verified":true,"id":2,"title":"Renamed"}',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: 1, ownerId: 1, title: 'Renamed', verified: false });
    expect(posts.get(2)).toEqual({ id: 2, ownerId: 2, title: 'Bob', verified: false });
  });
});

describe('conditional requests', () => {
  const articles = new Map([[1, { id: 1, title: 'Draft', version: 1, changedAt: new Date('2026-01-02T03:04:05Z') }]]);
  let replaced = 0;
  const api = createApi({
    resources: [
      collection('articles', {
        id: z.coerce.number().int(),
        body: z.object({ title: z.string() }),
        etag: (article: { version: number }) => String(article.version),
        requireIfMatch: true,
        read: (ctx) => {
          ctx.set('Cache-Control', 'max-age=60');
          ctx.set('Vary', 'Accept-Language');
          ctx.set('Expires', 'Thu, 01 Jan 2037 00:00:00 GMT');
          return articles.get(ctx.params.id);
        },
        replace: (ctx) => {
          replaced += 1;
          return { ...(ctx.item as object), ...ctx.body };
        },
        remove: () => true,
      }),
    ],
  });
  const put = (headers: Record<string, string>) =>
    api.handle({ method: 'PUT', url: '/articles/1', headers: { 'content-type': 'application/json', ...headers }, body: '{"title":"x"}' });

  it('requireIfMatch is not met by an If-Unmodified-Since that is no date, or by one the item cannot be compared with', async () => {
    for (const since of ['garbage', '', 'Fri, 01 Jan 1990 00:00:00 GMT']) {
      expectProblem(await put({ 'if-unmodified-since': since }), { status: 428, code: 'RC_PRECONDITION_REQUIRED' });
      expectProblem(await api.handle({ method: 'DELETE', url: '/articles/1', headers: { 'if-unmodified-since': since } }), { status: 428, code: 'RC_PRECONDITION_REQUIRED' });
    }
    expect(replaced).toBe(0);
  });

  it('a 304 carries the Cache-Control, Expires and Vary the 200 carries (RFC 9110 section 15.4.5)', async () => {
    const ok = await api.handle({ method: 'GET', url: '/articles/1' });
    const again = await api.handle({ method: 'GET', url: '/articles/1', headers: { 'if-none-match': ok.headers.etag! } });
    expect(again.status).toBe(304);
    expect(again.headers).toEqual({ etag: '"1"', 'cache-control': 'max-age=60', expires: 'Thu, 01 Jan 2037 00:00:00 GMT', vary: 'Accept-Language' });
  });

  it('an etag beyond visible ASCII is a masked 500 where a precondition needs it, and left out of a 200', async () => {
    const errors: unknown[] = [];
    const cafe = createApi({
      onError: (error) => errors.push(error),
      resources: [collection('menus', { etag: () => 'café', read: () => ({ id: 1 }) })],
    });
    const plain = await cafe.handle({ method: 'GET', url: '/menus/1' });
    expect(plain.status).toBe(200);
    expect(plain.headers.etag).toBeUndefined();
    expectProblem(await cafe.handle({ method: 'GET', url: '/menus/1', headers: { 'if-none-match': '"café"' } }), { status: 500, code: 'RC_INTERNAL' });
    expect(errors.length).toBe(2);
  });

  it('an asctime or zone-less date is read in GMT whatever the server time zone', async () => {
    const dated = createApi({ resources: [collection('articles', { lastModified: (article: { changedAt: Date }) => article.changedAt, read: () => articles.get(1) })] });
    const zone = process.env.TZ;
    process.env.TZ = 'America/Los_Angeles';
    try {
      // 00:00 GMT is before the change at 03:04:05 GMT: modified since, whatever the local zone says.
      const asctime = await dated.handle({ method: 'GET', url: '/articles/1', headers: { 'if-modified-since': 'Fri Jan  2 00:00:00 2026' } });
      expect(asctime.status).toBe(200);
      const later = await dated.handle({ method: 'GET', url: '/articles/1', headers: { 'if-modified-since': 'Fri Jan  2 04:00:00 2026' } });
      expect(later.status).toBe(304);
      // No zone, or another zone than GMT: no HTTP date, ignored.
      for (const since of ['Fri, 02 Jan 2026 04:00:00', 'Fri, 02 Jan 2026 04:00:00 +0100', 'Fri, 02 Jan 2026 04:00:00 PST']) {
        expect((await dated.handle({ method: 'GET', url: '/articles/1', headers: { 'if-modified-since': since } })).status).toBe(200);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});

describe('list pages', () => {
  const orders = [
    { id: 1, name: 'x', total: 3 },
    { id: 2, name: 'x', total: 2 },
    { id: 3, name: 'y', total: 1 },
  ];
  const api: Api = createApi({
    resources: [
      collection('orders', {
        page: { by: 'offset', limit: { default: 1 } },
        sort: ['total'],
        filter: { name: z.string() },
        // The filter is read and checked, and left unused: every request then has a next page.
        list: ({ page }) => orders.slice(page.offset, page.offset + page.limit),
      }),
      collection('empties', { page: { by: 'cursor' }, list: () => undefined as never }),
    ],
  });
  let server: MountedServer;
  beforeAll(async () => {
    server = await listen(http.createServer(toNodeListener(api)));
  });
  afterAll(() => server.close());

  /** Sends a request target as it is, which fetch would have percent-encoded. */
  function rawGet(target: string): Promise<string> {
    const { port } = new URL(server.baseUrl);
    return new Promise((resolve, reject) => {
      let received = '';
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('end', () => resolve(received));
      socket.on('error', reject);
    });
  }

  it('a query that closes the <...> of a Link cannot add links of its own: the URLs are percent-encoded', async () => {
    const answer = await rawGet('/orders?name=x>;rel="prev",<https://evil.example/phish?a=&offset=0');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    const link = /\r\nlink: ([^\r]*)\r\n/i.exec(answer)![1]!;
    const urls = [...link.matchAll(/<([^>]*)>/g)].map((match) => match[1]!);
    expect(urls.length).toBe(link.split(/>; rel=/).length - 1);
    for (const url of urls) {
      expect(url.startsWith('/orders?name=x%3E;rel=%22prev%22,%3Chttps://evil.example/phish?a=')).toBe(true);
      expect(url).not.toMatch(/[<>"\s]/);
    }
  });

  it('a forged cursor whose key is null, true or missing is a 400', async () => {
    const cursorOf = (content: unknown) => Buffer.from(JSON.stringify(content)).toString('base64url');
    const cursored = createApi({ resources: [collection('tickets', { page: { by: 'cursor' }, list: () => [] })] });
    for (const key of [null, true, [1]]) {
      const response = await cursored.handle({ method: 'GET', url: `/tickets?cursor=${cursorOf(['', '', 'a', [key]])}` });
      expectProblem(response, { status: 400, code: 'RC_INVALID_INPUT' });
    }
    expect((await cursored.handle({ method: 'GET', url: `/tickets?cursor=${cursorOf(['', '', 'a', [7]])}` })).status).toBe(200);
  });

  it('a paged list whose handler returns nothing answers an empty page, not a 204', async () => {
    const response = await api.handle({ method: 'GET', url: '/empties' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: [], next: null, prev: null });
  });

  it('sort=+total, with the + a query decodes to a space, sorts ascending', async () => {
    const response = await api.handle({ method: 'GET', url: '/orders?sort=+total' });
    expect(response.status).toBe(200);
  });
});

describe('CORS grants are the cors option’s', () => {
  it('a handler that sets Access-Control-Allow-Origin with ctx.set fails, and nothing is granted', async () => {
    const errors: unknown[] = [];
    const api = createApi({
      onError: (error) => errors.push(error),
      resources: [
        collection('open', {
          list: (ctx) => {
            ctx.set('Access-Control-Allow-Origin', '*');
            return [];
          },
        }),
      ],
    });
    const response = await api.handle({ method: 'GET', url: '/open' });
    expectProblem(response, { status: 500, code: 'RC_INTERNAL' });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect(String((errors[0] as Error).message)).toMatch(/a CORS grant, which the API's "cors" option gives/);
  });
});
