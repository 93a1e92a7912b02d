/**
 * Refuses options objects with keys restcanon does not know. In plain JavaScript a misspelled
 * option (`ownr` for `owner`) would otherwise switch a protection off without a word.
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
