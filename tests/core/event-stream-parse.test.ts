/**
 * The event-stream parser against the rules of WHATWG HTML §9.2.6, each fed whole and byte by byte,
 * so that a chunk boundary anywhere (inside a UTF-8 sequence, between CR and LF) changes nothing.
 */
import { fc, it as prop } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createEventStreamParser, decodeEventStream, type EventStreamMessage } from '../../src/core/event-stream-parse.js';
import { FIXED_SEED } from '../fuzz/settings.js';

const encoder = new TextEncoder();

function parseWhole(text: string | Uint8Array): EventStreamMessage[] {
  return createEventStreamParser().push(typeof text === 'string' ? encoder.encode(text) : text);
}

function parseByteByByte(text: string | Uint8Array): EventStreamMessage[] {
  const bytes = typeof text === 'string' ? encoder.encode(text) : text;
  const parser = createEventStreamParser();
  const messages: EventStreamMessage[] = [];
  for (const byte of bytes) messages.push(...parser.push(Uint8Array.of(byte)));
  return messages;
}

/** Parses whole and byte by byte, checks both agree, and returns the events. */
function parse(text: string | Uint8Array): EventStreamMessage[] {
  const whole = parseWhole(text);
  expect(parseByteByByte(text)).toEqual(whole);
  return whole;
}

const message = (data: string, extra: Partial<EventStreamMessage> = {}): EventStreamMessage => ({ event: 'message', data, lastEventId: '', ...extra });

describe('createEventStreamParser', () => {
  it('dispatches on a blank line, joining data lines with LF', () => {
    expect(parse('data: a\ndata: b\n\ndata: c\n\n')).toEqual([message('a\nb'), message('c')]);
  });

  it('ends lines at CRLF, LF or CR, mixed in one stream', () => {
    expect(parse('data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\r')).toEqual([message('a\nb\nc'), message('d')]);
  });

  it('reads a CR at the end of one chunk and an LF at the start of the next as one line end', () => {
    const parser = createEventStreamParser();
    expect(parser.push(encoder.encode('data: a\r'))).toEqual([]);
    expect(parser.push(encoder.encode('\ndata: b\r'))).toEqual([]);
    expect(parser.push(encoder.encode('\n\r'))).toEqual([message('a\nb')]);
    expect(parser.push(encoder.encode('\n'))).toEqual([]);
    expect(parser.push(encoder.encode('data: c\n\n'))).toEqual([message('c')]);
  });

  it('drops one leading BOM, and keeps a second one as data', () => {
    expect(parse('\ufeffdata: x\n\n')).toEqual([message('x')]);
    expect(parse('\ufeff\ufeffdata: x\n\n')).toEqual([]);
    expect(parse('\ufeffdata: \ufeffx\n\n')).toEqual([message('\ufeffx')]);
  });

  it('ignores comment lines, also between the lines of one event', () => {
    expect(parse(': hello\ndata: a\n:\ndata: b\n\n')).toEqual([message('a\nb')]);
  });

  it('drops exactly one space after the colon', () => {
    expect(parse('data:a\n\ndata:  a\n\ndata: \n\n')).toEqual([message('a'), message(' a'), message('')]);
  });

  it('reads a field without a colon as a field with an empty value', () => {
    expect(parse('data\ndata\n\n')).toEqual([message('\n')]);
    expect(parse('data: a\nevent\n\n')).toEqual([message('a')]);
  });

  it('keeps colons after the first in the value', () => {
    expect(parse('data: a:b: c\n\n')).toEqual([message('a:b: c')]);
  });

  it('names the event type, which lasts for one event only', () => {
    expect(parse('event: tick\ndata: 1\n\ndata: 2\n\n')).toEqual([message('1', { event: 'tick' }), message('2')]);
  });

  it('keeps the last event ID for later events, and an empty id resets it', () => {
    expect(parse('id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n')).toEqual([
      message('a', { lastEventId: '1' }),
      message('b', { lastEventId: '1' }),
      message('c', { lastEventId: '' }),
    ]);
  });

  it('ignores an id holding a NUL', () => {
    expect(parse('id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n')).toEqual([message('a', { lastEventId: '1' }), message('b', { lastEventId: '1' })]);
  });

  it('sets the last event ID even from an event without data, which it does not dispatch', () => {
    const parser = createEventStreamParser();
    expect(parser.push(encoder.encode('id: 9\nevent: x\n\n'))).toEqual([]);
    expect(parser.lastEventId).toBe('9');
    expect(parser.push(encoder.encode('data: y\n\n'))).toEqual([message('y', { lastEventId: '9' })]);
  });

  it('takes retry only when it is all ASCII digits', () => {
    const parser = createEventStreamParser();
    parser.push(encoder.encode('retry: 3000\n\n'));
    expect(parser.retry).toBe(3000);
    parser.push(encoder.encode('retry: 12x\nretry: -1\nretry: 1.5\nretry:\n\n'));
    expect(parser.retry).toBe(3000);
  });

  it('ignores unknown fields and field names that differ only in case', () => {
    expect(parse('foo: bar\nData: x\ndata: y\n\n')).toEqual([message('y')]);
  });

  it('does not dispatch an event the stream leaves unfinished', () => {
    expect(parse('data: a\n\ndata: b\n')).toEqual([message('a')]);
    expect(parse('data: a\n\ndata: b')).toEqual([message('a')]);
  });

  it('decodes UTF-8 split across chunks, and replaces invalid bytes with U+FFFD', () => {
    expect(parse('data: été 🎉\n\n')).toEqual([message('été 🎉')]);
    expect(parse(Uint8Array.of(...encoder.encode('data: '), 0xff, 0x0a, 0x0a))).toEqual([message('\ufffd')]);
  });

  it('throws a RangeError when one event grows past maxEventLength, in a line or in data lines', () => {
    const longLine = createEventStreamParser({ maxEventLength: 100 });
    expect(() => longLine.push(encoder.encode(`data: ${'x'.repeat(200)}`))).toThrow(RangeError);
    const manyLines = createEventStreamParser({ maxEventLength: 100 });
    expect(() => manyLines.push(encoder.encode('data: 0123456789\n'.repeat(20)))).toThrow(/longer than 100 characters/);
    const fine = createEventStreamParser({ maxEventLength: 100 });
    expect(fine.push(encoder.encode('data: 0123456789\n\n'.repeat(20)))).toHaveLength(20);
  });

  it('refuses a maxEventLength that is not positive', () => {
    expect(() => createEventStreamParser({ maxEventLength: 0 })).toThrow(/maxEventLength must be a positive number/);
  });
});

