/**
 * Declared errors: an endpoint names the domain errors its handler throws, its route lists them, and
 * a thrown 4xx it does not declare is still answered but reported once, outside production.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { collection, ConflictError, createApi, endpoint, GoneError, NotFoundError, type DeclaredErrors, type ErrorInfo } from '../../src/index.js';

const signup = (errors: DeclaredErrors = {}) =>
  endpoint('POST', '/accounts', {
    body: z.object({ email: z.string() }),
    errors,
    handle: (ctx) => {
      if (ctx.body.email === 'taken@example.com') throw new ConflictError('An account with this email exists');
      if (ctx.body.email === 'old@example.com') throw new GoneError();
      return { email: ctx.body.email };
    },
  });
const post = (email: string) => ({ method: 'POST', url: '/accounts', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('declared errors', () => {
  it('join the route\'s outcomes, and are answered as thrown', async () => {
    const reports: unknown[] = [];
    const api = createApi({ endpoints: [signup({ conflict: 'An account with this email exists', gone: { description: 'The invitation was used' } })], onError: (error) => reports.push(error) });
    expect(api.routes[0]!.outcomes).toEqual(expect.arrayContaining(['conflict', 'gone']));
    const response = await api.handle(post('taken@example.com'));
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ type: 'about:blank', title: 'Conflict', status: 409, code: 'RC_CONFLICT', detail: 'An account with this email exists', instance: expect.any(String) });
    expect(reports).toEqual([]);
  });

  it('an undeclared 4xx is answered the same, and reported once per endpoint and status', async () => {
    const reports: [unknown, ErrorInfo][] = [];
    const api = createApi({ endpoints: [signup({ gone: 'The invitation was used' })], onError: (error, info) => reports.push([error, info]) });
    for (let round = 0; round < 3; round++) expect((await api.handle(post('taken@example.com'))).status).toBe(409);
    expect(reports).toHaveLength(1);
    expect(String((reports[0]![0] as Error).message)).toBe('POST /accounts answered 409 (RC_CONFLICT), which it does not declare: add it to the endpoint\'s "errors" (or, when an extension throws it, to the extension\'s "outcomes") so that its documentation lists it');
    expect(reports[0]![1]).toMatchObject({ status: 409, requestId: expect.stringMatching(/^urn:uuid:/) });
    // A 404 of a read is the operation's own outcome: nothing to declare.
    const read = createApi({ endpoints: [endpoint('GET', '/accounts/:id', { handle: () => { throw new NotFoundError(); } })], onError: (error, info) => reports.push([error, info]) });
    expect((await read.handle({ method: 'GET', url: '/accounts/1' })).status).toBe(404);
    expect(reports).toHaveLength(1);
  });

  it('is not reported in production', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    const reports: unknown[] = [];
    const api = createApi({ endpoints: [signup()], onError: (error) => reports.push(error) });
    expect((await api.handle(post('taken@example.com'))).status).toBe(409);
    expect(reports).toEqual([]);
  });

  it('are checked at definition time', () => {
    expect(() => signup({ conflicted: 'x' } as never)).toThrow(/"errors" takes error outcomes .*got "conflicted"/);
    expect(() => signup({ conflict: { description: 'x', shape: z.object({}) } } as never)).toThrow(/`shape` is not an option/);
    expect(() => signup({ conflict: { schema: 'no' } } as never)).toThrow(/the schema of the declared error "conflict"/);
  });
});

describe('a collection operation', () => {
  it('declares its errors and outcomes in object form, checked like an endpoint\'s', async () => {
    const articles = collection('articles', {
      body: z.object({ title: z.string() }),
      create: {
        errors: { conflict: 'An article with this title exists' },
        outcomes: ['accepted'],
        handle: (ctx) => {
          if (ctx.body.title === 'taken') throw new ConflictError();
          ctx.outcome('accepted');
          return { id: 1, ...ctx.body };
        },
      },
    });
    const reports: unknown[] = [];
    const api = createApi({ resources: [articles], onError: (error) => reports.push(error) });
    expect(api.routes[0]!.outcomes).toEqual(expect.arrayContaining(['accepted', 'conflict']));
    const post = (title: string) => api.handle({ method: 'POST', url: '/articles', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
    expect((await post('taken')).status).toBe(409);
    expect((await post('fresh')).status).toBe(202);
    expect(reports).toEqual([]);
    expect(() => collection('articles', { body: z.object({}), create: { errors: { conflicts: 'x' } as never, handle: () => ({}) } })).toThrow(/"errors" takes error outcomes/);
  });
});
