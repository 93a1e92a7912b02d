/**
 * What a rate limit tells a client beyond its fields: the OpenAPI document of each covered
 * operation, and CORS exposing the fields to a page of another origin.
 */
import { describe, expect, it } from 'vitest';
import { createApi, endpoint } from '../../../src/index.js';
import { rateLimit } from '../../../src/conventions/rate-limit/index.js';
import { deprecation } from '../../../src/conventions/deprecation/index.js';
import { createOpenApiDocument } from '../../../src/openapi/index.js';
import { clockedStore } from './stores.js';

const APP = 'http://localhost:5173';

function api() {
  return createApi({
    cors: { origins: [APP] },
    use: [rateLimit({ policies: { default: { quota: 100, window: 60 } }, store: clockedStore({ now: 0 }) })],
    endpoints: [
      endpoint('POST', '/uploads', { body: 'ignored', conventions: { rateLimit: { uploads: { quota: 10, window: 3600, cost: 2 } } }, handle: () => ({ id: 1 }) }),
      endpoint('GET', '/health', { conventions: { rateLimit: false }, handle: () => ({ status: 'ok' }) }),
    ],
  });
}

describe('a rate limit in the OpenAPI document', () => {
  const document = createOpenApiDocument(api(), { info: { title: 'files', version: '1' } });

  it('lists the policies of a covered operation, its 429, and the fields on every answer', () => {
    const upload = document.paths['/uploads']!.post! as unknown as Record<string, unknown> & { responses: Record<string, { headers?: Record<string, unknown> }> };
    expect(upload['x-rate-limit']).toEqual([
      { name: 'default', quota: 100, window: 60, cost: 1 },
      { name: 'uploads', quota: 10, window: 3600, cost: 2 },
    ]);
    expect(upload.description).toBe('Rate limited: "default" allows 100 units per 60 seconds; "uploads" allows 10 units per 3600 seconds, 2 a request.');
    expect(Object.keys(upload.responses)).toContain('429');
    expect(upload.responses['429']!.headers!['Retry-After']).toBeDefined();
    for (const response of Object.values(upload.responses)) {
      expect(response.headers!['RateLimit-Policy']).toMatchObject({ schema: { type: 'string', const: '"default";q=100;w=60, "uploads";q=10;w=3600' } });
      expect(response.headers!.RateLimit).toBeDefined();
    }
  });

  it('leaves an exempt operation as it was', () => {
    const health = document.paths['/health']!.get! as unknown as Record<string, unknown> & { responses: Record<string, unknown> };
    expect(health['x-rate-limit']).toBeUndefined();
    expect(Object.keys(health.responses)).not.toContain('429');
  });
});

describe('CORS and the fields', () => {
  it('a page of an allowed origin may read RateLimit and RateLimit-Policy', async () => {
    const answer = await api().handle({ method: 'POST', url: '/uploads', headers: { origin: APP }, ip: '203.0.113.9' });
    expect(answer.headers['access-control-expose-headers']).toBe('ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition, RateLimit, RateLimit-Policy, Accept-Ranges, Content-Range');
    expect(answer.headers.ratelimit).toBe('"default";r=99;t=60, "uploads";r=8;t=3600');
  });

  it('with deprecation too, Deprecation and Sunset are exposed; without another module, restcanon’s own and the ranges convention’s', async () => {
    const both = createApi({ cors: { origins: [APP] }, use: [rateLimit({ policies: { default: { quota: 1, window: 1 } } }), deprecation()], endpoints: [endpoint('GET', '/a', { handle: () => [] })] });
    expect((await both.handle({ method: 'GET', url: '/a', headers: { origin: APP } })).headers['access-control-expose-headers']).toBe(
      'ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition, Deprecation, Sunset, RateLimit, RateLimit-Policy, Accept-Ranges, Content-Range',
    );
    const none = createApi({ cors: { origins: [APP] }, endpoints: [endpoint('GET', '/a', { handle: () => [] })] });
    expect((await none.handle({ method: 'GET', url: '/a', headers: { origin: APP } })).headers['access-control-expose-headers']).toBe('ETag, Location, Link, Retry-After, WWW-Authenticate, Allow, Accept-Post, Accept-Patch, Content-Disposition, Accept-Ranges, Content-Range');
  });

  it('refuses a module whose exposes are not header names', () => {
    expect(() => createApi({ use: [{ name: 'odd', exposes: ['Rate Limit'] }], endpoints: [endpoint('GET', '/a', { handle: () => [] })] })).toThrow('the module "odd" has "exposes" that are not an array of header names');
  });
});
