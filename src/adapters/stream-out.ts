/**
 * Stream answers on the wire, as every adapter writes them: chunk by chunk as the connection takes
 * them (never the whole stream in memory), the source closed (`return()`) when the client goes away,
 * and the connection ended abruptly when the source fails after the answer started, so that the
 * client sees a truncated body rather than a complete one. Also how the core learns that a client
 * went away (`ApiRequest.onClose`) on each host.
 */
import type { ApiRequest } from '../core/contract.js';
import { Chunks } from '../core/byte-results.js';
import { takeOverNodeStream } from './node-stream.js';

/**
 * The part of Node's `ServerResponse` a stream is written to.
 *
 * @example
 * writeNodeStream(res as StreamingResponse, response.stream);
 */
export interface StreamingResponse {
  readonly destroyed: boolean;
  readonly writableFinished: boolean;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  destroy(): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * Writes a stream to a Node response whose head is written: a chunk at a time, waiting for `drain`
 * whenever `write()` says the socket's buffer is full. When the response closes before its end (the
 * client went away), the source's `return()` is called; when the source throws, the response is
 * destroyed without its last chunk. A Node stream of bytes is piped instead, once its first chunk is
 * read: Node's own flow, without a promise per chunk.
 *
 * @example
 * res.writeHead(200, headers);
 * writeNodeStream(res, response.stream);
 */
export function writeNodeStream(res: StreamingResponse, stream: AsyncIterable<Uint8Array>): Promise<void> {
  if (!(stream instanceof Chunks)) return iterateInto(res, stream);
  const failed = (): unknown => res.destroy();
  return takeOverNodeStream(stream, failed).then(
    (taken) =>
      taken === undefined
        ? iterateInto(res, stream)
        : new Promise<void>((resolve) => {
            // Once the response has closed: the stream is left if that was before its end (the client went away).
            const closed = (): void => (res.writableFinished || taken.leave(), resolve());
            if (res.destroyed) return closed();
            res.once('close', closed);
            taken.stream.pipe(res);
          }),
    // The source failed before it was piped: reported.
    failed,
  ) as Promise<void>;
}

function iterateInto(res: StreamingResponse, stream: AsyncIterable<Uint8Array>): Promise<void> {
  const chunks = stream[Symbol.asyncIterator]();
  let gone = false;
  const onClose = (): void => {
    if (res.writableFinished) return;
    gone = true;
    void closeQuietly(chunks);
  };
  res.once('close', onClose);
  return pump(res, chunks, () => gone).then(
    () => void res.off('close', onClose),
    () => {
      res.off('close', onClose);
      res.destroy();
    },
  );
}

async function pump(res: StreamingResponse, chunks: AsyncIterator<Uint8Array>, gone: () => boolean): Promise<void> {
  for (;;) {
    const { done, value } = await chunks.next();
    if (gone()) return;
    if (done === true) {
      res.end();
      return;
    }
    if (!res.write(value)) await drained(res);
    if (gone()) return;
  }
}

/** Resolves once the response drains, or closes. */
function drained(res: StreamingResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

function closeQuietly(chunks: AsyncIterator<Uint8Array>): Promise<unknown> {
  try {
    return Promise.resolve(chunks.return?.()).catch(ignore);
  } catch {
    return Promise.resolve();
  }
}

function ignore(): void {}

/**
 * A stream answer as the body of a Fetch `Response`: a `ReadableStream` that pulls one chunk each
 * time its reader wants one (so the host's backpressure reaches the source), errors when the source
 * throws (the host then ends the connection abruptly), and calls the source's `return()` when the
 * host cancels it (the client went away).
 *
 * @example
 * new Response(fetchStreamOf(response.stream), { status: 200 });
 */
export function fetchStreamOf(stream: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const chunks = stream[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let result: IteratorResult<Uint8Array>;
        try {
          result = await chunks.next();
        } catch {
          // The core reported the error; a host that writes what the stream errors with (as
          // @hono/node-server does) must not send its message to the client.
          controller.error(STREAM_FAILED);
          return;
        }
        if (result.done === true) controller.close();
        else controller.enqueue(result.value);
      },
      cancel: () => closeQuietly(chunks).then(ignore),
    },
    { highWaterMark: 0 },
  );
}

/** What a Fetch stream answer errors with when its source fails: the same words for every failure. */
const STREAM_FAILED = /* @__PURE__ */ new Error('The answer ended early: its source failed');

/** The host objects a Node adapter keeps as `ApiRequest.host`, by adapter. */
interface NodeHosts {
  res?: StreamingResponse;
  reply?: { raw?: StreamingResponse };
  ctx?: { res?: StreamingResponse };
}

/**
 * `ApiRequest.onClose` for the adapters on Node's response (node:http, Express, Koa, Fastify): the
 * listener is called once the response closes before it finished. One shared function: it finds
 * the response through the request's `host`.
 *
 * @example
 * const request: ApiRequest = { method: 'GET', url: '/', onClose: onNodeClose };
 */
export function onNodeClose(this: ApiRequest, listener: () => void): void {
  const host = this.host as NodeHosts | undefined;
  const res = host?.res ?? host?.reply?.raw ?? host?.ctx?.res;
  if (res !== undefined) onResponseClose(res, listener);
}

/**
 * `ApiRequest.onClose` for Fetch hosts (restcanon/fetch, restcanon/hono): Node's response where the
 * host passes it (@hono/node-server), else the `Request`'s own `signal`.
 *
 * @example
 * const request: ApiRequest = { method: 'GET', url: '/', onClose: onFetchClose };
 */
export function onFetchClose(this: ApiRequest, listener: () => void): void {
  const host = this.host as { env?: unknown; request?: Request; c?: { env?: unknown; req?: { raw?: Request } } } | undefined;
  const outgoing = (host?.env ?? host?.c?.env) as { outgoing?: StreamingResponse } | undefined;
  if (typeof outgoing?.outgoing?.once === 'function') return onResponseClose(outgoing.outgoing, listener);
  const signal = (host?.request ?? host?.c?.req?.raw)?.signal;
  if (signal === undefined) return;
  if (signal.aborted) listener();
  else signal.addEventListener('abort', listener, { once: true });
}

function onResponseClose(res: StreamingResponse, listener: () => void): void {
  if (res.destroyed) {
    if (!res.writableFinished) listener();
    return;
  }
  res.once('close', () => {
    if (!res.writableFinished) listener();
  });
}
