/**
 * The media-type grammar of RFC 9110 (src/core/media-type.ts) and the negotiation on it, against the
 * published test vectors of jshttp/content-type (1.0.5, the strict parser, and 3.0.0, the lenient
 * one) and of jshttp/negotiator (1.1.0), ported as facts: input and expected answer, in restcanon's
 * terms. A row where restcanon answers otherwise says what the library answers and why restcanon
 * differs; every such difference follows the letter of RFC 9110.
 */
import { describe, expect, it } from 'vitest';
import { parseAccept, parseMediaType, qualityOf, sameParameterValue, specificity } from '../../src/core/media-type.js';
import { createNegotiator, negotiate } from '../../src/formats/formats.js';
import { createApi, endpoint, json, type Serializer } from '../../src/index.js';

/** A media type as a plain object: its essence and its parameters. */
function shown(value: string): { essence: string; parameters: Record<string, string> } | undefined {
  const media = parseMediaType(value);
  return media === undefined ? undefined : { essence: media.essence, parameters: Object.fromEntries(media.parameters) };
}

/** The ranges of an Accept value as plain objects. */
function ranges(value: string): Array<{ essence: string; parameters: Record<string, string>; q: number }> | undefined {
  return parseAccept(value)?.map((range) => ({ essence: range.essence, parameters: Object.fromEntries(range.parameters), q: range.q }));
}

