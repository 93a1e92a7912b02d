/**
 * `Accept` and `Content-Type` read to the grammar of RFC 9110: a comma or semicolon inside quotes is
 * text, a media range's parameters count in matching, and a malformed value never passes as a
 * well-formed one. What a user sees, in memory through `api.handle` and over real Express and Fastify
 * servers, whose own body parsers read `Content-Type` before the API does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { createApi, endpoint, json, type Api, type Serializer } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expectProblem, PROBLEM_TYPE } from '../helpers/problem.js';

/** A format of one media type, which writes what it serves as its name. */
function format(type: string): Serializer {
  return { type, contentType: type, serialize: () => type };
}

const csv = format('text/csv');
const html = format('text/html');

function readingApi(formats: readonly Serializer[]): Api {
  return createApi({ formats, endpoints: [endpoint('GET', '/report', { handle: () => ({ ok: true }) })] });
}

const read = (api: Api, accept: string) => api.handle({ method: 'GET', url: '/report', headers: { accept } });

const notes = () =>
  createApi({
    endpoints: [endpoint('POST', '/notes', { operation: 'create', body: z.object({ text: z.string() }), handle: (ctx) => ({ id: 1, ...ctx.body }) })],
  });

const post = (api: Api, contentType: string, body = '{"text":"hello"}') => api.handle({ method: 'POST', url: '/notes', headers: { 'content-type': contentType }, body });

