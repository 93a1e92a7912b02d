/**
 * Requests for the Koa and Hono suites: one over `fetch` that returns what a user sees, and one on a
 * raw socket that returns the answer's bytes as they came, to compare two adapters byte for byte.
 */
import net from 'node:net';
import type { MountedServer } from './conformance.js';
import { withoutInstance } from '../helpers/problem.js';

export interface CallInit {
  token?: string;
  type?: string;
  body?: string | Uint8Array<ArrayBuffer>;
  /** Sends the body as a stream, chunked, without a Content-Length. */
  chunked?: boolean;
  headers?: Record<string, string>;
}

export interface CallAnswer {
  status: number;
  /** Every header but `date`. */
  headers: Record<string, string>;
  text: string;
}

/** Sends one request with `fetch` and reads the answer. */
export async function call(server: MountedServer, method: string, path: string, init: CallInit = {}): Promise<CallAnswer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.type !== undefined) headers['content-type'] = init.type;
  const request: RequestInit & { duplex?: 'half' } = { method, headers };
  if (init.body !== undefined) {
    const bytes = typeof init.body === 'string' ? new TextEncoder().encode(init.body) : init.body;
    request.body = init.chunked === true ? new Blob([bytes]).stream() : bytes;
    if (init.chunked === true) request.duplex = 'half';
  }
  const response = await fetch(server.baseUrl + path, request);
  const record = Object.fromEntries(response.headers);
  delete record.date;
  return { status: response.status, headers: record, text: await response.text() };
}

/**
 * An answer as two requests get it alike: a problem names its own request in `instance`, which is
 * left out, with the `Content-Length` its length changes.
 */
export function alike(answer: CallAnswer): unknown {
  if (answer.headers['content-type']?.startsWith('application/problem+json') !== true) return answer;
  const { 'content-length': _length, ...headers } = answer.headers;
  return { ...answer, headers, text: withoutInstance(JSON.parse(answer.text)) };
}

/**
 * Writes `request` on a new connection and returns every byte the server sent until it closed the
 * connection, with the `Date` line and the ids of `instance` left out (they differ from one answer
 * to the next). The request should say `Connection: close`.
 */
export function rawBytes(server: MountedServer, request: string): Promise<string> {
  const { port } = new URL(server.baseUrl);
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(request));
    socket.on('data', (data) => (received += data.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(received.replace(/\r\nDate: [^\r]*/i, '').replace(/urn:uuid:[0-9a-f-]{36}/g, 'urn:uuid:*')));
  });
}
