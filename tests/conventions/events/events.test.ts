/**
 * The `events` convention on restcanon/engine: an endpoint that produces `text/event-stream` on an
 * API without it is refused when the API is built, naming the module; with it in `use`, server-sent
 * events go out as restcanon's createApi sends them, on every adapter.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi as createFullApi, endpoint, type ApiResponse, type Serializer } from '../../../src/index.js';
import { createApi, createEndpointHandler, events } from '../../../src/engine.js';
import type { MountedServer } from '../../adapters/conformance.js';
import { SILENT_MOUNTS } from '../../adapters/mounts.js';

const REFUSED = 'GET /feed: it produces text/event-stream, which the API writes only with a module; add events from restcanon/engine to createApi({ use: [...] }) (createApi from restcanon has it)';

function feed(produces: readonly string[] = ['text/event-stream']) {
  return endpoint('GET', '/feed', {
    produces,
    events: { keepAlive: 0 },
    handle: (ctx) =>
      (async function* () {
        yield { id: '1', data: `after ${ctx.lastEventId ?? 'nothing'}` };
        yield { event: 'second', data: { n: 2 } };
        yield 'plain\ntwo lines';
      })(),
  });
}

async function read(response: ApiResponse): Promise<string> {
  let text = '';
  for await (const chunk of response.stream!) text += Buffer.from(chunk).toString();
  return text;
}

const SENT = 'id: 1\ndata: after 7\n\nevent: second\ndata: {"n":2}\n\ndata: plain\ndata: two lines\n\n';

describe('an API from restcanon/engine without events', () => {
  it('refuses an endpoint that produces text/event-stream when it is built, naming events and where it comes from', () => {
    expect(() => createApi({ endpoints: [feed()] })).toThrow(REFUSED);
    expect(() => createApi({ endpoints: [feed(['application/json', 'text/event-stream'])] })).toThrow(REFUSED);
    expect(() => createApi({ endpoints: [feed(['Text/Event-Stream; charset=utf-8'])] })).toThrow(REFUSED);
    expect(() => createEndpointHandler(feed())).toThrow(REFUSED);
  });

  it('takes an endpoint whose text/event-stream a format of the API writes: the format answers it', async () => {
    const sse: Serializer = { type: 'text/event-stream', contentType: 'text/event-stream; charset=utf-8', serialize: (value) => `data: ${JSON.stringify(value)}\n\n` };
    const api = createApi({ formats: [sse], endpoints: [endpoint('GET', '/feed', { produces: ['text/event-stream'], handle: () => ({ n: 1 }) })] });
    const response = await api.handle({ method: 'GET', url: '/feed' });
    expect(response.status).toBe(200);
    expect(String(response.payload)).toBe('data: {"n":1}\n\n');
  });

  it('still reads Last-Event-ID into ctx.lastEventId, which is the engine’s', async () => {
    const api = createApi({ endpoints: [endpoint('GET', '/since', { handle: (ctx) => ({ since: ctx.lastEventId ?? null }) })] });
    expect((await api.handle({ method: 'GET', url: '/since', headers: { 'last-event-id': '42' } })).body).toEqual({ since: '42' });
  });

  it('endpoint() refuses conventions: { events }, naming produces and events', () => {
    expect(() => endpoint('GET', '/feed', { produces: ['text/event-stream'], conventions: { events: { keepAlive: 1 } }, handle: () => 'data: 1\n\n' })).toThrow('"conventions" cannot declare "events": ask for it through "produces" and "events"');
  });
});

describe('an API from restcanon/engine with events in use', () => {
  it('sends the events as restcanon’s createApi does: headers, then each event encoded', async () => {
    const lean = await createApi({ endpoints: [feed()], use: [events] }).handle({ method: 'GET', url: '/feed', headers: { 'last-event-id': '7' } });
    const full = await createFullApi({ endpoints: [feed()] }).handle({ method: 'GET', url: '/feed', headers: { 'last-event-id': '7' } });
    expect(lean.status).toBe(200);
    expect(lean.headers).toEqual(full.headers);
    expect(lean.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    expect(lean.headers['content-length']).toBeUndefined();
    expect(await read(lean)).toBe(SENT);
    expect(await read(full)).toBe(SENT);
  });

  it('sends a result that is no source of events (a string) as it is', async () => {
    const api = createApi({ use: [events], endpoints: [endpoint('GET', '/feed', { produces: ['text/event-stream'], handle: () => 'data: ready\n\n' })] });
    const response = await api.handle({ method: 'GET', url: '/feed' });
    expect(response.headers).toMatchObject({ 'content-type': 'text/event-stream; charset=utf-8', 'content-length': '13' });
    expect(response.headers['cache-control']).toBeUndefined();
    expect(String(response.payload)).toBe('data: ready\n\n');
  });

  it('keeps the cookies the handler set on a stream of events', async () => {
    const api = createApi({
      use: [events],
      endpoints: [
        endpoint('GET', '/feed', {
          produces: ['text/event-stream'],
          handle: (ctx) => {
            ctx.cookie('seen', '1');
            return (async function* () {
              yield 'hi';
            })();
          },
        }),
      ],
    });
    const response = await api.handle({ method: 'GET', url: '/feed' });
    expect(response.headers['set-cookie']).toEqual([expect.stringMatching(/^seen=1;/)]);
    expect(await read(response)).toBe('data: hi\n\n');
  });
});

for (const [name, mount] of Object.entries(SILENT_MOUNTS)) {
  describe(`restcanon/engine with events on ${name}`, () => {
    let server: MountedServer;
    beforeAll(async () => {
      server = await mount(createApi({ naming: 'off', endpoints: [feed()], use: [events] }), {});
    });
    afterAll(() => server.close());

    it('streams the events with their headers', async () => {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(`${server.baseUrl}/feed`, { headers: { 'last-event-id': '7' } }, resolve).on('error', reject));
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      res.setEncoding('utf8');
      let text = '';
      for await (const chunk of res) text += chunk;
      expect(text).toBe(SENT);
    });
  });
}
