/**
 * What must hold for every answer, whatever the request: a status from the policy table, problem
 * bodies exactly on errors, no planted secret, no polluted prototype, handlers reached only with
 * valid input. Where Node or a framework answers before an adapter runs is platform.ts.
 */
import { expect } from 'vitest';
import type { ApiRequest, ApiResponse, HeaderRecord } from '../../src/index.js';
import { textHeaders } from '../helpers/headers.js';
import type { FuzzRequest } from './arbitraries.js';
import { ALL_SECRETS, BODY_SCHEMAS, Id, NUMERIC_PARAMS, PUBLIC_ENDPOINTS, type FuzzFixture, type HandlerCall } from './fuzz-api.js';

/** Every status the default policy table can answer. */
export const POLICY_STATUSES: ReadonlySet<number> = new Set([200, 201, 204, 400, 401, 403, 404, 405, 406, 413, 415, 500, 503]);
/** Statuses the pipeline decides before any handler runs. */
const BEFORE_HANDLER: ReadonlySet<number> = new Set([400, 401, 403, 405, 406, 413, 415]);
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
/** Headers that belong to the connection or the framing, not to the API's answer. */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
/** A problem's `instance`: the request's id, which differs from request to request (a urn:uuid, or the host's own such as Fastify's `req-1`). */
const INSTANCE = /"instance":"[^"]*"/g;

/** An answer, from `api.handle` or over HTTP, as text. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** The answer `api.handle` gives, as an adapter would write it. */
export function answerOf(response: ApiResponse): Answer {
  const { payload } = response;
  return { status: response.status, headers: textHeaders(response.headers), text: payload === undefined ? '' : typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8') };
}

/** The parts of an answer every adapter must reproduce: no framing headers, no random problem ids. */
export function comparable(answer: Answer): Answer {
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !TRANSPORT_HEADERS.has(name)));
  return { status: answer.status, headers, text: answer.text.replace(INSTANCE, '"instance":"*"') };
}

/**
 * The status is one the policy table can give; a 2xx never holds a problem; a 4xx or 5xx always
 * does (no body for HEAD), and its `status` member is the status.
 */
export function expectWellFormed(method: string, answer: Answer): void {
  expect(POLICY_STATUSES, `status ${answer.status} is not in the policy table`).toContain(answer.status);
  const contentType = answer.headers['content-type'];
  if (answer.status < 300) {
    expect(contentType ?? '').not.toContain('problem');
    if (answer.status === 204) expect(answer.text).toBe('');
    if (answer.text !== '' && contentType?.startsWith('application/json')) {
      const value = JSON.parse(answer.text) as Record<string, unknown>;
      const looksLikeProblem = typeof value === 'object' && value !== null && 'title' in value && 'status' in value && 'code' in value;
      expect(looksLikeProblem, 'a 2xx holds a problem body').toBe(false);
    }
    return;
  }
  expect(contentType).toBe(PROBLEM_TYPE);
  if (method === 'HEAD') {
    expect(answer.text).toBe('');
    return;
  }
  const problem = JSON.parse(answer.text) as Record<string, unknown>;
  expect(problem).toMatchObject({ type: 'about:blank', status: answer.status, title: expect.any(String), code: expect.stringMatching(/^RC_/) });
  if (answer.status === 500) {
    expect(problem.instance).toMatch(/^(?:urn:uuid:[0-9a-f-]{36}|req-[0-9a-z]+)$/);
    expect(problem).not.toHaveProperty('detail');
    expect(problem).not.toHaveProperty('errors');
  }
}

/** No planted secret in the body or in any header. */
export function expectNoSecret(answer: Answer): void {
  const everything = answer.text + '\n' + JSON.stringify(answer.headers);
  for (const secret of ALL_SECRETS) expect(everything.includes(secret), `the answer leaks "${secret}"`).toBe(false);
}

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype, Boolean.prototype, Promise.prototype, Error.prototype, RegExp.prototype, Map.prototype, Set.prototype];
const snapshot = (): string[][] => PROTOTYPES.map((prototype) => Reflect.ownKeys(prototype).map(String));
const before = snapshot();

/**
 * A cheap check after every request: no key was added to or removed from the built-in prototypes,
 * and a fresh object inherits nothing it should not. `@fast-check/poisoning` checks every global, at
 * a cost, once per property and at its end (see adapters.test.ts).
 */
export function expectUnpolluted(): void {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted, 'Object.prototype.polluted').toBeUndefined();
  expect(probe.isAdmin, 'Object.prototype.isAdmin').toBeUndefined();
  expect(snapshot()).toEqual(before);
}

/**
 * The in-memory request the wire request becomes once Node's parser has read it: header values
 * without the optional white space around them (RFC 9112 §5), the framing header the client sent,
 * and the body as bytes, as every adapter passes it.
 */
export function apiRequestOf(request: FuzzRequest): ApiRequest {
  const headers: HeaderRecord = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (request.body !== undefined) {
    if (request.framing === 'chunked') headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(request.body.byteLength);
  }
  return { method: request.method, url: request.target, headers, body: request.body };
}

