/**
 * Refuses options objects with keys restcanon does not know, and values that are no function where a
 * function is expected. In plain JavaScript a misspelled option (`ownr` for `owner`) would otherwise
 * switch a protection off without a word, and `authenticate: { id: 1 }` fail on every request.
 */

/**
 * Throws a `TypeError` for the first key of `options` that is not in `known`, naming it and the
 * nearest known key. `undefined` options are fine; anything else that is not an object is refused.
 *
 * @example
 * checkOptions('collection("projects")', { ownr: isMine }, ['owner', 'read']);
 * // TypeError: `ownr` is not an option of collection("projects"); did you mean `owner`?
 */
export function checkOptions(where: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`The options of ${where} must be an object`);
  }
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const nearest = nearestOf(key, known);
    const hint = nearest === undefined ? `; the options are ${known.map((name) => `\`${name}\``).join(', ')}` : `; did you mean \`${nearest}\`?`;
    throw new TypeError(`\`${key}\` is not an option of ${where}${hint}`);
  }
}

/** The known key closest to `key` by edit distance, if it is close enough to be a slip of the hand. */
function nearestOf(key: string, known: readonly string[]): string | undefined {
  const lowered = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    // A third of the longer name may differ: `fallthru` is still `fallthrough`, `zzz` is nothing.
    const distance = editDistance(lowered, candidate.toLowerCase());
    if (distance > Math.max(2, Math.floor(Math.max(key.length, candidate.length) / 3))) continue;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance, with one row of memory. Option names are short: the quadratic cost is nothing. */
function editDistance(from: string, to: string): number {
  const row = Array.from({ length: to.length + 1 }, (_, index) => index);
  for (let i = 1; i <= from.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= to.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (from[i - 1] === to[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[to.length]!;
}

/**
 * Throws unless an option is undefined or a function, naming the option and the function it takes.
 *
 * @example
 * checkFunction(config.authorize, 'endpoint(GET /me): "authorize"', '(ctx) => true to let the caller go on');
 */
export function checkFunction(value: unknown, what: string, shape: string): void {
  if (value !== undefined && typeof value !== 'function') throw new TypeError(`${what} must be a function ${shape}, got ${describeValue(value)}`);
}

/** A value as a message names it: its kind, and a short string or a number as it is. */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'string' ? `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}` : `${typeof value} ${String(value)}`;
}
