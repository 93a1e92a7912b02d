/**
 * The server-sent events encoder: the frames each event becomes, the refusals that keep a field
 * from adding lines, keep-alive comments between (never inside) events, what happens when the
 * consumer stops or the source fails, and a round trip through the client's decoder (`readEvents`), for any
 * events and any chunking of the bytes. Also `Last-Event-ID`.
 */
import { fc, it as prop } from '@fast-check/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readEvents, type ServerEvent } from '../../src/client/event-stream.js';
import { encodeEvent, encodeEvents, KEEP_ALIVE_COMMENT, parseLastEventId, type ServerSentEvent } from '../../src/core/events.js';
import { FIXED_SEED } from '../fuzz/settings.js';

const decoder = new TextDecoder();
const KEEP_ALIVE = ': keep-alive\n\n';

/**
 * A source that the test drives by hand: what it emits, ends or fails with answers the oldest
 * waiting `next()`, or the next one to come. Records `return()` calls and how many pulls wait.
 */
function manualSource() {
  type Settle = (pull: { resolve: (result: IteratorResult<ServerSentEvent | string>) => void; reject: (error: unknown) => void }) => void;
  const waiting: Parameters<Settle>[0][] = [];
  const ready: Settle[] = [];
  const settle = (how: Settle) => {
    const pull = waiting.shift();
    if (pull === undefined) ready.push(how);
    else how(pull);
  };
  const source = {
    returned: 0,
    waitingPulls: () => waiting.length,
    emit: (value: ServerSentEvent | string) => settle((pull) => pull.resolve({ done: false, value })),
    end: () => settle((pull) => pull.resolve({ done: true, value: undefined })),
    fail: (error: unknown) => settle((pull) => pull.reject(error)),
    [Symbol.asyncIterator]() {
      return {
        next: () =>
          new Promise<IteratorResult<ServerSentEvent | string>>((resolve, reject) => {
            const how = ready.shift();
            if (how === undefined) waiting.push({ resolve, reject });
            else how({ resolve, reject });
          }),
        return: async () => {
          source.returned++;
          return { done: true as const, value: undefined };
        },
      };
    },
  };
  return source;
}

async function* from(items: readonly (ServerSentEvent | string)[]) {
  yield* items;
}

