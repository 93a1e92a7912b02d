/**
 * restcanon/client/events: the decoder of `text/event-stream` follows the parsing rules of the WHATWG
 * HTML standard (§9.2.6) whatever the chunks it gets, and stops reading when asked.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEvents, type ServerEvent } from '../../src/client/event-stream.js';

const encoder = new TextEncoder();

/** A body that gives these chunks, one read each. */
function bodyOf(chunks: readonly (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const queue = chunks.map((chunk) => (typeof chunk === 'string' ? encoder.encode(chunk) : chunk));
  return new ReadableStream({ pull: (controller) => (queue.length === 0 ? controller.close() : controller.enqueue(queue.shift()!)) });
}

async function decode(chunks: readonly (string | Uint8Array)[]): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  for await (const event of readEvents(bodyOf(chunks))) events.push(event);
  return events;
}

const message = (data: string, more: Partial<ServerEvent> = {}): ServerEvent => ({ event: 'message', data, id: '', retry: undefined, ...more });

describe('the parsing rules', () => {
  it('dispatches on a blank line, joins data lines with LF and names the type given by event', async () => {
    expect(await decode(['data: a\ndata: b\n\nevent: price\ndata: 12\n\n'])).toEqual([message('a\nb'), message('12', { event: 'price' })]);
  });

  it('drops one space after the colon, no more, and takes a field without a colon as an empty value', async () => {
    expect(await decode(['data:  two spaces\n\ndata:none\n\ndata\ndata\n\n'])).toEqual([message(' two spaces'), message('none'), message('\n')]);
  });

  it('ignores comments, unknown fields and a block with no data, and keeps the type of a block from the next', async () => {
    expect(await decode([': keep-alive\n\nevent: lost\n\nfoo: bar\ndata: x\n\n'])).toEqual([message('x')]);
  });

  it('keeps the last event ID for later events, ignores an id with NUL, and an empty id clears it', async () => {
    expect(await decode(['id: 7\ndata: a\n\ndata: b\n\nid: 8\0\ndata: c\n\nid\ndata: d\n\n'])).toEqual([
      message('a', { id: '7' }),
      message('b', { id: '7' }),
      message('c', { id: '7' }),
      message('d', { id: '' }),
    ]);
  });

  it('takes retry only as ASCII digits, and reports the last one given', async () => {
    expect(await decode(['retry: 3000\n\ndata: a\n\nretry: 1.5\nretry: x\ndata: b\n\n'])).toEqual([message('a', { retry: 3000 }), message('b', { retry: 3000 })]);
  });

  it('ends lines with CR, LF or CRLF, and ignores one leading BOM', async () => {
    expect(await decode(['\uFEFFdata: a\r\rdata: b\r\n\r\ndata: c\n\n'])).toEqual([message('a'), message('b'), message('c')]);
    expect(await decode(['\uFEFF\uFEFFdata: a\n\n'])).toEqual([]);
  });

  it('discards an event left unfinished at the end of the stream', async () => {
    expect(await decode(['data: a\n\ndata: b\n'])).toEqual([message('a')]);
    expect(await decode(['data: a\n\ndata: b'])).toEqual([message('a')]);
  });

  it('reads a CRLF split between two chunks as one line end, not two (no event out of a line end)', async () => {
    expect(await decode(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([message('a\nb')]);
    // A chunk of only the LF of a split CRLF, then a line that starts with LF: that LF is a line end of its own.
    expect(await decode(['data: a\r', '\n', '\ndata: b\n\n'])).toEqual([message('a'), message('b')]);
  });

  it('decodes a UTF-8 character split between chunks, and replaces invalid bytes', async () => {
    const bytes = encoder.encode('data: é€😀\n\n');
    expect(await decode([bytes.slice(0, 7), bytes.slice(7, 10), bytes.slice(10)])).toEqual([message('é€😀')]);
    expect(await decode([new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a])])).toEqual([message('\uFFFD')]);
  });
});

