/**
 * The media-type grammar of RFC 9110, as `Content-Type` (§8.3.1) and `Accept` (§12.5.1) write it:
 *
 *   media-type    = type "/" subtype parameters
 *   parameters    = *( OWS ";" OWS [ parameter ] )
 *   parameter     = token "=" ( token / quoted-string )
 *   quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE
 *   Accept        = #( media-range [ weight ] )
 *   weight        = OWS ";" OWS "q=" qvalue
 *
 * A value is read once, by index, with no regular expression that could backtrack: the value is
 * whatever a client sent. A comma or a semicolon inside a quoted string is text, never a separator.
 */

/**
 * A media type: its type and subtype lower-cased, its parameters by lower-cased name with their
 * values as sent (unquoted).
 *
 * @example
 * const media: MediaType = { type: 'text', subtype: 'plain', essence: 'text/plain', parameters: new Map([['charset', 'UTF-8']]) };
 */
export interface MediaType {
  readonly type: string;
  readonly subtype: string;
  /** `type/subtype`: `text/plain`. */
  readonly essence: string;
  readonly parameters: ReadonlyMap<string, string>;
}

/**
 * One element of `Accept`: a media range (`*` as its subtype, or as both type and subtype, stands
 * for any) and its weight.
 *
 * @example
 * const range: MediaRange = { type: 'text', subtype: '*', essence: 'text/*', parameters: new Map(), q: 0.5 };
 */
export interface MediaRange extends MediaType {
  /** The weight from its `q` parameter, 0 to 1; 1 without one. */
  readonly q: number;
}

const NO_PARAMETERS: ReadonlyMap<string, string> = new Map();

const TAB = 0x09;
const SPACE = 0x20;
const QUOTE = 0x22;
const COMMA = 0x2c;
const SLASH = 0x2f;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const BACKSLASH = 0x5c;

/** 1 for each tchar: any visible ASCII character but the delimiters `"(),/:;<=>?@[\]{}`. */
const TOKEN = new Uint8Array(128);
for (let code = 0x21; code < 0x7f; code++) TOKEN[code] = 1;
for (const delimiter of '"(),/:;<=>?@[\\]{}') TOKEN[delimiter.charCodeAt(0)] = 0;

function isTokenChar(code: number): boolean {
  return code < 0x80 && TOKEN[code] === 1;
}

function skipSpaces(text: string, index: number): number {
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code !== SPACE && code !== TAB) break;
    index++;
  }
  return index;
}

function tokenEnd(text: string, index: number): number {
  while (index < text.length && isTokenChar(text.charCodeAt(index))) index++;
  return index;
}

/** Where the reading of a value stopped: its end, or the comma after an element of `Accept`. */
let stop = 0;

/** HTAB, SP, a visible ASCII character or obs-text: what a quoted string holds, or a quoted-pair escapes. */
function isText(code: number): boolean {
  return code === TAB || (code >= SPACE && code !== 0x7f && code <= 0xff);
}

/**
 * The value of the quoted-string whose opening quote is at `index`, each quoted-pair replaced by the
 * character it escapes; undefined when a character is not allowed or the closing quote is missing.
 * Sets {@link stop} after the closing quote.
 */
function readQuoted(text: string, index: number): string | undefined {
  let value = '';
  let from = index + 1;
  for (let at = from; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      stop = at + 1;
      return value + text.slice(from, at);
    }
    if (!isText(code)) return undefined;
    if (code === BACKSLASH) {
      if (!isText(text.charCodeAt(++at))) return undefined;
      value += text.slice(from, at - 1);
      from = at;
    }
  }
  return undefined;
}

/** A qvalue (RFC 9110 §12.4.2): `0` or `1`, with at most three decimals, none above 1 (`.5` and `1.5` are none). */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Reads a media type (or, in `Accept`, a media range and its weight) from `start`; undefined when it
 * does not follow the grammar. In a list it stops at the comma after the element; {@link stop} says
 * where it stopped.
 */
function read(text: string, start: number, inList: boolean): MediaRange | undefined {
  const typeStart = skipSpaces(text, start);
  const typeEnd = tokenEnd(text, typeStart);
  if (typeEnd === typeStart || text.charCodeAt(typeEnd) !== SLASH) return undefined;
  const subtypeEnd = tokenEnd(text, typeEnd + 1);
  if (subtypeEnd === typeEnd + 1) return undefined;
  const essence = text.slice(typeStart, subtypeEnd).toLowerCase();
  let parameters: Map<string, string> | undefined;
  let q = -1;
  let index = subtypeEnd;
  for (;;) {
    index = skipSpaces(text, index);
    if (index === text.length || (inList && text.charCodeAt(index) === COMMA)) break;
    if (text.charCodeAt(index) !== SEMICOLON) return undefined;
    index = skipSpaces(text, index + 1);
    // An empty parameter (`text/plain;;charset=utf-8`, `text/plain;`) is allowed by RFC 9110.
    if (index === text.length) break;
    const next = text.charCodeAt(index);
    if (next === SEMICOLON || (inList && next === COMMA)) continue;
    const nameEnd = tokenEnd(text, index);
    // No space around "=": RFC 9110 §8.3.1 allows none in a media type's parameters.
    if (nameEnd === index || text.charCodeAt(nameEnd) !== EQUALS) return undefined;
    const name = text.slice(index, nameEnd).toLowerCase();
    let value: string | undefined;
    if (text.charCodeAt(nameEnd + 1) === QUOTE) {
      value = readQuoted(text, nameEnd + 1);
      if (value === undefined) return undefined;
      index = stop;
    } else {
      index = tokenEnd(text, nameEnd + 1);
      if (index === nameEnd + 1) return undefined;
      value = text.slice(nameEnd + 1, index);
    }
    if (inList && name === 'q') {
      // The weight is a bare qvalue (`q="0.5"` is none), given once, wherever it stands (RFC 9110 §12.5.1).
      if (q !== -1 || text.charCodeAt(nameEnd + 1) === QUOTE) return undefined;
      if (!QVALUE.test(value)) return undefined;
      q = Number(value);
      continue;
    }
    parameters ??= new Map();
    // A parameter given twice is an error (RFC 6838 §4.3): which of the two counts is anyone's guess.
    if (parameters.has(name)) return undefined;
    parameters.set(name, value);
  }
  stop = index;
  const slash = typeEnd - typeStart;
  return { type: essence.slice(0, slash), subtype: essence.slice(slash + 1), essence, parameters: parameters ?? NO_PARAMETERS, q: q === -1 ? 1 : q };
}

