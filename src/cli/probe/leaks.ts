/**
 * What an error body must never hold: a stack trace, a path of the server's files, a secret or a
 * database's own error. Each pattern has a name, which is what a finding says it found.
 *
 * The body comes from a server the probe does not trust, so each pattern reads it in linear time:
 * a pattern whose search could read on from every position (a frame's name, a path, a URL's scheme)
 * is tried only where its `starts` finds a place a match can begin, anchored there (sticky), with
 * what may repeat bounded, and only the first {@link LEAK_READ} characters of a body are read.
 */

/** One kind of leak and how it shows in a body. */
interface LeakPattern {
  name: string;
  /** The leak; sticky when `starts` is given. */
  pattern: RegExp;
  /** Every place a match of `pattern` can begin (a superset), for a pattern tried only there. */
  starts?: RegExp;
}

/**
 * The characters of a body the leak patterns read: a leak is in what a server writes first.
 *
 * @example
 * leaksIn('x'.repeat(LEAK_READ) + ' at handler (/app/server.js:12:3)'); // []
 */
export const LEAK_READ = 64 * 1024;

/**
 * The kinds of leak the probe looks for, first match first.
 *
 * @example
 * LEAK_PATTERNS.map((leak) => leak.name); // ['a stack trace', ...]
 */
export const LEAK_PATTERNS: readonly LeakPattern[] = [
  // V8, Python, Java and .NET frames. A V8 frame's name is read up to 256 characters and its file up
  // to 512; a Java frame's indent up to 64; a .NET frame's arguments up to 512, and its file up to 512.
  {
    name: 'a stack trace',
    pattern: /\bat (?:async )?[\w$.<>[\] ]{0,256}\(?(?:\/|[A-Za-z]:\\|file:\/\/|node:)[^\s)]{0,512}:\d+(?::\d+)?\)?|Traceback \(most recent call last\)|\n\s{1,64}at [\w$.]+\([\w$]+\.java:\d+\)|   at [\w.]+\([^)\n\r\u2028\u2029]{0,512}\) in .{0,512}:line \d+/y,
    starts: /\bat |Traceback|\n|   at /g,
  },
  // A path that ends in a source file, read up to 512 characters: a URL path such as /app/users is not one.
  {
    name: 'a file path of the server',
    pattern: /(?:\/home\/|\/usr\/|\/var\/|\/srv\/|\/opt\/|\/app\/|\/tmp\/|\/root\/|node_modules\/|[A-Za-z]:\\)[\w.\-/\\]{0,512}\.(?:[cm]?js|ts|py|rb|php|java|go|cs|json|ya?ml|env)\b/y,
    starts: /\/|node_modules\/|[A-Za-z]:\\/g,
  },
  { name: 'a private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { name: 'a cloud access key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  // A scheme of up to 64 characters.
  { name: 'credentials in a connection string', pattern: /\b[a-z][a-z0-9+.-]{0,63}:\/\/[^\s:/@"']+:[^\s@/"']+@[^\s"']+/iy, starts: /\b[a-z]/gi },
  { name: 'a secret by name', pattern: /["']?\b(?:password|passwd|secret|api[_-]?key|private[_-]?key|client[_-]?secret|access[_-]?token)\b["']?\s*[:=]\s*["']?[^\s"',}]{8,}/i },
  { name: "a database's error", pattern: /\b(?:SQLITE_ERROR|SQLSTATE\[|ER_PARSE_ERROR|ER_[A-Z_]+:|syntax error at or near|ORA-\d{5}|MongoServerError|duplicate key value violates)\b/ },
];

/** The first match of a leak's pattern: tried at each of its starts in order, or searched for. */
function firstMatch(text: string, { pattern, starts }: LeakPattern): string | undefined {
  if (starts === undefined) return pattern.exec(text)?.[0];
  starts.lastIndex = 0;
  for (let start = starts.exec(text); start !== null; start = starts.exec(text)) {
    pattern.lastIndex = start.index;
    const match = pattern.exec(text);
    if (match !== null) return match[0];
    // The next start may begin inside this one (`   at ` holds `at `).
    starts.lastIndex = start.index + 1;
  }
  return undefined;
}

/**
 * The leaks a body shows: each kind once, with the text that matched.
 *
 * @example
 * leaksIn('TypeError: x\n    at handler (/app/server.js:12:3)'); // [{ name: 'a stack trace', match: 'at handler (/app/server.js:12:3)' }, { name: 'a file path of the server', match: '/app/server.js' }]
 */
export function leaksIn(body: string): { name: string; match: string }[] {
  const text = body.length > LEAK_READ ? body.slice(0, LEAK_READ) : body;
  return LEAK_PATTERNS.flatMap((leak) => {
    const match = firstMatch(text, leak);
    return match === undefined ? [] : [{ name: leak.name, match: match.trim().slice(0, 120) }];
  });
}
