/**
 * `tracing()` in memory, through `api.handle` inside a span of the test's own: which span it names
 * (a server span only), the name of a method the conventions do not know, the status it leaves to a
 * 4xx and sets on a 5xx, and its options, checked when it is built.
 */
import { exporter, provider } from './otel.js';
import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import { tracing } from '../../../src/conventions/tracing/index.js';
import { createApi, endpoint, ServiceUnavailableError, type ApiRequest, type ApiResponse } from '../../../src/index.js';

const tracer = provider.getTracer('tests');

const api = createApi({
  basePath: '/api',
  onError: () => {},
  use: [tracing()],
  endpoints: [
    endpoint('GET', '/books/:id', {
      handle: async (ctx) => {
        await Promise.resolve();
        if (ctx.params.id === 'down') throw new ServiceUnavailableError();
        return ctx.params.id === '1' ? { id: 1 } : undefined;
      },
    }),
  ],
});

/** The API's answer to `request` inside an active span of `kind`, and that span once ended. */
async function within(kind: SpanKind, request: ApiRequest): Promise<{ response: ApiResponse; span: ReadableSpan }> {
  const response = await tracer.startActiveSpan('incoming', { kind }, async (span: Span) => {
    try {
      return await api.handle(request);
    } finally {
      span.end();
    }
  });
  const spans = exporter.getFinishedSpans();
  expect(spans).toHaveLength(1);
  return { response, span: spans[0]! };
}

afterEach(() => exporter.reset());

describe('tracing() on an active server span', () => {
  it('names it by the route, with the API’s basePath', async () => {
    const { response, span } = await within(SpanKind.SERVER, { method: 'GET', url: '/api/books/1' });
    expect(response.status).toBe(200);
    expect(span.name).toBe('GET /api/books/:id');
    expect(span.attributes).toEqual({ 'http.route': '/api/books/:id' });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('puts the host’s mount path (ApiRequest.baseUrl) in front of the route', async () => {
    const { span } = await within(SpanKind.SERVER, { method: 'GET', url: '/api/books/1', baseUrl: '/v1/' });
    expect(span.name).toBe('GET /v1/api/books/:id');
  });

  it('leaves the status unset on a 404 and sets Error with error.type "503" on a 503, without a description', async () => {
    const missing = await within(SpanKind.SERVER, { method: 'GET', url: '/api/books/2' });
    expect(missing.response.status).toBe(404);
    expect(missing.span.status).toEqual({ code: SpanStatusCode.UNSET });
    expect(missing.span.attributes['error.type']).toBeUndefined();
    exporter.reset();
    const down = await within(SpanKind.SERVER, { method: 'GET', url: '/api/books/down' });
    expect(down.response.status).toBe(503);
    expect(down.span.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(down.span.attributes).toEqual({ 'http.route': '/api/books/:id', 'error.type': '503' });
  });

  it('names a request of a method the conventions do not know "HTTP" and the route (a PROPFIND, answered 405)', async () => {
    const { response, span } = await within(SpanKind.SERVER, { method: 'PROPFIND', url: '/api/books/1' });
    expect(response.status).toBe(405);
    expect(span.name).toBe('HTTP /api/books/:id');
  });

  it('gives a path the API does not know no route', async () => {
    const { response, span } = await within(SpanKind.SERVER, { method: 'GET', url: '/api/nothing' });
    expect(response.status).toBe(404);
    expect(span.name).toBe('incoming');
    expect(span.attributes).toEqual({});
  });
});

describe('tracing() elsewhere', () => {
  it('leaves an active span that is not a server span alone', async () => {
    const { response, span } = await within(SpanKind.INTERNAL, { method: 'GET', url: '/api/books/down' });
    expect(response.status).toBe(503);
    expect(span.name).toBe('incoming');
    expect(span.attributes).toEqual({});
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('answers as the API without it does where no span is active', async () => {
    expect(trace.getActiveSpan()).toBeUndefined();
    const plain = createApi({ basePath: '/api', endpoints: [endpoint('GET', '/books/:id', { handle: () => ({ id: 1 }) })] });
    const traced = createApi({ basePath: '/api', use: [tracing()], endpoints: [endpoint('GET', '/books/:id', { handle: () => ({ id: 1 }) })] });
    const request = { method: 'GET', url: '/api/books/1' };
    expect(await traced.handle(request)).toEqual(await plain.handle(request));
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('tracing() options', () => {
  it('refuses a mountPath that is not a path', () => {
    expect(() => tracing({ mountPath: ':tenant' })).toThrow(`tracing(): "mountPath" is the template of the path the host serves the API below, such as '/:tenant'; got ":tenant"`);
    expect(() => tracing({ mountPath: 7 as unknown as string })).toThrow('got 7');
  });

  it('refuses an option it does not have, naming the nearest', () => {
    expect(() => tracing({ mountpath: '/v1' } as never)).toThrow('`mountpath` is not an option of tracing(); did you mean `mountPath`?');
  });

  it('is a module named "tracing" that an API takes once', () => {
    expect(tracing().name).toBe('tracing');
    expect(() => createApi({ endpoints: [], use: [tracing(), tracing()] })).toThrow('two modules are named "tracing"');
  });
});
