/**
 * restcanon/client/events: a streaming decoder of `text/event-stream` (server-sent events), as the WHATWG HTML standard parses
 * one (§9.2.6): UTF-8 with one leading BOM ignored, lines ended by CR, LF or CRLF wherever the chunks
 * split them, `:` comments, an event dispatched on a blank line, and what is left unfinished at the
 * end of the stream discarded. An entry of its own: a client that reads no events pays nothing for it.
 */

/**
 * One server-sent event: its type (`message` unless the server named one), its `data` lines joined
 * with LF, the last event ID the stream set (it carries over to later events, as `lastEventId` does
 * in a browser), and the last reconnection time in milliseconds the stream asked for with `retry`.
 *
 * @example
 * const event: ServerEvent = { event: 'message', data: '{"price":12}', id: '7', retry: undefined };
 */
export interface ServerEvent {
  event: string;
  data: string;
  id: string;
  retry: number | undefined;
}

/** Characters of one unfinished event (its data and its last line so far): 16 Mi. */
const MAX_EVENT = 1 << 24;

/**
 * The events of a `text/event-stream` body, one by one. An event longer than 16 Mi characters
 * before its blank line rejects the iteration with a `RangeError` and cancels the body. Ending the iteration early (a `break` in
 * `for await`) cancels the body, which closes the connection; the signal, when it aborts, cancels it
 * too and the iteration rejects with the signal's reason.
 *
 * @example
 * for await (const event of readEvents((await fetch(url)).body!)) console.log(event.event, event.data);
 */
export async function* readEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<ServerEvent, void, undefined> {
  const reader = body.getReader();
  const stop = (): unknown => reader.cancel(signal!.reason).catch(() => {});
  signal?.addEventListener('abort', stop, { once: true });
  const decoder = new TextDecoder();
  let line = '';
  // After a CR that ended a chunk, an LF that starts the next one belongs to the same line end.
  let afterCR = false;
  let data = '';
  let event = '';
  let id = '';
  let retry: number | undefined;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const chunk = await reader.read().catch((error: unknown) => {
        throw signal?.aborted ? signal.reason : error;
      });
      signal?.throwIfAborted();
      if (chunk.done) return;
      const found: ServerEvent[] = [];
      let text = decoder.decode(chunk.value, { stream: true });
      // An empty text (half a UTF-8 character) says nothing of what follows the CR.
      if (text !== '') {
        if (afterCR && text[0] === '\n') text = text.slice(1);
        afterCR = text.endsWith('\r');
      }
      // Only the new text is split: a long line that comes in many chunks is not scanned again each time.
      const parts = text.split(/\r\n?|\n/);
      parts[0] = line + parts[0];
      line = parts.pop()!;
      for (const part of parts) {
        if (part === '') {
          if (data !== '') found.push({ event: event || 'message', data: data.slice(0, -1), id, retry });
          data = event = '';
          continue;
        }
        const colon = part.indexOf(':');
        const field = colon < 0 ? part : part.slice(0, colon);
        const value = colon < 0 ? '' : part.slice(part[colon + 1] === ' ' ? colon + 2 : colon + 1);
        if (field === 'data') data += `${value}\n`;
        else if (field === 'event') event = value;
        else if (field === 'id' && !value.includes('\0')) id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
      }
      // A stream that never ends a line or an event must not take all memory.
      if (line.length + data.length > MAX_EVENT) throw new RangeError(`The event stream sent an event longer than ${MAX_EVENT} characters`);
      yield* found;
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    await reader.cancel().catch(() => {});
  }
}
