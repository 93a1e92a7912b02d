/**
 * The results of a handler that are bytes rather than data: bytes (`Uint8Array`, `Buffer`, any view,
 * `ArrayBuffer`), a string, a `Blob`, a Node `Readable`, a web `ReadableStream` or any async iterable
 * of bytes and strings. Each becomes a payload of known length or one stream of `Uint8Array` chunks
 * ({@link Chunks}), which the core reads up to its first chunk before it answers.
 */

/** What a byte result goes out as: a payload, or a stream; with its length in bytes when known. */
export interface ByteBody {
  payload: string | Uint8Array | undefined;
  stream: Chunks | undefined;
  length: number | undefined;
}

const ENCODER = /* @__PURE__ */ new TextEncoder();

/**
 * The byte body of a result, or undefined for a result that is data (an object, a number).
 *
 * @example
 * byteBodyOf(new Uint8Array([1, 2])); // { payload: Uint8Array [1, 2], stream: undefined, length: 2 }
 * byteBodyOf(fs.createReadStream(path)); // { payload: undefined, stream: Chunks, length: undefined }
 */
export function byteBodyOf(result: unknown): ByteBody | undefined {
  if (typeof result === 'string') return { payload: result, stream: undefined, length: utf8Length(result) };
  if (typeof result !== 'object' || result === null) return undefined;
  if (result instanceof Uint8Array) return bytes(result.buffer instanceof ArrayBuffer ? result : new Uint8Array(result));
  // Another view (a DataView, a Float32Array): its bytes, copied out of memory that may be shared.
  if (ArrayBuffer.isView(result)) return bytes(new Uint8Array(new Uint8Array(result.buffer, result.byteOffset, result.byteLength)));
  if (result instanceof ArrayBuffer) return bytes(new Uint8Array(result));
  if (typeof Blob === 'function' && result instanceof Blob) return { payload: undefined, stream: new Chunks(() => readerOf(result.stream())), length: result.size };
  const source = result as { getReader?: unknown; [Symbol.asyncIterator]?: unknown };
  // A web stream before async iteration: not every runtime's ReadableStream is iterable.
  if (typeof source.getReader === 'function') return streamOf(() => readerOf(result as ReadableStream<unknown>));
  if (typeof source[Symbol.asyncIterator] === 'function') {
    const stream = result as { readableObjectMode?: unknown; iterator?(options: { destroyOnReturn: boolean }): AsyncIterator<unknown> };
    // A Node stream of bytes, read through an iterator that leaves it open: a writer on Node may take it over (Chunks.takeOver).
    if (stream.readableObjectMode === false && typeof stream.iterator === 'function') return streamOf(() => stream.iterator!({ destroyOnReturn: false }), result, true);
    return streamOf(() => (result as AsyncIterable<unknown>)[Symbol.asyncIterator](), result);
  }
  return undefined;
}

function bytes(payload: Uint8Array): ByteBody {
  return { payload, stream: undefined, length: payload.byteLength };
}

function streamOf(open: () => AsyncIterator<unknown>, resource?: unknown, leftOpen?: boolean): ByteBody {
  return { payload: undefined, stream: new Chunks(open, resource, false, leftOpen), length: undefined };
}

/** The bytes of a string in UTF-8, counted without encoding it. */
function utf8Length(text: string): number {
  let length = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) continue;
    if (code < 0x800) length += 1;
    else if (code >= 0xd800 && code < 0xdc00 && index + 1 < text.length && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: 2 code units, 4 bytes.
      length += 2;
      index++;
    } else length += 2;
  }
  return length;
}