async function frames(source: AsyncIterable<Uint8Array>): Promise<string[]> {
  const texts: string[] = [];
  for await (const chunk of source) texts.push(decoder.decode(chunk));
  return texts;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('encodeEvent', () => {
  it('writes event, id, retry and data fields and ends with a blank line', () => {
    expect(encodeEvent({ event: 'note', id: '7', retry: 3000, data: 'hi' })).toBe('event: note\nid: 7\nretry: 3000\ndata: hi\n\n');
  });

  it('writes a plain string as an event with that data', () => {
    expect(encodeEvent('hello')).toBe('data: hello\n\n');
    expect(encodeEvent('')).toBe('data: \n\n');
  });

  it('splits data on CRLF, LF and CR into several data lines', () => {
    expect(encodeEvent({ data: 'a\r\nb\nc\rd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
    expect(encodeEvent('a\n\nb\n')).toBe('data: a\ndata: \ndata: b\ndata: \n\n');
  });

  it('sends data that is not a string as JSON, on one line even when a string in it holds line breaks', () => {
    expect(encodeEvent({ data: { text: 'a\nb', n: 1 } })).toBe('data: {"text":"a\\nb","n":1}\n\n');
    expect(encodeEvent({ data: null })).toBe('data: null\n\n');
    expect(encodeEvent({ data: 0 })).toBe('data: 0\n\n');
  });

  it('writes an event without data, which only sets its id or retry, and a comment for an empty one', () => {
    expect(encodeEvent({ id: '5' })).toBe('id: 5\n\n');
    expect(encodeEvent({ data: undefined })).toBe(':\n\n');
  });

  it.each([
    ['an event name with LF', { event: 'a\nb', data: 'x' }, /event must be a string without CR, LF or NUL/],
    ['an event name with CR', { event: 'a\rdata: injected', data: 'x' }, /event must be/],
    ['an event name with NUL', { event: 'a\0', data: 'x' }, /event must be/],
    ['an id with LF', { id: '1\ndata: injected', data: 'x' }, /id must be a string without CR, LF or NUL/],
    ['an id with NUL, which browsers ignore', { id: '1\0', data: 'x' }, /id must be/],
    ['an id that is a number', { id: 1 as unknown as string, data: 'x' }, /id must be a string/],
    ['a negative retry', { retry: -1, data: 'x' }, /retry must be a non-negative integer/],
    ['a fractional retry', { retry: 1.5, data: 'x' }, /retry must be/],
    ['a NaN retry', { retry: Number.NaN, data: 'x' }, /retry must be/],
    ['data with a BigInt', { data: { n: 1n } }, /BigInt/],
    ['data that is a function', { data: () => 1 }, /data must be a string or a JSON value; got function/],
    ['data that is a symbol', { data: Symbol('s') }, /got symbol/],
  ])('refuses %s', (_name, event, message) => {
    expect(() => encodeEvent(event)).toThrow(message);
  });

  it.each([null, 42, undefined])('refuses %s as an event', (event) => {
    expect(() => encodeEvent(event as unknown as string)).toThrow(/a string or an object/);
  });
});

describe('encodeEvents', () => {
  it('yields one chunk per event, each a whole frame', async () => {
    expect(await frames(encodeEvents(from(['a', { event: 'e', data: [1] }])))).toEqual(['data: a\n\n', 'event: e\ndata: [1]\n\n']);
  });

  it('refuses a keepAlive that is negative or not a number when created', () => {
    expect(() => encodeEvents(from([]), { keepAlive: -1 })).toThrow(/keepAlive must be a non-negative number/);
    expect(() => encodeEvents(from([]), { keepAlive: Number.NaN })).toThrow(/keepAlive/);
  });

  it('sends a keep-alive comment each keepAlive ms the source is idle, and none while it is busy', async () => {
    vi.useFakeTimers();
    const source = manualSource();
    const iterator = encodeEvents(source, { keepAlive: 1000 })[Symbol.asyncIterator]();
    const seen: string[] = [];
    const take = async () => {
      const result = await iterator.next();
      seen.push(result.done === true ? 'DONE' : decoder.decode(result.value));
    };

    let pending = take();
    await vi.advanceTimersByTimeAsync(999);
    expect(seen).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(seen).toEqual([KEEP_ALIVE]);

    pending = take();
    await vi.advanceTimersByTimeAsync(1000);
    await pending;
    expect(seen).toEqual([KEEP_ALIVE, KEEP_ALIVE]);
    expect(source.waitingPulls()).toBe(1);

    pending = take();
    await vi.advanceTimersByTimeAsync(500);
    source.emit('first');
    await pending;
    pending = take();
    await vi.advanceTimersByTimeAsync(500);
    source.emit('second');
    await pending;
    expect(seen).toEqual([KEEP_ALIVE, KEEP_ALIVE, 'data: first\n\n', 'data: second\n\n']);

    pending = take();
    source.end();
    await pending;
    expect(seen.at(-1)).toBe('DONE');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends a fresh keep-alive chunk each time, so a reader that detaches the buffers it is given breaks no later stream', async () => {
    vi.useFakeTimers();
    for (let round = 0; round < 2; round++) {
      const iterator = encodeEvents(manualSource(), { keepAlive: 10 })[Symbol.asyncIterator]();
      const next = iterator.next();
      await vi.advanceTimersByTimeAsync(10);
      const chunk = (await next).value as Uint8Array;
      expect(decoder.decode(chunk)).toBe(KEEP_ALIVE);
      structuredClone(chunk.buffer, { transfer: [chunk.buffer] });
      await iterator.return?.();
    }
  });

  it('does not run a timer while the consumer is not asking for frames', async () => {
    vi.useFakeTimers();
    const iterator = encodeEvents(from(['a', 'b']), { keepAlive: 1000 })[Symbol.asyncIterator]();
    await iterator.next();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(decoder.decode((await iterator.next()).value as Uint8Array)).toBe('data: b\n\n');
  });

  it('keeps every event whole among keep-alives, with a source that takes turns being slow', async () => {
    async function* slow() {
      for (let index = 0; index < 6; index++) {
        await new Promise((resolve) => setTimeout(resolve, index % 2 === 0 ? 0 : 25));
        yield { id: String(index), data: `line one ${index}\nline two ${index}` };
      }
    }
    const chunks = await frames(encodeEvents(slow(), { keepAlive: 5 }));
    const events = chunks.filter((chunk) => chunk !== KEEP_ALIVE);
    expect(chunks.length).toBeGreaterThan(events.length);
    expect(events).toEqual(Array.from({ length: 6 }, (_, index) => `id: ${index}\ndata: line one ${index}\ndata: line two ${index}\n\n`));
  });

  it('when the consumer stops, calls return() on the source and clears the timer, even while waiting for the source', async () => {
    vi.useFakeTimers();
    const source = manualSource();
    const iterator = encodeEvents(source, { keepAlive: 1000 })[Symbol.asyncIterator]();
    const waiting = iterator.next();
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    expect(await iterator.return?.()).toEqual({ done: true, value: undefined });
    expect(await waiting).toEqual({ done: true, value: undefined });
    expect(source.returned).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    await iterator.return?.();
    expect(source.returned).toBe(1);
  });

  it('when a for await loop breaks, runs the finally of a generator source', async () => {
    let closed = false;
    async function* source() {
      try {
        for (let index = 0; ; index++) yield String(index);
      } finally {
        closed = true;
      }
    }
    for await (const frame of encodeEvents(source(), { keepAlive: 1000 })) {
      if (decoder.decode(frame) === 'data: 2\n\n') break;
    }
    expect(closed).toBe(true);
  });

  it('ends with the source error after the frames already encoded, without calling return()', async () => {
    const source = manualSource();
    const iterator = encodeEvents(source)[Symbol.asyncIterator]();
    const first = iterator.next();
    source.emit('a');
    expect(decoder.decode((await first).value as Uint8Array)).toBe('data: a\n\n');
    const second = iterator.next();
    const failure = new Error('source broke');
    source.fail(failure);
    await expect(second).rejects.toBe(failure);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(source.returned).toBe(0);
  });

  it('ends with the error of a source whose next() throws synchronously', async () => {
    const failure = new Error('sync');
    const source = { [Symbol.asyncIterator]: () => ({ next: (): never => { throw failure; } }) };
    await expect(frames(encodeEvents(source))).rejects.toBe(failure);
  });

  it('ends with a TypeError at an event it refuses, after the frames before it, and closes the source', async () => {
    let closed = false;
    async function* source() {
      try {
        yield 'fine';
        yield { id: 'a\nb', data: 'x' };
        yield 'never';
      } finally {
        closed = true;
      }
    }
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const frame of encodeEvents(source())) seen.push(decoder.decode(frame));
      })(),
    ).rejects.toThrow(TypeError);
    expect(seen).toEqual(['data: fine\n\n']);
    expect(closed).toBe(true);
  });

  it('answers next() calls made without awaiting in order', async () => {
    const iterator = encodeEvents(from(['1', '2', '3']))[Symbol.asyncIterator]();
    const results = await Promise.all([iterator.next(), iterator.next(), iterator.next(), iterator.next()]);
    expect(results.map((result) => (result.done === true ? 'DONE' : decoder.decode(result.value)))).toEqual(['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n', 'DONE']);
  });
});

