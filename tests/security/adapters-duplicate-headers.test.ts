/**
 * A request with two `Authorization` headers carries two sets of credentials, and each host shows
 * a different one: `node:http` keeps the first in `req.headers` (and drops the other), the Fetch
 * API joins them with ", ". Every adapter shows the API both, and the API refuses the
 * request with a 400 problem. Sent on raw sockets: no HTTP client sends a header twice on request.
 */
import http, { type Server } from 'node:http';
import net from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { toNodeListener } from '../../src/adapters/node.js';
import type { Api } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { createFixture, type Fixture } from '../adapters/fixture-api.js';

const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

const SETUPS: Record<string, (api: Api) => Promise<MountedServer>> = {
  node: (api) => listen(http.createServer(toNodeListener(api))),
  'node with joinDuplicateHeaders': (api) => listen(http.createServer({ joinDuplicateHeaders: true }, toNodeListener(api))),
  'express 5': (api) => listen(http.createServer(express5().use(toExpress(api)))),
  'express 4': (api) => listen(http.createServer((express4 as unknown as typeof express5)().use(toExpress(api)))),
  fastify: async (api) => {
    const app = Fastify({ forceCloseConnections: true });
    await app.register(toFastify(api));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;
    return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
  'fetch on @hono/node-server': (api) => listen(createAdaptorServer({ fetch: toFetch(api) }) as Server),
};

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes a request head (and body) with `Connection: close` and parses what the server answered. */
function rawRequest(server: MountedServer, head: string[], body = ''): Promise<RawAnswer> {
  const { port } = new URL(server.baseUrl);
  const bodyHeader = body === '' ? '' : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(`${head.join('\r\n')}\r\nHost: test\r\n${bodyHeader}Connection: close\r\n\r\n${body}`));
    socket.on('data', (data) => (received += data.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      const [top = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = top.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

for (const [name, mount] of Object.entries(SETUPS)) {
  describe(`${name}: a repeated Authorization or Content-Type`, () => {
    let fixture: Fixture;
    let server: MountedServer;

    beforeAll(async () => {
      fixture = createFixture();
      server = await mount(fixture.api);
    });
    afterAll(() => server.close());

    it('two Authorization headers (Bearer alice, then Bearer bob) are a 400 problem RC_AMBIGUOUS_CREDENTIALS', async () => {
      const answer = await rawRequest(server, ['GET /users/2 HTTP/1.1', 'Authorization: Bearer alice', 'Authorization: Bearer bob']);
      expect(answer.status).toBe(400);
      expect(answer.headers['content-type']).toBe(PROBLEM_TYPE);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 400, code: 'RC_AMBIGUOUS_CREDENTIALS' });
    });

    it('two Authorization headers in different cases (authorization, AUTHORIZATION) are a 400 problem too', async () => {
      const answer = await rawRequest(server, ['GET /users/1 HTTP/1.1', 'authorization: Bearer mallory', 'AUTHORIZATION: Bearer alice']);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'RC_AMBIGUOUS_CREDENTIALS' });
    });

    it('one Authorization header still reads the item with 200', async () => {
      const answer = await rawRequest(server, ['GET /users/1 HTTP/1.1', 'Authorization: Bearer alice']);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ id: 1, name: 'Alice', email: 'alice@example.com' });
    });

    it('two Content-Type headers (application/json, then text/plain) are refused with 415, and nothing is created', async () => {
      const answer = await rawRequest(
        server,
        ['POST /users HTTP/1.1', 'Authorization: Bearer alice', 'Content-Type: application/json', 'Content-Type: text/plain'],
        '{"name":"Carol","email":"carol@example.com"}',
      );
      expect(answer.status).toBe(415);
      expect(answer.headers['content-type']).toBe(PROBLEM_TYPE);
      expect(fixture.store.users.has(3)).toBe(false);
    });
  });
}
