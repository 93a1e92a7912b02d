/**
 * Byte ranges: parsing `Range` as RFC 9110 §14.1.1 writes it, evaluating it against a length, the
 * caps that answer a costly `Range` with the whole body, `If-Range`, `Content-Range`, and the
 * `multipart/byteranges` framing, checked byte for byte.
 */
import { fc, it as prop } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  coalesceRanges,
  createMultipartByteranges,
  evaluateRange,
  formatContentRange,
  formatRange,
  formatUnsatisfiedRange,
  ifRangeHolds,
  parseContentRange,
  parseRange,
  type ByteRange,
  type RangeSpec,
} from '../../src/core/ranges.js';
import { FIXED_SEED } from '../fuzz/settings.js';

const PROPERTY = { seed: FIXED_SEED, numRuns: 500 };

describe('parseRange', () => {
  it('reads first-last, first- and -suffix in the order written', () => {
    expect(parseRange('bytes=0-99,500-,-20')).toEqual([{ first: 0, last: 99 }, { first: 500 }, { suffix: 20 }]);
  });

  it('accepts optional whitespace and empty elements around commas, and any case of the unit', () => {
    expect(parseRange('BYTES=0-1 ,\t2-3, , 4-')).toEqual([{ first: 0, last: 1 }, { first: 2, last: 3 }, { first: 4 }]);
    expect(parseRange('  bytes=0-0  ')).toEqual([{ first: 0, last: 0 }]);
  });

  it('reads leading zeros as digits', () => {
    expect(parseRange('bytes=007-010')).toEqual([{ first: 7, last: 10 }]);
  });

  it.each([
    ['no header', undefined],
    ['another unit', 'items=0-9'],
    ['no set', 'bytes='],
    ['only commas', 'bytes=,,'],
    ['space before =', 'bytes =0-9'],
    ['space after =', 'bytes= 0-9'],
    ['space inside a spec', 'bytes=0 -9'],
    ['no dash', 'bytes=5'],
    ['only a dash', 'bytes=-'],
    ['last before first', 'bytes=10-5'],
    ['a leading +', 'bytes=+1-5'],
    ['a negative suffix', 'bytes=--5'],
    ['a decimal', 'bytes=1.5-9'],
    ['an exponent', 'bytes=1e3-'],
    ['hex', 'bytes=0x10-'],
    ['past MAX_SAFE_INTEGER', 'bytes=0-9007199254740992'],
    ['a suffix past MAX_SAFE_INTEGER', 'bytes=-99999999999999999999'],
    ['one bad spec among good ones', 'bytes=0-1,x,4-5'],
    ['full-width digits', 'bytes=１-２'],
    ['a semicolon list', 'bytes=0-1;2-3'],
  ])('returns undefined for %s', (_name, header) => {
    expect(parseRange(header)).toBeUndefined();
  });

  it('reads MAX_SAFE_INTEGER itself', () => {
    expect(parseRange(`bytes=${Number.MAX_SAFE_INTEGER}-`)).toEqual([{ first: Number.MAX_SAFE_INTEGER }]);
  });
});

