/**
 * The API every stack of the peers benchmark serves, and what is shared between their servers:
 *
 * - `GET /users/:id`: 200 with the user, 400 problem for an invalid id (`abc`, `0`, `1.5`), 404
 *   problem for a missing one;
 * - `POST /users`: 201 with the created user and `Location: /users/<id>`, 400 problem for a body
 *   the schema refuses.
 *
 * Every zod-based stack validates with the zod schemas of lib/app.mjs; the JSON Schema stack with
 * the JSON Schemas below, which state the same rules. Problem bodies follow RFC 9457
 * (`application/problem+json` with `type`, `title` and `status`), plus `detail` and an `errors`
 * list built from each stack's own validation issues.
 *
 * The store is a Map per server process, seeded with users 1 and 2. Created users take the ids
 * FIRST_CREATED_ID to FIRST_CREATED_ID + CREATED_SLOTS - 1 in turn and overwrite what an id held
 * before, so that a long run of creates holds at most CREATED_SLOTS users and `GET /users/999`
 * stays a 404.
 */
import { USER, USERS } from '../lib/app.mjs';

export { idSchema, JSON_TYPE, PROBLEM_TYPE, USER, userBodySchema, userSchema } from '../lib/app.mjs';

export const FIRST_CREATED_ID = 1001;
export const CREATED_SLOTS = 1000;

/** The users of one server process. */
export function createStore() {
  const users = new Map(USERS);
  let created = 0;
  return {
    /** @param {number} id */
    get: (id) => users.get(id),
    /** @param {{ name: string, email: string }} body a validated body */
    create(body) {
      const user = { id: FIRST_CREATED_ID + created, name: body.name, email: body.email };
      created = (created + 1) % CREATED_SLOTS;
      users.set(user.id, user);
      return user;
    },
    /** How many users the store holds. */
    get size() {
      return users.size;
    },
  };
}

/** The media type of problem bodies, without parameters, for the APIs that take one. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export const NOT_FOUND = Object.freeze({ type: 'about:blank', title: 'Not Found', status: 404 });

/**
 * A 400 problem body from a list of issues.
 * @param {{ in?: string, pointer: string, detail: string }[]} errors
 */
export function badRequest(errors) {
  return {
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    detail: `The request has ${errors.length} invalid value${errors.length === 1 ? '' : 's'}`,
    errors,
  };
}

/** @param {PropertyKey[]} path @returns {string} a JSON Pointer fragment, `#/email` */
export function pointerOf(path) {
  return `#${path.map((key) => `/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')}`;
}

/**
 * The `errors` of a problem body from zod issues (or any Standard Schema issues).
 * @param {readonly { path?: readonly (PropertyKey | { key: PropertyKey })[], message: string }[]} issues
 * @param {string} [where] `path`, `body`, ...
 */
export function errorsOfIssues(issues, where) {
  return issues.map((issue) => ({
    ...(where === undefined ? {} : { in: where }),
    pointer: pointerOf((issue.path ?? []).map((key) => (typeof key === 'object' ? key.key : key))),
    detail: issue.message,
  }));
}

/** The JSON Schemas of the Fastify + ajv stack: the rules of idSchema and userBodySchema. */
export const ID_PARAMS_JSON_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1 } },
  required: ['id'],
};
export const USER_BODY_JSON_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 }, email: { type: 'string', minLength: 3, maxLength: 200 } },
  required: ['name', 'email'],
};
export { USER_JSON_SCHEMA } from '../lib/app.mjs';

const JSON_HEADERS = { 'content-type': 'application/json' };
export const CREATE_BODY = JSON.stringify({ name: 'Grace Hopper', email: 'grace@example.com' });
export const INVALID_BODY = JSON.stringify({ name: '', email: 'x' });

/**
 * The requests of the correctness gate, in the order they are sent to a fresh server, and what
 * each must get: the status, the media type, and for successes the exact JSON body (and Location).
 * Problem bodies must hold `type`, `title` and `status` as given.
 */
export const CHECKS = [
  { name: 'read', method: 'GET', path: '/users/1', status: 200, media: 'application/json', json: USER },
  { name: 'missing item', method: 'GET', path: '/users/999', status: 404, media: PROBLEM_MEDIA_TYPE, problem: { type: 'about:blank', title: 'Not Found', status: 404 } },
  { name: 'invalid id', method: 'GET', path: '/users/abc', status: 400, media: PROBLEM_MEDIA_TYPE, problem: { type: 'about:blank', title: 'Bad Request', status: 400 } },
  {
    name: 'create',
    method: 'POST',
    path: '/users',
    headers: JSON_HEADERS,
    body: CREATE_BODY,
    status: 201,
    media: 'application/json',
    json: { id: FIRST_CREATED_ID, ...JSON.parse(CREATE_BODY) },
    location: `/users/${FIRST_CREATED_ID}`,
  },
  { name: 'invalid create', method: 'POST', path: '/users', headers: JSON_HEADERS, body: INVALID_BODY, status: 400, media: PROBLEM_MEDIA_TYPE, problem: { type: 'about:blank', title: 'Bad Request', status: 400 } },
];

const READ = { method: 'GET', path: '/users/1' };
const CREATE = { method: 'POST', path: '/users', headers: JSON_HEADERS, body: CREATE_BODY };

/**
 * The timed workloads, as autocannon `requests` arrays: each connection sends them in order, over
 * and over, so the mix is exact. `statuses` are the answers the window must get, in proportion.
 */
export const WORKLOADS = [
  { name: 'GET read', short: 'GET', requests: [READ], statuses: { 200: 1 } },
  { name: '80% GET + 20% POST create', short: '80/20 mix', requests: [READ, READ, READ, READ, CREATE], statuses: { 200: 0.8, 201: 0.2 } },
];

/** The create request alone, for the instruction counts and profiles of the POST path. */
export const CREATE_REQUEST = CREATE;
