/**
 * A Node stream answer taken over from the core once its first chunk is read, for the adapters on
 * Node's response to pipe it (Node's own flow and backpressure, without a promise per chunk) while
 * its failures are reported as iterating it would report them.
 */
import type { Chunks } from '../core/byte-results.js';

/**
 * A Node `Readable` of bytes (not in object mode), as a writer on Node pipes it.
 *
 * @example
 * const taken = await takeOverNodeStream(chunks, () => res.destroy());
 * taken?.stream.pipe(res);
 */
export interface NodeByteStream {
  readonly destroyed: boolean;
  readonly readableEnded: boolean;
  readonly errored?: unknown;
  unshift(chunk: Uint8Array): void;
  pipe<Destination>(destination: Destination): Destination;
  destroy(): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  once(event: 'close' | 'end', listener: () => void): unknown;
}

/**
 * A Node stream taken over from its Chunks: the stream, and `leave`, which destroys it as no failure
 * (the client went away).
 *
 * @example
 * res.once('close', () => taken.leave());
 */
export interface TakenStream {
  stream: NodeByteStream;
  leave(): void;
}

/**
 * The source of a stream answer as a Node stream to pipe, when it is one ({@link Chunks.takeOver}):
 * its first chunk put back at its front, and what fails from then on (an error, or a close before
 * its end that `leave()` did not ask for) reported once, as iterating would, and passed on to
 * `failed` (which ends the answer abruptly). Undefined for any other source; rejects, reported,
 * when the stream failed since its first chunk.
 *
 * @example
 * const taken = await takeOverNodeStream(response.stream);
 */
export async function takeOverNodeStream(chunks: Chunks, failed?: () => unknown): Promise<TakenStream | undefined> {
  const taken = await chunks.takeOver();
  if (taken === undefined) return undefined;
  const stream = taken.stream as NodeByteStream;
  let left = false;
  const fail = (error: unknown): void => {
    taken.fail(error);
    failed?.();
  };
  if (stream.destroyed) {
    const error = stream.errored ?? prematureClose();
    taken.fail(error);
    throw error;
  }
  stream.unshift(taken.first);
  // Kept for good: a stream that errors again has a listener still.
  stream.on('error', fail);
  stream.once('close', () => stream.readableEnded || left || fail(stream.errored ?? prematureClose()));
  // One made with autoDestroy: false stays open at its end: destroyed, as Node's own would be.
  stream.once('end', () => stream.destroyed || stream.destroy());
  return {
    stream,
    leave: () => {
      left = true;
      stream.destroy();
    },
  };
}

/** What a stream that closes before its end with no error of its own is reported as: what its iterator throws then. */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
