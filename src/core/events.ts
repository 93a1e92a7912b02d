/**
 * Server-sent events (WHATWG HTML §9.2): a handler's async iterable of events, encoded as the UTF-8
 * frames of a `text/event-stream` body, with keep-alive comments while the source is idle, and the
 * `Last-Event-ID` a reconnecting `EventSource` sends. Runs on any runtime with `TextEncoder` and
 * `setTimeout`.
 */

/**
 * One event of a stream. `data` that is a string is sent as is, one `data:` line per line of it
 * (CRLF, LF and CR all end a line, and reach the browser as LF); any other `data` is sent as its
 * JSON. An event without `data` (or with `data: undefined`) dispatches nothing in the browser but
 * still sets its `id` or `retry`. `id` and `event` hold no CR, LF or NUL; `retry` is the
 * reconnection time in milliseconds the browser uses from then on.
 *
 * @example
 * const event: ServerSentEvent = { event: 'price', id: '42', data: { symbol: 'ACME', price: 12.5 } };
 */
export interface ServerSentEvent {
  data?: unknown;
  event?: string | undefined;
  id?: string | undefined;
  retry?: number | undefined;
}

/**
 * Options of {@link encodeEvents}.
 *
 * @example
 * const options: EncodeEventsOptions = { keepAlive: 15_000 };
 */
export interface EncodeEventsOptions {
  /**
   * Milliseconds of silence from the source after which a comment frame is sent, and again after
   * each such interval, so that proxies and load balancers do not close an idle connection. 0 or
   * left out: none.
   */
  keepAlive?: number | undefined;
}

/**
 * The comment frame sent while the source is idle; browsers ignore it.
 *
 * @example
 * KEEP_ALIVE_COMMENT; // ': keep-alive\n\n'
 */
export const KEEP_ALIVE_COMMENT = ': keep-alive\n\n';

const LINE_BREAK = /\r\n|\r|\n/;
/** A CR or LF would end the field's line and start another field; a NUL makes browsers drop an `id`. */
const FIELD_BREAKER = /[\r\n\0]/;

function checkField(name: 'event' | 'id', value: unknown): string {
  if (typeof value !== 'string' || FIELD_BREAKER.test(value)) {
    throw new TypeError(`A server-sent event's ${name} must be a string without CR, LF or NUL; got ${JSON.stringify(String(value))}.`);
  }
  return value;
}

function dataText(data: unknown): string {
  if (typeof data === 'string') return data;
  const json: unknown = JSON.stringify(data);
  if (typeof json !== 'string') {
    throw new TypeError(`A server-sent event's data must be a string or a JSON value; got ${typeof data}.`);
  }
  return json;
}

/**
 * The text of one event's frame, ended by the blank line that dispatches it. A plain string is an
 * event with that data. Throws a `TypeError` for an `event` or `id` with CR, LF or NUL, a `retry`
 * that is not a non-negative integer, or data that has no JSON.
 *
 * @example
 * encodeEvent({ event: 'note', id: '7', data: 'two\nlines' }); // 'event: note\nid: 7\ndata: two\ndata: lines\n\n'
 * encodeEvent('hi'); // 'data: hi\n\n'
 */
export function encodeEvent(event: ServerSentEvent | string): string {
  if (typeof event === 'string') return `data: ${event.split(LINE_BREAK).join('\ndata: ')}\n\n`;
  if (typeof event !== 'object' || event === null) {
    throw new TypeError(`A server-sent event is a string or an object { data, event?, id?, retry? }; got ${event === null ? 'null' : typeof event}.`);
  }
  let frame = '';
  if (event.event !== undefined) frame += `event: ${checkField('event', event.event)}\n`;
  if (event.id !== undefined) frame += `id: ${checkField('id', event.id)}\n`;
  if (event.retry !== undefined) {
    if (!Number.isSafeInteger(event.retry) || event.retry < 0) {
      throw new TypeError(`A server-sent event's retry must be a non-negative integer of milliseconds; got ${String(event.retry)}.`);
    }
    frame += `retry: ${event.retry}\n`;
  }
  if (event.data !== undefined) frame += `data: ${dataText(event.data).split(LINE_BREAK).join('\ndata: ')}\n`;
  // A frame with no field at all would be a lone blank line, which dispatches nothing.
  return frame === '' ? ':\n\n' : `${frame}\n`;
}

type Arrival = { kind: 'item'; result: IteratorResult<ServerSentEvent | string> } | { kind: 'error'; error: unknown } | { kind: 'tick' } | { kind: 'stop' };

const DONE: IteratorResult<Uint8Array> = Object.freeze({ done: true, value: undefined });

/**
 * Pulls from the source only when the consumer asks for a frame, so a slow client holds back the
 * source rather than filling memory; while it waits for the source, one timer sends keep-alives.
 */
