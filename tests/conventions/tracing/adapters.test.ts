/**
 * `tracing()` over real HTTP, as an application runs it: `@opentelemetry/instrumentation-http`
 * starts the server span of each request, restcanon names it by the route it matched, and the span
 * is read back from the SDK's in-memory exporter. Each adapter serves the same API (basePath `/api`)
 * from a real server on an ephemeral port, mounted at `/v1` where the host mounts; the route on the
 * span is the whole template from the server's root.
 */
import { durationPoints, exporter, serverSpanFor } from './otel.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toExpress } from '../../../src/adapters/express.js';
import { toFastify } from '../../../src/adapters/fastify.js';
import { toNodeListener } from '../../../src/adapters/node.js';
import { tracing } from '../../../src/conventions/tracing/index.js';
import { collection, createApi, type Api } from '../../../src/index.js';
import { listen, type MountedServer } from '../../adapters/conformance.js';

/** The id of the span that was active in each handler call, to compare with the request's server span. */
const activeInHandler: string[] = [];
const reported: unknown[] = [];

function booksApi(use = [tracing()]): Api {
  const active = () => activeInHandler.push(trace.getActiveSpan()?.spanContext().spanId ?? 'none');
  return createApi({
    basePath: '/api',
    onError: (error) => reported.push(error),
    use,
    resources: [
      collection('books', {
        id: z.coerce.number().int(),
        body: z.object({ title: z.string() }),
        read: (ctx) => {
          active();
          if (ctx.params.id === 500) throw new Error('the store is down');
          return ctx.params.id === 1 ? { id: 1, title: 'Dune' } : undefined;
        },
        create: (ctx) => {
          active();
          return { id: 2, title: ctx.body.title };
        },
      }),
    ],
  });
}

afterEach(() => {
  exporter.reset();
  activeInHandler.length = 0;
  reported.length = 0;
});

type Serve = (api: Api) => Promise<MountedServer>;

