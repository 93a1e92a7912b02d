/**
 * URLs that Fastify refuses before any plugin runs (a malformed percent-escape, a param longer than
 * `maxParamLength`) reach the API through `frameworkErrorsOf`, on the paths the API serves; every
 * other path keeps Fastify's own answer. Sent on raw sockets: `fetch` would normalize the targets.
 */
import net, { type AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameworkErrorsOf, toFastify } from '../../src/adapters/fastify.js';
import { fixtureApi } from '../fixture/api.js';
import { expectProblem } from '../helpers/problem.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `GET <target>` with `Connection: close` and parses what the server answered. */
function rawGet(app: FastifyInstance, target: string, token?: string): Promise<RawAnswer> {
  const { port } = app.server.address() as AddressInfo;
  const authorization = token === undefined ? '' : `Authorization: Bearer ${token}\r\n`;
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: test\r\n${authorization}Connection: close\r\n\r\n`));
    socket.on('data', (data) => (received += data.toString()));
    socket.on('error', () => {});
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

const BAD_ESCAPE = '%E0%A4%A';
const LONG_PARAM = 'x'.repeat(150);

describe('fastify frameworkErrorsOf(api, { prefix }) with the plugin below /v1', () => {
  const fixture = fixtureApi();
  const app = Fastify({ forceCloseConnections: true, frameworkErrors: frameworkErrorsOf(fixture.api, { prefix: '/v1' }) });

  beforeAll(async () => {
    app.get('/host/:name', async () => 'host');
    await app.register(toFastify(fixture.api), { prefix: '/v1' });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it(`GET /v1/users/${BAD_ESCAPE} is the API’s 400 problem RC_MALFORMED_URL, not Fastify’s FST_ERR_BAD_URL`, async () => {
    expectProblem(await rawGet(app, `/v1/users/${BAD_ESCAPE}`, 'alice'), { status: 400, code: 'RC_MALFORMED_URL' });
  });

  it('GET /v1/users/<150 characters> is the API’s answer: 401 without a token, its schema’s 400 with one, never 414', async () => {
    expectProblem(await rawGet(app, `/v1/users/${LONG_PARAM}`), { status: 401, code: 'RC_UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer realm="api"' } });
    const answer = await rawGet(app, `/v1/users/${LONG_PARAM}`, 'alice');
    expect(expectProblem(answer, { status: 400, code: 'RC_INVALID_INPUT' })).toMatchObject({ errors: [{ in: 'path', pointer: '#/id' }] });
    expect(answer.body).not.toContain(LONG_PARAM);
  });

  it(`a path the API does not serve (/v1/nothing/${BAD_ESCAPE}) keeps Fastify’s own 400`, async () => {
    const answer = await rawGet(app, `/v1/nothing/${BAD_ESCAPE}`, 'alice');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 400, code: 'FST_ERR_BAD_URL' });
  });

  it(`a path outside the prefix (/users/${BAD_ESCAPE}) keeps Fastify’s own 400`, async () => {
    const answer = await rawGet(app, `/users/${BAD_ESCAPE}`, 'alice');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'FST_ERR_BAD_URL' });
  });

  it('a host route’s long param (/host/<150 characters>) keeps Fastify’s own 414', async () => {
    const answer = await rawGet(app, `/host/${LONG_PARAM}`);
    expect(answer.status).toBe(414);
    expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 414, code: 'FST_ERR_MAX_PARAM_LENGTH' });
  });
});

describe('fastify frameworkErrorsOf with fallthrough: false and a fallback', () => {
  const fixture = fixtureApi();
  const seenByFallback: string[] = [];
  const app = Fastify({
    forceCloseConnections: true,
    frameworkErrors: frameworkErrorsOf(fixture.api, {
      prefix: '/v1/',
      fallthrough: false,
      fallback: (error, request, reply) => {
        seenByFallback.push(`${error.code} ${request.url}`);
        reply.code(418).send('fallback');
      },
    }),
  });

  beforeAll(async () => {
    await app.register(toFastify(fixture.api, { fallthrough: false }), { prefix: '/v1' });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it(`every path below the prefix (/v1/nothing/${BAD_ESCAPE}) is the API’s (its 404), as the plugin’s are`, async () => {
    expectProblem(await rawGet(app, `/v1/nothing/${BAD_ESCAPE}`, 'alice'), { status: 404, code: 'RC_NOT_FOUND' });
    expect(seenByFallback).toEqual([]);
  });

  it(`a path outside the prefix (/elsewhere/${BAD_ESCAPE}) goes to the fallback`, async () => {
    const answer = await rawGet(app, `/elsewhere/${BAD_ESCAPE}`);
    expect(answer.status).toBe(418);
    expect(answer.body).toBe('fallback');
    expect(seenByFallback).toEqual([`FST_ERR_BAD_URL /elsewhere/${BAD_ESCAPE}`]);
  });
});
