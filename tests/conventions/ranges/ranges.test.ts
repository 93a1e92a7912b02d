/**
 * The `ranges` convention on restcanon/engine: without it, a GET of bytes ignores `Range` (a full
 * 200, no `Accept-Ranges`, as RFC 9110 §14.2 allows) on every adapter, and the OpenAPI document says
 * nothing of ranges; with it in `use`, the API answers ranges as restcanon's createApi does, and
 * documents them alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi as createFullApi, endpoint, type ApiRequest, type ApiResponse, type Endpoint } from '../../../src/index.js';
import { cors, createApi, createEndpointHandler, events, ranges, type Convention } from '../../../src/engine.js';
import { createOpenApiDocument } from '../../../src/openapi/index.js';
import { createSettings } from '../../../src/core/settings.js';
import type { MountedServer } from '../../adapters/conformance.js';
import { SILENT_MOUNTS } from '../../adapters/mounts.js';
import { request } from '../../helpers/raw-answer.js';
import { expectProblem } from '../../helpers/problem.js';

const BODY = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(4);
const info = { title: 'Files', version: '1.0.0' };

function endpoints() {
  return [
    endpoint('GET', '/file', {
      produces: ['text/plain'],
      handle: (ctx) => {
        ctx.set('etag', '"v1"');
        return BODY;
      },
    }),
    endpoint('GET', '/blob', { produces: ['application/octet-stream'], handle: () => new Blob([BODY]) }),
    endpoint('GET', '/mixed', { produces: ['text/plain', 'text/event-stream'], handle: () => BODY }),
    endpoint('GET', '/json', { handle: () => ({ body: BODY }) }),
  ];
}

/** What a client sees of an answer: status, the headers that ranges decide, the body's bytes. */
async function seen(response: ApiResponse) {
  const { headers } = response;
  let body = response.payload === undefined ? '' : Buffer.from(response.payload).toString();
  if (response.stream !== undefined) for await (const chunk of response.stream) body += Buffer.from(chunk).toString();
  return {
    status: response.status,
    'accept-ranges': headers['accept-ranges'],
    'content-range': headers['content-range'],
    'content-length': headers['content-length'],
    'content-type': String(headers['content-type']).replace(/boundary=.+$/, 'boundary=B'),
    // A multipart boundary and a problem's instance are new on every answer.
    body: body.replace(/--[0-9a-zA-Z_-]{8,}/g, '--B').replace(/"instance":"[^"]*"/, '"instance":"ID"'),
  };
}

const CASES: ApiRequest['headers'][] = [
  {},
  { range: 'bytes=10-19' },
  { range: 'bytes=0-2,100-109' },
  { range: 'bytes=1000-' },
  { range: 'bytes=0-0', 'if-range': '"v0"' },
  { range: 'bytes=0-0', 'if-range': '"v1"' },
];