/** Bytes that look like an event stream often enough to reach every rule, and anything else. */
const streamBytes = fc.oneof(
  fc.uint8Array({ maxLength: 200 }),
  fc
    .array(fc.constantFrom('data', 'event', 'id', 'retry', ':', ': ', ' ', '\r', '\n', '\r\n', '\0', '\ufeff', '7', 'x', 'é'), { maxLength: 60 })
    .map((parts) => new TextEncoder().encode(parts.join(''))),
);

describe('properties of the parser', () => {
  prop.prop([streamBytes, fc.array(fc.nat({ max: 400 }), { maxLength: 12 })], { seed: FIXED_SEED, numRuns: 1000 })(
    'any bytes, cut anywhere, give the same events and state as the bytes in one chunk, without throwing',
    (bytes, cuts) => {
      const whole = createEventStreamParser();
      const expected = whole.push(bytes);
      const chunked = createEventStreamParser();
      const events: EventStreamMessage[] = [];
      let previous = 0;
      for (const point of [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b).concat(bytes.length)) {
        events.push(...chunked.push(bytes.subarray(previous, point)));
        previous = point;
      }
      expect(events).toEqual(expected);
      expect([chunked.lastEventId, chunked.retry]).toEqual([whole.lastEventId, whole.retry]);
    },
  );
});

describe('decodeEventStream', () => {
  it('reads the events of a body given as chunks, and stops reading when the loop stops', async () => {
    let returned = false;
    async function* body() {
      try {
        yield encoder.encode('data: 1\n\ndata: 2\n');
        yield encoder.encode('\ndata: 3\n\n');
        yield encoder.encode('data: never read\n\n');
      } finally {
        returned = true;
      }
    }
    const seen: string[] = [];
    for await (const event of decodeEventStream(body())) {
      seen.push(event.data);
      if (event.data === '3') break;
    }
    expect(seen).toEqual(['1', '2', '3']);
    expect(returned).toBe(true);
  });
});
