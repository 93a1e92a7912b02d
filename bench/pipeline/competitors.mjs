/**
 * The two ways to answer the same in-memory requests: restcanon's `api.handle`, and a hand-written
 * handler doing the same work without restcanon (split the URL, route, the same zod parse, the same
 * problem bodies, JSON.stringify). Both resolve to `{ status, headers, body, payload }`, the shape of
 * restcanon's ApiResponse, so the gate compares them field by field.
 */
import { createUser, createUsersApi, resetUserIds, idSchema, JSON_TYPE, PROBLEM_TYPE, userBodySchema, USERS } from '../lib/app.mjs';
import { ALT_SUFFIX, altDist, importRestcanon } from '../lib/dist.mjs';

/**
 * @typedef {{ method: string, url: string, headers?: Record<string, string>, body?: string }} Request
 * @typedef {{ status: number, headers: Record<string, string>, body: unknown, payload: string | undefined }} Response
 * @typedef {{ name: string, description: string, create: () => Promise<(request: Request) => Promise<Response>> }} Competitor
 */

/** The cases timed, each one request sent again and again. */
export const CASES = [
  { name: 'GET item', description: 'GET /users/1: route, zod-coerced id, 200 JSON', request: { method: 'GET', url: '/users/1', headers: {} }, status: 200 },
  {
    name: 'POST create',
    description: 'POST /users: Content-Type, JSON.parse, zod body, 201 JSON with Location',
    request: { method: 'POST', url: '/users', headers: { 'content-type': 'application/json' }, body: '{"name":"Grace Hopper","email":"grace@example.com"}' },
    status: 201,
  },
  { name: '404', description: 'GET /nothing: no route, a problem body', request: { method: 'GET', url: '/nothing', headers: {} }, status: 404 },
  { name: '405', description: 'DELETE /users/1: a path without that method, a problem body with Allow', request: { method: 'DELETE', url: '/users/1', headers: {} }, status: 405 },
];

/** @type {Competitor[]} */
export const COMPETITORS = [
  {
    name: 'restcanon',
    description: 'api.handle(request) of createApi({ resources: [collection("users", { id, body, read, create })] })',
    async create() {
      const api = createUsersApi(await importRestcanon('index.js'));
      return (request) => api.handle(request);
    },
  },
  ...(altDist() === undefined
    ? []
    : [
        {
          name: `restcanon${ALT_SUFFIX}`,
          description: `the same, from BENCH_ALT_DIST=${altDist()}`,
          async create() {
            const api = createUsersApi(await importRestcanon('index.js', altDist()));
            return (request) => api.handle(request);
          },
        },
      ]),
  {
    name: 'hand-written',
    description: 'an async function: split the URL, match /users and /users/:id, the same zod safeParse, JSON.parse, the same problem bodies, JSON.stringify',
    async create() {
      return handWritten;
    },
  },
];

/** The competitor every ratio is measured against. */
export const BASELINE = 'hand-written';

/** @param {string} name */
export function competitorNamed(name) {
  const competitor = COMPETITORS.find((candidate) => candidate.name === name);
  if (competitor === undefined) throw new TypeError(`No competitor "${name}"; use one of ${COMPETITORS.map((c) => c.name).join(', ')}`);
  return competitor;
}

/**
 * A problem response, written out as one would by hand.
 *
 * @param {number} status
 * @param {string} title
 * @param {string} code
 * @param {string} [detail]
 * @returns {Response}
 */
function problem(status, title, code, detail) {
  const body = detail === undefined ? { type: 'about:blank', title, status, code } : { type: 'about:blank', title, status, code, detail };
  return { status, headers: { 'content-type': PROBLEM_TYPE }, body, payload: JSON.stringify(body) };
}

/** @param {string} allow @returns {Response} */
function methodNotAllowed(allow) {
  const body = { type: 'about:blank', title: 'Method Not Allowed', status: 405, code: 'RC_METHOD_NOT_ALLOWED' };
  return { status: 405, headers: { allow, 'content-type': PROBLEM_TYPE }, body, payload: JSON.stringify(body) };
}

/** @param {'path' | 'body'} where @returns {Response} */
function invalid(where) {
  const body = { type: 'about:blank', title: 'Bad Request', status: 400, code: 'RC_INVALID_INPUT', detail: 'The request has 1 invalid value', errors: [{ in: where, pointer: '#', detail: 'is invalid' }] };
  return { status: 400, headers: { 'content-type': PROBLEM_TYPE }, body, payload: JSON.stringify(body) };
}

/**
 * What one would write by hand for the same two routes.
 *
 * @param {Request} request
 * @returns {Promise<Response>}
 */
async function handWritten(request) {
  const { method, url } = request;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (path === '/users') {
    if (method !== 'POST') return methodNotAllowed('POST, OPTIONS');
    const type = request.headers?.['content-type'];
    if (type === undefined || !type.toLowerCase().startsWith('application/json')) return problem(415, 'Unsupported Media Type', 'RC_UNSUPPORTED_MEDIA_TYPE');
    let data;
    try {
      data = JSON.parse(request.body ?? '');
    } catch {
      return problem(400, 'Bad Request', 'RC_MALFORMED_BODY', 'The body is not valid JSON');
    }
    const parsed = userBodySchema.safeParse(data);
    if (!parsed.success) return invalid('body');
    const user = createUser(parsed.data);
    return { status: 201, headers: { location: `/users/${user.id}`, 'content-type': JSON_TYPE }, body: user, payload: JSON.stringify(user) };
  }
  if (path.startsWith('/users/') && path.indexOf('/', 7) === -1 && path.length > 7) {
    if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed('GET, HEAD, OPTIONS');
    const raw = path.slice(7);
    const parsed = idSchema.safeParse(raw.includes('%') ? decodeURIComponent(raw) : raw);
    if (!parsed.success) return invalid('path');
    const user = USERS.get(parsed.data);
    if (user === undefined) return problem(404, 'Not Found', 'RC_NOT_FOUND');
    return { status: 200, headers: { 'content-type': JSON_TYPE }, body: user, payload: JSON.stringify(user) };
  }
  return problem(404, 'Not Found', 'RC_NOT_FOUND', 'No resource matches this path');
}

/**
 * The correctness gate: each case through both competitors must give the same status, headers and
 * payload, and the status the case expects.
 *
 * @param {Map<string, (request: Request) => Promise<Response>>} handlers
 * @returns {Promise<string[]>} one line per difference
 */
export async function checkCases(handlers) {
  const mismatches = [];
  for (const testCase of CASES) {
    const seen = [];
    for (const [name, handle] of handlers) {
      resetUserIds();
      const response = await handle(testCase.request);
      const headers = Object.entries(response.headers)
        .map(([key, value]) => `${key}: ${value}`)
        .sort()
        .join('; ');
      const line = `${response.status} {${headers}} ${response.payload}`;
      if (response.status !== testCase.status) mismatches.push(`${testCase.name}: ${name} answered ${response.status}, expected ${testCase.status}`);
      seen.push({ name, line });
    }
    for (const other of seen.slice(1)) {
      if (other.line !== seen[0].line) mismatches.push(`${testCase.name}:\n  ${seen[0].name}: ${seen[0].line}\n  ${other.name}: ${other.line}`);
    }
  }
  return mismatches;
}
