/**
 * What an error body must never hold: a stack trace, a path of the server's files, a secret or a
 * database's own error. Each pattern has a name, which is what a finding says it found.
 */

/** One kind of leak and how it shows in a body. */
interface LeakPattern {
  name: string;
  pattern: RegExp;
}

/**
 * The kinds of leak the probe looks for, first match first.
 *
 * @example
 * LEAK_PATTERNS.map((leak) => leak.name); // ['a stack trace', ...]
 */
export const LEAK_PATTERNS: readonly LeakPattern[] = [
  // V8, Python, Java and .NET frames.
  { name: 'a stack trace', pattern: /\bat (?:async )?[\w$.<>[\] ]*\(?(?:\/|[A-Za-z]:\\|file:\/\/|node:)[^\s)]*:\d+(?::\d+)?\)?|Traceback \(most recent call last\)|\n\s+at [\w$.]+\([\w$]+\.java:\d+\)|   at [\w.]+\(.*\) in .*:line \d+/ },
  // A path that ends in a source file: a URL path such as /app/users is not one.
  { name: 'a file path of the server', pattern: /(?:\/home\/|\/usr\/|\/var\/|\/srv\/|\/opt\/|\/app\/|\/tmp\/|\/root\/|node_modules\/|[A-Za-z]:\\)[\w.\-/\\]*\.(?:[cm]?js|ts|py|rb|php|java|go|cs|json|ya?ml|env)\b/ },
  { name: 'a private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { name: 'a cloud access key', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { name: 'credentials in a connection string', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"']+:[^\s@/"']+@[^\s"']+/i },
  { name: 'a secret by name', pattern: /["']?\b(?:password|passwd|secret|api[_-]?key|private[_-]?key|client[_-]?secret|access[_-]?token)\b["']?\s*[:=]\s*["']?[^\s"',}]{8,}/i },
  { name: "a database's error", pattern: /\b(?:SQLITE_ERROR|SQLSTATE\[|ER_PARSE_ERROR|ER_[A-Z_]+:|syntax error at or near|ORA-\d{5}|MongoServerError|duplicate key value violates)\b/ },
];

/**
 * The leaks a body shows: each kind once, with the text that matched.
 *
 * @example
 * leaksIn('TypeError: x\n    at handler (/app/server.js:12:3)'); // [{ name: 'a stack trace', match: 'at handler (/app/server.js:12:3)' }]
 */
export function leaksIn(text: string): { name: string; match: string }[] {
  return LEAK_PATTERNS.flatMap((leak) => {
    const match = leak.pattern.exec(text);
    return match === null ? [] : [{ name: leak.name, match: match[0].trim().slice(0, 120) }];
  });
}