describe('parseMediaType: the vectors of jshttp/content-type', () => {
  it.each([
    // 1.0.5 and 3.0.0 alike
    ['text/html', 'text/html', {}],
    ['image/svg+xml', 'image/svg+xml', {}],
    [' text/html ', 'text/html', {}],
    ['text/html; charset=utf-8; foo=bar', 'text/html', { charset: 'utf-8', foo: 'bar' }],
    ['text/html ; charset=utf-8 ; foo=bar', 'text/html', { charset: 'utf-8', foo: 'bar' }],
    ['IMAGE/SVG+XML', 'image/svg+xml', {}],
    ['text/html; Charset=UTF-8', 'text/html', { charset: 'UTF-8' }],
    ['text/html; charset="UTF-8"', 'text/html', { charset: 'UTF-8' }],
    // Their vector writes `charset = "..."`: the escapes are ported without the spaces (see below).
    ['text/html; charset="UT\\F-\\\\\\"8\\""', 'text/html', { charset: 'UTF-\\"8"' }],
    ['text/html; param="charset=\\"utf-8\\"; foo=bar"; bar=foo', 'text/html', { param: 'charset="utf-8"; foo=bar', bar: 'foo' }],
    // 3.0.0
    ['text/html; charset=""', 'text/html', { charset: '' }],
    ['text/html;\tcharset=utf-8', 'text/html', { charset: 'utf-8' }],
    ['text/html; profile="compact,print"; charset=utf-8', 'text/html', { profile: 'compact,print', charset: 'utf-8' }],
    // 3.0.0 accepts these as an empty parameter; 1.0.5 refused them. RFC 9110 §5.6.6 allows empty parameters.
    ['text/html;;;; charset=utf-8;; foo=bar;', 'text/html', { charset: 'utf-8', foo: 'bar' }],
    ['text/html;', 'text/html', {}],
    // 3.0.0 lists it among invalid types it lets through; `$` is a tchar, so the type is valid.
    ['text/$plain', 'text/$plain', {}],
  ])('%j is %s %j', (value, essence, parameters) => {
    expect(shown(value)).toEqual({ essence, parameters });
  });

  it.each([
    // 1.0.5 throws "invalid media type" on each; 3.0.0 returns the text as the type
    '',
    ' ',
    'null',
    'undefined',
    '/',
    'text / plain',
    'text/;plain',
    'text/"plain"',
    'text/p£ain',
    'text/(plain)',
    'text/@plain',
    'text/plain,wrong',
    // 1.0.5 throws "invalid parameter format" on each
    'text/plain; foo="bar',
    'text/plain; profile=http://localhost; foo=bar',
    'text/plain; profile=http://localhost',
  ])('%j is no media type', (value) => {
    expect(parseMediaType(value)).toBeUndefined();
  });

  it.each([
    ['text/html; charset = utf-8', '1.0.5 and 3.0.0 allow space around =; RFC 9110 §8.3.1 allows none'],
    ['text/html; charset = "UT\\F-\\\\\\"8\\""', '1.0.5 and 3.0.0 allow space around =; RFC 9110 §8.3.1 allows none'],
    ['text/html; charset=', '3.0.0 reads an empty value; a token has at least one character'],
    ['text/html; charset= ', '3.0.0 reads an empty value; a token has at least one character'],
    ['text/plain; foo="bar\\', '3.0.0 drops the parameter; an unterminated quote is no quoted-string'],
    ['text/plain; foo="bar"baz', '3.0.0 reads foo=bar and drops baz; only ; or the end may follow a value'],
    ['text/plain; foo="bar"baz; charset=utf-8', '3.0.0 reads foo=bar and charset=utf-8'],
    ['text/plain; foo=bar"baz', '3.0.0 reads bar"baz; a quote is no tchar'],
    ['text/plain; foo=bar=baz', '3.0.0 reads bar=baz; = is no tchar'],
    ['text/html; charset=utf-8; charset=iso-8859-1', '2.0.0 and later keep the first; a parameter given twice is an error (RFC 6838 §4.3)'],
    ['text/html; Charset=utf-8; charset=iso-8859-1', '2.0.0 and later keep the first; names are case-insensitive, so this is twice'],
    ['text/html; Charset="utf-8"; charset="iso-8859-1"', '2.0.0 and later keep the first'],
    ['text/html, application/json', '3.0.0 returns "text/html, application/json" as the type'],
    ['text/html; invalid', '3.0.0 drops the parameter; a parameter needs = and a value'],
    ['text/plain; x="a\u000bb"', '1.0.5 allowed a vertical tab for HTAB in quotes (fixed in 3.0.0); qdtext has no VT'],
    ['text/plain; x="a\nb"', 'a line break is no qdtext'],
    ['text/plain; x="a\u0000"', 'NUL is no qdtext'],
    ['text/plain; x="\u0100"', 'qdtext ends at obs-text, %x80-FF'],
    ['text/plain; x="a\\\u0000"', 'a quoted-pair escapes HTAB, SP, VCHAR or obs-text only'],
    ['text/plain; x=\u00e9', 'obs-text is allowed in quotes only'],
  ])('%j is no media type: %s', (value) => {
    expect(parseMediaType(value)).toBeUndefined();
  });

  it('reads obs-text inside quotes, as Node gives it (one character a byte)', () => {
    expect(shown('text/plain; x="caf\u00e9"')).toEqual({ essence: 'text/plain', parameters: { x: 'caf\u00e9' } });
  });

  it('reads the equivalent forms of RFC 9110 §8.3.1 as one media type and one charset', () => {
    const forms = ['text/html;charset=utf-8', 'Text/HTML;Charset="utf-8"', 'text/html; charset="utf-8"', 'text/html;charset=UTF-8'].map((value) => parseMediaType(value)!);
    for (const media of forms) {
      expect(media.essence).toBe('text/html');
      expect(sameParameterValue('charset', media.parameters.get('charset')!, 'utf-8')).toBe(true);
    }
  });

  it('compares values exactly, but for charset', () => {
    expect(sameParameterValue('charset', 'UTF-8', 'utf-8')).toBe(true);
    expect(sameParameterValue('charset', 'utf-8', 'utf8')).toBe(false);
    expect(sameParameterValue('level', 'A', 'a')).toBe(false);
    expect(sameParameterValue('level', '1', '1')).toBe(true);
  });
});

