/**
 * The arguments every store refuses alike, before it touches anything: a mistake in the caller is a
 * TypeError or a RangeError that names it, never a store that failed.
 */

/**
 * Refuses a key or value that is not a string.
 *
 * @example
 * checkText('key', key);
 */
export function checkText(name: 'key' | 'value', text: unknown): void {
  if (typeof text !== 'string') throw new TypeError(`a store's ${name} must be a string; it is ${typeof text}`);
}

/**
 * Refuses a time to live or a window that is not a whole number of milliseconds, 1 or more: an
 * entry that never expires, or expires before it is written, is a caller's mistake.
 *
 * @example
 * checkDuration('ttlMs', ttlMs);
 */
export function checkDuration(name: 'ttlMs' | 'windowMs', ms: number): void {
  if (!Number.isSafeInteger(ms) || ms < 1) throw new RangeError(`${name} must be a whole number of milliseconds, 1 or more; it is ${String(ms)}`);
}

/**
 * Refuses a hit's cost that is not a whole number, 0 or more.
 *
 * @example
 * checkCost(cost);
 */
export function checkCost(cost: number): void {
  if (!Number.isSafeInteger(cost) || cost < 0) throw new RangeError(`a hit's cost must be a whole number, 0 or more (1 when omitted); it is ${String(cost)}`);
}