/** Strings of any code points (no lone surrogates, which UTF-8 cannot carry), rich in line breaks. */
const text = fc.oneof(fc.string({ unit: 'grapheme' }), fc.array(fc.constantFrom('a', ' ', ':', '\r', '\n', '\r\n', '\0', '\ufeff', 'é', '🎉')).map((parts) => parts.join('')));
const fieldText = text.map((value) => value.replace(/[\r\n\0]/g, ''));
const event: fc.Arbitrary<ServerSentEvent | string> = fc.oneof(
  text,
  fc.record(
    {
      data: fc.oneof(text, fc.jsonValue()),
      event: fieldText,
      id: fieldText,
      retry: fc.nat(),
    },
    { requiredKeys: ['data'] },
  ),
);

function expected(events: readonly (ServerSentEvent | string)[]): ServerEvent[] {
  let id = '';
  let retry: number | undefined;
  return events.map((item) => {
    if (typeof item === 'string') return { event: 'message', data: item.replace(/\r\n|\r/g, '\n'), id, retry };
    if (item.id !== undefined) id = item.id;
    if (item.retry !== undefined) retry = item.retry;
    const data = typeof item.data === 'string' ? item.data.replace(/\r\n|\r/g, '\n') : JSON.stringify(item.data);
    return { event: item.event === undefined || item.event === '' ? 'message' : item.event, data, id, retry };
  });
}