describe('parseAccept', () => {
  it.each([
    // jshttp/negotiator: a comma or semicolon inside quotes splits nothing
    ['text/html;foo="bar,text/css;";fizz="buzz,5", text/plain', [{ essence: 'text/html', parameters: { foo: 'bar,text/css;', fizz: 'buzz,5' }, q: 1 }, { essence: 'text/plain', parameters: {}, q: 1 }]],
    ['text/html;foo="bar\\"", application/json', [{ essence: 'text/html', parameters: { foo: 'bar"' }, q: 1 }, { essence: 'application/json', parameters: {}, q: 1 }]],
    // jshttp/content-type 3.0.0, parse with { comma: true }
    ['text/html, application/json;q=0.9, */*;q=0.8', [{ essence: 'text/html', parameters: {}, q: 1 }, { essence: 'application/json', parameters: {}, q: 0.9 }, { essence: '*/*', parameters: {}, q: 0.8 }]],
    ['text/html; profile="compact,print"; charset=utf-8, application/json', [{ essence: 'text/html', parameters: { profile: 'compact,print', charset: 'utf-8' }, q: 1 }, { essence: 'application/json', parameters: {}, q: 1 }]],
    // RFC 9110 §12.5.1: a parameter named q is the weight wherever it stands, and the others are the range's
    ['text/html;q=0.5;level=1', [{ essence: 'text/html', parameters: { level: '1' }, q: 0.5 }]],
    ['TEXT/HTML;LEVEL=1;Q=0.5', [{ essence: 'text/html', parameters: { level: '1' }, q: 0.5 }]],
    // RFC 9110 §5.6.1.2: empty list elements are ignored
    ['', []],
    [' , ,, ', []],
    [',text/plain,,', [{ essence: 'text/plain', parameters: {}, q: 1 }]],
    // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
    ['a/b;q=0, a/c;q=0., a/d;q=0.001, a/e;q=0.5, a/f;q=1., a/g;q=1.000', [0, 0, 0.001, 0.5, 1, 1].map((q, index) => ({ essence: `a/${'bcdefg'[index]}`, parameters: {}, q }))],
    // A type `*` with a subtype is syntax for a literal type `*`: valid, and it matches no format
    ['*/json', [{ essence: '*/json', parameters: {}, q: 1 }]],
  ])('%j', (value, expected) => {
    expect(ranges(value)).toEqual(expected);
  });

  it.each([
    ['text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2', 'the default of Java’s HttpURLConnection: `*` has no subtype, .2 is no qvalue'],
    ['text/*, text/html;level', 'negotiator skips the element; a parameter needs = and a value'],
    ['text/html;LEVEL=1;level=2', 'negotiator keeps the first level; a parameter given twice is an error (RFC 6838 §4.3)'],
    ['text/html;level=2;q=0.1;level=1', 'negotiator reads level=1 as an accept-ext (RFC 7231); RFC 9110 has none, so level is given twice'],
    ['a/b;q=.5', '.5 is no qvalue'],
    ['a/b;q=1.5', 'above 1'],
    ['a/b;q=2', 'above 1'],
    ['a/b;q=1.001', 'above 1'],
    ['a/b;q=0.1234', 'four decimals'],
    ['a/b;q=abc', 'no number'],
    ['a/b;q="0.5"', 'a weight is a bare qvalue'],
    ['a/b;q=', 'no value'],
    ['a/b;q=0.5;q=0.6', 'two weights'],
    ['a/b; q = 0.5', 'space around ='],
    ['a/b;x="a, c/d', 'a quote left open: the rest of the value is inside it'],
    ['text/html;x="a"b, c/d', 'text after a closing quote'],
    ['text/html c/d', 'two ranges without a comma'],
    ['not a media range', 'no slash'],
    ['text/', 'no subtype'],
  ])('%j is malformed: %s', (value) => {
    expect(parseAccept(value)).toBeUndefined();
  });
});