/** One event as a server could write it, in any of the ways the rules allow. */
const written = fc.record({
  data: fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', 'é', '😀', '\0') }), { minLength: 1, maxLength: 3 }),
  event: fc.option(fc.stringMatching(/^[a-z]{1,6}$/), { nil: undefined }),
  id: fc.option(fc.stringMatching(/^[0-9a-z]{0,4}$/), { nil: undefined }),
  retry: fc.option(fc.nat({ max: 100_000 }), { nil: undefined }),
  comment: fc.boolean(),
  end: fc.constantFrom('\n', '\r', '\r\n'),
});

describe('the bound on one event', () => {
  it('a line that never ends, past 16 Mi characters, rejects with a RangeError and cancels the body', async () => {
    let cancelled = false;
    const chunk = encoder.encode('x'.repeat(1024 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        controller.enqueue(sent++ === 0 ? encoder.encode('data: ') : chunk);
      },
      cancel: () => void (cancelled = true),
    });
    await expect(decode2(body)).rejects.toThrow(RangeError);
    expect(cancelled).toBe(true);
    expect(sent).toBeLessThan(20);
  });

  it('data lines of one event that together pass 16 Mi characters reject with a RangeError', async () => {
    const line = `data: ${'y'.repeat(1024 * 1024)}\n`;
    await expect(decode(Array.from({ length: 17 }, () => line))).rejects.toThrow(RangeError);
  });
});

async function decode2(body: ReadableStream<Uint8Array>): Promise<ServerEvent[]> {
  const events: ServerEvent[] = [];
  for await (const event of readEvents(body)) events.push(event);
  return events;
}

describe('any chunking', () => {
  it('decodes to the same events as the whole stream, and to the events written', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(written, { maxLength: 6 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 12 }), async (events, bom, cuts) => {
        let text = bom ? '\uFEFF' : '';
        const expected: ServerEvent[] = [];
        let id = '';
        let retry: number | undefined;
        for (const one of events) {
          const lines = [...(one.comment ? [': note'] : []), ...(one.event === undefined ? [] : [`event: ${one.event}`]), ...(one.id === undefined ? [] : [`id: ${one.id}`])];
          if (one.retry !== undefined) lines.push(`retry: ${one.retry}`);
          lines.push(...one.data.map((line) => `data: ${line}`));
          text += lines.map((line) => line + one.end).join('') + one.end;
          id = one.id ?? id;
          retry = one.retry ?? retry;
          expected.push({ event: one.event ?? 'message', data: one.data.join('\n'), id, retry });
        }
        const bytes = encoder.encode(text);
        const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((start, index) => bytes.slice(start, [...at, bytes.length][index]));
        expect(await decode(chunks)).toEqual(await decode([bytes]));
        expect(await decode(chunks)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('stopping', () => {
  it('a break in for await cancels the body', async () => {
    let cancelled: unknown = 'no';
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(encoder.encode('data: tick\n\n')),
      cancel: (reason) => void (cancelled = reason),
    });
    let seen = 0;
    for await (const event of readEvents(body)) {
      expect(event.data).toBe('tick');
      if (++seen === 3) break;
    }
    expect(cancelled).toBeUndefined();
    expect(body.locked).toBe(true);
  });

  it('an abort cancels the body with the reason and the iteration rejects with it, even while a read waits', async () => {
    let cancelled: unknown;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(encoder.encode('data: first\n\n')),
      cancel: (reason) => void (cancelled = reason),
    });
    const controller = new AbortController();
    const reason = new Error('the user left');
    const events = readEvents(body, controller.signal);
    expect((await events.next()).value).toMatchObject({ data: 'first' });
    const waiting = events.next();
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(cancelled).toBe(reason);
    await expect(readEvents(bodyOf(['data: a\n\n']), AbortSignal.abort(reason)).next()).rejects.toBe(reason);
  });
});