/** A web stream's chunks as an iterator whose `return()` cancels it. */
function readerOf(stream: ReadableStream<unknown>): AsyncIterator<unknown> {
  const reader = stream.getReader();
  return {
    next: () => reader.read() as Promise<IteratorResult<unknown>>,
    return: (value?: unknown) => reader.cancel().then(() => ({ done: true, value }), () => ({ done: true, value })),
  };
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * One source's chunks as `Uint8Array`s, iterated once: a string chunk is encoded as UTF-8, anything
 * else but bytes throws. {@link Chunks.start} reads the first chunk before the answer starts; an error
 * after it is reported once (`report`) and thrown to whoever writes the stream, which then ends the
 * connection abruptly. `return()` closes the source: a Node stream is destroyed, a web stream
 * cancelled, a generator's `finally` runs.
 *
 * @example
 * const chunks = new Chunks(() => generate()[Symbol.asyncIterator]());
 * await chunks.start(report);
 * for await (const chunk of chunks) socket.write(chunk);
 */
export class Chunks implements AsyncIterable<Uint8Array>, AsyncIterator<Uint8Array> {
  private source: AsyncIterator<unknown> | undefined;
  private first: IteratorResult<Uint8Array> | undefined;
  private closed = false;
  private report: ((error: unknown) => void) | undefined;

  /**
   * `open` gives the source's iterator; `resource` is the source itself, destroyed on `return()`
   * when it is a Node stream. `atOnce`: {@link Chunks.start} reads nothing, so the answer starts
   * before the first chunk (server-sent events, whose client waits for the headers to open).
   * `leftOpen`: the resource is a Node stream of bytes that its iterator leaves open when it stops.
   */
  constructor(
    private readonly open: () => AsyncIterator<unknown>,
    private readonly resource?: unknown,
    private readonly atOnce = false,
    private readonly leftOpen = false,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this;
  }

  /**
   * Reads the first chunk, kept for the first `next()`. It rejects with what the source threw (the
   * source closed), for an answer of that error; from then on `report` learns of later errors.
   */
  async start(report: (error: unknown) => void): Promise<void> {
    if (!this.atOnce) this.first = await this.read();
    this.report = report;
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    const first = this.first;
    if (first !== undefined) {
      this.first = undefined;
      return first;
    }
    try {
      return await this.read();
    } catch (error) {
      this.fail(error);
      throw error;
    }
  }

  /**
   * For a writer on Node that pipes a Node stream of bytes once its first chunk is read: stops the
   * iteration (which leaves the stream open) and gives the stream, that first chunk, and `fail`,
   * which reports a later failure once. `return()` still destroys the stream. Undefined for any
   * other source, or one that has ended, or of which more than its first chunk was read: iterate
   * instead.
   *
   * @example
   * const taken = await chunks.takeOver();
   * if (taken !== undefined) (taken.stream as Readable).unshift(taken.first);
   */
  async takeOver(): Promise<{ stream: unknown; first: Uint8Array; fail: (error: unknown) => void } | undefined> {
    const first = this.first;
    const stream = this.resource as { readableEnded?: unknown };
    if (!this.leftOpen || first?.done !== false || stream.readableEnded !== false) return undefined;
    await this.source!.return?.();
    // return() meanwhile clears the first chunk.
    if (this.first !== first) return undefined;
    this.first = undefined;
    return { stream, first: first.value, fail: (error) => this.fail(error) };
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    // Whoever stops reading learns of no failure after: a read left waiting fails as its source is destroyed.
    this.report = undefined;
    await this.close();
    return DONE;
  }

  private async close(): Promise<void> {
    this.first = undefined;
    if (this.closed) return;
    this.closed = true;
    // Destroyed first: a Node stream's iterator queues return() behind a next() that waits for data,
    // which a quiet stream may never give. One never iterated has nothing else to destroy it with.
    destroyNodeStream(this.resource);
    try {
      // Opened to be closed: a web stream never read is cancelled all the same.
      await (this.source ??= this.open()).return?.();
    } catch {
      // A source that fails to close is closed as far as the answer goes.
    }
  }

  /** Reports `error`, once. */
  private fail(error: unknown): void {
    const report = this.report;
    this.report = undefined;
    report?.(error);
  }

  private async read(): Promise<IteratorResult<Uint8Array>> {
    if (this.closed) return DONE;
    let result: IteratorResult<unknown>;
    try {
      result = await (this.source ??= this.open()).next();
    } catch (error) {
      this.closed = true;
      throw error;
    }
    if (result.done === true) {
      this.closed = true;
      // A Node stream made with autoDestroy: false stays open at its end, with no error listener left:
      // a failure of it then would be uncaught.
      destroyNodeStream(this.resource);
      return DONE;
    }
    const chunk = result.value;
    if (chunk instanceof Uint8Array) return { done: false, value: chunk };
    if (typeof chunk === 'string') return { done: false, value: ENCODER.encode(chunk) };
    await this.close();
    throw new TypeError(`A stream answer gave a chunk that is ${chunk === null ? 'null' : typeof chunk === 'object' ? 'an object that is no Uint8Array' : `a ${typeof chunk}`}; give Uint8Array or string chunks`);
  }
}

/** Destroys `resource` when it is a Node stream not destroyed yet. */
function destroyNodeStream(resource: unknown): void {
  const stream = resource as { destroy?: unknown; destroyed?: unknown } | undefined;
  if (typeof stream?.destroy === 'function' && stream.destroyed === false) (stream.destroy as () => void)();
}

/**
 * Closes a stream nobody will write: its source's `return()` (a Node stream destroyed, a
 * generator's `finally` run). What closing throws is no answer's concern.
 *
 * @example
 * await closeStream(response.stream);
 */
export function closeStream(stream: AsyncIterable<Uint8Array>): Promise<unknown> {
  try {
    return Promise.resolve(stream[Symbol.asyncIterator]().return?.()).catch(ignore);
  } catch {
    return Promise.resolve();
  }
}

function ignore(): void {}