/**
 * Parses a `Content-Type` value (or any one media type) to the grammar of RFC 9110: undefined for
 * anything else, such as a value with two media types, an unquoted `profile=http://localhost`, an
 * unterminated quote, space around `=`, or a parameter given twice.
 *
 * @example
 * parseMediaType('Application/JSON; charset="UTF-8"'); // { type: 'application', subtype: 'json', essence: 'application/json', parameters: Map { 'charset' => 'UTF-8' } }
 * parseMediaType('text/plain; profile=http://localhost'); // undefined
 */
export function parseMediaType(value: string): MediaType | undefined {
  return read(value, 0, false);
}

/**
 * Parses an `Accept` value into its media ranges, in order; undefined when any element does not
 * follow the grammar (a malformed parameter or weight, a quote left open, `*` with no subtype).
 * Empty elements are skipped, as RFC 9110 §5.6.1.2 asks.
 *
 * @example
 * parseAccept('text/html;level=1, text/*;q=0.1'); // [text/html with level=1 and q 1, text/* with q 0.1]
 * parseAccept('text/html;x="a, b"'); // one range: the comma is inside quotes
 * parseAccept('*; q=.2'); // undefined
 */
export function parseAccept(value: string): MediaRange[] | undefined {
  const ranges: MediaRange[] = [];
  let index = 0;
  for (;;) {
    index = skipSpaces(value, index);
    if (index === value.length) return ranges;
    if (value.charCodeAt(index) === COMMA) {
      index++;
      continue;
    }
    const range = read(value, index, true);
    if (range === undefined) return undefined;
    ranges.push(range);
    index = stop;
  }
}

/**
 * Whether two values of a parameter are the same: exactly, but for `charset`, whose values are
 * names compared without regard to case (RFC 9110 §8.3.2).
 *
 * @example
 * sameParameterValue('charset', 'UTF-8', 'utf-8'); // true
 * sameParameterValue('level', 'A', 'a'); // false
 */
export function sameParameterValue(name: string, one: string, other: string): boolean {
  return one === other || (name === 'charset' && one.toLowerCase() === other.toLowerCase());
}

/** The distance between two levels of {@link specificity}: a count of parameters orders ranges within one level only. */
const LEVEL = 2 ** 32;

/**
 * How specifically a range applies to a media type (RFC 9110 §12.5.1): -1 when it does not; else
 * `*` / `*` < `type/*` < `type/subtype`, and among equals, the range with more parameters. A range's
 * parameters must all be on the media type, with the same values; the media type may have more.
 *
 * @example
 * specificity(parseAccept('text/plain;format=flowed')![0]!, parseMediaType('text/plain; format=flowed; charset=utf-8')!); // 2 ** 33 + 1
 * specificity(parseAccept('text/plain;format=fixed')![0]!, parseMediaType('text/plain')!); // -1
 */
export function specificity(range: MediaType, media: MediaType): number {
  let level: number;
  if (range.essence === media.essence) level = 2;
  else if (range.subtype !== '*') return -1;
  else if (range.type === media.type) level = 1;
  else if (range.type === '*') level = 0;
  else return -1;
  for (const [name, value] of range.parameters) {
    const own = media.parameters.get(name);
    if (own === undefined || !sameParameterValue(name, value, own)) return -1;
  }
  return level * LEVEL + range.parameters.size;
}

/**
 * The weight a list of ranges gives a media type: that of the most specific range that applies
 * (the higher weight between equally specific ones), or -1 when none applies.
 *
 * @example
 * qualityOf(parseAccept('text/*;q=0.3, text/plain;q=0.7')!, parseMediaType('text/plain')!); // 0.7
 * qualityOf(parseAccept('text/*;q=0.3, text/plain;q=0.7')!, parseMediaType('image/png')!); // -1
 */
export function qualityOf(ranges: readonly MediaRange[], media: MediaType): number {
  let best = -1;
  let quality = -1;
  for (const range of ranges) {
    const rank = specificity(range, media);
    if (rank > best || (rank === best && rank !== -1 && range.q > quality)) {
      best = rank;
      quality = range.q;
    }
  }
  return quality;
}
