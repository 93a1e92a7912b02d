/**
 * restcanon/node: serve an API from `node:http`, `node:https` or the `node:http2` compatibility API.
 * It only translates: the request into an `ApiRequest`, the `ApiResponse` back onto the wire.
 */
import type { ApiRequest, ApiResponse, HeaderRecord } from '../core/contract.js';
import type { Endpoint } from '../core/endpoint.js';
import { checkOptions } from '../core/options.js';
import type { Api, EndpointHandlerOptions, RespondOptions } from '../core/api.js';
import { createEndpointHandler } from '../preset.js';
import { drainBody, settleUnreadBody, type ClosingSocket } from './unread-body.js';

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
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(payload?: string | Uint8Array): unknown;
  destroy(): unknown;
}

/**
 * Options of {@link toNodeListener}.
 *
 * @example
 * const options: NodeListenerOptions = { fallback: (req, res) => res.writeHead(404, {}).end() };
 */
export interface NodeListenerOptions<Req extends NodeRequest = NodeRequest, Res extends NodeResponse = NodeResponse> {
  /** Serves requests for paths the API does not know. Without it they get the API's 404 problem. */
  fallback?: (req: Req, res: Res) => unknown;
}

const NODE_LISTENER_OPTIONS = ['fallback'];

/** `node:http` gives header names in lower case. */
const LOWER_CASE_HEADERS = { lowerCaseHeaders: true } as const satisfies RespondOptions;

/**
 * Turns an API into a request listener for `http.createServer`, `https.createServer` or
 * `http2.createServer` (compatibility API). A request never crashes the server: an aborted or
 * malformed one gets an answer or a closed socket. A body the API answers without reading to its end
 * (a 401, 413 or 415, a deadline, a GET) is drained up to 64 MiB, then the connection is closed, so
 * that the client sees the answer; a declared `Content-Length` over 64 MiB is not read at all: its
 * answer says `Connection: close`, and the connection ends after it.
 *
 * The listener returns a promise that settles once the response is written when the API has to
 * wait (an async handler, a body to read), and nothing when it answered at once. Node ignores what a
 * listener returns, but its `emit` does more work for a listener that returns a value.
 *
 * @example
 * http.createServer(toNodeListener(api)).listen(3000);
 * http.createServer(toNodeListener(api, { fallback: (req, res) => serveStatic(req, res) }));
 */
export function toNodeListener<Req extends NodeRequest = NodeRequest, Res extends NodeResponse = NodeResponse>(
  api: Api,
  options: NodeListenerOptions<Req, Res> = {},
): (req: Req, res: Res) => Promise<void> | undefined {
  checkOptions('toNodeListener()', options, NODE_LISTENER_OPTIONS);
  const fallback = options.fallback;
  if (fallback === undefined) {
    // No async function around it: a request whose every step was synchronous is written out in the
    // same tick, without a promise. The answer never rejects, and writeNodeResponse answers its own failures.
    return (req, res) => {
      const answer = api.respond(fromNodeRequest(req), LOWER_CASE_HEADERS);
      if (answer instanceof Promise) return answer.then((response) => writeNodeResponse(res, response, response.headers, req));
      writeNodeResponse(res, answer, answer.headers, req);
      return undefined;
    };
  }
  return async (req, res) => {
    try {
      const response = await api.dispatch(fromNodeRequest(req));
      if (response === undefined) await fallback(req, res);
      else sendNodeResponse(res, response);
    } catch {
      // A fallback or the socket may fail. Either way the socket must not hang.
      res.destroy();
    }
  };
}

/**
 * Runs one endpoint as a `node:http` handler, with params that your own router matched.
 *
 * @example
 * const readUserHandler = nodeHandler(readUser);
 * http.createServer((req, res) => {
 *   const match = /^\/users\/([^/]+)$/.exec(req.url ?? '');
 *   if (match) void readUserHandler(req, res, { id: decodeURIComponent(match[1]) });
 * });
 */
export function nodeHandler(endpoint: Endpoint, options: EndpointHandlerOptions = {}): (req: NodeRequest, res: NodeResponse, params?: Record<string, string>) => Promise<void> {
  const handle = createEndpointHandler(endpoint, options);
  return async (req, res, params = {}) => {
    try {
      sendNodeResponse(res, await handle(fromNodeRequest(req), params));
    } catch {
      res.destroy();
    }
  };
}

/**
 * The `ApiRequest` of a Node request. The body is passed raw, as a stream the core reads with its
 * byte limit; `url` replaces `req.url` (a framework mounted at a prefix passes the rest of the path).
 * A repeated `Authorization` or `Content-Type`, which `req.headers` keeps only once, is passed as the
 * array of every value, so that the core sees the request as it was sent.
 *
 * @example
 * const response = await api.handle(fromNodeRequest(req));
 */