describe('the precedence of media ranges (RFC 9110 §12.5.1)', () => {
  it('text/plain;format=flowed, then text/plain, then text/*, then */*', () => {
    const [wildcard, type, plain, flowed] = parseAccept('*/*, text/*, text/plain, text/plain;format=flowed')!;
    const media = parseMediaType('text/plain; format=flowed; charset=utf-8')!;
    const ranks = [wildcard, type, plain, flowed].map((range) => specificity(range!, media));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(new Set(ranks).size).toBe(4);
  });

  it.each([
    // RFC 9110's example
    ['text/plain;format=flowed', 1],
    ['text/plain', 0.7],
    ['text/html', 0.3],
    ['image/jpeg', 0.5],
    ['text/plain;format=fixed', 0.4],
    // RFC 9110's table says 0.7, a row carried over from RFC 7231's example, where text/html;q=0.7
    // applied; among these ranges only text/* (0.3) and */* (0.5) apply, and text/* is the more specific.
    ['text/html;level=3', 0.3],
  ])('Accept: text/*;q=0.3, text/plain;q=0.7, text/plain;format=flowed, text/plain;format=fixed;q=0.4, */*;q=0.5 gives %s %d', (type, q) => {
    const accept = parseAccept('text/*;q=0.3, text/plain;q=0.7, text/plain;format=flowed, text/plain;format=fixed;q=0.4, */*;q=0.5')!;
    expect(qualityOf(accept, parseMediaType(type)!)).toBe(q);
  });

  it.each([
    ['text/html;level=1', 1],
    ['text/html', 0.7],
    ['text/plain', 0.3],
    ['image/jpeg', 0.5],
    ['text/html;level=2', 0.4],
    ['text/html;level=3', 0.7],
  ])('RFC 7231 §5.3.2: Accept: text/*;q=0.3, text/html;q=0.7, text/html;level=1, text/html;level=2;q=0.4, */*;q=0.5 gives %s %d', (type, q) => {
    const accept = parseAccept('text/*;q=0.3, text/html;q=0.7, text/html;level=1, text/html;level=2;q=0.4, */*;q=0.5')!;
    expect(qualityOf(accept, parseMediaType(type)!)).toBe(q);
  });

  it('no range applies: -1; between equally specific ranges, the higher weight', () => {
    expect(qualityOf(parseAccept('text/*')!, parseMediaType('image/png')!)).toBe(-1);
    expect(qualityOf(parseAccept('application/json;q=0.9, text/html;q=0.8, application/json;q=0.7')!, parseMediaType('application/json')!)).toBe(0.9);
  });

  it('parameter names match without regard to case, values exactly but for charset', () => {
    const media = parseMediaType('text/html; Level=1; charset=UTF-8')!;
    expect(qualityOf(parseAccept('text/html;LEVEL=1;q=0.5')!, media)).toBe(0.5);
    expect(qualityOf(parseAccept('text/html;charset=utf-8;q=0.5')!, media)).toBe(0.5);
    expect(qualityOf(parseAccept('text/html;level="1";q=0.5')!, media)).toBe(0.5);
    expect(qualityOf(parseAccept('text/html;level=A')!, parseMediaType('text/html;level=a')!)).toBe(-1);
  });
});

/** A format of one media type, as negotiator's tests offer types. */
const formatOf = (type: string): Serializer => ({ type, contentType: type, serialize: () => type });

/**
 * Every acceptable format in the order restcanon prefers them: the negotiated one, then the one
 * negotiated without it, and so on.
 */
function ranking(accept: string | undefined, types: readonly string[]): string[] {
  let formats = types.map(formatOf);
  const ranked: string[] = [];
  for (let chosen = negotiate(accept, formats); chosen !== undefined; chosen = negotiate(accept, formats)) {
    ranked.push(chosen.type);
    formats = formats.filter((format) => format !== chosen);
  }
  return ranked;
}

