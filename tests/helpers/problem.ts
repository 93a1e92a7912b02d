/**
 * One assertion for a problem answer (RFC 9457), whether it comes from `api.handle` (an
 * `ApiResponse`, whose `body` is the problem and `payload` its bytes) or from a server (the text read
 * off the wire, as `text` from `fetch` or as `body` from a raw socket).
 */
import { expect } from 'vitest';
import type { ApiResponse } from '../../src/index.js';
import { SECRET } from '../fixture/api.js';

export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** The reason phrases of RFC 9110: a problem's `title` unless the test names another. */
const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** Stack frames, file positions and HTML error pages: what a framework's default error answer shows. */
const STACK = /<html|<pre>|\bat \S+ \(|\bat file:\/\/|node_modules|\.[cm]?[jt]s:\d+:\d+|SyntaxError/i;

/** An answer read off the wire: its text as `text` (fetch) or as `body` (a raw socket). */
export type WireAnswer = { status: number; headers: Readonly<Record<string, string | undefined>> } & ({ text: string } | { body: string });

export interface ExpectedProblem {
  status: number;
  /** The stable code; any `RC_` code when left out. */
  code?: string;
  /** The title; the reason phrase of `status` when left out. */
  title?: string;
  /** The detail. Given as `undefined`: the problem has none. Left out: not checked. */
  detail?: string | undefined;
  /** The type; `about:blank` when left out. */
  type?: string;
  /** Headers the answer carries with these values; a header given as `undefined` is absent. */
  headers?: Readonly<Record<string, string | undefined>>;
  /** The body has no member besides type, title, status, code, instance and (when given) detail. */
  exact?: boolean;
  /** The request's id the problem names as its `instance`; any string when left out. */
  instance?: string;
  /** Strings no part of the answer may hold, besides the fixture's secret. */
  secrets?: readonly string[];
}

/** A problem body: the members of RFC 9457 and the extensions restcanon adds. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  instance?: string;
  errors?: unknown[];
  [member: string]: unknown;
}

/**
 * Checks a problem answer: its status, its `Content-Type`, the members type, title, status and code
 * (and detail, when given), the headers given, and that neither body nor headers hold a stack trace,
 * the fixture's secret or any of `secrets`. Returns the problem, for the checks particular to a test.
 *
 * @example
 * expectProblem(await api.handle({ method: 'GET', url: '/users/9' }), { status: 404, code: 'RC_NOT_FOUND' });
 * const problem = expectProblem(answer, { status: 400, code: 'RC_INVALID_INPUT' });
 * expect(problem.errors).toHaveLength(2);
 */
export function expectProblem(response: ApiResponse | WireAnswer, expected: ExpectedProblem): Problem {
  const { status } = expected;
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe(PROBLEM_TYPE);
  let problem: unknown;
  let text: string;
  if ('text' in response) {
    text = response.text;
    problem = JSON.parse(text);
  } else if (typeof response.body === 'string') {
    text = response.body;
    problem = JSON.parse(text);
  } else {
    // From api.handle: the bytes say what the body says.
    const { payload } = response as ApiResponse;
    text = payload === undefined ? '' : typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
    problem = response.body;
    if (text !== '') expect(JSON.parse(text)).toEqual(problem);
  }
  const members = {
    type: expected.type ?? 'about:blank',
    title: expected.title ?? TITLES[status] ?? expect.any(String),
    status,
    code: expected.code ?? expect.stringMatching(/^RC_/),
    ...(expected.detail === undefined ? {} : { detail: expected.detail }),
    // Every problem names its request: the id onError learns, and a host's or a trusted header's when given.
    instance: expected.instance ?? expect.any(String),
  };
  if (expected.exact === true) expect(problem).toEqual(members);
  else expect(problem).toMatchObject(members);
  if ('detail' in expected && expected.detail === undefined) expect(problem).not.toHaveProperty('detail');
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    if (value === undefined) expect(response.headers).not.toHaveProperty(name);
    else expect(response.headers[name], name).toBe(value);
  }
  const headers = JSON.stringify(response.headers);
  expect(text).not.toMatch(STACK);
  for (const secret of [SECRET, ...(expected.secrets ?? [])]) {
    expect(text).not.toContain(secret);
    expect(headers).not.toContain(secret);
  }
  return problem as Problem;
}

/**
 * Reads a `fetch` response into a {@link WireAnswer}.
 *
 * @example
 * expectProblem(await answerOf(await fetch(url)), { status: 401, code: 'RC_UNAUTHORIZED' });
 */
export async function answerOf(response: Response): Promise<WireAnswer> {
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
}

/**
 * A problem without its `instance`, the id of the request that got it: two answers to two requests
 * are the same answer when all else is the same.
 *
 * @example
 * expect(withoutInstance(hidden.body)).toEqual(withoutInstance(missing.body));
 */
export function withoutInstance(body: unknown): unknown {
  expect(body).toHaveProperty('instance', expect.any(String));
  const { instance: _instance, ...rest } = body as Record<string, unknown>;
  return rest;
}