/**
 * Handlers run only with valid input: no violation seen by the instrumentation; no handler for a
 * status the pipeline decides before it; at most one handler per request; the request on the wire
 * really was valid for the handler that ran (checked from the raw bytes, not from the pipeline); and
 * a request built to be valid reached exactly its handler with exactly the expected input.
 */
export function expectHandlerContract(request: FuzzRequest, status: number, fixture: FuzzFixture): void {
  expect(fixture.violations, 'what the instrumented handler got').toEqual([]);
  expect(fixture.calls.length, 'handlers run for one request').toBeLessThanOrEqual(1);
  const call = fixture.calls[0];
  if (BEFORE_HANDLER.has(status)) expect(call?.endpoint, `a handler ran, then the answer was ${status}`).toBeUndefined();
  if (call !== undefined) expect(reasonsAgainst(request, call), `${call.endpoint} ran for an invalid request`).toEqual([]);
  const expected = request.expected;
  if (expected === undefined) return;
  expect({ status, endpoint: call?.endpoint }).toEqual({ status: expected.status, endpoint: expected.endpoint });
  expect(call!.params).toEqual(expected.params);
  if (expected.body !== undefined) expect(JSON.parse(JSON.stringify(call!.body))).toEqual(JSON.parse(JSON.stringify(expected.body)));
}

/** Why the raw request should not have reached the handler that ran, decided without the pipeline. */
function reasonsAgainst(request: FuzzRequest, call: HandlerCall): string[] {
  const reasons: string[] = [];
  const [method, template] = call.endpoint.split(' ') as [string, string];
  if (request.method !== method && !(request.method === 'HEAD' && method === 'GET')) reasons.push(`method ${request.method}`);
  const params = paramsOf(request.target, template);
  if (params === undefined) reasons.push(`the path ${request.target} does not match ${template}`);
  for (const [name, raw] of Object.entries(params ?? {})) {
    if (!NUMERIC_PARAMS.has(name)) continue;
    const parsed = Id.safeParse(raw);
    if (!parsed.success || parsed.data !== call.params[name]) reasons.push(`param ${name} ${JSON.stringify(raw)}`);
  }
  const trimmed = (name: string): string | undefined => request.headers[name]?.replace(/^[ \t]+|[ \t]+$/g, '');
  if (!PUBLIC_ENDPOINTS.has(call.endpoint) && !/^bearer (alice|bob|admin)$/i.test(trimmed('authorization') ?? '')) reasons.push('no valid token');
  const schema = BODY_SCHEMAS[call.endpoint];
  if (schema !== undefined) {
    if (!isJsonUtf8(trimmed('content-type'))) reasons.push(`content-type ${JSON.stringify(request.headers['content-type'])}`);
    const encoding = trimmed('content-encoding');
    if (encoding !== undefined && !/^(identity|\s|,)*$/i.test(encoding)) reasons.push(`content-encoding ${encoding}`);
    const value = jsonOf(request.body);
    if (value === undefined) reasons.push('the body is not JSON in UTF-8');
    else if (hasForbiddenKey(value.parsed)) reasons.push('the body holds __proto__ or constructor.prototype');
    else if (schema !== 'audit' && !schema.safeParse(value.parsed).success) reasons.push('the body fails its schema');
  }
  return reasons;
}

/** Params of a template in a request-target, each percent-decoded once; undefined if it does not match. */
function paramsOf(target: string, template: string): Record<string, string> | undefined {
  const withoutOrigin = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const path = withoutOrigin.split(/[?#]/, 1)[0]!;
  const segments = path.split('/').slice(1);
  if (segments.length > 1 && segments.at(-1) === '') segments.pop();
  const expected = template.split('/').slice(1);
  if (segments.length !== expected.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of expected.entries()) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segments[index]!);
    } catch {
      return undefined;
    }
    if (part.startsWith(':')) {
      if (decoded === '') return undefined;
      params[part.slice(1)] = decoded;
    } else if (decoded !== part) return undefined;
  }
  return params;
}

function isJsonUtf8(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type = '', ...parameters] = contentType.split(';');
  const essence = type.replace(/^[ \t]+|[ \t]+$/g, '').toLowerCase();
  if (essence !== 'application/json' && !/^application\/[^/\s,"]+\+json$/.test(essence)) return false;
  const charsets = parameters.map((parameter) => parameter.split('=')).filter(([key]) => key?.trim().toLowerCase() === 'charset');
  const charset = charsets.at(-1)?.[1]?.trim().replace(/^"(.*)"$/, '$1').toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

function jsonOf(body: Uint8Array | undefined): { parsed: unknown } | undefined {
  if (body === undefined) return undefined;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    return text === '' ? undefined : { parsed: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function hasForbiddenKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const [key, child] of Object.entries(value)) {
    if (key === '__proto__') return true;
    if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) return true;
    if (hasForbiddenKey(child)) return true;
  }
  return false;
}
