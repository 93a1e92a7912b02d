/**
 * What the core decides has to reach the socket on every adapter: a 201 whose `Location` holds what
 * could split a header, a `Content-Type` built to backtrack a parser, field hiding through `Accept`,
 * and bodies sent to endpoints that take none. Each is sent on a raw socket to every adapter.
 */
import http from 'node:http';
import express5 from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toExpress } from '../../src/adapters/express.js';
import { collection, createApi, endpoint, json, text, type Api } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { expectProblem } from '../helpers/problem.js';
import { ADAPTER_SETUPS, rawRequest } from './raw-http.js';

const SETUPS: Record<string, (api: Api) => Promise<MountedServer>> = {
  ...ADAPTER_SETUPS,
  'express 5 behind express.json()': (api) => listen(http.createServer(express5().use(express5.json()).use(toExpress(api)))),
};

const JSON_BODY = 'Content-Type: application/json';

function createWireApi() {
  const created: string[] = [];
  const notes = endpoint('POST', '/notes', {
    operation: 'create',
    body: z.object({ path: z.string() }),
    location: (_result, ctx) => ctx.body.path,
    handle: (ctx) => (created.push(ctx.body.path), { id: created.length }),
  });
  const surrogates = collection('surrogates', { body: 'unvalidated', create: () => ({ id: '\ud800' }) });
  const users = collection('users', {
    item: z.object({ id: z.number(), name: z.string() }),
    read: () => ({ id: 1, name: 'Ada', passwordHash: '$argon2id$secret' }),
  });
  const expiry = endpoint('POST', '/logins/expiry', { handle: () => ({ expired: true }) });
  const stuck = endpoint('GET', '/stuck', { handle: () => new Promise(() => {}) });
  const tags = endpoint('POST', '/tags', { body: z.array(z.string()), handle: (ctx) => ({ count: ctx.body.length }) });
  const api = createApi({ endpoints: [notes, expiry, stuck, tags], resources: [surrogates, users], formats: [json, text], onError: () => {}, timeout: 300 });
  return { api, created };
}

for (const [name, mount] of Object.entries(SETUPS)) {
  describe(`${name}: the core's answers reach the wire`, () => {
    let wire: ReturnType<typeof createWireApi>;
    let server: MountedServer;

    beforeAll(async () => {
      wire = createWireApi();
      server = await mount(wire.api);
    });
    afterAll(() => server.close());

    it.each([
      ['CR LF', '/notes/1\r\nSet-Cookie: a=b', '/notes/1%0D%0ASet-Cookie:%20a=b'],
      ['NUL', '/notes/\u00001', '/notes/%001'],
      ['text beyond Latin-1', '/notes/日本', '/notes/%E6%97%A5%E6%9C%AC'],
    ])('a custom location with %s: the 201, with the Location encoded', async (_case, path, sent) => {
      const answer = await rawRequest(server, ['POST /notes HTTP/1.1', JSON_BODY], JSON.stringify({ path }));
      expect(answer.status).toBe(201);
      expect(answer.headers.location).toBe(sent);
      expect(answer.headers['set-cookie']).toBeUndefined();
    });

    it('an id holding a lone surrogate: the 201, with the Location encoded', async () => {
      const answer = await rawRequest(server, ['POST /surrogates HTTP/1.1', JSON_BODY], '{}');
      expect(answer.status).toBe(201);
      expect(answer.headers.location).toBe('/surrogates/%EF%BF%BD');
    });

    it('Content-Type: "a" + 16,000 spaces + "x" is a 415 problem', async () => {
      const answer = await rawRequest(server, ['POST /notes HTTP/1.1', `Content-Type: a${' '.repeat(16_000)}x`, 'Content-Length: 2'], '');
      expectProblem(answer, { status: 415, code: 'RC_UNSUPPORTED_MEDIA_TYPE' });
    });

    it('Accept: text/plain does not show a field the item schema leaves out', async () => {
      const answer = await rawRequest(server, ['GET /users/1 HTTP/1.1', 'Accept: text/plain']);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(JSON.parse(answer.body)).toEqual({ id: 1, name: 'Ada' });
    });

    it('a handler that never settles is answered 503 at the deadline, and the socket is not held', async () => {
      expectProblem(await rawRequest(server, ['GET /stuck HTTP/1.1']), { status: 503, code: 'RC_TIMEOUT' });
    });

    it('130,000 invalid items (under the 1 MiB body limit) are a small 400 that lists 100 of them', async () => {
      const answer = await rawRequest(server, ['POST /tags HTTP/1.1', JSON_BODY], JSON.stringify(Array.from({ length: 130_000 }, () => 1)));
      // Behind express.json(), whose own limit is 100 kB, the host's parser refuses it first: the API's 413.
      if (name.includes('express.json()')) return expect(JSON.parse(answer.body)).toMatchObject({ status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
      expect(answer.status).toBe(400);
      expect(answer.body.length).toBeLessThan(20_000);
      const problem = JSON.parse(answer.body) as { errors: unknown[]; omittedErrors: number };
      expect(problem.errors).toHaveLength(100);
      expect(problem.omittedErrors).toBe(129_900);
    });

    it('a body sent to an endpoint that takes none is a 400 RC_UNEXPECTED_BODY', async () => {
      expectProblem(await rawRequest(server, ['POST /logins/expiry HTTP/1.1', JSON_BODY], '{"isAdmin":true}'), { status: 400, code: 'RC_UNEXPECTED_BODY' });
    });
  });
}
