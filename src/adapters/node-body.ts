import type { NodeRequest } from './node-types.js';
import { drainBody } from './unread-body.js';

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