describe('Accept, through api.handle', () => {
  it('Accept: image/png;x="a, text/csv, b" is a 406: text/csv is inside quotes, no media range', async () => {
    const response = await read(readingApi([json, csv]), 'image/png;x="a, text/csv, b"');
    expectProblem(response, { status: 406, code: 'RC_NOT_ACCEPTABLE', detail: 'Available: application/json, text/csv', headers: { 'content-type': PROBLEM_TYPE } });
  });

  it('Accept: text/csv;q=0.1;x="a;q=1;b", application/json;q=0.5 is JSON: q=1 inside quotes is no weight', async () => {
    const response = await read(readingApi([json, csv]), 'text/csv;q=0.1;x="a;q=1;b", application/json;q=0.5');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('Accept: text/html;level=1 is a 406 from a format of plain text/html, as §12.5.1 matches parameters', async () => {
    const response = await read(readingApi([json, html]), 'text/html;level=1');
    expectProblem(response, { status: 406, code: 'RC_NOT_ACCEPTABLE', detail: 'Available: application/json, text/html', headers: { 'content-type': PROBLEM_TYPE } });
  });

  it('Accept: text/html;level=1 is served by a format whose type carries level=1', async () => {
    const level1 = format('text/html;level=1');
    const response = await read(readingApi([json, html, level1]), 'text/html;level=1');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html;level=1');
  });

  it('Accept: application/json; charset=utf-8 is JSON, whose Content-Type carries that charset; charset=utf-16 is a 406', async () => {
    const api = readingApi([json, csv]);
    const utf8 = await read(api, 'application/json; charset=UTF-8');
    expect(utf8.status).toBe(200);
    expect(utf8.headers['content-type']).toBe('application/json; charset=utf-8');
    expectProblem(await read(api, 'application/json; charset=utf-16'), { status: 406, code: 'RC_NOT_ACCEPTABLE' });
  });

  describe('the precedence example of RFC 9110 §12.5.1', () => {
    const accept = 'text/*;q=0.3, text/plain;q=0.7, text/plain;format=flowed, text/plain;format=fixed;q=0.4, */*;q=0.5';
    const served = async (formats: readonly Serializer[]) => (await read(readingApi(formats), accept)).headers['content-type'];

    it('text/plain;format=flowed (1) over image/jpeg (0.5): the range with the parameter applies, not text/* (0.3)', async () => {
      expect(await served([format('image/jpeg'), format('text/plain;format=flowed')])).toBe('text/plain;format=flowed');
    });

    it('text/plain;format=fixed (0.4) over text/html (0.3)', async () => {
      expect(await served([html, format('text/plain;format=fixed')])).toBe('text/plain;format=fixed');
    });

    it('text/plain (0.7) over image/jpeg (0.5), text/plain;format=fixed (0.4) and text/html (0.3)', async () => {
      expect(await served([html, format('text/plain;format=fixed'), format('image/jpeg'), format('text/plain')])).toBe('text/plain');
    });
  });

  describe('an Accept that does not follow the grammar is ignored: the first format answers', () => {
    it.each([
      ['Java’s default, with `*` and q=.2', 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2'],
      ['a quote left open', 'text/csv;x="a, image/png'],
      ['space around =', 'text/csv ; q = 0.3'],
      ['a weight out of range', 'text/csv;q=2'],
      ['a parameter twice', 'text/csv;q=1;q=1'],
    ])('%s: %s', async (_, accept) => {
      const response = await read(readingApi([json, csv]), accept);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    });
  });
});

describe('Content-Type, through api.handle', () => {
  const api = notes();

  it('Content-Type: application/json; charset=latin1; x="; charset=utf-8; y=" is a 415: the second charset is inside quotes', async () => {
    const response = await post(api, 'application/json; charset=latin1; x="; charset=utf-8; y="');
    expectProblem(response, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', detail: 'The body must be encoded as UTF-8', headers: { 'accept-post': 'application/json' } });
  });

  it.each([
    ['an unquoted URL', 'application/json; profile=http://localhost'],
    ['a quote left open', 'application/json; x="unterminated'],
    ['space around =', 'application/json; charset = utf-8'],
    ['text after a closing quote', 'application/json; x="a"b'],
    ['a parameter with no value', 'application/json; charset'],
    ['a charset given twice', 'application/json; charset=utf-8; charset=utf-8'],
    ['two media types', 'application/json, application/json'],
  ])('a Content-Type with %s (%s) is a 415 that says it is malformed', async (_, contentType) => {
    const response = await post(api, contentType);
    expectProblem(response, {
      status: 415,
      code: 'RC_UNSUPPORTED_MEDIA_TYPE',
      detail: 'The Content-Type is malformed',
      headers: { 'content-type': PROBLEM_TYPE, 'accept-post': 'application/json' },
      exact: true,
    });
  });

  it.each([
    'application/json; profile="http://localhost"',
    'application/json;;charset=utf-8;',
    'application/json; x="a;b, c\\"d"; charset="UTF-8"',
    'Application/JSON\t;\tcharset=utf8',
  ])('Content-Type: %s is JSON', async (contentType) => {
    const response = await post(api, contentType);
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ id: 1, text: 'hello' });
  });
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

async function send(server: MountedServer, contentType: string): Promise<Answer> {
  const response = await fetch(`${server.baseUrl}/notes`, { method: 'POST', headers: { 'content-type': contentType }, body: '{"text":"hello"}' });
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
}

/** Where the host's own parser reads Content-Type first: behind express.json(), and Fastify's content-type parsing. */
const SERVERS: ReadonlyArray<[string, (api: Api) => Promise<MountedServer>]> = [
  ...[['express 5', express5] as const, ['express 4', express4 as unknown as typeof express5] as const].map(
    ([name, express]) =>
      [
        `${name} behind express.json()`,
        (api: Api) => {
          const app = express();
          app.use(express.json());
          app.use(toExpress(api));
          return listen(http.createServer(app));
        },
      ] as [string, (api: Api) => Promise<MountedServer>],
  ),
  [
    'fastify',
    async (api) => {
      const app = Fastify({ forceCloseConnections: true });
      await app.register(toFastify(api));
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
    },
  ],
];

describe.each(SERVERS)('Content-Type over %s', (_, mount) => {
  let server: MountedServer;
  beforeAll(async () => {
    server = await mount(notes());
  });
  afterAll(() => server.close());

  it('application/json; profile=http://localhost is the API’s 415 problem', async () => {
    expectProblem(await send(server, 'application/json; profile=http://localhost'), {
      status: 415,
      code: 'RC_UNSUPPORTED_MEDIA_TYPE',
      detail: 'The Content-Type is malformed',
      headers: { 'accept-post': 'application/json' },
    });
  });

  it('application/json; charset=latin1; x="; charset=utf-8; y=" is the API’s 415 problem', async () => {
    expectProblem(await send(server, 'application/json; charset=latin1; x="; charset=utf-8; y="'), {
      status: 415,
      code: 'RC_UNSUPPORTED_MEDIA_TYPE',
      detail: 'The body must be encoded as UTF-8',
      headers: { 'accept-post': 'application/json' },
    });
  });

  it.each(['application/json; x="a;b, c"', 'application/json;;charset=utf-8;', 'application/json; charset=UTF-8'])('%s is JSON', async (contentType) => {
    const answer = await send(server, contentType);
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.text)).toEqual({ id: 1, text: 'hello' });
  });

  it('application/json; charset = utf-8, which express.json() reads as JSON, is the API’s 415 problem', async () => {
    expectProblem(await send(server, 'application/json; charset = utf-8'), { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE', detail: 'The Content-Type is malformed' });
  });
});