describe('an API from restcanon/engine without ranges', () => {
  const api = createApi({ naming: 'off', endpoints: endpoints(), use: [events] });

  it('a GET of bytes with Range: bytes=10-19 is answered 200 with the whole body and no Accept-Ranges', async () => {
    for (const headers of CASES) {
      for (const url of ['/file', '/blob']) {
        const answer = await seen(await api.handle({ method: 'GET', url, headers }));
        expect(answer, `${url} ${JSON.stringify(headers)}`).toEqual({ status: 200, 'accept-ranges': undefined, 'content-range': undefined, 'content-length': String(BODY.length), 'content-type': url === '/file' ? 'text/plain; charset=utf-8' : 'application/octet-stream', body: BODY });
      }
    }
  });

  it('a Range past the end (bytes=1000-) is no 416: the whole body is answered', async () => {
    const response = await api.handle({ method: 'GET', url: '/file', headers: { range: 'bytes=1000-' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-range']).toBeUndefined();
  });

  it('its OpenAPI document has no Range or If-Range parameter, no 206 and no 416', () => {
    const document = createOpenApiDocument(api, { info });
    const text = JSON.stringify(document);
    expect(text).not.toMatch(/"Range"|If-Range|multipart\/byteranges/);
    for (const item of Object.values(document.paths)) expect(Object.keys(item.get!.responses)).not.toContain('206');
    for (const item of Object.values(document.paths)) expect(Object.keys(item.get!.responses)).not.toContain('416');
  });
});

describe('an API from restcanon/engine with ranges in use', () => {
  const lean = createApi({ naming: 'off', endpoints: endpoints(), use: [ranges, events] });
  const full = createFullApi({ naming: 'off', endpoints: endpoints() });

  it('answers every Range as restcanon’s createApi does: 206, multipart/byteranges, 416, If-Range', async () => {
    const got = [];
    for (const headers of CASES) {
      for (const url of ['/file', '/blob', '/mixed', '/json']) {
        const answer = await seen(await lean.handle({ method: 'GET', url, headers }));
        expect(answer, `${url} ${JSON.stringify(headers)}`).toEqual(await seen(await full.handle({ method: 'GET', url, headers })));
        if (url === '/file') got.push(answer);
      }
    }
    expect(got.map((answer) => answer.status)).toEqual([200, 206, 206, 416, 200, 206]);
    expect(got[0]!['accept-ranges']).toBe('bytes');
    expect(got[1]).toMatchObject({ 'content-range': `bytes 10-19/${BODY.length}`, body: BODY.slice(10, 20) });
    expect(got[2]!['content-type']).toBe('multipart/byteranges; boundary=B');
  });

  it('a Range past the end is the 416 RC_RANGE_NOT_SATISFIABLE with Content-Range: bytes */<length>', async () => {
    const response = await lean.handle({ method: 'GET', url: '/file', headers: { range: 'bytes=1000-' } });
    expectProblem(response, { status: 416, code: 'RC_RANGE_NOT_SATISFIABLE' });
    expect(response.headers['content-range']).toBe(`bytes */${BODY.length}`);
  });

  it('a string answered as server-sent events on an endpoint that produces text/plain too is never cut', async () => {
    const response = await lean.handle({ method: 'GET', url: '/mixed', headers: { accept: 'text/event-stream', range: 'bytes=0-0' } });
    expect(await seen(response)).toMatchObject({ status: 200, 'accept-ranges': undefined, 'content-range': undefined, body: BODY });
  });

  it('its OpenAPI document is the one restcanon’s createApi gives', () => {
    const document = createOpenApiDocument(lean, { info });
    expect(document).toEqual(createOpenApiDocument(full, { info }));
    expect(document.paths['/file']!.get!.parameters!.map((parameter) => parameter.name)).toEqual(['Range', 'If-Range']);
    expect(Object.keys(document.paths['/file']!.get!.responses)).toEqual(expect.arrayContaining(['200', '206', '416']));
  });

  it('a 416 is declared by the convention: not reported as an undeclared status', async () => {
    const reports: unknown[] = [];
    const api = createApi({ naming: 'off', endpoints: endpoints(), use: [ranges, events], onError: (error) => reports.push(error) });
    expect((await api.handle({ method: 'GET', url: '/file', headers: { range: 'bytes=1000-' } })).status).toBe(416);
    expect(reports).toEqual([]);
  });

  it('a page of another origin may read Accept-Ranges and Content-Range of a 206 under CORS; without ranges, neither is exposed', async () => {
    const origin = 'https://app.example';
    const exposed = async (use: readonly Convention[]) => {
      const api = createApi({ naming: 'off', cors: { origins: [origin] }, endpoints: endpoints(), use: [cors, events, ...use] });
      const response = await api.handle({ method: 'GET', url: '/file', headers: { origin, range: 'bytes=0-0' } });
      return { status: response.status, exposed: String(response.headers['access-control-expose-headers']).split(', ') };
    };
    const withRanges = await exposed([ranges]);
    expect(withRanges.status).toBe(206);
    expect(withRanges.exposed).toEqual(expect.arrayContaining(['Accept-Ranges', 'Content-Range', 'Content-Disposition']));
    const without = await exposed([]);
    expect(without.status).toBe(200);
    expect(without.exposed).toContain('Content-Disposition');
    expect(without.exposed).not.toContain('Accept-Ranges');
    expect(without.exposed).not.toContain('Content-Range');
  });

  it('createEndpointHandler takes it too', async () => {
    const [file] = endpoints();
    expect((await createEndpointHandler(file!)({ method: 'GET', url: '/file', headers: { range: 'bytes=0-0' } }, {})).status).toBe(200);
    expect((await createEndpointHandler(file!, { use: [ranges] })({ method: 'GET', url: '/file', headers: { range: 'bytes=0-0' } }, {})).status).toBe(206);
  });
});

describe('what the ranges convention adds to an endpoint', () => {
  const build = { template: '/x', settings: createSettings({}), where: 'GET /x' };
  const parts = (definition: Endpoint) => ranges.endpoint!(definition, undefined, build);

  it('nothing to a JSON endpoint, to a POST of bytes or to a stream of events: their requests pay nothing for it', () => {
    expect(parts(endpoint('GET', '/x', { handle: () => ({}) }))).toBeUndefined();
    expect(parts(endpoint('GET', '/x', { produces: ['application/json'], handle: () => ({}) }))).toBeUndefined();
    expect(parts(endpoint('POST', '/x', { produces: ['application/pdf'], handle: () => new Uint8Array() }))).toBeUndefined();
    expect(parts(endpoint('GET', '/x', { produces: ['text/event-stream'], handle: () => 'data: 1\n\n' }))).toBeUndefined();
  });

  it('a byte hook and the 416 it may answer to a GET of bytes', () => {
    expect(parts(endpoint('GET', '/x', { produces: ['application/pdf'], handle: () => new Uint8Array() }))).toEqual({ bytes: expect.any(Function), statuses: [416] });
  });

  it('endpoint() refuses conventions: { ranges }, naming produces', () => {
    expect(() => endpoint('GET', '/x', { produces: ['application/pdf'], conventions: { ranges: {} }, handle: () => new Uint8Array() })).toThrow('"conventions" cannot declare "ranges": ask for it through "produces" (a GET of bytes answers Range)');
  });
});

for (const [name, mount] of Object.entries(SILENT_MOUNTS)) {
  describe(`restcanon/engine without ranges on ${name}`, () => {
    let server: MountedServer;
    beforeAll(async () => {
      server = await mount(createApi({ naming: 'off', endpoints: endpoints(), use: [events] }), {});
    });
    afterAll(() => server.close());

    it('a GET of bytes with Range: bytes=10-19 (or bytes=1000-) gets the whole body with 200 and no Accept-Ranges', async () => {
      for (const headers of CASES) {
        const answer = await request(server.baseUrl, '/file', { headers: headers as Record<string, string> });
        expect(answer.status).toBe(200);
        expect(answer.headers['accept-ranges']).toBeUndefined();
        expect(answer.headers['content-range']).toBeUndefined();
        expect(answer.headers['content-length']).toBe(String(BODY.length));
        expect(answer.body.toString()).toBe(BODY);
      }
    });
  });
}
