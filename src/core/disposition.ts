/**
 * `Content-Disposition: attachment` (RFC 6266) with a file name a client may offer to save under:
 * an ASCII `filename` for every client, and `filename*` (RFC 8187, UTF-8) where the name is more
 * than plain ASCII. The name is text for a header, never a path on the server.
 */

/** Names longer than this are cut: file systems take about 255, and a header must stay bounded. */
const MAX_NAME = 255;
/**
 * The code units of a name's last segment that are read: a name of a megabyte (one a client sent,
 * passed on) costs no more than this. Room for 255 characters of two code units each, and for
 * control characters among them, which are dropped.
 */
const MAX_READ = 4 * MAX_NAME;

/**
 * The value of `Content-Disposition` for a download. A name is cut to its last path segment (after
 * `/` or `\`), of which no more than 1,020 code units are read, loses control characters (CR and
 * LF among them), is cut to 255 characters, and is dropped when nothing or only `.` or `..` is left. The ASCII `filename` holds the name with `_`
 * for each character that is not plain printable ASCII or that a quoted string or a client would
 * read specially (`"`, `\`, `%`); `filename*` follows with the whole name, percent-encoded as UTF-8,
 * where the two differ.
 *
 * @example
 * contentDisposition('report.csv'); // 'attachment; filename="report.csv"'
 * contentDisposition('naïve "plan".txt'); // `attachment; filename="na_ve _plan_.txt"; filename*=UTF-8''na%C3%AFve%20%22plan%22.txt`
 * contentDisposition('../../etc/passwd'); // 'attachment; filename="passwd"'
 * contentDisposition(); // 'attachment'
 */
export function contentDisposition(filename?: string): string {
  if (filename === undefined) return 'attachment';
  if (typeof filename !== 'string') throw new TypeError(`ctx.attachment: the file name must be a string, got ${filename === null ? 'null' : typeof filename}`);
  const name = safeName(filename);
  if (name === undefined) return 'attachment';
  const fallback = asciiOf(name);
  const quoted = `attachment; filename="${fallback}"`;
  return fallback === name ? quoted : `${quoted}; filename*=UTF-8''${extValue(name)}`;
}

/** The last segment of a name, without control characters, bounded; undefined when nothing is left to name a file. */
function safeName(filename: string): string | undefined {
  let segment = filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
  if (segment.length > MAX_READ) segment = segment.slice(0, HIGH_SURROGATE.test(segment[MAX_READ - 1]!) ? MAX_READ - 1 : MAX_READ);
  // Lone surrogates cannot be encoded as UTF-8: each becomes U+FFFD.
  const name = [...segment.replace(LONE_SURROGATE, '\uFFFD').replace(CONTROL, '').trim()].slice(0, MAX_NAME).join('');
  return name === '' || name === '.' || name === '..' ? undefined : name;
}

const HIGH_SURROGATE = /^[\uD800-\uDBFF]$/;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Printable ASCII but the characters a quoted string or a client reads specially. */
const NOT_PLAIN = /[^\u0020-\u007e]|["\\%]/gu;

function asciiOf(name: string): string {
  return name.replace(NOT_PLAIN, '_');
}

/** RFC 8187 `value-chars`: UTF-8 percent-encoded, but for `attr-char`. */
function extValue(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}
