import { describe, expect, it } from 'vitest';
import { createApi, endpoint } from '../../src/index.js';
import { openApi } from '../../src/openapi/index.js';

const info = { title: 'Notes', version: '1.0.0' };
const notes = endpoint('GET', '/notes', { operation: 'list', handle: () => [] });

describe('openApi: the API serves its own document', () => {
  it('serves GET /openapi.json below basePath, public, listing itself below its server, the basePath', async () => {
    const api = createApi({ basePath: '/v1', endpoints: [notes], authenticate: () => undefined, openapi: openApi({ info }) });
    const response = await api.handle({ method: 'GET', url: '/v1/openapi.json' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toMatchObject({ openapi: '3.1.0', info });
    expect((response.body as { servers: unknown }).servers).toEqual([{ url: '/v1' }]);
    expect(Object.keys((response.body as { paths: object }).paths)).toEqual(['/notes', '/openapi.json']);
    expect((await api.handle({ method: 'GET', url: '/v1/notes' })).status).toBe(401);
  });

  it('can live at another path and need a caller', async () => {
    const api = createApi({ endpoints: [notes], authenticate: (request) => (request.headers?.authorization === undefined ? undefined : { token: request.headers.authorization }), openapi: openApi({ info, path: '/docs/openapi', public: false }) });
    expect((await api.handle({ method: 'GET', url: '/docs/openapi' })).status).toBe(401);
    const response = await api.handle({ method: 'GET', url: '/docs/openapi', headers: { authorization: 'Bearer x' } });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ openapi: '3.1.0' });
  });

  it('builds the document once', async () => {
    const api = createApi({ endpoints: [notes], openapi: openApi({ info }) });
    const first = await api.handle({ method: 'GET', url: '/openapi.json' });
    const second = await api.handle({ method: 'GET', url: '/openapi.json' });
    expect(second.body).toBe(first.body);
  });
});
