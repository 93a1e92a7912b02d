/**
 * `api.respond`, the contract every adapter is written against (this package's four, and one of
 * yours): the response itself when every step was synchronous, a promise when one waited, and
 * undefined for a path the API does not serve only when asked to pass it on.
 */
import { describe, expect, it } from 'vitest';
import { createApi, endpoint, type ApiResponse } from '../../src/index.js';

const api = createApi({
  endpoints: [
    endpoint('GET', '/now', { handle: (ctx) => ({ accept: ctx.headers.accept }) }),
    endpoint('GET', '/later', { handle: async () => ({ waited: true }) }),
  ],
});

describe('api.respond', () => {
  it('answers a request whose every step is synchronous without a promise', () => {
    const answer = api.respond({ method: 'GET', url: '/now' });
    expect(answer).not.toBeInstanceOf(Promise);
    expect((answer as ApiResponse).status).toBe(200);
  });

  it('answers with a promise once a step waits', async () => {
    const answer = api.respond({ method: 'GET', url: '/later' });
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toMatchObject({ status: 200, body: { waited: true } });
  });

  it("gives a path the API does not serve its 404, or undefined with unmatched: 'pass'", () => {
    expect((api.respond({ method: 'GET', url: '/elsewhere' }) as ApiResponse).status).toBe(404);
    expect(api.respond({ method: 'GET', url: '/elsewhere' }, { unmatched: 'pass' })).toBeUndefined();
    expect((api.respond({ method: 'GET', url: '/now' }, { unmatched: 'pass' }) as ApiResponse).status).toBe(200);
  });

  it('lowers header names unless told they are lower case already', () => {
    const lowered = api.respond({ method: 'GET', url: '/now', headers: { Accept: 'application/json' } }) as ApiResponse;
    expect(lowered.body).toEqual({ accept: 'application/json' });
    const trusted = api.respond({ method: 'GET', url: '/now', headers: { Accept: 'application/json' } }, { lowerCaseHeaders: true }) as ApiResponse;
    expect(trusted.body).toEqual({});
  });

  it('gives every response headers of its own, which the adapter may add to', () => {
    const first = api.respond({ method: 'GET', url: '/now' }) as ApiResponse;
    first.headers['content-length'] = '1';
    expect((api.respond({ method: 'GET', url: '/now' }) as ApiResponse).headers).not.toHaveProperty('content-length');
  });
});
