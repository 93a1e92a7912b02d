/**
 * The retry policy of `restcanon/client`: which answers are tried again, and how long to wait before
 * the next attempt (what the server asks for with `Retry-After` or `RateLimit`, else an exponential
 * backoff with full jitter), within a bound on attempts and on the whole call's time.
 */

/**
 * How a client tries a call again (off unless given). Only calls that are safe to repeat are tried
 * again: GET, those that send `If-Match`, and those that carry an `Idempotency-Key`.
 *
 * @example
 * const retry: RetryPolicy = { attempts: 4, statuses: [429, 503], maxElapsed: 20_000 };
 */
export interface RetryPolicy {
  /** Attempts in all, the first included: 3 by default. */
  attempts?: number;
  /** The statuses tried again: 408, 425, 429, 500, 502, 503 and 504 by default. A failure to reach the server (no answer) always is. */
  statuses?: readonly number[];
  /** The first backoff's bound, in milliseconds (250 by default); each attempt doubles it, up to `maxDelay`. */
  delay?: number;
  /** The longest wait between two attempts, in milliseconds (30 s by default): a server asking for longer gets its answer returned. */
  maxDelay?: number;
  /** The longest a call may take, in milliseconds, its waits included (60 s by default): a wait that would end past it is not taken. */
  maxElapsed?: number;
  /** Waits, rejecting with the signal's reason when it aborts; a test gives one that does not wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock, in milliseconds since the epoch: `Date.now` by default. */
  now?: () => number;
  /** A number in [0, 1) for the jitter: `Math.random` by default. */
  random?: () => number;
}

const STATUSES = [408, 425, 429, 500, 502, 503, 504];

/**
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts.
 *
 * @example
 * await sleep(1000, AbortSignal.timeout(5000));
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const stop = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/**
 * The wait in milliseconds before attempt `attempt + 1` (the first is 0), or undefined when the call
 * should not be tried again: its status is not one to retry, the attempts are spent, or the wait
 * would pass `maxDelay` or end past `maxElapsed` since `started`. `status` is undefined when no
 * answer came.
 *
 * @example
 * retryDelay({}, 0, 503, new Headers({ 'retry-after': '1' }), Date.now()); // 1000
 */
export function retryDelay(policy: RetryPolicy, attempt: number, status: number | undefined, headers: Headers | undefined, started: number): number | undefined {
  if (attempt + 1 >= (policy.attempts ?? 3) || (status !== undefined && !(policy.statuses ?? STATUSES).includes(status))) return undefined;
  const now = (policy.now ?? Date.now)();
  const asked = serverDelay(headers, now);
  const maxDelay = policy.maxDelay ?? 30_000;
  const wait = asked ?? (policy.random ?? Math.random)() * Math.min(maxDelay, (policy.delay ?? 250) * 2 ** attempt);
  return wait > maxDelay || now + wait - started > (policy.maxElapsed ?? 60_000) ? undefined : wait;
}

/**
 * What the server asks for, in milliseconds: `Retry-After` (seconds, or an HTTP-date), else the
 * longest `t` of the `RateLimit` header's spent limits (`"name";r=0;t=17`, draft-ietf-httpapi-ratelimit-headers).
 */
function serverDelay(headers: Headers | undefined, now: number): number | undefined {
  const after = headers?.get('retry-after');
  if (after) {
    const at = /^\d+$/.test(after) ? now + Number(after) * 1000 : Date.parse(after);
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  let wait: number | undefined;
  for (const limit of headers?.get('ratelimit')?.split(',') ?? []) {
    const t = /;\s*t=(\d+)/.exec(limit);
    if (t && /;\s*r=0(?!\d)/.test(limit)) wait = Math.max(wait ?? 0, Number(t[1]) * 1000);
  }
  return wait;
}
