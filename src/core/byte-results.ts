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
    // A Node stream of bytes is read through an iterator that leaves it open when it stops: once
    // its first chunk is read, a writer on Node may pipe the stream itself (Chunks.handOff).
    const open = isNodeByteStream(result) ? () => result.iterator({ destroyOnReturn: false }) : () => (result as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    return { payload: undefined, stream: new Chunks(open, result), length: undefined };
  }
  return undefined;
}

/**
 * A Node `Readable` of bytes (not in object mode), as {@link Chunks.handOff} gives it to a writer
 * that pipes it.
 *
 * @example
 * const stream: NodeByteStream | undefined = await chunks.handOff();
 * stream?.pipe(res);
 */
export interface NodeByteStream {
  readonly destroyed: boolean;
  readonly readableEnded: boolean;
  readonly readableObjectMode: boolean;
  readonly errored?: unknown;
  iterator(options: { destroyOnReturn: boolean }): AsyncIterator<unknown>;
  unshift(chunk: Uint8Array): void;
  pipe<Destination>(destination: Destination): Destination;
  destroy(): unknown;
  on(event: 'error' | 'close' | 'end', listener: (error?: unknown) => void): unknown;
  once(event: 'error' | 'close' | 'end', listener: (error?: unknown) => void): unknown;
  off(event: 'error' | 'close' | 'end', listener: (error?: unknown) => void): unknown;
}

function isNodeByteStream(source: object): source is NodeByteStream {
  const stream = source as Partial<Record<keyof NodeByteStream, unknown>>;
  return stream.readableObjectMode === false && typeof stream.iterator === 'function' && typeof stream.unshift === 'function' && typeof stream.pipe === 'function' && typeof stream.destroy === 'function' && typeof stream.once === 'function';
}

/** What a stream that closes before its end, without an error of its own, is reported as: what its iterator throws then. */
function closedEarly(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

function bytes(payload: Uint8Array): ByteBody {
  return { payload, stream: undefined, length: payload.byteLength };
}

function streamOf(open: () => AsyncIterator<unknown>): ByteBody {
  return { payload: undefined, stream: new Chunks(open), length: undefined };
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
  /** Whether the source was handed to a writer that pipes it ({@link Chunks.handOff}). */
  private handed = false;
  /** Whether `return()` was called: a close after it is no failure. */
  private returned = false;
  private report: ((error: unknown) => void) | undefined;

  /**
   * `open` gives the source's iterator; `resource` is the source itself, destroyed on `return()`
   * when it is a Node stream. `atOnce`: {@link Chunks.start} reads nothing, so the answer starts
   * before the first chunk (server-sent events, whose client waits for the headers to open).
   */
  constructor(
    private readonly open: () => AsyncIterator<unknown>,
    private readonly resource?: unknown,
    private readonly atOnce = false,
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
   * The source itself, for a writer on Node that pipes it rather than iterate: when it is a Node
   * stream of bytes of which only the first chunk was read (by {@link Chunks.start}), that chunk is
   * put back at its front, and what fails from then on is reported once, as {@link Chunks.next}
   * would: an error, or a close before the end that no `return()` asked for. The writer ends its
   * answer abruptly then, and calls `return()` (which destroys the stream) when its client goes
   * away. Undefined for any other source, or for a stream that has ended already: iterate instead.
   * It rejects, reported, when the stream failed in the meantime.
   */
  async handOff(): Promise<NodeByteStream | undefined> {
    const first = this.first;
    const stream = this.resource as NodeByteStream | undefined;
    if (first === undefined || first.done === true || this.closed || stream === undefined || !isNodeByteStream(stream)) return undefined;
    // The iterator stops listening; the stream, paused, keeps what it has read ahead.
    await this.source!.return?.();
    // Closed meanwhile, or ended (its iterator, done, gives the end after the first chunk).
    if (this.closed || stream.readableEnded) return undefined;
    this.first = undefined;
    if (stream.destroyed) {
      this.closed = true;
      const error = stream.errored ?? closedEarly();
      this.fail(error);
      throw error;
    }
    this.closed = true;
    this.handed = true;
    stream.unshift(first.value);
    // Kept for good: a stream that errors again after its first error has a listener still.
    stream.on('error', (error) => this.fail(error));
    stream.once('close', () => {
      if (!stream.readableEnded && !this.returned) this.fail(stream.errored ?? closedEarly());
    });
    return stream;
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.first = undefined;
    this.returned = true;
    if (this.handed) {
      const stream = this.resource as NodeByteStream;
      if (!stream.destroyed) stream.destroy();
      return DONE;
    }
    if (this.closed) return DONE;
    this.closed = true;
    try {
      // Opened to be closed: a Node stream never read is destroyed all the same, a web stream cancelled.
      await (this.source ??= this.open()).return?.();
    } catch {
      // A source that fails to close is closed as far as the answer goes.
    }
    // A Node stream's iterator never started has nothing to destroy it with.
    const resource = this.resource as { destroy?: unknown; destroyed?: unknown } | undefined;
    if (typeof resource?.destroy === 'function' && resource.destroyed === false) (resource.destroy as () => void)();
    return DONE;
  }

  /** Reports `error` once. */
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
      return DONE;
    }
    const chunk = result.value;
    if (chunk instanceof Uint8Array) return { done: false, value: chunk };
    if (typeof chunk === 'string') return { done: false, value: ENCODER.encode(chunk) };
    await this.return();
    throw new TypeError(`A stream answer gave a chunk that is ${chunk === null ? 'null' : typeof chunk === 'object' ? 'an object that is no Uint8Array' : `a ${typeof chunk}`}; give Uint8Array or string chunks`);
  }
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
