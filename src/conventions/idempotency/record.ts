import type { ApiResponse } from '../../core/contract.js';

/**
 * What the store holds under a key: the request that reserved it is running, or its answer, each
 * with the fingerprint of that request, as one JSON string.
 */

/** A key reserved by a request that is still running. */
export interface Running {
  readonly state: 'running';
  readonly fingerprint: string;
}

/** A key whose request finished, with the answer every retry gets. */
export interface Kept {
  readonly state: 'kept';
  readonly fingerprint: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as data (JSON), absent when there was none. */
  readonly body?: string;
  /** The payload as text, or its bytes in base64 (`bytes`), absent when there was none. */
  readonly payload?: string;
  readonly bytes?: boolean;
}

export type KeyRecord = Running | Kept;

/**
 * Headers that describe one transfer rather than the answer: connection and framing (RFC 9110
 * section 7.6.1), `Date`, and `Set-Cookie`, which must not hand out again what a later request may
 * have changed. The adapters frame a replay anew.
 */
const NOT_KEPT: ReadonlySet<string> = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'content-length', 'date', 'set-cookie',
]);

/**
 * The record of a finished request, as the store keeps it.
 *
 * @example
 * keptRecord('ab12...', { status: 201, headers: { location: '/orders/7' }, body: { id: 7 }, payload: '{"id":7}' });
 */
export function keptRecord(fingerprint: string, response: ApiResponse): string {
  const headers: Record<string, string> = {};
  for (const name of Object.keys(response.headers)) {
    const value = response.headers[name];
    // Only Set-Cookie has several lines, and it is not kept.
    if (typeof value === 'string' && !NOT_KEPT.has(name.toLowerCase())) headers[name] = value;
  }
  const { body, payload } = response;
  const record: { -readonly [K in keyof Kept]: Kept[K] } = { state: 'kept', fingerprint, status: response.status, headers };
  if (body !== undefined) record.body = JSON.stringify(body);
  if (typeof payload === 'string') record.payload = payload;
  else if (payload instanceof Uint8Array) {
    record.payload = base64(payload);
    record.bytes = true;
  }
  return JSON.stringify(record);
}

/**
 * The record of a request that reserved its key.
 *
 * @example
 * runningRecord('ab12...'); // '{"state":"running","fingerprint":"ab12..."}'
 */
export function runningRecord(fingerprint: string): string {
  return JSON.stringify({ state: 'running', fingerprint } satisfies Running);
}

/**
 * A record read back from the store; undefined for anything a record cannot be (another program's
 * value under the key, a value cut short), which the caller treats as a store that failed.
 *
 * @example
 * recordOf('{"state":"running","fingerprint":"ab12"}'); // { state: 'running', fingerprint: 'ab12' }
 */
export function recordOf(text: string): KeyRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.fingerprint !== 'string') return undefined;
  if (record.state === 'running') return record as unknown as Running;
  if (record.state !== 'kept' || !Number.isInteger(record.status) || typeof record.headers !== 'object' || record.headers === null) return undefined;
  if ((record.body !== undefined && typeof record.body !== 'string') || (record.payload !== undefined && typeof record.payload !== 'string')) return undefined;
  // A body that is no JSON is a value cut short: refused here, rather than failing the replay.
  if (record.body !== undefined) {
    try {
      JSON.parse(record.body as string);
    } catch {
      return undefined;
    }
  }
  return record as unknown as Kept;
}

/**
 * The answer a kept record replays: its status, headers and body as the first request got them, and
 * `Idempotent-Replayed: true`, Stripe's header, which clients of Stripe-style APIs already read.
 *
 * @example
 * replayOf(kept).headers['idempotent-replayed']; // 'true'
 */
export function replayOf(record: Kept): ApiResponse {
  const headers: Record<string, string> = Object.assign({}, record.headers);
  headers['idempotent-replayed'] = 'true';
  const payload = record.payload === undefined ? undefined : record.bytes === true ? unbase64(record.payload) : record.payload;
  return { status: record.status, headers, body: record.body === undefined ? undefined : JSON.parse(record.body), payload };
}

function base64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

function unbase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
}
