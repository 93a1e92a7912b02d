/**
 * The body of a Fetch request as the API reads it, and what becomes of the rest once the API has
 * answered: read and dropped up to `DRAIN_LIMIT` after a reader stopped early, cancelled when it was
 * never read, or left behind an answer that closes the connection.
 */
import type { HeaderRecord } from '../core/contract.js';
import { DRAIN_LIMIT, unreadBodyFate } from '../core/body.js';

/**
 * The body of a Fetch request as the API reads it, and how far it was read: `unread` until the API
 * asks for it, `read` once it was read to its end.
 *
 * @example
 * const apiRequest = { method: request.method, url, headers, body: new FetchBody(request) };
 */
export class FetchBody implements AsyncIterable<Uint8Array> {
  state: 'unread' | 'reading' | 'read' = 'unread';

  constructor(readonly request: Request) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    this.state = 'reading';
    return readFetchBody(this);
  }
}

/**
 * Settles what the API left of a body its request announced, once the answer is there: a body it
 * never began to read is cancelled, so that the host does not read it for nothing (one it stopped
 * reading is already being read and dropped up to `DRAIN_LIMIT`). Returns whether the answer must
 * close the connection: for a declared `Content-Length` over the bound, and for a chunked GET or
 * HEAD, whose body no `Request` exposes. A body the host read to its end before the API (the text a
 * Hono validator cached, a string) leaves nothing to settle.
 *
 * @example
 * const closes = settleFetchBody(apiRequest.headers ?? {}, apiRequest.body);
 */
export function settleFetchBody(headers: HeaderRecord, body: unknown): boolean {
  if (typeof body === 'string' || (body instanceof FetchBody && body.state === 'read')) return false;
  const fate = unreadBodyFate(headers);
  if (fate === 'none') return false;
  if (!(body instanceof FetchBody)) return fate === 'close' || headers['content-length'] === undefined;
  if (body.state === 'unread' && !body.request.bodyUsed) body.request.body?.cancel().catch(ignore);
  return fate === 'close';
}

function ignore(): void {}

/**
 * Chunks of a body stream. A reader that stops early (413) does not cancel the stream at once: on
 * runtimes that bridge it to a socket a cancel may reset the connection before the answer is sent,
 * and a stream left half-read stalls the connection. The rest is read and dropped, up to a bound past
 * which the stream is cancelled after all.
 */
async function* readFetchBody(owner: FetchBody): AsyncGenerator<Uint8Array> {
  const body = owner.request.body;
  if (body === null) {
    owner.state = 'read';
    return;
  }
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      yield chunk.value;
    }
    done = true;
    owner.state = 'read';
  } finally {
    if (done) reader.releaseLock();
    else void discard(reader);
  }
}

/** Reads and drops the rest of a body up to `DRAIN_LIMIT`; past that it is cancelled. */
async function discard(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let drained = 0;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      drained += chunk.value.byteLength;
      if (drained > DRAIN_LIMIT) return await reader.cancel();
    }
  } catch {
    // The client went away; there is nothing left to drain.
  }
}

/**
 * The body of a Fetch request that the host used up without keeping it where the API can read it
 * (`request.bodyUsed`, no cached text): reading it fails, so the API answers the 400 of a body it
 * could not read, never a request without one.
 *
 * @example
 * apiRequest.body = request.bodyUsed ? USED_BODY : new FetchBody(request);
 */
export const USED_BODY: AsyncIterable<Uint8Array> = {
  [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('The host read the body before the API')) }),
};