/** Each adapter, with the mount path the host serves the API below. */
const ADAPTERS: ReadonlyArray<readonly [string, string, Serve]> = [
  ['node', '', (api) => listen(http.createServer(toNodeListener(api)))],
  ...([
    ['express 4', express4],
    ['express 5', express5],
  ] as const).map(
    ([name, express]) =>
      [
        name,
        '/v1',
        (api: Api) => {
          const app = express();
          // A host's body parser before the API: the API runs from its 'end' event.
          app.use(express.json());
          app.use('/v1', toExpress(api, { fallthrough: false }));
          return listen(http.createServer(app));
        },
      ] as const,
  ),
  [
    'fastify',
    '/v1',
    async (api) => {
      const app = Fastify({ forceCloseConnections: true });
      await app.register(toFastify(api, { fallthrough: false }), { prefix: '/v1' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  ],
];

describe.each(ADAPTERS)('tracing over %s', (_name, mount, serve) => {
  let server: MountedServer;
  beforeAll(async () => {
    server = await serve(booksApi());
  });
  afterAll(() => server.close());

  const route = `${mount}/api/books/:id`;

  it('a 200 names the server span GET and the route, with http.route and no error', async () => {
    const response = await fetch(`${server.baseUrl}${mount}/api/books/1`);
    expect(response.status).toBe(200);
    const span = await serverSpanFor(`${mount}/api/books/1`);
    expect(span.name).toBe(`GET ${route}`);
    expect(span.attributes).toMatchObject({ 'http.route': route, 'http.response.status_code': 200 });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("the handler runs with the request's server span active", async () => {
    await fetch(`${server.baseUrl}${mount}/api/books/1`);
    const span = await serverSpanFor(`${mount}/api/books/1`);
    expect(activeInHandler).toEqual([span.spanContext().spanId]);
  });

  it("a POST whose body is read before the handler keeps the server span active, and names it", async () => {
    const response = await fetch(`${server.baseUrl}${mount}/api/books`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"Emma"}' });
    expect(response.status).toBe(201);
    const span = await serverSpanFor(`${mount}/api/books`);
    expect(span.name).toBe(`POST ${mount}/api/books`);
    expect(span.attributes['http.route']).toBe(`${mount}/api/books`);
    expect(activeInHandler).toEqual([span.spanContext().spanId]);
  });

  it('a 404 of an item the route names has http.route, and the status is left unset', async () => {
    const response = await fetch(`${server.baseUrl}${mount}/api/books/2`);
    expect(response.status).toBe(404);
    const span = await serverSpanFor(`${mount}/api/books/2`);
    expect(span.name).toBe(`GET ${route}`);
    expect(span.attributes).toMatchObject({ 'http.route': route, 'http.response.status_code': 404 });
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a path the API does not know gets its 404 and no http.route: the span keeps the method as its name', async () => {
    const response = await fetch(`${server.baseUrl}${mount}/api/nothing/here`);
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe('RC_NOT_FOUND');
    const span = await serverSpanFor(`${mount}/api/nothing/here`);
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBeUndefined();
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a 500 sets the status Error and error.type "500"', async () => {
    const response = await fetch(`${server.baseUrl}${mount}/api/books/500`);
    expect(response.status).toBe(500);
    const span = await serverSpanFor(`${mount}/api/books/500`);
    expect(span.name).toBe(`GET ${route}`);
    expect(span.attributes).toMatchObject({ 'http.route': route, 'http.response.status_code': 500, 'error.type': '500' });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(reported).toHaveLength(1);
  });
});

describe("the HTTP instrumentation's own record of the request", () => {
  let server: MountedServer;
  beforeAll(async () => {
    const listener = toNodeListener(booksApi());
    // A host that makes a span of its own active before the API runs, as a middleware's instrumentation does.
    const tracer = trace.getTracer('host');
    server = await listen(http.createServer((req, res) => tracer.startActiveSpan('host middleware', (span) => (listener(req, res), span.end()))));
  });
  afterAll(() => server.close());

  it("names the request's server span, not the host's span active below it", async () => {
    expect((await fetch(`${server.baseUrl}/api/books/1`)).status).toBe(200);
    const span = await serverSpanFor('/api/books/1');
    expect(span.name).toBe('GET /api/books/:id');
    const host = exporter.getFinishedSpans().find((finished) => finished.name === 'host middleware');
    expect(host?.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    expect(host?.attributes['http.route']).toBeUndefined();
  });

  it("gives the route to the instrumentation's duration metric", async () => {
    expect((await fetch(`${server.baseUrl}/api/books/7`)).status).toBe(404);
    expect(await durationPoints()).toContainEqual(expect.objectContaining({ 'http.route': '/api/books/:id', 'http.response.status_code': 404 }));
  });
});

describe('tracing below an Express mount path with a parameter', () => {
  let server: MountedServer;
  beforeAll(async () => {
    const app = express5();
    app.use('/:tenant', toExpress(booksApi([tracing({ mountPath: '/:tenant' })]), { fallthrough: false }));
    server = await listen(http.createServer(app));
  });
  afterAll(() => server.close());

  it('http.route holds the mount path given as a template, never the tenant sent', async () => {
    expect((await fetch(`${server.baseUrl}/acme/api/books/1`)).status).toBe(200);
    const span = await serverSpanFor('/acme/api/books/1');
    expect(span.name).toBe('GET /:tenant/api/books/:id');
    expect(span.attributes['http.route']).toBe('/:tenant/api/books/:id');
  });
});

describe('an API without tracing()', () => {
  let server: MountedServer;
  beforeAll(async () => {
    server = await listen(http.createServer(toNodeListener(booksApi([]))));
  });
  afterAll(() => server.close());

  it('leaves the server span as the HTTP instrumentation named it', async () => {
    expect((await fetch(`${server.baseUrl}/api/books/1`)).status).toBe(200);
    const span = await serverSpanFor('/api/books/1');
    expect(span.name).toBe('GET');
    expect(span.attributes['http.route']).toBeUndefined();
  });
});