function streamOf(parts: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

describe('encode then decode', () => {
  prop.prop(
    [fc.array(event, { maxLength: 8 }), fc.array(fc.nat({ max: 10_000 }), { maxLength: 20 }), fc.constantFrom('\n', '\r\n', '\r')],
    { seed: FIXED_SEED, numRuns: 500 },
  )('gives back every event, for any chunking of the bytes and any of the three line ends', async (events, cuts, lineEnd) => {
    const chunks = await frames(encodeEvents(from(events)));
    // The encoder writes LF; a server may write CRLF or CR instead, and the parser must read all three.
    const body = new TextEncoder().encode(chunks.join('').replace(/\n/g, lineEnd));
    const points = [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
    const parts: Uint8Array[] = [];
    let previous = 0;
    for (const point of [...points, body.length]) {
      parts.push(body.subarray(previous, point));
      previous = point;
    }
    const decoded: ServerEvent[] = [];
    for await (const message of readEvents(streamOf(parts))) decoded.push(message);
    expect(decoded).toEqual(expected(events));
  });
});

describe('parseLastEventId', () => {
  it('returns the ID as sent', () => {
    expect(parseLastEventId('42')).toBe('42');
    expect(parseLastEventId('a b:c')).toBe('a b:c');
  });

  it('decodes the UTF-8 bytes that Node and fetch hand over one character per byte', () => {
    const bytes = new TextEncoder().encode('été 🎉');
    expect(parseLastEventId(String.fromCharCode(...bytes))).toBe('été 🎉');
  });

  it('takes a value that is already decoded as it is', () => {
    expect(parseLastEventId('été 🎉')).toBe('été 🎉');
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a NUL', '1\u00002'],
    ['bytes that are not UTF-8', '\u00ff\u00fe'],
    ['more than 1024 characters', 'x'.repeat(1025)],
  ])('returns undefined for %s', (_name, value) => {
    expect(parseLastEventId(value)).toBeUndefined();
  });

  it('takes 1024 characters, and another bound when given', () => {
    expect(parseLastEventId('x'.repeat(1024))).toBe('x'.repeat(1024));
    expect(parseLastEventId('x'.repeat(11), 10)).toBeUndefined();
  });

  it('returns an ID that encodeEvent accepts', () => {
    const id = parseLastEventId('7') as string;
    expect(encodeEvent({ id, data: 'x' })).toBe('id: 7\ndata: x\n\n');
  });

  it('is the comment that encodeEvents sends', () => {
    expect(KEEP_ALIVE_COMMENT).toBe(KEEP_ALIVE);
  });
});
