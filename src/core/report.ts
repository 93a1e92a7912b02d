import type { Exchange } from './exchange.js';

/**
 * Reports something an operator should see while the request still succeeds (a list item dropped by
 * `owner`, a `location` that failed): with an id of its own and the status the request gets.
 *
 * @example
 * reportAside(exchange, new TypeError('The location returned a number'));
 */
export function reportAside(exchange: Exchange, error: unknown): void {
  const { settings } = exchange;
  settings.report(error, { requestId: exchange.ctx.id, status: settings.policy.decide(exchange.compiled.endpoint.operation), request: exchange.ctx.request });
}
