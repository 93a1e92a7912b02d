/**
 * Reading a `text/event-stream` (WHATWG HTML §9.2.6, "Interpreting an event stream") as a browser's
 * `EventSource` does: bytes decoded as UTF-8 (a leading BOM dropped), lines ended by CRLF, LF or CR
 * even when a chunk ends between the CR and the LF, `:` comments, and an event dispatched on each
 * blank line. Kept apart from the encoder so that a client imports only this.
 */

/**
 * An event as `EventSource` would dispatch it: its type (`message` unless the stream named one),
 * its data (the `data:` lines joined by LF), and the last event ID in force when it arrived.
 *
 * @example
 * const message: EventStreamMessage = { event: 'message', data: 'hello', lastEventId: '' };
 */
export interface EventStreamMessage {
  event: string;
  data: string;
  lastEventId: string;
}

/**
 * A streaming parser: `push` each chunk of the body as it arrives and get the events it completes.
 * `lastEventId` is the ID to send back in `Last-Event-ID` when reconnecting; `retry` the
 * reconnection time in milliseconds the stream last set, if any.
 *
 * @example
 * const parser: EventStreamParser = createEventStreamParser();
 * parser.push(new TextEncoder().encode('data: hi\n\n')); // [{ event: 'message', data: 'hi', lastEventId: '' }]
 */
export interface EventStreamParser {
  push(chunk: Uint8Array): EventStreamMessage[];
  readonly lastEventId: string;
  readonly retry: number | undefined;
}

/**
 * Bounds of {@link createEventStreamParser}.
 *
 * @example
 * const options: EventStreamParserOptions = { maxEventLength: 1024 * 1024 };
 */
export interface EventStreamParserOptions {
  /**
   * Characters of one event (its unfinished line and its data so far) past which `push` throws a
   * `RangeError`, so that a stream that never ends a line or an event cannot take all memory.
   * 16 MiB when left out.
   */
  maxEventLength?: number | undefined;
}

const DEFAULT_MAX_EVENT_LENGTH = 16 * 1024 * 1024;
const LINE_END = /[\r\n]/g;

class Parser implements EventStreamParser {
  lastEventId = '';
  retry: number | undefined = undefined;
  private readonly decoder = new TextDecoder();
  private readonly maxEventLength: number;
  /** The start of a line that the next chunk continues. */
  private line = '';
  /** The last chunk ended with a CR: an LF that starts the next one belongs to that line end. */
  private afterCarriageReturn = false;
  private data = '';
  private eventType = '';
  private idBuffer = '';
  private messages: EventStreamMessage[] = [];

  constructor(maxEventLength: number) {
    this.maxEventLength = maxEventLength;
  }

  push(chunk: Uint8Array): EventStreamMessage[] {
    const text = this.decoder.decode(chunk, { stream: true });
    if (text.length === 0) return [];
    let start = 0;
    if (this.afterCarriageReturn) {
      this.afterCarriageReturn = false;
      if (text.charCodeAt(0) === 0x0a) start = 1;
    }
    for (;;) {
      LINE_END.lastIndex = start;
      const found = LINE_END.exec(text);
      if (found === null) {
        this.line += text.slice(start);
        this.checkLength();
        break;
      }
      const end = found.index;
      const line = this.line + text.slice(start, end);
      this.line = '';
      this.processLine(line);
      start = end + 1;
      if (text.charCodeAt(end) === 0x0d) {
        if (start === text.length) this.afterCarriageReturn = true;
        else if (text.charCodeAt(start) === 0x0a) start++;
      }
    }
    const completed = this.messages;
    this.messages = [];
    return completed;
  }

  private checkLength(): void {
    if (this.line.length + this.data.length > this.maxEventLength) {
      throw new RangeError(`The event stream sent an event longer than ${this.maxEventLength} characters.`);
    }
  }

  private processLine(line: string): void {
    if (line.length === 0) return this.dispatch();
    if (line.charCodeAt(0) === 0x3a) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data += `${value}\n`;
        this.checkLength();
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
    }
  }

  private dispatch(): void {
    this.lastEventId = this.idBuffer;
    if (this.data.length === 0) {
      this.eventType = '';
      return;
    }
    const data = this.data.slice(0, -1);
    this.messages.push({ event: this.eventType === '' ? 'message' : this.eventType, data, lastEventId: this.lastEventId });
    this.data = '';
    this.eventType = '';
  }
}

/**
 * Creates a parser for one event stream. An event the stream leaves unfinished (no blank line
 * after it) is never returned, as `EventSource` never dispatches it.
 *
 * @example
 * const parser = createEventStreamParser();
 * const encoder = new TextEncoder();
 * parser.push(encoder.encode('id: 7\nevent: tick\nda')); // []
 * parser.push(encoder.encode('ta: 1\r\n\r\n')); // [{ event: 'tick', data: '1', lastEventId: '7' }]
 */
export function createEventStreamParser(options: EventStreamParserOptions = {}): EventStreamParser {
  const maxEventLength = options.maxEventLength ?? DEFAULT_MAX_EVENT_LENGTH;
  if (!(maxEventLength > 0)) {
    throw new TypeError(`createEventStreamParser: maxEventLength must be a positive number; got ${String(maxEventLength)}.`);
  }
  return new Parser(maxEventLength);
}

/**
 * The events of a `text/event-stream` body given as chunks of bytes (a `fetch` response body, say).
 * Stopping the iteration early stops reading the body.
 *
 * @example
 * const response = await fetch('http://localhost:3000/events');
 * for await (const message of decodeEventStream(response.body!)) console.log(message.data);
 */
export async function* decodeEventStream(
  chunks: AsyncIterable<Uint8Array>,
  options: EventStreamParserOptions = {},
): AsyncGenerator<EventStreamMessage, void, undefined> {
  const parser = createEventStreamParser(options);
  for await (const chunk of chunks) yield* parser.push(chunk);
}
