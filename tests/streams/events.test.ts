/**
 * Server-sent events in memory (`api.handle`): an async iterable under `text/event-stream` answers
 * 200 at once with its events encoded, keep-alive comments while idle, `ctx.lastEventId`, an error
 * before the first event ending the stream (reported), the deadline leaving a started stream alone,
 * HEAD, closing, and what `events` refuses at definition time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApi, endpoint, type ApiResponse, type ErrorInfo } from '../../src/index.js';
import { readEvents, type ServerEvent } from '../../src/client/event-stream.js';

type Reports = [unknown, ErrorInfo][];

function bodyOf(response: ApiResponse): ReadableStream<Uint8Array> {
  const chunks = response.stream![Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done === true) controller.close();
      else controller.enqueue(value);
    },
    cancel: () => void chunks.return?.(),
  });
}

async function eventsOf(response: ApiResponse): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  for await (const event of readEvents(bodyOf(response))) events.push(event);
  return events;
}

function apiOf(handle: (ctx: never) => unknown, reports: Reports = [], options: Record<string, unknown> = {}, api: Record<string, unknown> = {}) {
  return createApi({
    naming: 'off',
    onError: (error, info) => reports.push([error, info]),
    ...api,
    endpoints: [endpoint('GET', '/feed', { produces: ['text/event-stream'], handle: handle as () => unknown, ...options })],
  });
}

const never = new Promise<never>(() => {});

afterEach(() => void vi.useRealTimers());

describe('server-sent events', () => {
  it('an async generator of events and strings answers 200 text/event-stream, no-cache, no length, its events in order', async () => {
    const response = await apiOf(() =>
      (async function* () {
        yield { event: 'price', id: '1', data: { symbol: 'ACME', price: 12.5 } };
        yield 'two\nlines';
        yield { data: 'x', retry: 3000 };
      })(),
    ).handle({ method: 'GET', url: '/feed', headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-length']).toBeUndefined();
    expect(await eventsOf(response)).toEqual([
      { event: 'price', data: '{"symbol":"ACME","price":12.5}', id: '1', retry: undefined },
      { event: 'message', data: 'two\nlines', id: '1', retry: undefined },
      { event: 'message', data: 'x', id: '1', retry: 3000 },
    ]);
  });

  it('answers before the first event: a source that waits still gets its headers out', async () => {
    const response = await apiOf(() =>
      (async function* () {
        await never;
        yield 'late';
      })(),
    ).handle({ method: 'GET', url: '/feed' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  });

  it('an error before the first event ends the started stream and is reported, not answered as a problem', async () => {
    const reports: Reports = [];
    const response = await apiOf(
      () =>
        (async function* () {
          throw new Error('the feed is down');
        })(),
      reports,
    ).handle({ method: 'GET', url: '/feed' });
    expect(response.status).toBe(200);
    await expect(eventsOf(response)).rejects.toThrow('the feed is down');
    expect(reports.map(([error, info]) => [(error as Error).message, info.status])).toEqual([['the feed is down', 500]]);
  });

  it('sends a keep-alive comment after keepAlive ms of silence (15 s by default, events.keepAlive to change it)', async () => {
    vi.useFakeTimers();
    let release: () => void = () => {};
    const source = () =>
      (async function* () {
        await new Promise<void>((resolve) => (release = resolve));
        yield 'done';
      })();
    for (const [options, wait] of [[{}, 15_000], [{ events: { keepAlive: 2_000 } }, 2_000]] as const) {
      const response = await apiOf(source, [], options).handle({ method: 'GET', url: '/feed' });
      const chunks = response.stream![Symbol.asyncIterator]();
      const first = chunks.next();
      await vi.advanceTimersByTimeAsync(wait - 1);
      let seen = false;
      void first.then(() => (seen = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(new TextDecoder().decode((await first).value)).toBe(': keep-alive\n\n');
      release();
      expect(new TextDecoder().decode((await chunks.next()).value)).toBe('data: done\n\n');
    }
  });

  it('ctx.lastEventId is the Last-Event-ID a reconnecting EventSource sends, decoded from UTF-8', async () => {
    const seen: (string | undefined)[] = [];
    const api = apiOf((ctx: { lastEventId: string | undefined }) => {
      seen.push(ctx.lastEventId);
      return (async function* () {})();
    });
    await api.handle({ method: 'GET', url: '/feed', headers: { 'last-event-id': '42' } });
    await api.handle({ method: 'GET', url: '/feed', headers: { 'last-event-id': '\u00c3\u00a9t\u00c3\u00a9' } });
    await api.handle({ method: 'GET', url: '/feed' });
    expect(seen).toEqual(['42', 'été', undefined]);
  });

  it('the deadline does not cut a stream that is sending', async () => {
    const reports: Reports = [];
    const response = await apiOf(
      () =>
        (async function* () {
          yield 'one';
          await new Promise((resolve) => setTimeout(resolve, 80));
          yield 'two';
        })(),
      reports,
      {},
      { timeout: 20 },
    ).handle({ method: 'GET', url: '/feed' });
    expect(response.status).toBe(200);
    expect((await eventsOf(response)).map((event) => event.data)).toEqual(['one', 'two']);
    expect(reports).toEqual([]);
  });

  it('HEAD answers the headers of a GET and closes the source unread', async () => {
    let closed = false;
    let read = false;
    const source: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({
        next: () => ((read = true), Promise.resolve({ done: false, value: 'never read' })),
        return: () => ((closed = true), Promise.resolve({ done: true, value: undefined })),
      }),
    };
    const response = await apiOf(() => source).handle({ method: 'HEAD', url: '/feed' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.stream).toBeUndefined();
    await vi.waitFor(() => expect(closed).toBe(true));
    expect(read).toBe(false);
  });

  it('closing the stream calls return() on the source', async () => {
    let closed = false;
    const response = await apiOf(() =>
      (async function* () {
        try {
          for (let n = 0; ; n++) yield String(n);
        } finally {
          closed = true;
        }
      })(),
    ).handle({ method: 'GET', url: '/feed' });
    const chunks = response.stream![Symbol.asyncIterator]();
    await chunks.next();
    await chunks.return!();
    expect(closed).toBe(true);
  });

  it('a string or bytes under text/event-stream go out as they are, already encoded', async () => {
    const response = await apiOf(() => 'data: ready\n\n').handle({ method: 'GET', url: '/feed' });
    expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(response.payload).toBe('data: ready\n\n');
  });

  it('refuses events without text/event-stream in produces, and a keepAlive that is no whole number', () => {
    expect(() => endpoint('GET', '/x', { produces: ['text/csv'], events: { keepAlive: 1000 }, handle: () => '' })).toThrow(/add 'text\/event-stream' to its "produces"/);
    expect(() => endpoint('GET', '/x', { produces: ['text/event-stream'], events: { keepAlive: -1 }, handle: () => '' })).toThrow(/whole number of milliseconds/);
    expect(() => endpoint('GET', '/x', { produces: ['text/event-stream'], events: { every: 1 } as never, handle: () => '' })).toThrow(/takes \{ keepAlive \}/);
  });
});
