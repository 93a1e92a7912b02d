/**
 * The body of a Node request that has already arrived whole, taken at once: Node's parser pushes a
 * small body into the request in the same turn as its headers, so by the time the API reads it,
 * it is all in the stream's buffer, and the stream's async iterator (a generator, its listeners and
 * a promise per chunk) costs more than the read.
 */
import type { NodeRequest } from './node-types.js';
import { readNodeBody } from './node-body.js';
import { TAKE_WHOLE } from '../core/body.js';

/**
 * The parts of a Node request that taking an arrived body uses, beside those of {@link NodeRequest}.
 *
 * @example
 * const waiting = (req: BufferedRequest) => req.readableLength;
 */
export interface BufferedRequest extends NodeRequest {
  /** Bytes in the stream's buffer, not yet read. */
  readonly readableLength?: number | undefined;
  /** Node's `read()`: the whole buffer at once, or null when it is empty (which ends the stream once its body has arrived). */
  read?(): unknown;
  /** Node's `resume()`: what still comes is dropped and the stream ends with the message. */
  resume?(): unknown;
}

/**
 * A request body as an async iterable, as {@link readNodeBody} gives it, that takes a body already
 * in the stream's buffer whole, in one chunk, when the reading starts after the body has arrived;
 * any other body is read through the stream's iterator.
 *
 * @example
 * await api.handle({ method: 'POST', url: req.url, headers: req.headers, body: readArrivedBody(req) });
 */
export function readArrivedBody(req: BufferedRequest): AsyncIterable<unknown> {
  return new ArrivedBody(req);
}

class ArrivedBody implements AsyncIterable<unknown> {
  // Declared, not defined: the constructor's assignment is its one store per request.
  declare private readonly req: BufferedRequest;

  constructor(req: BufferedRequest) {
    this.req = req;
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return new ArrivedChunks(this.req);
  }

  /** The whole body at once, when it has arrived by now: the buffer, and the stream ended as if read to its end. */
  [TAKE_WHOLE](): Uint8Array | undefined {
    const req = this.req;
    if (!arrived(req)) return undefined;
    const chunk = req.readableLength === 0 ? null : req.read!();
    req.resume!();
    return chunk instanceof Uint8Array ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : EMPTY;
  }
}

const EMPTY = new Uint8Array(0);

/**
 * The chunks of a body: what the buffer holds, then the end, when the body has arrived by the first
 * read; the stream's iterator's otherwise. The reading may start in the turn that delivered the
 * headers, before Node's parser pushed the body that came with them: the first read waits for that
 * turn to end. Node may mark the request complete only after the reading ends: a body is whole once
 * the buffer holds the length its `Content-Length` declares.
 */
class ArrivedChunks implements AsyncIterator<unknown> {
  private streamed: AsyncIterator<unknown> | undefined;
  private taken = false;

  constructor(private readonly req: BufferedRequest) {}

  async next(): Promise<IteratorResult<unknown>> {
    if (this.streamed !== undefined) return this.streamed.next();
    const req = this.req;
    if (!this.taken) {
      await undefined;
      if (!arrived(req)) {
        this.streamed = readNodeBody(req)[Symbol.asyncIterator]();
        return this.streamed.next();
      }
      this.taken = true;
      const chunk = req.readableLength === 0 ? null : req.read!();
      if (chunk !== null && chunk !== undefined) return { done: false, value: chunk };
    }
    // The stream ends as soon as Node has seen the end of the message, as if it had been read to its end.
    req.resume!();
    return { done: true, value: undefined };
  }

  async return(value?: unknown): Promise<IteratorResult<unknown>> {
    if (this.streamed !== undefined) return (await this.streamed.return?.(value)) ?? { done: true, value };
    if (this.taken) this.req.resume!();
    return { done: true, value };
  }
}

function arrived(req: BufferedRequest): boolean {
  if (typeof req.read !== 'function' || typeof req.resume !== 'function' || typeof req.readableLength !== 'number') return false;
  if (req.complete) return true;
  // Node has checked the value: a length written otherwise (`051`) is read through the stream.
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && typeof length === 'string' && length === String(req.readableLength);
}

/**
 * Whether a request declares a body (a `Content-Length` other than 0) that is still on its way: a
 * listener runs in the turn that delivered the headers, and Node's parser pushes a body that came
 * with them only once it returns. A reading that starts a turn later takes such a body whole.
 *
 * @example
 * if (bodyFollows(req)) return Promise.resolve(request).then(answer);
 */
export function bodyFollows(req: NodeRequest): boolean {
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0' && req.complete !== true;
}