describe('evaluateRange', () => {
  it('answers a header with no Range, another unit or bad syntax with the whole body', () => {
    expect(evaluateRange(undefined, 100)).toEqual({ kind: 'ignore' });
    expect(evaluateRange('items=0-9', 100)).toEqual({ kind: 'ignore' });
    expect(evaluateRange('bytes=9-0', 100)).toEqual({ kind: 'ignore' });
  });

  it('clamps a last-pos past the end and a suffix longer than the body', () => {
    expect(evaluateRange('bytes=90-1000', 100)).toEqual({ kind: 'satisfiable', ranges: [{ start: 90, end: 99 }] });
    expect(evaluateRange('bytes=-1000', 100)).toEqual({ kind: 'satisfiable', ranges: [{ start: 0, end: 99 }] });
    expect(evaluateRange('bytes=-10', 100)).toEqual({ kind: 'satisfiable', ranges: [{ start: 90, end: 99 }] });
    expect(evaluateRange('bytes=99-', 100)).toEqual({ kind: 'satisfiable', ranges: [{ start: 99, end: 99 }] });
  });

  it('is unsatisfiable, with bytes */length, when every spec starts past the end or asks for no suffix', () => {
    expect(evaluateRange('bytes=100-', 100)).toEqual({ kind: 'unsatisfiable', contentRange: 'bytes */100' });
    expect(evaluateRange('bytes=-0', 100)).toEqual({ kind: 'unsatisfiable', contentRange: 'bytes */100' });
    expect(evaluateRange('bytes=200-300,100-', 100)).toEqual({ kind: 'unsatisfiable', contentRange: 'bytes */100' });
  });

  it('drops the unsatisfiable specs of a set that has a satisfiable one', () => {
    expect(evaluateRange('bytes=500-600,0-9', 100)).toEqual({ kind: 'satisfiable', ranges: [{ start: 0, end: 9 }] });
  });

  it('on an empty body, an int-range is unsatisfiable and a suffix-range gets the whole (empty) body', () => {
    expect(evaluateRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable', contentRange: 'bytes */0' });
    expect(evaluateRange('bytes=-5', 0)).toEqual({ kind: 'ignore' });
  });

  it('sorts ranges and coalesces those that overlap, touch, or sit closer than the gap', () => {
    expect(evaluateRange('bytes=500-599,0-99,50-149', 1000)).toEqual({
      kind: 'satisfiable',
      ranges: [{ start: 0, end: 149 }, { start: 500, end: 599 }],
    });
    expect(evaluateRange('bytes=0-9,10-19', 1000, { coalesceGap: 0 })).toEqual({ kind: 'satisfiable', ranges: [{ start: 0, end: 19 }] });
    expect(evaluateRange('bytes=0-9,20-29', 1000, { coalesceGap: 0 })).toEqual({
      kind: 'satisfiable',
      ranges: [{ start: 0, end: 9 }, { start: 20, end: 29 }],
    });
    expect(evaluateRange('bytes=0-9,20-29', 1000)).toEqual({ kind: 'satisfiable', ranges: [{ start: 0, end: 29 }] });
  });

  it('answers bytes=0-,0-,0- (three copies of the body) with the whole body once', () => {
    expect(evaluateRange('bytes=0-,0-,0-', 1000)).toEqual({ kind: 'ignore' });
    expect(evaluateRange('bytes=0-,0-', 1000)).toEqual({ kind: 'satisfiable', ranges: [{ start: 0, end: 999 }] });
  });

  it('answers many overlapping small ranges that add up past twice the body with the whole body', () => {
    const header = `bytes=${Array.from({ length: 12 }, () => '0-199').join(',')}`;
    expect(evaluateRange(header, 1000)).toEqual({ kind: 'ignore' });
  });

  it('answers more than 16 ranges with the whole body, and 16 with parts', () => {
    const specs = (count: number) => `bytes=${Array.from({ length: count }, (_, index) => `${index * 1000}-${index * 1000 + 9}`).join(',')}`;
    expect(evaluateRange(specs(17), 100_000)).toEqual({ kind: 'ignore' });
    const sixteen = evaluateRange(specs(16), 100_000);
    expect(sixteen.kind === 'satisfiable' && sixteen.ranges.length).toBe(16);
    expect(evaluateRange(specs(3), 100_000, { maxRanges: 2 })).toEqual({ kind: 'ignore' });
  });

  it('counts unsatisfiable specs towards the cap, so a flood of them costs nothing either', () => {
    const header = `bytes=0-0,${Array.from({ length: 20 }, () => '5000-').join(',')}`;
    expect(evaluateRange(header, 100)).toEqual({ kind: 'ignore' });
  });

  it.each([-1, 1.5, Number.NaN, Infinity])('refuses a length of %s, which no body has', (length) => {
    expect(() => evaluateRange('bytes=0-', length)).toThrow(/length must be a non-negative integer/);
  });

  it('answers a Range of 100,001 specs with the whole body', () => {
    const header = `bytes=${'0-0,'.repeat(100_000)}0-0`;
    expect(evaluateRange(header, 100)).toEqual({ kind: 'ignore' });
  });
});

const rangeSpec: fc.Arbitrary<RangeSpec> = fc.oneof(
  fc.record({ suffix: fc.nat({ max: 5000 }) }),
  fc.nat({ max: 5000 }).chain((first) => fc.oneof(fc.constant({ first }), fc.nat({ max: 5000 }).map((extra) => ({ first, last: first + extra })))),
);

describe('properties of ranges', () => {
  prop.prop([fc.array(rangeSpec, { minLength: 1, maxLength: 16 }), fc.nat({ max: 4000 })], PROPERTY)(
    'every satisfiable range lies within [0, length), sorted and apart by more than the gap',
    (specs, length) => {
      const decision = evaluateRange(formatRange(specs), length, { maxCoverage: Infinity, coalesceGap: 3 });
      if (decision.kind !== 'satisfiable') return;
      let previousEnd = -Infinity;
      for (const { start, end } of decision.ranges) {
        expect(Number.isSafeInteger(start) && Number.isSafeInteger(end)).toBe(true);
        expect(0 <= start && start <= end && end < length).toBe(true);
        expect(start).toBeGreaterThan(previousEnd + 1 + 3);
        previousEnd = end;
      }
    },
  );

  prop.prop([fc.array(rangeSpec, { minLength: 1, maxLength: 16 }), fc.nat({ max: 300 })], PROPERTY)(
    'with no gap, the coalesced ranges cover exactly the bytes the specs ask for; 416 exactly when they ask for none',
    (specs, length) => {
      const wanted = new Set<number>();
      for (const spec of specs) {
        const [from, to] = 'suffix' in spec ? [length - spec.suffix, length - 1] : [spec.first, spec.last ?? length - 1];
        for (let byte = Math.max(0, from); byte <= Math.min(to, length - 1); byte++) wanted.add(byte);
      }
      const decision = evaluateRange(formatRange(specs), length, { maxCoverage: Infinity, coalesceGap: 0 });
      if (decision.kind === 'ignore') {
        expect(length === 0 && specs.some((spec) => 'suffix' in spec && spec.suffix > 0)).toBe(true);
        return;
      }
      if (decision.kind === 'unsatisfiable') {
        expect(wanted.size).toBe(0);
        expect(decision.contentRange).toBe(`bytes */${length}`);
        return;
      }
      const covered = new Set<number>();
      for (const { start, end } of decision.ranges) for (let byte = start; byte <= end; byte++) covered.add(byte);
      expect([...covered].sort((a, b) => a - b)).toEqual([...wanted].sort((a, b) => a - b));
    },
  );

  prop.prop([fc.array(fc.record({ start: fc.nat({ max: 1000 }), size: fc.nat({ max: 100 }) }), { maxLength: 30 }), fc.nat({ max: 200 })], PROPERTY)(
    'coalescing covers every byte it was given, and adds only bytes of gaps no wider than the gap',
    (pieces, gap) => {
      const ranges: ByteRange[] = pieces.map(({ start, size }) => ({ start, end: start + size }));
      const given = new Set<number>();
      for (const { start, end } of ranges) for (let byte = start; byte <= end; byte++) given.add(byte);
      const merged = coalesceRanges(ranges, gap);
      const uncovered = [...given].filter((byte) => !merged.some(({ start, end }) => start <= byte && byte <= end));
      expect(uncovered).toEqual([]);
      let widestAdded = 0;
      for (const { start, end } of merged) {
        let run = 0;
        for (let byte = start; byte <= end; byte++) {
          run = given.has(byte) ? 0 : run + 1;
          widestAdded = Math.max(widestAdded, run);
        }
      }
      expect(widestAdded).toBeLessThanOrEqual(gap);
    },
  );

  prop.prop([fc.array(rangeSpec, { minLength: 1, maxLength: 20 })], PROPERTY)('formatRange then parseRange gives the specs back', (specs) => {
    expect(parseRange(formatRange(specs), 20)).toEqual(specs);
  });

  prop.prop([fc.nat({ max: 1e6 }), fc.nat({ max: 1e6 }), fc.nat({ max: 1e6 })], PROPERTY)(
    'formatContentRange then parseContentRange gives the range and length back',
    (a, b, extra) => {
      const range = { start: Math.min(a, b), end: Math.max(a, b) };
      const length = range.end + 1 + extra;
      expect(parseContentRange(formatContentRange(range, length))).toEqual({ range, length });
      expect(parseContentRange(formatUnsatisfiedRange(length))).toEqual({ range: undefined, length });
    },
  );

  const rangeish = fc.stringMatching(/^(?:bytes|BYTES|items)?=?(?:[ \t,+\-0-9]|9{16,20}|[a-z=;])*$/);
  prop.prop([fc.oneof(fc.string(), fc.string({ unit: 'binary' }), rangeish), fc.nat({ max: 1e9 })], { ...PROPERTY, numRuns: 2000 })(
    'any header text is parsed and evaluated without throwing, into ranges within the body',
    (header, length) => {
      const decision = evaluateRange(header, length);
      if (decision.kind === 'satisfiable') {
        for (const { start, end } of decision.ranges) expect(0 <= start && start <= end && end < length).toBe(true);
      }
      expect(() => parseContentRange(header)).not.toThrow();
      expect(() => ifRangeHolds(header, { etag: '"x"', lastModified: new Date(0) })).not.toThrow();
    },
  );
});

describe('Content-Range', () => {
  it('writes the 206 and 416 values', () => {
    expect(formatContentRange({ start: 0, end: 0 }, 1)).toBe('bytes 0-0/1');
    expect(formatUnsatisfiedRange(0)).toBe('bytes */0');
  });

  it('reads an unknown complete length as undefined', () => {
    expect(parseContentRange('bytes 0-9/*')).toEqual({ range: { start: 0, end: 9 }, length: undefined });
  });

  it.each(['bytes 9-0/100', 'bytes 0-100/100', 'bytes */*', 'bytes 0-9', 'items 0-9/100', 'bytes -1-9/100', 'bytes 0-9/9007199254740993', 'bytes  0-9/100'])(
    'refuses %s',
    (value) => {
      expect(parseContentRange(value)).toBeUndefined();
    },
  );
});

describe('ifRangeHolds', () => {
  const lastModified = new Date('2024-03-01T12:00:00Z');
  const httpDate = 'Fri, 01 Mar 2024 12:00:00 GMT';

  it('holds without an If-Range', () => {
    expect(ifRangeHolds(undefined, {})).toBe(true);
  });

  it('holds for a strong ETag equal to the answer strong ETag, and not for another', () => {
    expect(ifRangeHolds('"v1"', { etag: '"v1"' })).toBe(true);
    expect(ifRangeHolds('"v1"', { etag: '"v2"' })).toBe(false);
    expect(ifRangeHolds('"v1"', {})).toBe(false);
  });

  it('never holds for a weak ETag on either side (RFC 9110 §13.1.5 compares strongly)', () => {
    expect(ifRangeHolds('W/"v1"', { etag: 'W/"v1"' })).toBe(false);
    expect(ifRangeHolds('"v1"', { etag: 'W/"v1"' })).toBe(false);
    expect(ifRangeHolds('W/"v1"', { etag: '"v1"' })).toBe(false);
  });

  it('holds for an HTTP-date equal to Last-Modified (a Date or its header text), to the second', () => {
    expect(ifRangeHolds(httpDate, { lastModified })).toBe(true);
    expect(ifRangeHolds(httpDate, { lastModified: new Date(lastModified.getTime() + 999) })).toBe(true);
    expect(ifRangeHolds(httpDate, { lastModified: httpDate })).toBe(true);
  });

  it('does not hold for a date that is earlier or later than Last-Modified', () => {
    expect(ifRangeHolds('Fri, 01 Mar 2024 11:59:59 GMT', { lastModified })).toBe(false);
    expect(ifRangeHolds('Fri, 01 Mar 2024 12:00:01 GMT', { lastModified })).toBe(false);
  });

  it.each([
    ['a date when the answer has only an ETag', httpDate, { etag: '"v1"' }],
    ['an ETag when the answer has only a date', '"v1"', { lastModified }],
    ['a date in another format', '2024-03-01T12:00:00Z', { lastModified }],
    ['an obsolete RFC 850 date', 'Friday, 01-Mar-24 12:00:00 GMT', { lastModified }],
    ['an unquoted tag', 'v1', { etag: 'v1' }],
    ['a tag with a space', '"v 1"', { etag: '"v 1"' }],
    ['a list of tags', '"v1", "v2"', { etag: '"v1"' }],
    ['an empty value', '', { etag: '""', lastModified }],
    ['a star', '*', { etag: '"v1"' }],
  ])('does not hold for %s: the whole body is sent', (_name, ifRange, validators) => {
    expect(ifRangeHolds(ifRange, validators)).toBe(false);
  });
});

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

describe('createMultipartByteranges', () => {
  const bytes = new TextEncoder().encode('Hello, world');

  it('frames each range with its Content-Type and Content-Range, and knows its length before reading', async () => {
    const slices: [number, number][] = [];
    const body = createMultipartByteranges({
      ranges: [{ start: 0, end: 4 }, { start: 7, end: 11 }],
      length: bytes.length,
      contentType: 'text/plain',
      boundary: 'B0UND',
      slice: (start, end) => {
        slices.push([start, end]);
        return bytes.subarray(start, end);
      },
    });
    expect(body.contentType).toBe('multipart/byteranges; boundary=B0UND');
    expect(slices).toEqual([]);
    const text = new TextDecoder().decode(await collect(body.chunks));
    expect(text).toBe(
      '--B0UND\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-4/12\r\n\r\nHello' +
        '\r\n--B0UND\r\nContent-Type: text/plain\r\nContent-Range: bytes 7-11/12\r\n\r\nworld' +
        '\r\n--B0UND--\r\n',
    );
    expect(body.length).toBe(new TextEncoder().encode(text).length);
    expect(slices).toEqual([[0, 5], [7, 12]]);
  });

  it('leaves Content-Type out of the parts when none is given, and reads a slice function that returns a promise', async () => {
    const body = createMultipartByteranges({ ranges: [{ start: 1, end: 1 }], length: 3, boundary: 'x', slice: async () => new Uint8Array([0x41]) });
    expect(new TextDecoder().decode(await collect(body.chunks))).toBe('--x\r\nContent-Range: bytes 1-1/3\r\n\r\nA\r\n--x--\r\n');
  });

  it('gives each body a different random boundary that is a token', () => {
    const make = () => createMultipartByteranges({ ranges: [{ start: 0, end: 0 }], length: 1, slice: () => new Uint8Array(1) }).contentType;
    const first = make();
    expect(first).toMatch(/^multipart\/byteranges; boundary=[0-9a-f]{24}$/);
    expect(make()).not.toBe(first);
  });

  it('quotes a boundary that is not a token', () => {
    const body = createMultipartByteranges({ ranges: [{ start: 0, end: 0 }], length: 1, boundary: 'a b:c', slice: () => new Uint8Array(1) });
    expect(body.contentType).toBe('multipart/byteranges; boundary="a b:c"');
  });

  it('can be read twice, for a retry, even by a reader that detaches the buffers it is given', async () => {
    const body = createMultipartByteranges({ ranges: [{ start: 0, end: 4 }], length: 12, slice: (start, end) => bytes.slice(start, end) });
    const first = await collect(body.chunks);
    for await (const chunk of body.chunks) structuredClone(chunk.buffer, { transfer: [chunk.buffer] });
    expect(await collect(body.chunks)).toEqual(first);
  });

  prop.prop([fc.uint8Array({ minLength: 1, maxLength: 300 }).chain((body) => fc.tuple(fc.constant(body), fc.array(rangeSpec, { minLength: 1, maxLength: 8 })))], PROPERTY)(
    'its length is the number of bytes it yields, and each part holds the bytes its Content-Range names',
    async ([whole, specs]) => {
      const decision = evaluateRange(formatRange(specs), whole.length, { maxCoverage: Infinity, coalesceGap: 0 });
      if (decision.kind !== 'satisfiable') return;
      const body = createMultipartByteranges({ ranges: decision.ranges, length: whole.length, contentType: 'application/octet-stream', slice: (start, end) => whole.subarray(start, end) });
      const boundary = body.contentType.slice('multipart/byteranges; boundary='.length);
      const framed = await collect(body.chunks);
      expect(framed.length).toBe(body.length);
      const latin1 = Array.from(framed, (byte) => String.fromCharCode(byte)).join('');
      const parts = latin1.split(`--${boundary}`);
      expect(parts.shift()).toBe('');
      expect(parts.pop()).toBe('--\r\n');
      parts.forEach((part, index) => {
        const range = decision.ranges[index] as ByteRange;
        const head = `\r\nContent-Type: application/octet-stream\r\nContent-Range: ${formatContentRange(range, whole.length)}\r\n\r\n`;
        expect(part.startsWith(head)).toBe(true);
        const content = part.slice(head.length, part.length - 2);
        expect(part.endsWith('\r\n')).toBe(true);
        expect(Uint8Array.from(content, (char) => char.charCodeAt(0))).toEqual(whole.subarray(range.start, range.end + 1));
      });
    },
  );

  it('throws when slice returns fewer bytes than asked, since Content-Length would lie', async () => {
    const body = createMultipartByteranges({ ranges: [{ start: 0, end: 4 }], length: 12, slice: () => new Uint8Array(2) });
    await expect(collect(body.chunks)).rejects.toThrow(/returned 2 bytes instead of 5/);
  });

  it('reads a slice given as chunks, sending each as it comes, and throws when they hold more or fewer bytes than asked', async () => {
    async function* chunks(...sizes: number[]) {
      for (const size of sizes) yield new Uint8Array(size).fill(0x42);
    }
    const body = (...sizes: number[]) => createMultipartByteranges({ ranges: [{ start: 0, end: 4 }], length: 12, boundary: 'x', slice: () => chunks(...sizes) });
    const framed = await collect(body(2, 3).chunks);
    expect(new TextDecoder().decode(framed)).toBe('--x\r\nContent-Range: bytes 0-4/12\r\n\r\nBBBBB\r\n--x--\r\n');
    await expect(collect(body(2, 2).chunks)).rejects.toThrow(/returned 4 bytes instead of 5/);
    await expect(collect(body(3, 3).chunks)).rejects.toThrow(/returned more than 5 bytes/);
  });

  it.each([
    ['no ranges', { ranges: [], length: 10 }, /at least one range/],
    ['a range past the end', { ranges: [{ start: 5, end: 10 }], length: 10 }, /not within a body of 10 bytes/],
    ['a reversed range', { ranges: [{ start: 5, end: 4 }], length: 10 }, /not within/],
    ['a fractional range', { ranges: [{ start: 0.5, end: 4 }], length: 10 }, /not within/],
    ['a negative length', { ranges: [{ start: 0, end: 0 }], length: -1 }, /length must be a non-negative integer/],
    ['a boundary with a CR', { ranges: [{ start: 0, end: 0 }], length: 1, boundary: 'a\rb' }, /boundary/],
    ['a boundary ending in a space', { ranges: [{ start: 0, end: 0 }], length: 1, boundary: 'ab ' }, /boundary/],
    ['a boundary of 71 characters', { ranges: [{ start: 0, end: 0 }], length: 1, boundary: 'a'.repeat(71) }, /boundary/],
    ['a content type with CRLF', { ranges: [{ start: 0, end: 0 }], length: 1, contentType: 'text/plain\r\nX-Evil: 1' }, /control or non-ASCII character/],
    ['a content type with a non-ASCII character, which would make the length wrong', { ranges: [{ start: 0, end: 0 }], length: 1, contentType: 'text/plain; name=é' }, /non-ASCII/],
  ])('refuses %s when created', (_name, options, message) => {
    expect(() => createMultipartByteranges({ ...options, slice: () => new Uint8Array(0) })).toThrow(message);
  });
});
