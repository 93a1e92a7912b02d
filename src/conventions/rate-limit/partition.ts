import type { ApiRequest } from '../../core/contract.js';
import type { AnyContext } from '../../core/endpoint.js';

/**
 * Whose count a request joins: its caller's, once authentication knows it, or its client address's,
 * as the host reads it after its trust-proxy rule (never a header the client writes).
 */

/**
 * How requests are partitioned: `'caller'` counts a signed-in caller by `principal.id` and an
 * anonymous one by address; `'ip'` counts every request by address; a function gives the key
 * itself, once the caller is known.
 *
 * @example
 * const partition: Partition = (ctx) => String(ctx.principal?.tenant ?? ctx.ip);
 */
export type Partition = 'caller' | 'ip' | ((ctx: AnyContext) => string);

/**
 * The key of a request without an address (`api.handle` in memory, a host that gives none): all of
 * them share one count, so that they are limited together rather than not at all.
 */
export const NO_ADDRESS = 'ip:unknown';

/**
 * The address key of a request: its `ip`, an IPv4 address written as IPv6 (`::ffff:203.0.113.9`) as
 * the IPv4 address it is, so that one client is one count whichever way its socket reports it.
 *
 * @example
 * addressKey({ method: 'GET', url: '/', ip: '::ffff:203.0.113.9' }); // 'ip:203.0.113.9'
 */
export function addressKey(request: ApiRequest): string {
  const { ip } = request;
  if (typeof ip !== 'string' || ip === '') return NO_ADDRESS;
  // Only an address that starts with '::' is lowered: an IPv4 address, the common case, is not copied.
  return `ip:${ip.startsWith('::') && ip.slice(2, 7).toLowerCase() === 'ffff:' && ip.includes('.') ? ip.slice(7) : ip}`;
}

/**
 * The key of a signed-in caller: `principal.id` (a string or a number). A principal without one is a
 * mistake the API's author fixes with a `partition` function: it throws, a 500 that is reported.
 *
 * @example
 * callerKey({ id: 7, role: 'user' }); // 'caller:7'
 */
export function callerKey(principal: unknown): string {
  const id = (principal as { id?: unknown }).id;
  if ((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id))) return `caller:${id}`;
  throw new TypeError('rateLimit(): partition "caller" counts a signed-in caller by principal.id, and this principal has none; give "partition" a function (ctx) => a key, such as (ctx) => ctx.principal.email');
}

/**
 * Whether a request carries credentials that authentication will read: an anonymous one (none) is
 * counted by address before `authenticate` runs.
 *
 * @example
 * carriesCredentials({ method: 'GET', url: '/', headers: { authorization: 'Bearer t' } }); // true
 */
export function carriesCredentials(request: ApiRequest): boolean {
  return request.headers?.authorization !== undefined;
}
