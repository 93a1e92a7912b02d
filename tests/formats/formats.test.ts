import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createNegotiator, negotiate, negotiateProblem } from '../../src/formats/formats.js';
import { createApi, createStatusPolicy, endpoint, json, text, type Api, type ApiOptions, type Serializer } from '../../src/index.js';
import { xml } from '../../src/formats/xml.js';
import { expectProblem } from '../helpers/problem.js';

/** A user-registered format, written against the public `Serializer` interface only. */
const csv: Serializer = {
  type: 'text/csv',
  contentType: 'text/csv; charset=utf-8',
  serialize: (value) => {
    const rows = (Array.isArray(value) ? value : [value]) as Record<string, unknown>[];
    const columns = Object.keys(rows[0] ?? {});
    return [columns.join(','), ...rows.map((row) => columns.map((column) => String(row[column])).join(','))].join('\n');
  },
};

const USERS = [
  { id: 7, name: 'Ada' },
  { id: 8, name: 'Grace' },
];

function apiWith(formats: readonly Serializer[], options: Omit<ApiOptions, 'formats' | 'endpoints'> = {}): Api {
  return createApi({
    ...options,
    formats,
    endpoints: [
      endpoint('GET', '/users', { operation: 'list', handle: () => USERS }),
      endpoint('GET', '/users/:id', { params: { id: z.coerce.number() }, handle: (ctx) => USERS.find((user) => user.id === ctx.params.id) }),
      endpoint('POST', '/users', { operation: 'create', body: z.object({ name: z.string() }), handle: (ctx) => ({ id: 9, ...ctx.body }) }),
      endpoint('GET', '/counters', { handle: () => ({ count: 1n }) }),
    ],
  });
}

// A host's request id, so that a problem's bytes are known in full.
const get = (api: Api, url: string, accept?: string) => api.handle({ method: 'GET', url, headers: accept === undefined ? {} : { accept }, id: 'req-1' });

describe('negotiate', () => {
  it.each([
    [undefined, [json, text], json],
    ['', [json, text], json],
    ['*/*', [text, json], text],
    ['text/plain', [json, text], text],
    ['text/plain;q=0.5, application/json', [json, text], json],
    ['application/json;q=0.2, text/plain;q=0.9', [json, text], text],
    ['text/*', [json, text], text],
    ['text/*;q=0, */*', [text, json], json],
    ['*/*;q=0.1, application/xml', [json, xml], xml],
    ['application/json, text/plain', [text, json], text],
    ['APPLICATION/JSON', [text, json], json],
    ['application/json ; q=0.4 ,\ttext/plain ; q=0.3', [text, json], json],
    [' , text/plain, ', [json, text], text],
  ] as const)('Accept %j → the right format', (accept, formats, expected) => {
    expect(negotiate(accept, formats)).toBe(expected);
  });

  it.each([
    'not a media range',
    'application/json;q=abc',
    'application/json;q=2',
    'application/json ; q=0.4 ,\ttext/plain ; q = 0.3',
    'application/json;x="a, text/plain',
  ])('Accept %j does not follow the grammar: ignored, the first format', (accept) => {
    expect(negotiate(accept, [text, json])).toBe(text);
  });

  it.each([
    ['image/png', [json, text]],
    ['application/json;q=0', [json]],
    ['text/*;q=0.5, text/plain;q=0', [text]],
    ['application/*+json', [json]],
  ] as const)('Accept %j → nothing acceptable', (accept, formats) => {
    expect(negotiate(accept, formats)).toBeUndefined();
  });

  it('matches a serializer whose type is written in capitals', () => {
    const shouting: Serializer = { ...csv, type: 'Text/CSV' };
    expect(negotiate('text/csv', [json, shouting])).toBe(shouting);
  });
});

describe('negotiateProblem', () => {
  it.each([
    [undefined, json],
    ['application/xml', xml],
    ['application/problem+xml', xml],
    ['application/xml;q=1, application/json;q=0.5', xml],
    ['application/xml, application/json', json],
    ['text/plain', json],
    ['image/png', json],
    ['application/xml;q=0', json],
    ['application/problem+xml;q=0, */*;q=0.1', json],
  ] as const)('Accept %j → %s', (accept, expected) => {
    expect(negotiateProblem(accept, [json, text, xml])).toBe(expected);
  });

  it('a format that cannot write problems is never chosen for them', () => {
    expect(negotiateProblem('text/csv', [csv, json])).toBe(json);
  });
});

describe('createNegotiator', () => {
  it('gives the same answers as negotiate and negotiateProblem, twice', () => {
    const negotiator = createNegotiator([json, text, xml]);
    for (let round = 0; round < 2; round++) {
      expect(negotiator.content('text/plain')).toBe(text);
      expect(negotiator.content('image/png')).toBeUndefined();
      expect(negotiator.content(undefined)).toBe(json);
      expect(negotiator.problem('application/xml')).toBe(xml);
      expect(negotiator.problem(undefined)).toBe(json);
    }
  });
});

