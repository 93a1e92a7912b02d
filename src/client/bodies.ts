/**
 * What a client sends as it is and how it reads an answer that is no JSON: the raw bodies, the ways
 * to read a success, and the media-type tests that choose between them.
 */

/**
 * A body sent as it is, with no JSON: a form (`FormData`, sent as `multipart/form-data`, or
 * `URLSearchParams`), bytes (`Blob`, `ArrayBuffer`, a typed array) or a stream. The body's own type
 * is its `Content-Type` unless the call gives one.
 *
 * @example
 * const body: RawBody = new Blob(['id,name\n1,Ada\n'], { type: 'text/csv' });
 */
export type RawBody = FormData | Blob | URLSearchParams | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array>;

/**
 * How a call reads a success's body, instead of by its `Content-Type`: as text, a `Blob`, or the
 * body's `ReadableStream` (whose server-sent events `readEvents` of `restcanon/client/events` reads).
 *
 * @example
 * const answer = await client.get('/photos/:id', { params: { id: 1 }, as: 'blob' });
 */
export type ReadAs = keyof BodyAs;

/**
 * The body of a success read with each {@link ReadAs}.
 *
 * @example
 * const image: BodyAs['blob'] = new Blob([]);
 */
export interface BodyAs {
  text: string;
  blob: Blob;
  stream: ReadableStream<Uint8Array>;
}

/**
 * A JSON media type: `application/json`, or any `+json` (`application/problem+json`), in any case.
 *
 * @example
 * isJson('application/problem+json'); // true
 */
export const isJson = (type: string): boolean => /^[^;]*[/+]json\s*(;|$)/i.test(type);

/**
 * A type read as text by default: `text/*`, XML, or none at all.
 *
 * @example
 * isText('text/csv; charset=utf-8'); // true
 */
export const isText = (type: string): boolean => /^(text\/|[^;]*[/+]xml\s*(;|$)|$)/i.test(type);

/**
 * A body that goes to Fetch as it is: a form, bytes or a stream.
 *
 * @example
 * isRaw(new FormData()); // true
 */
export const isRaw = (body: unknown): body is RawBody => ArrayBuffer.isView(body) || [FormData, Blob, URLSearchParams, ArrayBuffer, ReadableStream].some((type) => body instanceof type);

/**
 * A body that can be read once only, which a client does not keep for a 304.
 *
 * @example
 * once(new ReadableStream()); // true
 */
export const once = (body: unknown): boolean => body instanceof ReadableStream || Symbol.asyncIterator in Object(body);

/**
 * The body of an answer in memory, as Fetch gives one: its stream pulled as it is read, errored with
 * the call's signal's reason when that aborts, and its source closed then or when the reader cancels.
 *
 * @example
 * new Response(answerBody(answer.stream, signal));
 */
export function answerBody(source: AsyncIterable<Uint8Array>, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  const close = (): Promise<void> => Promise.resolve(chunks.return?.()).then(ignore, ignore);
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Erroring a stream that already ended does nothing; the signal is the call's own, dropped with it.
        signal?.addEventListener('abort', () => (controller.error(signal.reason), close()), { once: true });
      },
      async pull(controller) {
        const next = await chunks.next();
        if (!signal?.aborted) (next.done === true ? controller.close() : controller.enqueue(next.value));
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

function ignore(): void {}
