/**
 * One HTTP exchange, bounded: a deadline for the whole exchange, a cap on the body read, no redirect
 * followed, no pooled connection kept after it. node:http rather than fetch, so that a server that
 * hangs, closes the connection or sends a body without end is a failure with a name, never a hang.
 */
import http from 'node:http';
import https from 'node:https';

/**
 * A request to send.
 *
 * @example
 * const request: HttpRequest = { method: 'GET', url: 'http://127.0.0.1:3000/users/1', headers: { accept: 'application/json' } };
 */
export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/**
 * What the server answered; `body` holds at most the cap's bytes (`truncated` says whether there was more).
 *
 * @example
 * const answer: HttpAnswer = { status: 404, headers: { 'content-type': 'application/problem+json' }, body: new Uint8Array(), truncated: false };
 */
export interface HttpAnswer {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Uint8Array;
  truncated: boolean;
}

/**
 * Limits of one exchange.
 *
 * @example
 * const limits: HttpLimits = { timeoutMs: 5000, maxBodyBytes: 262144 };
 */
export interface HttpLimits {
  /** Milliseconds from sending to the end of the body. */
  timeoutMs: number;
  /** Bytes of the body kept; the rest is not read. */
  maxBodyBytes: number;
}

/**
 * Why an exchange has no answer: `timeout` (no whole answer in time), `closed` (the server closed the
 * connection without one), `refused` (nothing listens), `other`.
 *
 * @example
 * new ExchangeError('timeout', 'GET http://127.0.0.1:3000/ did not answer within 500 ms');
 */
export class ExchangeError extends Error {
  override readonly name = 'ExchangeError';
  constructor(
    readonly kind: 'timeout' | 'closed' | 'refused' | 'other',
    message: string,
  ) {
    super(message);
  }
}

function describe(error: NodeJS.ErrnoException, request: HttpRequest): ExchangeError {
  const where = `${request.method} ${request.url}`;
  if (error.code === 'ECONNREFUSED') return new ExchangeError('refused', `${where}: nothing listens there (connection refused)`);
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.message === 'socket hang up') {
    return new ExchangeError('closed', `${where}: the server closed the connection without an answer`);
  }
  if (error.code === 'HPE_INVALID_CONSTANT' || error.code?.startsWith('HPE_')) {
    return new ExchangeError('other', `${where}: the server's answer is not HTTP (${error.code})`);
  }
  return new ExchangeError('other', `${where}: ${error.message}`);
}

/**
 * Sends one request and reads its answer within the limits; rejects with an {@link ExchangeError}.
 *
 * @example
 * const answer = await exchange({ method: 'GET', url: 'http://127.0.0.1:3000/health' }, { timeoutMs: 2000, maxBodyBytes: 65536 });
 */
export function exchange(request: HttpRequest, limits: HttpLimits): Promise<HttpAnswer> {
  const url = new URL(request.url);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const body = request.body === undefined ? undefined : typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
    const headers: Record<string, string | number> = { ...request.headers };
    if (body !== undefined) headers['content-length'] = body.byteLength;
    const outgoing = transport.request(url, { method: request.method, headers, agent: false });
    const timer = setTimeout(() => {
      settle(() => reject(new ExchangeError('timeout', `${request.method} ${request.url} did not answer within ${limits.timeoutMs} ms`)));
      outgoing.destroy();
    }, limits.timeoutMs);
    let responded = false;
    // A server that answers before reading the whole body (a 413, a 401) may close the connection
    // while the body is still being written: once an answer has come, it is what counts.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (!responded) settle(() => reject(describe(error, request)));
    });
    outgoing.on('response', (incoming) => {
      responded = true;
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const finish = (): void => {
        const answerHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        settle(() => resolve({ status: incoming.statusCode ?? 0, headers: answerHeaders, body: new Uint8Array(Buffer.concat(chunks)), truncated }));
      };
      // An event stream does not end while the client listens: its status and headers are its answer.
      if (/^text\/event-stream\b/i.test(incoming.headers['content-type'] ?? '')) {
        truncated = true;
        finish();
        incoming.destroy();
        return;
      }
      incoming.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = limits.maxBodyBytes - size;
        if (chunk.byteLength > room) {
          chunks.push(chunk.subarray(0, room));
          truncated = true;
          finish();
          incoming.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.byteLength;
      });
      incoming.on('end', finish);
      // Closed mid-body: the status and headers stand, the body is what arrived.
      incoming.on('close', () => {
        truncated ||= !incoming.complete;
        finish();
      });
      incoming.on('error', () => {});
    });
    if (body !== undefined) outgoing.write(body);
    outgoing.end();
  });
}

/**
 * The answer's body as text (UTF-8).
 *
 * @example
 * textOf(answer).startsWith('{'); // true for a JSON body
 */
export function textOf(answer: HttpAnswer): string {
  return Buffer.from(answer.body).toString('utf8');
}

/**
 * The answer's body as JSON, or undefined when it is not JSON.
 *
 * @example
 * jsonOf(answer); // { type: 'about:blank', title: 'Not Found', status: 404 }
 */
export function jsonOf(answer: HttpAnswer): unknown {
  if (answer.truncated) return undefined;
  try {
    return JSON.parse(textOf(answer)) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The media type of the answer, in lower case without parameters; '' when there is none.
 *
 * @example
 * mediaTypeOf({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: new Uint8Array(), truncated: false }); // 'application/json'
 */
export function mediaTypeOf(answer: HttpAnswer): string {
  return (answer.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}
