/**
 * Settings of the http and peers benchmarks and their tools, read from environment variables.
 */

/**
 * The variable as a number, `fallback` when it is not set (`Number('')` is 0, as before).
 * @param {string} name @param {number} fallback @returns {number}
 */
export const envNumber = (name, fallback) => Number(process.env[name] ?? fallback);

/**
 * The variable as a comma list of trimmed names, or undefined when it is not set.
 * @param {string} name @returns {string[] | undefined}
 */
export const envList = (name) => process.env[name]?.split(',').map((item) => item.trim());

/**
 * The variable as one of two words, the first by default; any other value prints what it may be and
 * exits 2.
 * @template {string} T @param {string} name @param {[T, T]} choices @returns {T}
 */
export function envChoice(name, [first, second]) {
  const value = process.env[name] ?? first;
  if (value !== first && value !== second) {
    console.error(`${name} is "${first}" (the default) or "${second}", not "${value}"`);
    process.exit(2);
  }
  return /** @type {T} */ (value);
}

/**
 * The command line's arguments after the script, or the usage line and exit 2 when there are none.
 * @param {string} usage such as `node bench/http/warmup.mjs <server>[@dist] ...` @returns {string[]}
 */
export function argsOrUsage(usage) {
  const args = process.argv.slice(2);
  if (args.length === 0) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return args;
}