describe('responses in the negotiated format', () => {
  const api = apiWith([json, text, xml]);

  it('JSON by default, with Vary: Accept when there is more than one format', async () => {
    const response = await get(api, '/users/7');
    expect(response.status).toBe(200);
    expect(response.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', vary: 'Accept' });
    expect(response.payload).toBe('{"id":7,"name":"Ada"}');
  });

  it('plain text', async () => {
    const response = await get(api, '/users/7', 'text/plain');
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.payload).toBe('{"id":7,"name":"Ada"}');
  });

  it('XML, arrays as repeated <item>', async () => {
    const response = await get(api, '/users', 'application/xml');
    expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(response.payload).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><result><item><id>7</id><name>Ada</name></item><item><id>8</id><name>Grace</name></item></result>',
    );
  });

  it('q-values decide', async () => {
    expect((await get(api, '/users/7', 'application/xml;q=0.5, text/plain;q=0.8')).headers['content-type']).toBe('text/plain; charset=utf-8');
    expect((await get(api, '/users/7', 'text/*;q=0.1, */*;q=0.9')).headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('nothing acceptable is a 406 that lists what is available', async () => {
    const response = await get(api, '/users/7', 'image/png');
    expect(response.status).toBe(406);
    expect(response.headers).toEqual({ 'content-type': 'application/problem+json; charset=utf-8', vary: 'Accept' });
    expect(response.body).toMatchObject({ code: 'RC_NOT_ACCEPTABLE', detail: 'Available: application/json, text/plain, application/xml' });
  });

  it("createStatusPolicy({ unacceptable: 'json' }) sends JSON instead of a 406", async () => {
    const lenient = apiWith([json, text], { policy: createStatusPolicy({ unacceptable: 'json' }) });
    const response = await get(lenient, '/users/7', 'image/png');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('one format: no Vary, and another type is a 406', async () => {
    const jsonOnly = apiWith([json]);
    const response = await get(jsonOnly, '/users/7');
    expect(response.headers.vary).toBeUndefined();
    expect((await get(jsonOnly, '/users/7', 'text/plain')).status).toBe(406);
  });

  it('a result the serializer cannot write is a 500 that says nothing of why', async () => {
    const reported: unknown[] = [];
    const response = await get(apiWith([json, text, xml], { onError: (error) => reported.push(error) }), '/counters');
    expect(response.status).toBe(500);
    expect(String(response.payload)).not.toMatch(/bigint/i);
    // The server's report says why.
    expect(reported).toEqual([expect.objectContaining({ name: 'TypeError', message: expect.stringMatching(/BigInt/) })]);
  });
});

describe('error bodies follow negotiation', () => {
  const api = apiWith([json, text, xml]);

  it('application/problem+json by default, and for a client that takes only text', async () => {
    for (const accept of [undefined, 'application/json', 'text/plain']) {
      // expectProblem reads the payload too: it must be the body, as JSON.
      expectProblem(await get(api, '/users/404', accept), { status: 404, code: 'RC_NOT_FOUND', exact: true });
    }
  });

  it('application/problem+xml for a client that accepts only XML', async () => {
    const response = await get(api, '/users/404', 'application/xml');
    expect(response.status).toBe(404);
    expect(response.headers).toEqual({ 'content-type': 'application/problem+xml; charset=utf-8', vary: 'Accept' });
    expect(response.payload).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><problem xmlns="urn:ietf:rfc:7807"><type>about:blank</type><title>Not Found</title><status>404</status><code>RC_NOT_FOUND</code><instance>req-1</instance></problem>',
    );
  });

  it('a 406 for a client that asks only for problem+xml is written in XML', async () => {
    const response = await get(api, '/users/7', 'application/problem+xml');
    expect(response.status).toBe(406);
    expect(response.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
  });

  it('every validation issue, as RFC 9457 <i> elements', async () => {
    const response = await api.handle({ method: 'POST', url: '/users', headers: { accept: 'application/xml', 'content-type': 'application/json' }, body: '{"name":5}', id: 'req-1' });
    expect(response.status).toBe(400);
    expect(response.payload).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><problem xmlns="urn:ietf:rfc:7807"><type>about:blank</type><title>Bad Request</title><status>400</status><code>RC_INVALID_INPUT</code><detail>The request has 1 invalid value</detail><instance>req-1</instance><errors><i><in>body</in><pointer>#/name</pointer><detail>must be a string</detail></i></errors></problem>',
    );
  });
});

describe('a user-registered serializer (CSV)', () => {
  const api = apiWith([json, csv]);

  it('answers a client that asks for it', async () => {
    const response = await get(api, '/users', 'text/csv');
    expect(response.status).toBe(200);
    expect(response.headers).toEqual({ 'content-type': 'text/csv; charset=utf-8', vary: 'Accept' });
    expect(response.payload).toBe('id,name\n7,Ada\n8,Grace');
  });

  it('201 + Location in CSV too', async () => {
    const response = await api.handle({ method: 'POST', url: '/users', headers: { accept: 'text/csv', 'content-type': 'application/json' }, body: '{"name":"Lin"}' });
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe('/users/9');
    expect(response.payload).toBe('id,name\n9,Lin');
  });

  it('errors fall back to problem+json, since it cannot write problems', async () => {
    const response = await get(api, '/users/404', 'text/csv');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });
});
