/**
 * Handlers shape a success answer within the policy: headers with `ctx.set`, another declared
 * success outcome with `ctx.outcome`; an error is never chosen, and what a handler set never rides
 * on an error.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, ConflictError, createApi, createStatusPolicy, endpoint, json, text, type Endpoint } from '../../src/index.js';
import { createTestContext } from '../../src/testing.js';

const reports: unknown[] = [];
const onError = (error: unknown) => reports.push(error);

describe('ctx.set', () => {
  const users = [{ id: 1, name: 'Ada' }, { id: 2, name: 'Grace' }];
  const api = createApi({
    onError,
    formats: [json, text],
    endpoints: [
      endpoint('GET', '/users', {
        operation: 'list',
        handle: (ctx) => {
          ctx.set('X-Total-Count', String(users.length));
          ctx.set('Link', '</users?page=2>; rel="next"');
          ctx.set('Vary', 'Origin');
          return users;
        },
      }),
      endpoint('GET', '/reports', { handle: (ctx) => { ctx.set('Cache-Control', 'public, max-age=60'); throw new ConflictError('not yet'); } }),
      endpoint('GET', '/framing', { handle: (ctx) => { ctx.set('Content-Type', 'text/html'); return {}; } }),
      endpoint('GET', '/splitting', { handle: (ctx) => { ctx.set('X-Note', 'a\r\nSet-Cookie: x=1'); return {}; } }),
    ],
  });

  it('adds headers to the success answer, lower-cased; Vary joins restcanon\'s', async () => {
    const response = await api.handle({ method: 'GET', url: '/users' });
    expect(response.status).toBe(200);
    expect(response.headers).toEqual({
      'x-total-count': '2',
      link: '</users?page=2>; rel="next"',
      vary: 'Origin, Accept',
      'content-type': 'application/json; charset=utf-8',
    });
  });

  it('never sends what a handler set with an error', async () => {
    const response = await api.handle({ method: 'GET', url: '/reports' });
    expect(response.status).toBe(409);
    expect(response.headers['cache-control']).toBeUndefined();
  });

  it('refuses the framing headers and values that could split the answer: a masked 500, reported', async () => {
    for (const url of ['/framing', '/splitting']) {
      reports.length = 0;
      const response = await api.handle({ method: 'GET', url });
      expect(response.status).toBe(500);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(JSON.stringify(response)).not.toMatch(/text\/html|Set-Cookie/);
      expect(String((reports[0] as Error).message)).toMatch(/ctx\.set/);
    }
  });
});

describe('ctx.outcome', () => {
  const jobs = new Map<number, { id: number; state: string }>();
  const api = createApi({
    onError,
    endpoints: [
      endpoint('POST', '/exports', {
        body: z.object({ format: z.string() }),
        outcomes: ['accepted'],
        handle: (ctx) => {
          const job = { id: jobs.size + 1, state: 'queued' };
          jobs.set(job.id, job);
          ctx.set('Location', `/exports/${job.id}`);
          ctx.outcome('accepted');
          return job;
        },
      }),
      endpoint('POST', '/imports', { body: 'unvalidated', handle: (ctx) => { ctx.outcome('accepted'); return {}; } }),
    ],
  });

  it('answers a declared outcome with the status the policy gives it, headers and body', async () => {
    const response = await api.handle({ method: 'POST', url: '/exports', headers: { 'content-type': 'application/json' }, body: '{"format":"csv"}' });
    expect(response.status).toBe(202);
    expect(response.headers.location).toBe('/exports/1');
    expect(response.body).toEqual({ id: 1, state: 'queued' });
    expect(api.routes.find((route) => route.path === '/exports')!.outcomes).toContain('accepted');
  });

  it('an undeclared outcome is a masked 500 that says what to declare', async () => {
    reports.length = 0;
    const response = await api.handle({ method: 'POST', url: '/imports', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(500);
    expect(String((reports[0] as Error).message)).toMatch(/declare it in "outcomes"/);
  });

  it('follows the policy, and a collection operation chooses the same way', async () => {
    const policy = createStatusPolicy({ accepted: 200 });
    const shaped = createApi({ policy, endpoints: [endpoint('POST', '/exports', { body: 'unvalidated', outcomes: ['accepted'], handle: (ctx) => { ctx.outcome('accepted'); return { ok: true }; } })] });
    expect((await shaped.handle({ method: 'POST', url: '/exports', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    const notes = collection('notes', { read: (ctx) => { ctx.set('ETag', '"v1"'); return { id: ctx.params.id }; } });
    const read = await createApi({ resources: [notes] }).handle({ method: 'GET', url: '/notes/1' });
    expect(read.headers.etag).toBe('"v1"');
  });

  it('a chosen outcome with a result of undefined is that outcome without a body, never a 404: PUT /flags/:name choosing empty answers 204', async () => {
    const flags = new Map<string, boolean>();
    const chosen = (outcome: 'empty' | 'accepted' | 'create' | 'replace') =>
      endpoint('PUT', `/flags-${outcome}/:name`, {
        body: z.object({ on: z.boolean() }),
        outcomes: [outcome],
        handle: (ctx) => {
          flags.set(ctx.params.name, ctx.body.on);
          ctx.outcome(outcome);
        },
      });
    const endpoints: Endpoint[] = [
      ...(['empty', 'accepted', 'create', 'replace'] as const).map(chosen),
      endpoint('GET', '/snapshots/:id', { outcomes: ['notModified'], handle: (ctx) => { ctx.outcome('notModified'); } }),
      endpoint('DELETE', '/logins/:id', { outcomes: ['accepted'], handle: (ctx) => { ctx.outcome('accepted'); return null; } }),
      // Without a choice an item's missing result is still a 404, and remove's false still says "no such item".
      endpoint('PUT', '/flags/:name', { body: z.object({ on: z.boolean() }), handle: () => undefined }),
      endpoint('DELETE', '/tokens/:id', { outcomes: ['accepted'], handle: (ctx) => { ctx.outcome('accepted'); return false; } }),
    ];
    const api = createApi({ onError, endpoints });
    const put = (url: string) => api.handle({ method: 'PUT', url, headers: { 'content-type': 'application/json' }, body: '{"on":true}' });
    const expected = { empty: 204, accepted: 202, create: 201, replace: 200 };
    for (const [outcome, status] of Object.entries(expected)) {
      const response = await put(`/flags-${outcome}/beta`);
      expect({ outcome, status: response.status, body: response.body, payload: response.payload }).toEqual({ outcome, status, body: undefined, payload: undefined });
    }
    expect(flags.get('beta')).toBe(true);
    expect((await api.handle({ method: 'GET', url: '/snapshots/1' })).status).toBe(304);
    expect((await api.handle({ method: 'DELETE', url: '/logins/1' })).status).toBe(202);
    expect((await put('/flags/beta')).status).toBe(404);
    expect((await api.handle({ method: 'DELETE', url: '/tokens/1' })).status).toBe(404);
  });

  it('a collection read that loads the item and chooses empty with nothing answers 204, not 404', async () => {
    const notes = collection('notes', {
      etag: () => '"v1"',
      read: { outcomes: ['empty'], handle: (ctx) => { ctx.outcome('empty'); return undefined; } },
    });
    const response = await createApi({ resources: [notes] }).handle({ method: 'GET', url: '/notes/1' });
    expect(response.status).toBe(204);
    expect(response.headers.etag).toBeUndefined();
  });

  it('is refused at definition time for an error, options, or notModified off GET', () => {
    expect(() => endpoint('POST', '/exports', { outcomes: ['conflict' as never], handle: () => ({}) })).toThrow(/errors are thrown and declared in "errors"/);
    expect(() => endpoint('POST', '/exports', { outcomes: ['options' as never], handle: () => ({}) })).toThrow(/"outcomes" takes success outcomes/);
    expect(() => endpoint('POST', '/exports', { outcomes: ['notModified'], handle: () => ({}) })).toThrow(/only a GET endpoint may answer notModified/);
  });
});

describe('a test context', () => {
  it('records what the handler set, for unit tests', () => {
    const ctx = createTestContext();
    ctx.set('X-Total-Count', '3');
    ctx.outcome('accepted');
    expect(ctx.reply).toEqual({ headers: { 'x-total-count': '3' }, outcome: 'accepted' });
  });
});
