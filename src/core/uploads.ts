/**
 * A file of a `multipart/form-data` body, as `restcanon/multipart` hands it to the handler in
 * `ctx.files`: its bytes stream as they arrive, never held whole.
 *
 * @example
 * for await (const file of ctx.files!) await pipeline(file.stream, createWriteStream(tempPath()));
 */
export interface UploadedFile {
  /** The name of the form field the file was sent as. */
  readonly field: string;
  /**
   * The file name the client gave, as it gave it, or undefined. Only reported: never use it as a
   * path (it may hold `../` or a drive letter); name stored files yourself.
   */
  readonly filename: string | undefined;
  /** The part's media type, lower-cased and without parameters; `text/plain` when it has no `Content-Type` (RFC 7578). */
  readonly type: string;
  /** The file's bytes (a Node `Readable`): read them, or leave them, and the next file drains them. */
  readonly stream: AsyncIterable<Uint8Array>;
}
