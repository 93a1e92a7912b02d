import type { ApiRequest, Logger } from '../core/contract.js';

/**
 * What a host knows of a request that reaches the API: its own objects, the client's address as it
 * reads it, its id of the request and its logger for it. Where a host would run its trust-proxy
 * rule over the forwarding headers, the address is read when first asked (`ctx.ip`, a rate limit's
 * count), and most requests never ask. Where the address is the socket's, it is read at once: Node
 * keeps it per connection once read, and an own accessor that waits for the first `ctx.ip` costs
 * a property definition per request, more than the read.
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
 * The connection a request came on, whose address is the client's when the host gives none.
 *
 * @example
 * const socket: AddressSocket = req.socket;
 */
export interface AddressSocket {
  readonly remoteAddress?: string | undefined;
}

/**
 * Gives a request the host's objects and what the host knows of it: its id, its logger when it is
 * one, and, read when first asked, the address its `ip` gives (after its trust-proxy rule) or else
 * the connection's. `addressSource` is where `ip` is read, `source` itself unless the host keeps its
 * id elsewhere.
 *
 * @example
 * addHostFacts(request, { req, res }, req, req.socket);
 */
export function addHostFacts(request: ApiRequest, host: object, source: HostSource, socket: AddressSocket | null | undefined, addressSource: HostSource = source): ApiRequest {
  request.host = host;
  addLazyAddress(request, addressSource, socket);
  return addIdentity(request, source);
}

/**
 * {@link addHostFacts} with the socket's address, read at once: where that is the client's address
 * as the host reads it (on `node:http`; on Fastify without `X-Forwarded-For`, whatever `trustProxy`
 * says, since proxy-addr has nothing to weigh) and Node has it already.
 *
 * @example
 * addHostFactsNow(request, { request, reply }, request, raw.socket);
 */
export function addHostFactsNow(request: ApiRequest, host: object, source: HostSource, socket: AddressSocket | null | undefined): ApiRequest {
  request.host = host;
  request.ip = socketAddress(socket);
  return addIdentity(request, source);
}

/**
 * The address of the connection a request came on; undefined where it has none.
 *
 * @example
 * socketAddress(req.socket); // '127.0.0.1'
 */
export function socketAddress(socket: AddressSocket | null | undefined): string | undefined {
  return addressOf(undefined, socket);
}

function addIdentity(request: ApiRequest, source: HostSource): ApiRequest {
  const { id, log } = source;
  if ((typeof id === 'string' && id !== '') || typeof id === 'number') request.id = String(id);
  if (isLogger(log)) request.log = log;
  return request;
}

/** The address a host gives (taken as it is when it is a string), or else the socket's. */
function addressOf(source: HostSource | undefined, socket: AddressSocket | null | undefined): string | undefined {
  try {
    const ip = source?.ip;
    return typeof ip === 'string' ? ip : socket?.remoteAddress;
  } catch {
    // A connection already gone (an HTTP/2 stream's socket throws then) has no address to give.
    return undefined;
  }
}

/**
 * Makes `request.ip` the address `source.ip` gives, or else the socket's, read the first time
 * `request.ip` is: a string the host gives is taken as it is (Koa's empty one too). Setting
 * `request.ip` replaces it.
 *
 * @example
 * addLazyAddress(request, {}, incoming.socket);
 */
export function addLazyAddress(request: ApiRequest, source: HostSource | undefined, socket: AddressSocket | null | undefined): void {
  (request as LazyRequest)[ORIGIN] = new AddressOrigin(source, socket);
  Object.defineProperty(request, 'ip', LAZY_IP);
}

const ORIGIN: unique symbol = Symbol('restcanon.address');
const UNREAD: unique symbol = Symbol('unread');

interface LazyRequest extends ApiRequest {
  [ORIGIN]: AddressOrigin;
}

/** Where a request's address comes from, and the address once it was read or set. */
class AddressOrigin {
  address: string | undefined | typeof UNREAD = UNREAD;
  constructor(
    readonly source: HostSource | undefined,
    readonly socket: AddressSocket | null | undefined,
  ) {}
}

// One descriptor for every request: requests share their shape, and allocate no closures for it.
const LAZY_IP: PropertyDescriptor = {
  get(this: LazyRequest): string | undefined {
    const origin = this[ORIGIN];
    if (origin.address === UNREAD) origin.address = addressOf(origin.source, origin.socket);
    return origin.address;
  },
  set(this: LazyRequest, address: string | undefined) {
    this[ORIGIN].address = address;
  },
  enumerable: true,
  configurable: true,
};

function isLogger(value: unknown): value is Logger {
  const candidate = value as Partial<Record<keyof Logger, unknown>> | null | undefined;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.error === 'function' && typeof candidate.warn === 'function' && typeof candidate.info === 'function' && typeof candidate.debug === 'function';
}
