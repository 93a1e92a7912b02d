import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { tooLarge, type RawBody } from '../../core/body.js';
import { inspectBody } from '../../core/body-inspection.js';
import { isHttpError } from '../../core/errors.js';
import type { Exchange } from '../../core/exchange.js';
import { single } from '../../core/request.js';
import type { UploadedFile } from '../../core/uploads.js';
import { refusalOf, type FileRules } from './file-fields.js';
import { answered, fieldAfterFile, LIMIT_FAILURES, malformedParts, outOfTime } from './failures.js';
import type { PartLimits } from './limits.js';

/**
 * One reading of a multipart body: the body's bytes are written into busboy as busboy takes them
 * (a file the handler has not read yet holds the writing back, so nothing is held but what the
 * streams buffer), fields are gathered until the first file, and files are handed out one by one.
 */
export class PartsReading {
  /** Settles once the fields are all there: at the first file, or at the end of the body. */
  readonly fieldsRead: Promise<void>;
  private settleFields!: { resolve: () => void; reject: (error: unknown) => void };
  private fieldsDone = false;
  private readonly fields = Object.create(null) as Record<string, string | string[]>;
  private readonly waiting: UploadedFile[] = [];
  private wake: (() => void) | undefined;
  private current: Readable | undefined;
  private failure: unknown;
  private finished = false;
  private source: AsyncIterator<Uint8Array | string> | undefined;
  /** Ends the wait of a write that busboy holds back, when the reading fails while it waits. */
  private written: (() => void) | undefined;
  private readonly boy: InstanceType<typeof Busboy> | undefined;
  /** The files taken so far under each declared name. */
  private readonly fileCounts = new Map<string, number>();

  constructor(
    private readonly exchange: Exchange,
    private readonly limits: PartLimits,
    private readonly bodyLimit: number,
    private readonly arrays: readonly string[],
    private readonly fileRules: FileRules | undefined = undefined,
  ) {
    this.fieldsRead = new Promise((resolve, reject) => (this.settleFields = { resolve, reject }));
    // Nobody may wait on it (a failure after the handler ran): its rejection is no one's to handle.
    this.fieldsRead.catch(() => {});
    try {
      this.boy = new Busboy({
        headers: { 'content-type': single(exchange.headers['content-type']) ?? '' },
        limits: { fileSize: limits.fileSize, files: limits.files, fields: limits.fields, fieldSize: limits.fieldSize, parts: limits.parts, headerPairs: limits.headerPairs + 1 },
      });
    } catch {
      this.fail(malformedParts('The multipart body has no boundary in its Content-Type'));
      return;
    }
    this.listen(this.boy);
    void this.pump(exchange.ctx.request.body as RawBody);
  }

