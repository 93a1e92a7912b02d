/**
 * A stream answer sent through Fastify's reply, so that its onSend hooks see it: Fastify pipes a
 * Node stream with backpressure, destroys it when the client goes away, and the connection when it
 * fails.
 */
import { Readable } from 'node:stream';
import { Chunks } from '../core/byte-results.js';
import type { FastifyReplyLike } from './fastify-types.js';
import type { StreamingResponse } from './stream-out.js';

/** Fastify's response as a stream answer uses it: its head flushed when the stream is piped to it. */
type PipedResponse = StreamingResponse & { once?(event: 'pipe', listener: () => void): unknown; flushHeaders?(): unknown };

/**
 * Sends a stream answer through the reply. A Node stream of bytes goes to Fastify itself, its first
 * chunk put back ({@link Chunks.handOff}); any other source as a Readable of its chunks. Resolves to
 * the reply, which Fastify waits on until the answer is sent.
 *
 * @example
 * return sendFastifyStream(reply, response.stream);
 */
export function sendFastifyStream(reply: FastifyReplyLike, stream: AsyncIterable<Uint8Array>): FastifyReplyLike | Promise<FastifyReplyLike> {
  const res = reply.raw as PipedResponse | undefined;
  // Node sends the head with the first chunk: flushed at the pipe, so that an EventSource opens.
  res?.once?.('pipe', () => res.flushHeaders?.());
  if (!(stream instanceof Chunks)) {
    reply.send(Readable.from(stream, { objectMode: false }));
    return reply;
  }
  return stream.handOff().then(
    (source) => {
      if (source === undefined) reply.send(Readable.from(stream, { objectMode: false }));
      else if (res?.destroyed === true) void stream.return();
      else {
        // Fastify destroys the stream when the client goes away: return() first, so that Chunks knows it for no failure.
        res?.once('close', () => void (res.writableFinished || stream.return()));
        reply.send(source);
      }
      return reply;
    },
    // The source failed before it was piped: the core reported it.
    () => {
      res?.destroy();
      return reply;
    },
  );
}
