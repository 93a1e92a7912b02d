/**
 * The API every benchmark serves, written once with restcanon and once by hand: a `users` collection
 * with `GET /users/:id` (a zod-coerced positive integer id, 404 for a missing user) and `POST /users`
 * (a zod body, 201 with `Location`). The same zod schemas serve every competitor, so validation costs
 * the same everywhere and the ratios show what is around it.
 *
 * Created users are not stored: the load benchmark checks that the heap does not grow, and a store
 * that grows would hide a leak behind legitimate growth.
 */
import { z } from 'zod';

/** The user `GET /users/1` answers, and its JSON text: every competitor must send exactly this. */
export const USER = Object.freeze({ id: 1, name: 'Ada Lovelace', email: 'ada@example.com' });
export const USER_JSON = JSON.stringify(USER);
export const USERS = new Map([
  [1, USER],
  [2, Object.freeze({ id: 2, name: 'Grace Hopper', email: 'grace@example.com' })],
]);

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** The id of `/users/:id`: `'1'` becomes 1, `'abc'`, `'0'` and `'1.5'` are 400s. */
export const idSchema = z.coerce.number().int().positive();
export const userBodySchema = z.object({ name: z.string().min(1).max(100), email: z.string().min(3).max(200) });

/** A user as the API sends it: the users collection's `item`. */
export const userSchema = z.object({ id: z.number().int(), name: z.string(), email: z.string() });

/** The JSON Schema of a user, for Fastify's response serializer (what `userSchema` gives, without its integer bounds). */
export const USER_JSON_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string' } },
  required: ['id', 'name', 'email'],
};

/** Ids of created users cycle, so that Location values and bodies stay the same size. */
let created = 0;
/** Starts the ids of created users over, so that two competitors checked one after the other agree. */
export function resetUserIds() {
  created = 0;
}

/** @param {object} body a validated user body */
export function createUser(body) {
  created = (created % 900) + 1;
  return { id: 100 + created, ...body };
}

/**
 * The restcanon API, from a loaded restcanon (see lib/dist.mjs).
 *
 * @param {any} restcanon the module `dist/index.js`
 * @param {object} [options] more `createApi` options, such as `bodyLimit` or `serializerCompiler`
 */
export function createUsersApi(restcanon, options = {}) {
  const users = restcanon.collection('users', {
    id: idSchema,
    body: userBodySchema,
    item: userSchema,
    read: (ctx) => USERS.get(ctx.params.id),
    create: (ctx) => createUser(ctx.body),
  });
  return restcanon.createApi({ ...options, resources: [users] });
}
