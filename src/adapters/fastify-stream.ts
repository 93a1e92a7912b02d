/**
 * A stream answer sent through Fastify's reply, so that its onSend hooks see it: Fastify pipes a
 * Node stream with backpressure, destroys it when the client goes away, and the connection when it
 * fails.
 */
import { Readable } from 'node:stream';
import { Chunks } from '../core/byte-results.js';
import type { FastifyReplyLike } from './fastify-types.js';
import { takeOverNodeStream } from './node-stream.js';
import type { StreamingResponse } from './stream-out.js';

/** Fastify's response as a stream answer uses it: its head flushed when the stream is piped to it. */
type PipedResponse = StreamingResponse & { readonly headersSent?: boolean; once?(event: 'pipe', listener: () => void): unknown; flushHeaders?(): unknown };

/**
 * What the handler resolves to once the stream is given to the reply: nothing when Fastify piped it
 * at once (its head is out, so Fastify sends nothing more), else the reply, which Fastify waits on
 * until the answer is sent (an onSend hook that waits pipes it later; resolved with nothing before,
 * Fastify would answer again, empty). Nothing holds on to a long stream's handler then.
 */
function sentThrough(reply: FastifyReplyLike, res: PipedResponse | undefined): FastifyReplyLike | undefined {
  return res?.headersSent === true ? undefined : reply;
}

/**
 * Sends a stream answer through the reply. A Node stream of bytes goes to Fastify itself, its first
 * chunk put back (see `takeOverNodeStream`); any other source as a Readable of its chunks.
 *
 * @example
 * return sendFastifyStream(reply, response.stream);
 */
export function sendFastifyStream(reply: FastifyReplyLike, stream: AsyncIterable<Uint8Array>): FastifyReplyLike | undefined | Promise<FastifyReplyLike | undefined> {
  const res = reply.raw as PipedResponse | undefined;
  // Node sends the head with the first chunk: flushed at the pipe, so that an EventSource opens.
  res?.once?.('pipe', () => res.flushHeaders?.());
  if (!(stream instanceof Chunks)) {
    reply.send(Readable.from(stream, { objectMode: false }));
    return sentThrough(reply, res);
  }
  return takeOverNodeStream(stream).then(
    (taken) => {
      if (taken === undefined) reply.send(Readable.from(stream, { objectMode: false }));
      else if (res?.destroyed === true) taken.leave();
      else {
        // Fastify destroys the stream when the client goes away: left first, so that it is no failure.
        res?.once('close', () => void (res.writableFinished || taken.leave()));
        reply.send(taken.stream);
      }
      return sentThrough(reply, res);
    },
    // The source failed before it was piped: reported.
    () => {
      res?.destroy();
      return reply;
    },
  );
}
