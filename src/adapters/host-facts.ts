import type { ApiRequest, Logger } from '../core/contract.js';

/**
 * What a host knows of a request that reaches the API: its own objects, the client's address as it
 * reads it, its id of the request and its logger for it.
 */

/**
 * Where a host keeps those facts: Express's `req.ip`, pino-http's `req.id` and `req.log`, Fastify's
 * `request.ip`, `request.id` and `request.log`.
 *
 * @example
 * const source: HostSource = { ip: '203.0.113.7', id: 'req-1' };
 */
export interface HostSource {
  readonly ip?: unknown;
  readonly id?: unknown;
  readonly log?: unknown;
}

/**
 * Gives a request the host's objects and what the host knows of it: the address its `ip` gives
 * (after its trust-proxy rule) or else the connection's, its id, and its logger when it is one.
 *
 * @example
 * addHostFacts(request, { req, res }, req, req.socket?.remoteAddress);
 */
export function addHostFacts(request: ApiRequest, host: object, source: HostSource, address: string | undefined): ApiRequest {
  request.host = host;
  const ip = typeof source.ip === 'string' ? source.ip : address;
  if (ip !== undefined) request.ip = ip;
  const { id, log } = source;
  if ((typeof id === 'string' && id !== '') || typeof id === 'number') request.id = String(id);
  if (isLogger(log)) request.log = log;
  return request;
}

function isLogger(value: unknown): value is Logger {
  const candidate = value as Partial<Record<keyof Logger, unknown>> | null | undefined;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.error === 'function' && typeof candidate.warn === 'function' && typeof candidate.info === 'function' && typeof candidate.debug === 'function';
}