describe('negotiate: the vectors of jshttp/negotiator (mediaTypes(available))', () => {
  const LONG = 'text/plain, application/json;q=0.5, text/html, text/xml, text/yaml, text/javascript, text/csv, text/css, text/rtf, text/markdown, application/octet-stream;q=0.2, */*;q=0.1';
  const LONG_TYPES = ['text/plain', 'text/html', 'text/xml', 'text/yaml', 'text/javascript', 'text/csv', 'text/css', 'text/rtf', 'text/markdown', 'application/json', 'application/octet-stream'];

  it.each([
    [undefined, ['application/json', 'text/plain'], ['application/json', 'text/plain']],
    ['*/*', ['application/json', 'text/plain'], ['application/json', 'text/plain']],
    ['application/json', ['application/json'], ['application/json']],
    ['application/json', ['application/JSON'], ['application/JSON']],
    ['application/json', ['text/html', 'application/json'], ['application/json']],
    ['application/json;q=0', ['application/json'], []],
    ['application/json;q=0', ['application/json', 'text/html', 'image/jpeg'], []],
    ['application/json;q=0.2, text/html', ['application/json', 'text/html'], ['text/html', 'application/json']],
    ['application/json;q=0.9, text/html;q=0.8, application/json;q=0.7', ['text/html', 'application/json'], ['application/json', 'text/html']],
    ['application/json, */*;q=0.1', ['text/html', 'application/json'], ['application/json', 'text/html']],
    ['application/xhtml+xml;profile="http://www.wapforum.org/xhtml"', ['application/xhtml+xml;profile="http://www.wapforum.org/xhtml"'], ['application/xhtml+xml;profile="http://www.wapforum.org/xhtml"']],
    ['text/*', ['text/html', 'application/json', 'text/plain'], ['text/html', 'text/plain']],
    ['text/*, text/plain;q=0', ['text/html', 'text/plain'], ['text/html']],
    ['text/*, text/plain;q=0.5', ['text/html', 'text/plain', 'text/xml'], ['text/html', 'text/xml', 'text/plain']],
    ['text/html;level=1', ['text/html;level=1'], ['text/html;level=1']],
    ['text/html;level=1', ['text/html;Level=1'], ['text/html;Level=1']],
    ['text/html;level=1', ['text/html;level=2'], []],
    ['text/html;level=1', ['text/html'], []],
    ['text/html;level=1', ['text/html;level=1;foo=bar'], ['text/html;level=1;foo=bar']],
    ['text/html;level=1;foo=bar', ['text/html;level=1'], []],
    ['text/html;level=1;foo=bar', ['text/html;level=1;foo=bar'], ['text/html;level=1;foo=bar']],
    ['text/html;level=1;foo=bar', ['text/html;foo=bar;level=1'], ['text/html;foo=bar;level=1']],
    ['text/html;level=1;foo="bar"', ['text/html;level=1;foo=bar'], ['text/html;level=1;foo=bar']],
    ['text/html;level=1;foo="bar"', ['text/html;level=1;foo="bar"'], ['text/html;level=1;foo="bar"']],
    ['text/html;foo=";level=2;"', ['text/html;level=2'], []],
    ['text/html;foo=";level=2;"', ['text/html;foo=";level=2;"'], ['text/html;foo=";level=2;"']],
    ['text/html;LEVEL=1', ['text/html;level=1'], ['text/html;level=1']],
    ['text/html;LEVEL=1', ['text/html;Level=1'], ['text/html;Level=1']],
    ['text/html;level=2', ['text/html;level=1'], []],
    ['text/html;level=2;q=0.1, text/html', ['text/html;level=2', 'text/html'], ['text/html', 'text/html;level=2']],
    ['text/html;level=2;q=0.1, text/html;level=1, text/html;q=0.5', ['text/html;level=1', 'text/html;level=2', 'text/html'], ['text/html;level=1', 'text/html', 'text/html;level=2']],
    // negotiator skips the malformed element and text/* accepts; restcanon ignores the header: the first format
    ['text/*, text/html;level', ['text/html'], ['text/html']],
    ['text/plain, application/json;q=0.5, text/html, */*;q=0.1', ['application/json', 'text/plain', 'text/html'], ['text/plain', 'text/html', 'application/json']],
    ['text/plain, application/json;q=0.5, text/html, */*;q=0.1', ['image/jpeg', 'image/gif'], ['image/jpeg', 'image/gif']],
    [LONG, LONG_TYPES, LONG_TYPES],
  ] as const)('Accept %j, available %j: %j', (accept, available, expected) => {
    expect(ranking(accept, available)).toEqual(expected);
  });

  it.each([
    [
      '*/*;q=0.8, text/*, image/*',
      ['application/json', 'text/html', 'text/plain', 'text/xml', 'application/xml', 'image/gif', 'image/jpeg', 'image/png', 'audio/mp3', 'application/javascript', 'text/javascript'],
      ['text/html', 'text/plain', 'text/xml', 'image/gif', 'image/jpeg', 'image/png', 'text/javascript', 'application/json', 'application/xml', 'audio/mp3', 'application/javascript'],
      'negotiator puts text/javascript before image/gif: between equal weights it follows the order of the client’s ranges; restcanon follows the server’s order',
    ],
    [
      'text/html;level=2, text/html',
      ['text/html', 'text/html;level=2'],
      ['text/html', 'text/html;level=2'],
      'negotiator puts text/html;level=2 first, as its range is more specific; both weigh 1, and restcanon follows the server’s order',
    ],
    [
      'text/plain, application/json;q=0.5, text/html, */*;q=0.1',
      ['text/html', 'text/plain'],
      ['text/html', 'text/plain'],
      'negotiator puts text/plain first, as the client listed it first; both weigh 1',
    ],
    [
      'text/plain, application/json;q=0.5, text/html, */*;q=0.1',
      ['image/jpeg', 'text/html', 'text/plain'],
      ['text/html', 'text/plain', 'image/jpeg'],
      'negotiator puts text/plain first, as the client listed it first',
    ],
    [
      'text/html;LEVEL=1;level=2',
      ['text/html;level=2'],
      ['text/html;level=2'],
      'negotiator keeps LEVEL=1 and refuses level=2; the parameter is given twice, so restcanon ignores the header',
    ],
    [
      'text/html;level=2;q=0.1;level=1',
      ['text/html;level=1'],
      ['text/html;level=1'],
      'negotiator refuses level=1 (an accept-ext to it); in RFC 9110 level is given twice, so restcanon ignores the header',
    ],
  ] as const)('Accept %j, available %j: %j, where negotiator differs: %s', (accept, available, expected, _reason) => {
    expect(ranking(accept, available)).toEqual(expected);
  });

  it('a format whose type is no media type ("boom") is refused when the API is made; negotiator skips it per request', () => {
    expect(() => createApi({ formats: [json, formatOf('boom')], endpoints: [endpoint('GET', '/x', { handle: () => 1 })] })).toThrow(
      'createApi: the type of a format is "boom"; write a media type, such as text/csv; charset=utf-8',
    );
  });
});