class EventEncoder implements AsyncIterator<Uint8Array> {
  private readonly encoder = new TextEncoder();
  private readonly source: AsyncIterator<ServerSentEvent | string>;
  private readonly keepAlive: number;
  private finished = false;
  /** A pull of the source is under way: its outcome goes to `wake`, or waits in `arrived`. */
  private pulling = false;
  private arrived: Arrival | undefined;
  private wake: ((arrival: Arrival) => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Calls of `next` run one after the other, as a consumer that does not await them would expect. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(source: AsyncIterator<ServerSentEvent | string>, keepAlive: number) {
    this.source = source;
    this.keepAlive = keepAlive;
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    const result = this.queue.then(() => this.step());
    this.queue = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    if (this.finished) return DONE;
    this.finished = true;
    this.deliver({ kind: 'stop' });
    await this.source.return?.();
    return DONE;
  }

  /** Hands an outcome to the waiting step, clearing its timer: the only timer of the stream. */
  private deliver(arrival: Arrival): void {
    const wake = this.wake;
    if (wake === undefined) {
      if (arrival.kind === 'item' || arrival.kind === 'error') this.arrived = arrival;
      return;
    }
    this.wake = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    wake(arrival);
  }

  private pull(): void {
    this.pulling = true;
    let pending: Promise<IteratorResult<ServerSentEvent | string>>;
    try {
      pending = Promise.resolve(this.source.next());
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (result) => {
        this.pulling = false;
        this.deliver({ kind: 'item', result });
      },
      (error: unknown) => {
        this.pulling = false;
        this.deliver({ kind: 'error', error });
      },
    );
  }

  private async step(): Promise<IteratorResult<Uint8Array>> {
    if (this.finished) return DONE;
    if (this.arrived === undefined && !this.pulling) this.pull();
    let arrival = this.arrived;
    this.arrived = undefined;
    arrival ??= await new Promise<Arrival>((resolve) => {
      this.wake = resolve;
      if (this.keepAlive > 0) this.timer = setTimeout(() => this.deliver({ kind: 'tick' }), this.keepAlive);
    });
    switch (arrival.kind) {
      case 'stop':
        return DONE;
      case 'tick':
        // A fresh chunk each time: a byte stream that transfers its chunks' buffers would detach a shared one.
        return { done: false, value: this.encoder.encode(KEEP_ALIVE_COMMENT) };
      case 'error':
        this.finished = true;
        throw arrival.error;
      case 'item':
        break;
    }
    if (arrival.result.done === true) {
      this.finished = true;
      return DONE;
    }
    let frame: string;
    try {
      frame = encodeEvent(arrival.result.value);
    } catch (error) {
      this.finished = true;
      try {
        await this.source.return?.();
      } catch {
        // The refused event is the error to report; the source's failure to close would hide it.
      }
      throw error;
    }
    return { done: false, value: this.encoder.encode(frame) };
  }
}

/**
 * Encodes an async iterable of events (or plain strings, each an event with that data) as the
 * UTF-8 frames of a `text/event-stream` body, one chunk per event, so that a keep-alive comment
 * never falls inside an event. Calling `return()` on its iterator (as adapters do when the client
 * goes away) clears the keep-alive timer and calls `return()` on the source's iterator. An error
 * from the source, or an event {@link encodeEvent} refuses, ends the stream with that error after
 * the frames already sent.
 *
 * @example
 * async function* ticks() {
 *   yield { event: 'tick', id: '1', data: { n: 1 } };
 *   yield 'plain text';
 * }
 * for await (const frame of encodeEvents(ticks(), { keepAlive: 15_000 })) void frame;
 */
export function encodeEvents(source: AsyncIterable<ServerSentEvent | string>, options: EncodeEventsOptions = {}): AsyncIterable<Uint8Array> {
  const keepAlive = options.keepAlive ?? 0;
  if (!Number.isFinite(keepAlive) || keepAlive < 0) {
    throw new TypeError(`encodeEvents: keepAlive must be a non-negative number of milliseconds; got ${String(keepAlive)}.`);
  }
  return { [Symbol.asyncIterator]: () => new EventEncoder(source[Symbol.asyncIterator](), keepAlive) };
}

/** Longer `Last-Event-ID` values are ignored; an ID is a cursor, not a payload. */
const DEFAULT_MAX_LAST_EVENT_ID = 1024;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads the `Last-Event-ID` header a reconnecting `EventSource` sends: the ID of the last event it
 * received. Browsers send it as UTF-8 bytes, which Node and the Fetch API hand over one character
 * per byte: they are decoded back. `undefined` for no header, an empty one, one longer than
 * `maxLength` characters, one with a NUL (no browser sends it), or bytes that are not UTF-8.
 *
 * @example
 * parseLastEventId('42'); // '42'
 * parseLastEventId('\u00c3\u00a9t\u00c3\u00a9'); // 'été'
 * parseLastEventId(undefined); // undefined
 */
export function parseLastEventId(value: string | undefined, maxLength: number = DEFAULT_MAX_LAST_EVENT_ID): string | undefined {
  if (value === undefined || value.length === 0 || value.length > maxLength || value.includes('\0')) return undefined;
  let ascii = true;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    // Already decoded by whoever read the header: take it as it is.
    if (code > 0xff) return value;
    if (code > 0x7f) ascii = false;
  }
  if (ascii) return value;
  try {
    return UTF8.decode(Uint8Array.from(value, (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
