import { isRawBody, malformed, tooLarge, type RawBody } from './body.js';
import { HttpError, isHttpError, withoutStack } from './errors.js';
import { OUTCOMES } from './outcomes.js';

/**
 * A body handed to its handler unread (`body: 'stream'`): the handler reads it, and the endpoint's
 * limit and deadline still hold while it does.
 */

/** What a streamed body needs of its request: a place for what stops it when its time runs out. */
export interface StoppableReading {
  stop: (() => void) | undefined;
}

const encoder = new TextEncoder();

/**
 * The body as an async iterable of bytes, counted as the handler reads it: past `limit` the iteration
 * throws the 413 and the source is let go (its adapter drains or closes it); once the request's time
 * has run out (`reading.stop`) it throws the 503 of the deadline. A string or bytes given whole (in
 * memory, or parsed by a host) are one chunk.
 *
 * @example
 * ctx.body = countedBody(request.body, 1024 * 1024, exchange);
 * for await (const chunk of ctx.body) file.write(chunk);
 */
export function countedBody(body: RawBody | undefined, limit: number, reading: StoppableReading): AsyncIterable<Uint8Array> {
  return new CountedBody(body, limit, reading);
}

class CountedBody implements AsyncIterable<Uint8Array> {
  private iterator: CountedChunks | undefined;

  constructor(
    private readonly body: RawBody | undefined,
    private readonly limit: number,
    private readonly reading: StoppableReading,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    // One reading of one body: a second loop goes on where the first stopped.
    return (this.iterator ??= new CountedChunks(this.body, this.limit, this.reading));
  }
}

const OUT_OF_TIME = /* @__PURE__ */ withoutStack(() => new HttpError(OUTCOMES.timeout.status, { code: OUTCOMES.timeout.code, detail: 'The request did not finish in time', expose: true }));

class CountedChunks implements AsyncIterator<Uint8Array> {
  private readonly source: AsyncIterator<Uint8Array | string> | undefined;
  private whole: Uint8Array | undefined;
  private total = 0;
  private failure: unknown;
  private interrupt: ((error: unknown) => void) | undefined;

  constructor(
    body: RawBody | undefined,
    private readonly limit: number,
    reading: StoppableReading,
  ) {
    if (body === undefined || typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer) {
      const bytes = body === undefined ? new Uint8Array(0) : typeof body === 'string' ? encoder.encode(body) : body instanceof ArrayBuffer ? new Uint8Array(body) : body;
      this.whole = bytes.byteLength === 0 ? undefined : bytes;
      if (bytes.byteLength > limit) this.failure = tooLarge(limit);
    } else if (isRawBody(body)) {
      this.source = body[Symbol.asyncIterator]();
    }
    reading.stop = () => this.fail(OUT_OF_TIME);
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    if (this.failure !== undefined) throw this.failure;
    if (this.source === undefined) {
      const whole = this.whole;
      this.whole = undefined;
      return whole === undefined ? { done: true, value: undefined } : { done: false, value: whole };
    }
    let next: IteratorResult<Uint8Array | string>;
    try {
      next = await new Promise<IteratorResult<Uint8Array | string>>((resolve, reject) => {
        this.interrupt = reject;
        this.source!.next().then(resolve, reject);
      });
    } catch (error) {
      throw this.fail(this.failure ?? (isHttpError(error) ? error : malformed('The body could not be read to its end')));
    } finally {
      this.interrupt = undefined;
    }
    if (this.failure !== undefined) throw this.failure;
    if (next.done === true) return { done: true, value: undefined };
    const bytes = typeof next.value === 'string' ? encoder.encode(next.value) : next.value;
    this.total += bytes.byteLength;
    if (this.total > this.limit) throw this.fail(tooLarge(this.limit));
    return { done: false, value: bytes };
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.whole = undefined;
    // Let go of the source without waiting for it: its adapter drains or closes what is left.
    void Promise.resolve(this.source?.return?.()).catch(() => {});
    return { done: true, value: undefined };
  }

  /** Ends the reading with `error`: a read under way throws it, as does every later one. */
  private fail(error: unknown): unknown {
    if (this.failure === undefined) {
      this.failure = error;
      this.whole = undefined;
      void Promise.resolve(this.source?.return?.()).catch(() => {});
    }
    this.interrupt?.(this.failure);
    return this.failure;
  }
}
