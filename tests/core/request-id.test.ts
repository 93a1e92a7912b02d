/**
 * A request without an id of the host's or of a trusted header makes its own `urn:uuid:` only when
 * something reads it (`ctx.id`, a problem's `instance`, a report). Whenever that happens, it is one
 * id: what a handler reads is the `instance` of the problem it fails with and the `requestId` that
 * `onError` learns, and a context made for a load on the handler's behalf carries the same one.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, ConflictError, createApi, endpoint, type ErrorInfo } from '../../src/index.js';
import { expectProblem } from '../helpers/problem.js';

const REQUEST_ID = /^urn:uuid:[0-9a-f-]{36}$/;

/** An API whose `onError` keeps the ids it learns, and the ids its handlers read. */
function recording() {
  const reported: ErrorInfo[] = [];
  const read: string[] = [];
  const api = createApi({
    onError: (_error, info) => reported.push(info),
    endpoints: [
      endpoint('GET', '/sync-crash', {
        handle: (ctx) => {
          read.push(ctx.id);
          throw new Error('the store is down');
        },
      }),
      endpoint('GET', '/async-crash', {
        handle: async (ctx) => {
          read.push(ctx.id);
          await Promise.resolve();
          throw new Error('the store is down');
        },
      }),
      endpoint('GET', '/unread-crash', {
        handle: () => {
          throw new Error('the store is down');
        },
      }),
      endpoint('GET', '/undeclared', {
        handle: () => {
          throw new ConflictError('Taken');
        },
      }),
      endpoint('GET', '/fine', { handle: (ctx) => ({ id: ctx.id }) }),
    ],
    resources: [
      collection('articles', {
        id: z.coerce.number().int(),
        body: z.object({ title: z.string() }),
        read: (ctx) => {
          read.push(ctx.id);
          return { id: 1, title: 'Draft' };
        },
        update: {
          merge: true,
          handle: (ctx) => {
            read.push(ctx.id);
            return { id: 1, ...ctx.body };
          },
        },
      }),
    ],
  });
  return { api, reported, read };
}

describe("a request's own id, made when first read", () => {
  it.each(['/sync-crash', '/async-crash'])('GET %s: the id the handler read before it failed is the 500’s instance and the reported requestId', async (url) => {
    const { api, reported, read } = recording();
    const problem = expectProblem(await api.handle({ method: 'GET', url }), { status: 500, code: 'RC_INTERNAL' });
    expect(read).toEqual([expect.stringMatching(REQUEST_ID)]);
    expect(problem.instance).toBe(read[0]);
    expect(reported.map((info) => info.requestId)).toEqual([read[0]]);
  });

  it('GET /unread-crash: a failure made the id, and the report has the instance the client got', async () => {
    const { api, reported } = recording();
    const problem = expectProblem(await api.handle({ method: 'GET', url: '/unread-crash' }), { status: 500, code: 'RC_INTERNAL' });
    expect(problem.instance).toMatch(REQUEST_ID);
    expect(reported.map((info) => info.requestId)).toEqual([problem.instance]);
  });

  it('GET /undeclared: the report of a 409 the endpoint does not declare names the instance the client got', async () => {
    const { api, reported } = recording();
    const problem = expectProblem(await api.handle({ method: 'GET', url: '/undeclared' }), { status: 409, code: 'RC_CONFLICT' });
    expect(problem.instance).toMatch(REQUEST_ID);
    expect(reported.map((info) => info.requestId)).toEqual([problem.instance]);
  });

  it('PATCH /articles/1 with a merge patch: the load on the handler’s behalf and the handler read one id', async () => {
    const { api, read } = recording();
    const response = await api.handle({ method: 'PATCH', url: '/articles/1', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"title":"Final"}' });
    expect(response.status).toBe(200);
    expect(read).toHaveLength(2);
    expect(read[0]).toMatch(REQUEST_ID);
    expect(read[1]).toBe(read[0]);
  });

  it('GET /fine twice: each request has an id of its own', async () => {
    const { api } = recording();
    const first = (await api.handle({ method: 'GET', url: '/fine' })).body as { id: string };
    const second = (await api.handle({ method: 'GET', url: '/fine' })).body as { id: string };
    expect(first.id).toMatch(REQUEST_ID);
    expect(second.id).toMatch(REQUEST_ID);
    expect(second.id).not.toBe(first.id);
  });
});
