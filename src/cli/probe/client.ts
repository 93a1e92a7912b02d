/**
 * The probe's only way out: requests to the base URL's origin and nowhere else, paced by the limiter,
 * counted against the budget, each within the timeout, and every exchange kept for the checks that
 * read all answers (5xx, problem bodies, leaks). A redirect is an answer like any other: it is never
 * followed.
 */
import { withoutTrailingSlashes } from '../../core/request.js';
import { exchange, ExchangeError, type HttpAnswer, type HttpRequest } from './http.js';
import { createLimiter, type Clock } from './limiter.js';

/**
 * One request the probe sent, and what came back (or why nothing did).
 *
 * @example
 * client.exchanges.filter((entry) => entry.answer?.status === 500);
 */
export interface Exchange {
  request: HttpRequest;
  answer?: HttpAnswer;
  error?: ExchangeError;
}

/**
 * Thrown when the budget of requests is spent: the checks still to come do not run.
 *
 * @example
 * if (error instanceof BudgetSpent) notRun('the request budget ran out');
 */
export class BudgetSpent extends Error {
  override readonly name = 'BudgetSpent';
}

/**
 * Limits of a client.
 *
 * @example
 * const limits: ClientLimits = { rate: 10, timeout: 5000, maxRequests: 300 };
 */
export interface ClientLimits {
  rate: number;
  timeout: number;
  maxRequests: number;
  /** Bytes of each answer's body kept. */
  maxBodyBytes?: number;
  clock?: Clock;
}

/**
 * The probe's client.
 *
 * @example
 * const client = createProbeClient(new URL('http://127.0.0.1:3000'), { rate: 10, timeout: 5000, maxRequests: 300 });
 * const { answer } = await client.send({ method: 'GET', url: client.urlOf('/users') });
 */
export interface ProbeClient {
  readonly origin: string;
  readonly exchanges: readonly Exchange[];
  /** Requests sent so far. */
  readonly sent: number;
  readonly maxRequests: number;
  /** The path every path of the API is below: the base URL's, and the document's server path. */
  basePath: string;
  /** The base path joined with a path of the API. */
  urlOf(path: string): string;
  /** Whether a URL is on the base URL's origin. */
  isOwn(url: string): boolean;
  /**
   * Sends a request; an exchange error is kept in the result, a request elsewhere is refused. A
   * `cleanup` request (the deletion of what the probe created) may go past the budget.
   */
  send(request: HttpRequest, options?: { cleanup?: boolean }): Promise<Exchange>;
  /** Called after every exchange, for the progress bar. */
  onExchange?: (entry: Exchange) => void;
}

/**
 * Makes a client bound to the origin of `base`.
 *
 * @example
 * const client = createProbeClient(new URL('http://127.0.0.1:3000/api'), { rate: 100, timeout: 1000, maxRequests: 50 });
 */
export function createProbeClient(base: URL, limits: ClientLimits): ProbeClient {
  const take = createLimiter(limits.rate, limits.clock);
  const exchanges: Exchange[] = [];
  const client: ProbeClient = {
    basePath: withoutTrailingSlashes(base.pathname),
    origin: base.origin,
    exchanges,
    maxRequests: limits.maxRequests,
    get sent() {
      return exchanges.length;
    },
    urlOf: (path) => `${base.origin}${client.basePath}${path.startsWith('/') ? path : `/${path}`}`,
    isOwn(url) {
      try {
        return new URL(url).origin === base.origin;
      } catch {
        return false;
      }
    },
    async send(request, options = {}) {
      // The one guard every request passes: the probe talks to the host it was given and no other.
      if (!client.isOwn(request.url)) throw new Error(`refused to send ${request.method} ${request.url}: not on ${base.origin}`);
      if (exchanges.length >= limits.maxRequests && options.cleanup !== true) throw new BudgetSpent(`the request budget (--max-requests ${limits.maxRequests}) is spent`);
      await take();
      const entry: Exchange = { request };
      exchanges.push(entry);
      try {
        entry.answer = await exchange(request, { timeoutMs: limits.timeout, maxBodyBytes: limits.maxBodyBytes ?? 256 * 1024 });
      } catch (error) {
        if (!(error instanceof ExchangeError)) throw error;
        entry.error = error;
      }
      client.onExchange?.(entry);
      return entry;
    },
  };
  return client;
}
