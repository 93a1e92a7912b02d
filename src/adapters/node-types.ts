/**
 * The parts of Node's request and response that restcanon reads and writes: what the node adapter
 * serves, and what Express and Fastify hand on from `node:http`. The types are structural, so that
 * `node:http`, `node:https` and the `node:http2` compatibility API all fit.
 */
import type { HeaderRecord, ResponseHeaders } from '../core/contract.js';
import type { ClosingSocket } from './unread-body.js';

/**
 * The parts of a `node:http` `IncomingMessage` (or an `Http2ServerRequest`) that restcanon reads.
 *
 * @example
 * const pathOf = (req: NodeRequest) => req.url ?? '/';
 */
export interface NodeRequest {
  method?: string | undefined;
  url?: string | undefined;
  /** Header names in lower case, as `node:http` gives them: the adapter does not lower them again. */
  headers: HeaderRecord;
  /** Every header line as received, name then value: where a repeated header that `headers` keeps once is found. */
  rawHeaders?: readonly string[] | undefined;
  /** Whether the whole body has arrived. */
  readonly complete: boolean;
  /** 2 for HTTP/2, whose connection one request cannot close. */
  readonly httpVersionMajor?: number | undefined;
  /** The connection, kept half-open a moment after an answer that closes it. */
  readonly socket?: ClosingSocket | null | undefined;
  iterator(options: { destroyOnReturn: boolean }): AsyncIterator<unknown>;
  on(event: 'data', listener: (chunk: { length: number }) => void): unknown;
  off(event: 'data', listener: (chunk: { length: number }) => void): unknown;
  destroy(): unknown;
}

/**
 * The parts of a `node:http` `ServerResponse` (or an `Http2ServerResponse`) that restcanon writes.
 *
 * @example
 * const send = (res: NodeResponse) => res.writeHead(204, {}).end();
 */
export interface NodeResponse {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  /** The request answered, which `node:http` sets: the rest of a body the API left unread is settled through it. */
  readonly req?: NodeRequest | undefined;
  /** Node's `once`: the socket of an answer that closes the connection is kept half-open a moment after `finish`. */
  once?(event: 'finish', listener: () => void): unknown;
  /** Node's `getHeader`: a cookie the host set before the API answered is sent beside the API's. */
  getHeader?(name: string): number | string | readonly string[] | undefined;
  writeHead(status: number, headers: ResponseHeaders): unknown;
  /** Node's `flushHeaders`: the head of a stream answer goes out before its first chunk. */
  flushHeaders?(): unknown;
  end(payload?: string | Uint8Array): unknown;
  destroy(): unknown;
}