describe('formats that are no media types are refused when the API is made', () => {
  const make = (format: Serializer) => () => createApi({ formats: [json, format], endpoints: [endpoint('GET', '/x', { handle: () => 1 })] });

  it.each([
    [{ type: 'text/*', contentType: 'text/plain', serialize: String }, 'the type of a format is "text/*"; write a media type'],
    [{ type: 'text/csv', contentType: 'text/csv; charset = utf-8', serialize: String }, 'the contentType of a format is "text/csv; charset = utf-8"; write a media type'],
    [{ type: 'application/xml', contentType: 'application/xml', problemType: 'problem+xml', serialize: String, serializeProblem: String }, 'the problemType of a format is "problem+xml"; write a media type'],
    [null, 'each of "formats" is a format with a serialize function, such as json; got null'],
  ] as const)('%j', (format, message) => {
    expect(make(format as unknown as Serializer)).toThrow(message);
  });
});

describe('createNegotiator', () => {
  it('answers a malformed Accept with the first format, and remembers it', () => {
    const csv = formatOf('text/csv');
    const negotiator = createNegotiator([json, csv]);
    for (let round = 0; round < 2; round++) {
      expect(negotiator.content('text/csv;q=2')).toBe(json);
      expect(negotiator.content('text/csv;q=1')).toBe(csv);
      expect(negotiator.problem('application/json;x="a, text/csv')).toBe(json);
    }
  });
});

// Read once from left to right: a reading that went back over the value would take minutes on these,
// far past the test's time limit.
describe('values a client can make long', () => {
  it('a Content-Type of 100,000 semicolons is text/plain with no parameters', () => {
    expect(shown(`text/plain${';'.repeat(100_000)}`)).toEqual({ essence: 'text/plain', parameters: {} });
  });

  it('a Content-Type of 20,000 distinct parameters has them all', () => {
    const media = parseMediaType(`text/plain${Array.from({ length: 20_000 }, (_, index) => `;p${index}=v`).join('')}`);
    expect(media?.parameters.size).toBe(20_000);
  });

  it.each([
    ['an open quote of 50,000 escaped quotes', `text/plain; x="${'\\"'.repeat(50_000)}`],
    ['100,000 spaces before a stray character', `text/plain${' '.repeat(100_000)}x`],
    ['20,000 parameters and one given twice at the end', `text/plain${Array.from({ length: 20_000 }, (_, index) => `;p${index}=v`).join('')};p0=v`],
  ])('a Content-Type with %s is no media type', (_, value) => {
    expect(parseMediaType(value)).toBeUndefined();
  });

  it.each([
    ['20,000 ranges', 'image/png, '.repeat(20_000), undefined],
    ['20,000 ranges with a quoted comma each', 'image/png;x=",", '.repeat(20_000), undefined],
    ['100,000 empty elements before one range', ','.repeat(100_000) + 'text/csv', 'text/csv'],
  ])('an Accept of %s is negotiated', (_, value, expected) => {
    expect(negotiate(value, [json, formatOf('text/csv')])?.type).toBe(expected);
  });
});
