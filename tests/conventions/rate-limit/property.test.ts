/**
 * The rate limit against a model: any sequence of requests from a few addresses and moves of the
 * clock gets the statuses and fields that a fixed window per address, counted by hand, gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createApi, endpoint } from '../../../src/index.js';
import { rateLimit } from '../../../src/conventions/rate-limit/index.js';
import { clockedStore } from './stores.js';

const QUOTA = 3;
const WINDOW = 10;

type Step = { kind: 'request'; ip: string } | { kind: 'wait'; ms: number };

const steps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('request' as const), ip: fc.constantFrom('198.51.100.1', '198.51.100.2', '::ffff:198.51.100.1') }),
    fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 12_000 }) }),
  ),
  { maxLength: 40 },
);

describe('rate limit against a model', () => {
  it('statuses, RateLimit and Retry-After follow a fixed window per address', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (sequence: Step[]) => {
        const clock = { now: 1_000_000 };
        const api = createApi({
          use: [rateLimit({ policies: { default: { quota: QUOTA, window: WINDOW } }, store: clockedStore(clock) })],
          endpoints: [endpoint('GET', '/notes', { handle: () => [] })],
        });
        const windows = new Map<string, { count: number; endsAt: number }>();
        for (const step of sequence) {
          if (step.kind === 'wait') {
            clock.now += step.ms;
            continue;
          }
          const key = step.ip.replace('::ffff:', '');
          let window = windows.get(key);
          if (window === undefined || window.endsAt <= clock.now) {
            window = { count: 0, endsAt: clock.now + WINDOW * 1000 };
            windows.set(key, window);
          }
          window.count++;
          const seconds = Math.ceil((window.endsAt - clock.now) / 1000);
          const answer = await api.handle({ method: 'GET', url: '/notes', ip: step.ip });
          expect(answer.status).toBe(window.count <= QUOTA ? 200 : 429);
          expect(answer.headers.ratelimit).toBe(`"default";r=${Math.max(0, QUOTA - window.count)};t=${seconds}`);
          expect(answer.headers['retry-after']).toBe(window.count <= QUOTA ? undefined : String(seconds));
        }
      }),
      { numRuns: 200 },
    );
  });
});
