import type { Exchange } from './exchange.js';

/**
 * The id of one report to `onError`, which a 5xx problem also carries as its `instance`: a URN that
 * says nothing about the server.
 *
 * @example
 * newRequestId(); // 'urn:uuid:0b6c2d0e-...'
 */
export function newRequestId(): string {
  return `urn:uuid:${globalThis.crypto.randomUUID()}`;
}

/**
 * Reports something an operator should see while the request still succeeds (a list item dropped by
 * `owner`, a `location` that failed): with an id of its own and the status the request gets.
 *
 * @example
 * reportAside(exchange, new TypeError('The location returned a number'));
 */
export function reportAside(exchange: Exchange, error: unknown): void {
  const { settings } = exchange;
  settings.report(error, { requestId: newRequestId(), status: settings.policy.decide(exchange.compiled.endpoint.operation), request: exchange.ctx.request });
}