  private listen(boy: InstanceType<typeof Busboy>): void {
    const { limits } = this;
    boy.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (this.failure !== undefined) return;
      if (valueTruncated) return this.fail(LIMIT_FAILURES.fieldSize(limits.fieldSize));
      if (this.fieldsDone) return this.fail(fieldAfterFile(name));
      const existing = this.fields[name];
      // Pushed, not copied: a name repeated n times would cost n² copies.
      if (typeof existing === 'object') existing.push(value);
      else this.fields[name] = existing === undefined ? value : [existing, value];
    });
    boy.on('file', (field: string, stream: Readable & { truncated?: boolean }, filename: string | undefined, _encoding: string, type: string) => {
      if (this.failure !== undefined) return void stream.resume();
      const refused = this.fileRules === undefined ? undefined : refusalOf(this.fileRules, field, type, this.fileCounts);
      if (refused !== undefined) {
        stream.resume();
        return this.fail(refused);
      }
      // A file the handler holds unread may be failed (a deadline, a limit): with no reader, its error
      // would be uncaught. A reader still gets it: a stream tells every listener.
      stream.on('error', ignore);
      stream.on('limit', () => {
        const error = LIMIT_FAILURES.fileSize(limits.fileSize);
        this.fail(error);
      });
      this.waiting.push({ field, filename, type, stream });
      this.giveFields();
      this.wake?.();
    });
    boy.on('filesLimit', () => this.fail(LIMIT_FAILURES.files()));
    boy.on('fieldsLimit', () => this.fail(LIMIT_FAILURES.fields()));
    boy.on('partsLimit', () => this.fail(LIMIT_FAILURES.parts()));
    boy.on('error', () => this.fail(malformedParts('The multipart body ends within a part, or is not multipart')));
    boy.on('finish', () => {
      this.finished = true;
      this.giveFields();
      this.wake?.();
    });
    this.countHeaderLines(boy);
  }

  /**
   * Busboy drops the header lines of a part past its limit without a word: it is given one more than
   * the endpoint's, and a part that reaches that many is refused. Busboy's parser is reached through
   * its own fields; where they are not there, its silent limit stands.
   */
  private countHeaderLines(boy: InstanceType<typeof Busboy>): void {
    const parser = (boy as unknown as { _parser?: { parser?: NodeJS.EventEmitter } })._parser?.parser;
    if (typeof parser?.on !== 'function') return;
    const most = this.limits.headerPairs;
    parser.on('part', (part: NodeJS.EventEmitter) => {
      part.once('header', (header: Record<string, readonly string[]>) => {
        let lines = 0;
        for (const name in header) lines += header[name]!.length;
        if (lines > most) this.fail(LIMIT_FAILURES.headerPairs(most));
      });
    });
  }

  /** The fields are all there: checked for keys that could pollute prototypes, then the body. */
  private giveFields(): void {
    if (this.fieldsDone || this.failure !== undefined) return;
    this.fieldsDone = true;
    const { ctx } = this.exchange;
    try {
      for (const key of this.arrays) if (typeof this.fields[key] === 'string') this.fields[key] = [this.fields[key]];
      inspectBody(this.fields, this.exchange.settings.maxDepth);
    } catch (error) {
      this.fail(error);
      return;
    }
    ctx.body = this.fields;
    ctx.files = new Files(this);
    this.settleFields.resolve();
  }

  /** Writes the body into busboy as fast as busboy takes it, within the endpoint's limit. */
  private async pump(body: RawBody): Promise<void> {
    const boy = this.boy!;
    const write = (chunk: Uint8Array): Promise<void> =>
      new Promise((resolve) => {
        this.written = resolve;
        boy.write(chunk, () => resolve());
      });
    let total = 0;
    try {
      if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer) {
        const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body instanceof ArrayBuffer ? body : body.buffer, body instanceof ArrayBuffer ? 0 : body.byteOffset, body.byteLength);
        if (bytes.byteLength > this.bodyLimit) return this.fail(tooLarge(this.bodyLimit));
        await write(bytes);
      } else {
        const source = (this.source = body[Symbol.asyncIterator]());
        for (;;) {
          const next = await source.next();
          if (this.failure !== undefined) return;
          if (next.done === true) break;
          const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
          total += chunk.byteLength;
          if (total > this.bodyLimit) return this.fail(tooLarge(this.bodyLimit));
          await write(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (this.failure !== undefined) return;
        }
      }
      boy.end();
    } catch (error) {
      this.fail(isHttpError(error) ? error : malformedParts('The body could not be read to its end'));
    }
  }

  /**
   * Ends the reading with a failure: the fields' wait rejects with it, the file being read errors
   * with it, the next file asked for throws it, and the body's source is let go (its adapter drains
   * or closes what is left).
   */
  fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.settleFields.reject(error);
    for (const file of this.waiting) (file.stream as Readable).destroy();
    this.waiting.length = 0;
    const current = this.current;
    if (current !== undefined && !current.readableEnded) current.destroy(error as Error);
    this.wake?.();
    this.written?.();
    this.boy?.removeAllListeners('file');
    this.boy?.on('error', () => {});
    void Promise.resolve(this.source?.return?.()).catch(() => {});
  }

  /** The request's time ran out: whatever reads the files learns it. */
  stop(): void {
    this.fail(outOfTime());
  }

  /** The request is answered: what was not read of the body is not read now. */
  close(): void {
    if (!this.finished) this.fail(answered());
  }

  /** The next file, once it comes; undefined at the end of the body. A file the handler left unread is drained first. */
  async next(): Promise<UploadedFile | undefined> {
    const previous = this.current;
    if (previous !== undefined && !previous.readableEnded && !previous.destroyed) previous.resume();
    for (;;) {
      if (this.failure !== undefined) throw this.failure;
      const file = this.waiting.shift();
      if (file !== undefined) {
        this.current = file.stream as Readable;
        return file;
      }
      if (this.finished) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

function ignore(): void {}

/** `ctx.files`: the files of the body, in the order they came, read once. */
class Files implements AsyncIterable<UploadedFile> {
  constructor(private readonly reading: PartsReading) {}

  [Symbol.asyncIterator](): AsyncIterator<UploadedFile> {
    const reading = this.reading;
    return {
      next: async () => {
        const file = await reading.next();
        return file === undefined ? { done: true, value: undefined } : { done: false, value: file };
      },
      return: async () => ({ done: true, value: undefined }),
    };
  }
}
