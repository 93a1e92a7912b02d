/**
 * The probe's pace: at most `rate` requests a second, spaced evenly rather than in bursts, so that a
 * probe of a shared server looks like one careful client. The clock and the wait are injectable, so
 * that tests check the spacing without waiting for it.
 */

/**
 * The clock a limiter reads and the wait it uses.
 *
 * @example
 * const clock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const REAL_CLOCK: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * A limiter: `await take()` before each request returns when the request may go.
 *
 * @example
 * const take = createLimiter(10);
 * await take(); // at once
 * await take(); // 100 ms after the first
 */
export function createLimiter(rate: number, clock: Clock = REAL_CLOCK): () => Promise<void> {
  if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError(`rate must be a positive number of requests per second; got ${rate}`);
  const interval = 1000 / rate;
  let next = -Infinity;
  return async () => {
    const now = clock.now();
    const slot = Math.max(now, next);
    next = slot + interval;
    if (slot > now) await clock.sleep(slot - now);
  };
}