export function fromNodeRequest(req: NodeRequest, url: string = req.url ?? '/'): ApiRequest {
  const headers = req.headers;
  // HTTP/2 frames a body without Content-Length or Transfer-Encoding, so every request gets one; it
  // is read only if the endpoint takes a body, and an empty one reads as none.
  return {
    method: req.method ?? 'GET',
    url,
    headers: headers.authorization === undefined && headers['content-type'] === undefined ? headers : withRepeatedHeaders(headers, req.rawHeaders),
    body: readNodeBody(req),
  };
}

/**
 * The headers with every value of a repeated `Authorization` or `Content-Type`. Node keeps the first
 * of each and drops the others, so a server that reads the first and a proxy that reads the last
 * would act on different credentials or media types. The raw lines are only counted, without a
 * string made, and the headers are copied only when one of the two is repeated.
 */
function withRepeatedHeaders(headers: HeaderRecord, rawHeaders: readonly string[] | undefined): HeaderRecord {
  if (rawHeaders === undefined) return headers;
  let authorizations = 0;
  let contentTypes = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    if (isHeaderName(name, 'authorization')) authorizations++;
    else if (isHeaderName(name, 'content-type')) contentTypes++;
  }
  if (authorizations < 2 && contentTypes < 2) return headers;
  const copy = { ...headers };
  if (authorizations > 1) copy.authorization = valuesOf(rawHeaders, 'authorization');
  if (contentTypes > 1) copy['content-type'] = valuesOf(rawHeaders, 'content-type');
  return copy;
}

/** Whether a raw header name is `lowerName` in any case. Setting bit 0x20 lower-cases a letter and leaves `-` as it is. */
function isHeaderName(name: string, lowerName: string): boolean {
  if (name.length !== lowerName.length) return false;
  for (let index = 0; index < name.length; index++) {
    if ((name.charCodeAt(index) | 0x20) !== lowerName.charCodeAt(index)) return false;
  }
  return true;
}

function valuesOf(rawHeaders: readonly string[], lowerName: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (isHeaderName(rawHeaders[index]!, lowerName)) values.push(rawHeaders[index + 1]!);
  }
  return values;
}

/**
 * The body of a Node request as an async iterable that, unlike the stream's own iterator, does not
 * destroy the socket when the reader stops early: a 413 has to reach the client on that socket. The
 * rest of the body is drained instead, so that the client can finish sending and read the answer.
 *
 * @example
 * await api.handle({ method: 'POST', url: req.url, headers: req.headers, body: readNodeBody(req) });
 */
export function readNodeBody(req: NodeRequest): AsyncIterable<unknown> {
  return new NodeBody(req);
}

/**
 * The iterable of {@link readNodeBody}, as a class: every request gets one, most are never read, and
 * an object literal with a computed `[Symbol.asyncIterator]` method and its closure cost more per
 * request than an instance whose method is on the prototype.
 */
class NodeBody implements AsyncIterable<unknown> {
  constructor(private readonly req: NodeRequest) {}

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    const req = this.req;
    const chunks = req.iterator({ destroyOnReturn: false });
    return {
      next: () => chunks.next(),
      async return(value?: unknown) {
        await chunks.return?.();
        if (!req.complete) drainBody(req);
        return { done: true, value };
      },
    };
  }
}

/**
 * Writes an `ApiResponse` to a Node response, with its `Content-Length`. The rest of a body the API
 * did not read (an early 401, 415 or 413) is drained up to 64 MiB, or, for a declared `Content-Length`
 * over that, left unread behind an answer that closes the connection (`res.req` is the request).
 *
 * @example
 * sendNodeResponse(res, await api.handle(fromNodeRequest(req)));
 */
export function sendNodeResponse(res: NodeResponse, response: ApiResponse): void {
  // Not `{ ...headers, 'content-length': n }`: in V8 a spread followed by a new key is slower than
  // a copy and an assignment.
  writeNodeResponse(res, response, response.payload === undefined ? response.headers : Object.assign({}, response.headers), res.req);
}

/**
 * {@link sendNodeResponse} with headers it may add `Content-Length` to. The listener passes the
 * response's own: the core builds every response it answers with a new headers object, and nobody
 * else sees that response. Before the answer goes out, the rest of the request's body is settled.
 */
function writeNodeResponse(res: NodeResponse, response: ApiResponse, headers: Record<string, string>, req: NodeRequest | undefined): void {
  try {
    if (res.headersSent || res.writableEnded || res.destroyed) return;
    const { payload } = response;
    if (payload !== undefined) headers['content-length'] = String(byteLength(payload));
    // A copy: without a payload, sendNodeResponse passes the caller's own headers.
    if (req !== undefined && settleUnreadBody(req, res)) headers = Object.assign({}, headers, CONNECTION_CLOSE);
    res.writeHead(response.status, headers);
    res.end(payload);
  } catch {
    // What Node refuses to write must not become an uncaught exception (the listener's promise is
    // nobody's) nor a socket left open: the connection is closed instead.
    res.destroy();
  }
}

/** An answer with this header ends the connection once it is written. */
const CONNECTION_CLOSE = { connection: 'close' } as const;

function byteLength(payload: string | Uint8Array): number {
  return typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
}
