import type { ApiRequest, HeaderRecord, Logger } from './contract.js';
import { single } from './request.js';

/**
 * A request's id and its logger: what the host gives, else what the API trusts or has, else its own.
 */

/**
 * A new request id: a URN that says nothing about the server.
 *
 * @example
 * newRequestId(); // 'urn:uuid:0b6c2d0e-...'
 */
export function newRequestId(): string {
  return `urn:uuid:${globalThis.crypto.randomUUID()}`;
}

/**
 * The characters and length of an id taken from an incoming header: enough for a UUID, a ULID, a
 * W3C trace id or `req-1`, and nothing that could change the meaning of a header, a log line or a
 * problem's `instance` (a URI reference).
 */
const TRUSTED_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * The id of a request: the host's (`request.id`), else the value of the incoming header the API
 * trusts when it is a plain id, else a new `urn:uuid:`.
 *
 * @example
 * requestIdOf({ method: 'GET', url: '/', id: 'req-1' }, {}, undefined); // 'req-1'
 */
export function requestIdOf(request: ApiRequest, headers: HeaderRecord, trusted: string | undefined): string {
  return givenRequestId(request, headers, trusted) ?? newRequestId();
}

/**
 * The id a request comes with, as {@link requestIdOf} finds it: the host's, else the trusted
 * header's when it is a plain id; undefined when it has none and needs one of its own.
 *
 * @example
 * givenRequestId({ method: 'GET', url: '/' }, { 'x-request-id': 'req-1' }, 'x-request-id'); // 'req-1'
 */
export function givenRequestId(request: ApiRequest, headers: HeaderRecord, trusted: string | undefined): string | undefined {
  const own = request.id;
  if (typeof own === 'string' && own !== '') return own;
  if (trusted !== undefined) {
    const given = single(headers[trusted]);
    if (given !== undefined && TRUSTED_ID.test(given)) return given;
  }
  return undefined;
}

/** A logger that writes nothing: `ctx.log` where neither the host nor the API has one. */
export const SILENT_LOGGER: Logger = Object.freeze({ error() {}, warn() {}, info() {}, debug() {} });
