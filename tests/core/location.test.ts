import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint, type ErrorInfo } from '../../src/index.js';
import { createTestClient } from '../../src/testing.js';

const JSON_BODY = { 'content-type': 'application/json' };

/** An API whose `onError` keeps what it is given. */
function withReports(options: Parameters<typeof createApi>[0] & object) {
  const reported: { error: Error; info: ErrorInfo }[] = [];
  const api = createApi({ ...options, onError: (error, info) => reported.push({ error: error as Error, info }) });
  return { api, client: createTestClient(api), reported };
}

describe('Location of a create whose result has no id', () => {
  it('builds it from idOf: base path, parents and the id, percent-encoded', async () => {
    const users = collection('users', { id: z.coerce.number().int(), read: (ctx) => ({ id: ctx.params.id }) });
    users.collection('articles', {
      body: z.object({ title: z.string() }),
      idOf: (created: { article: { slug: string } }) => created.article.slug,
      create: (ctx) => ({ article: { slug: `${ctx.body.title}/draft`, title: ctx.body.title } }),
    });
    const { client, reported } = withReports({ basePath: '/api', resources: [users] });
    // The parent id as its schema reads it: one item, one URL.
    const created = await client.post('/api/users/0x1/articles', { body: { title: 'Héllo wörld' } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/api/users/1/articles/H%C3%A9llo%20w%C3%B6rld%2Fdraft');
    expect(created.body).toEqual({ article: { slug: 'Héllo wörld/draft', title: 'Héllo wörld' } });
    expect((await client.post('/api/users/1/articles/', { body: { title: 'b' } })).headers.location).toBe('/api/users/1/articles/b%2Fdraft');
    expect(reported).toEqual([]);
  });

  it("reads an _id, typed by the collection's item, and keeps the host's mount prefix", async () => {
    const notes = collection('notes', {
      item: z.object({ _id: z.string(), text: z.string() }),
      body: z.object({ text: z.string() }),
      idOf: (note) => note._id,
      create: (ctx) => ({ _id: '65f0c0ffee', text: ctx.body.text }),
    });
    const { api } = withReports({ basePath: '/api/v1', resources: [notes] });
    const created = await api.handle({ method: 'POST', url: '/api/v1/notes', baseUrl: '/svc', headers: JSON_BODY, body: '{"text":"hi"}' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/svc/api/v1/notes/65f0c0ffee');
  });

  it('gives idOf the context of create', async () => {
    const pages = collection('pages', {
      body: z.object({ slug: z.string() }),
      idOf: (_created, ctx) => ctx.body.slug,
      create: () => ({ ok: true }),
    });
    const created = await createTestClient(createApi({ resources: [pages] })).post('/pages', { body: { slug: 'about' } });
    expect(created.headers.location).toBe('/pages/about');
  });

  it('answers 201 without Location, and reports it, when idOf gives no id or throws', async () => {
    const slugs: unknown[] = [undefined, { slug: 'x' }, null];
    const notes = collection('notes', {
      body: 'unvalidated',
      idOf: () => {
        if (slugs.length === 0) throw new Error('no slug');
        return slugs.shift() as string;
      },
      create: () => ({ note: {} }),
    });
    const { client, reported } = withReports({ resources: [notes] });
    for (let attempt = 0; attempt < 4; attempt++) {
      const created = await client.post('/notes', { body: {} });
      expect(created.status).toBe(201);
      expect(created.headers).not.toHaveProperty('location');
      expect(created.body).toEqual({ note: {} });
    }
    const fix = 'so the 201 has no Location: give a string or number id, with the collection\'s "idOf" or the endpoint\'s "location"';
    expect(reported.map(({ error }) => error.message)).toEqual([
      `POST /notes: its "idOf" gave undefined, ${fix}`,
      `POST /notes: its "idOf" gave an object, ${fix}`,
      `POST /notes: its "idOf" gave null, ${fix}`,
      'no slug',
    ]);
    expect(reported.every(({ info }) => info.status === 201 && info.request.url === '/notes')).toBe(true);
  });

  it('answers 201 without Location, and reports it, when the result has no usable id', async () => {
    const results: unknown[] = [{ article: { id: 1 } }, { _id: 'a1' }, { id: { value: 1 } }, { id: null }, 'made'];
    const articles = collection('articles', { body: 'unvalidated', create: () => results.shift() });
    const custom = endpoint('POST', '/imports', { operation: 'create', body: 'unvalidated', handle: () => ({ job: 7 }) });
    const { client, reported } = withReports({ resources: [articles], endpoints: [custom] });
    for (let attempt = 0; attempt < 5; attempt++) {
      const created = await client.post('/articles', { body: {} });
      expect(created.status).toBe(201);
      expect(created.headers).not.toHaveProperty('location');
    }
    expect((await client.post('/imports', { body: {} })).status).toBe(201);
    const fix = 'so the 201 has no Location: give a string or number id, with the collection\'s "idOf" or the endpoint\'s "location"';
    expect(reported.map(({ error }) => error.message)).toEqual([
      `POST /articles: the created item has no "id", ${fix}`,
      `POST /articles: the created item has no "id", ${fix}`,
      `POST /articles: the created item's "id" is an object, ${fix}`,
      `POST /articles: the created item's "id" is null, ${fix}`,
      `POST /articles: the created item has no "id", ${fix}`,
      `POST /imports: the created item has no "id", ${fix}`,
    ]);
    expect(reported.every(({ info }) => info.status === 201)).toBe(true);
  });

  it('reports nothing for a create that answers nothing: there is no item to name', async () => {
    const notes = collection('notes', { body: 'unvalidated', create: () => undefined });
    const { client, reported } = withReports({ resources: [notes] });
    const created = await client.post('/notes', { body: {} });
    expect(created.status).toBe(201);
    expect(created.headers).not.toHaveProperty('location');
    expect(reported).toEqual([]);
  });
});

describe('Location of an endpoint that chooses create', () => {
  it('a submit endpoint that chooses ctx.outcome(create) sends the Location its location gives', async () => {
    const imports = endpoint('POST', '/imports', {
      body: z.object({ url: z.string() }),
      outcomes: ['create'],
      location: (result: { id: string }) => `/imports/${result.id}/status`,
      handle: (ctx) => {
        if (ctx.body.url.endsWith('.xml')) ctx.outcome('create');
        return { id: 'imp-1', url: ctx.body.url };
      },
    });
    const { client, reported } = withReports({ endpoints: [imports] });
    const created = await client.post('/imports', { body: { url: 'https://example.com/feed.xml' } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/imports/imp-1/status');
    const submitted = await client.post('/imports', { body: { url: 'https://example.com/feed.json' } });
    expect(submitted.status).toBe(200);
    expect(submitted.headers).not.toHaveProperty('location');
    expect(reported).toEqual([]);
  });
});
