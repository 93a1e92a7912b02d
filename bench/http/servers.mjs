/**
 * The HTTP servers the http benchmark compares, in pairs: restcanon through one adapter against the
 * same route written natively for the same host (node:http, Fastify, Express 5 and 4, a Fetch
 * handler on @hono/node-server). Every server answers `GET /users/1` with the same status,
 * Content-Type and body, validates the id with the same zod schema (`/users/abc` is a 400,
 * `/users/999` a 404) and serves nothing else that a request of the benchmark reaches.
 *
 * Libraries are imported lazily: a server process loads only the server it runs.
 */
import { createServer } from 'node:http';
import { createUsersApi, idSchema, JSON_TYPE, PROBLEM_TYPE, USER_JSON_SCHEMA, USERS } from '../lib/app.mjs';
import { importRestcanon } from '../lib/dist.mjs';
import { HOST, listenFastify, listening } from '../lib/listen.mjs';

/**
 * @typedef {import('../lib/listen.mjs').Listening} Listening
 * @typedef {{ name: string, description: string, listen: () => Promise<Listening> }} ServerDefinition
 * @typedef {{ name: string, baseline: string, restcanon: string, goal: string }} Pair
 */

/** The answer of every native route to an invalid id: the status is what the gate checks. */
const INVALID_ID = JSON.stringify({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'RC_INVALID_INPUT' });
const NOT_FOUND = JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND' });

/**
 * The user for a raw `:id`, or the status and problem body to answer instead.
 * @param {string} raw
 * @returns {{ user: object } | { status: number, payload: string }}
 */
function findUser(raw) {
  const parsed = idSchema.safeParse(raw);
  if (!parsed.success) return { status: 400, payload: INVALID_ID };
  const user = USERS.get(parsed.data);
  return user === undefined ? { status: 404, payload: NOT_FOUND } : { user };
}

/** The native Fastify handler: the user (serialized by the route's response schema) or a problem. */
async function nativeFastifyUser(request, reply) {
  const found = findUser(request.params.id);
  if ('user' in found) return found.user;
  return reply.code(found.status).type(PROBLEM_TYPE).send(found.payload);
}

/** Express 4 and 5 set the same way: no ETag (restcanon computes none), no X-Powered-By. */
function quietExpress(express) {
  const app = express();
  app.set('etag', false);
  app.disable('x-powered-by');
  return app;
}

/** @param {any} express @param {string} label @returns {ServerDefinition} */
function nativeExpress(express, label) {
  return {
    name: label,
    description: `${label}: app.get('/users/:id', ...) with res.json(user); etag and x-powered-by off`,
    async listen() {
      const app = quietExpress(express);
      app.get('/users/:id', (req, res) => {
        const found = findUser(req.params.id);
        if ('user' in found) res.json(found.user);
        else res.status(found.status).type(PROBLEM_TYPE).send(found.payload);
      });
      return listening(createServer(app));
    },
  };
}

/** @param {any} express @param {string} label @returns {ServerDefinition} */
function restcanonExpress(express, label) {
  return {
    name: `restcanon/${label}`,
    description: `restcanon/${label}: app.use(toExpress(api)); etag and x-powered-by off`,
    async listen() {
      const { toExpress } = await importRestcanon('express.js');
      const app = quietExpress(express);
      app.use(toExpress(createUsersApi(await importRestcanon('index.js'))));
      return listening(createServer(app));
    },
  };
}

/**
 * The hand-written `node:http` listener: what restcanon/node does for this route, by hand.
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
 */
function handWrittenListener(req, res) {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.startsWith('/users/') || path.indexOf('/', 7) !== -1 || path.length === 7) {
    res.writeHead(404, { 'content-type': PROBLEM_TYPE, 'content-length': Buffer.byteLength(NOT_FOUND) }).end(NOT_FOUND);
    return;
  }
  if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET, HEAD, OPTIONS' }).end();
    return;
  }
  const raw = path.slice(7);
  const found = findUser(raw.includes('%') ? decodeURIComponent(raw) : raw);
  if ('user' in found) {
    const payload = JSON.stringify(found.user);
    res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(payload) }).end(payload);
  } else {
    res.writeHead(found.status, { 'content-type': PROBLEM_TYPE, 'content-length': Buffer.byteLength(found.payload) }).end(found.payload);
  }
}

/** @type {ServerDefinition[]} */
export const SERVERS = [
  {
    name: 'node:http',
    description: 'node:http: a hand-written listener: split the URL, match /users/:id, the same zod safeParse, JSON.stringify, writeHead with Content-Length',
    listen: () => listening(createServer(handWrittenListener)),
  },
  {
    name: 'node:http (answer in a microtask)',
    description: 'node:http (answer in a microtask): the same listener, called through queueMicrotask; in no pair, for bench/http/ab.mjs',
    listen: () => listening(createServer((req, res) => queueMicrotask(() => handWrittenListener(req, res)))),
  },
  {
    name: 'restcanon/node',
    description: 'restcanon/node: http.createServer(toNodeListener(api))',
    async listen() {
      const { toNodeListener } = await importRestcanon('node.js');
      return listening(createServer(toNodeListener(createUsersApi(await importRestcanon('index.js')))));
    },
  },
  {
    name: 'fastify',
    description: "fastify: app.get('/users/:id', { schema: { response: { 200: userSchema } } }, handler) returning the user (fast-json-stringify)",
    listen: () => listenFastify((app) => app.get('/users/:id', { schema: { response: { 200: USER_JSON_SCHEMA } } }, nativeFastifyUser)),
  },
  {
    name: 'fastify (plugin)',
    description: "fastify (plugin): the same route, registered inside a plugin (`app.register(async (scope) => scope.get(...))`), as restcanon's routes are",
    listen: () =>
      listenFastify((app) =>
        app.register(async (scope) => {
          scope.get('/users/:id', { schema: { response: { 200: USER_JSON_SCHEMA } } }, nativeFastifyUser);
        }),
      ),
  },
  {
    name: 'fastify (root, one plugin)',
    description: "fastify (root, one plugin): the root route of `fastify`, in an application that also registers one empty plugin; in no pair, for bench/http/ab.mjs",
    listen: () =>
      listenFastify(async (app) => {
        await app.register(async () => {});
        app.get('/users/:id', { schema: { response: { 200: USER_JSON_SCHEMA } } }, nativeFastifyUser);
      }),
  },
  {
    name: 'restcanon/fastify',
    description: "restcanon/fastify: app.register(toFastify(api)), the users' item schema compiled by fast-json-stringify (`serializerCompiler`), as the native route's response schema is",
    async listen() {
      const { toFastify } = await importRestcanon('fastify.js');
      const { default: fastJson } = await import('fast-json-stringify');
      const api = createUsersApi(await importRestcanon('index.js'), { serializerCompiler: fastJson });
      return listenFastify((app) => app.register(toFastify(api)));
    },
  },
  {
    name: 'express 5',
    ...lazyExpress('express', nativeExpress, 'express 5'),
  },
  {
    name: 'restcanon/express 5',
    ...lazyExpress('express', restcanonExpress, 'express 5'),
  },
  {
    name: 'express 4',
    ...lazyExpress('express4', nativeExpress, 'express 4'),
  },
  {
    name: 'restcanon/express 4',
    ...lazyExpress('express4', restcanonExpress, 'express 4'),
  },
  {
    name: 'hono',
    description: "hono: new Hono(), app.get('/users/:id', (c) => c.json(user, 200, { 'Content-Type': 'application/json; charset=utf-8' })), on @hono/node-server's serve",
    async listen() {
      const { Hono } = await import('hono');
      const app = new Hono();
      app.get('/users/:id', (c) => {
        const found = findUser(c.req.param('id'));
        if ('user' in found) return c.json(found.user, 200, { 'Content-Type': JSON_TYPE });
        return c.body(found.payload, found.status, { 'Content-Type': PROBLEM_TYPE });
      });
      return serveFetch(app.fetch);
    },
  },
  {
    name: 'restcanon/fetch',
    description: "restcanon/fetch: @hono/node-server's serve({ fetch: toFetch(api) })",
    async listen() {
      const { toFetch } = await importRestcanon('fetch.js');
      return serveFetch(toFetch(createUsersApi(await importRestcanon('index.js'))));
    },
  },
];

/**
 * @param {string} packageName
 * @param {(express: any, label: string) => ServerDefinition} define
 * @param {string} label
 * @returns {Omit<ServerDefinition, 'name'>}
 */
function lazyExpress(packageName, define, label) {
  return {
    description: define(null, label).description,
    async listen() {
      const { default: express } = await import(packageName);
      return define(express, label).listen();
    },
  };
}

/** @param {(request: Request) => Response | Promise<Response>} fetch @returns {Promise<Listening>} */
async function serveFetch(fetch) {
  const { serve } = await import('@hono/node-server');
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: HOST }, (info) => {
      resolve({ port: info.port, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

/** Each restcanon adapter and the native server it is compared with; the goal is the issue's. */
/** @type {Pair[]} */
export const PAIRS = [
  { name: 'node', baseline: 'node:http', restcanon: 'restcanon/node', goal: '95% of the hand-written server' },
  { name: 'fastify', baseline: 'fastify', restcanon: 'restcanon/fastify', goal: '95% of the native route' },
  // restcanon's routes live in a plugin (its own content-type parser and error handler must not leak
  // into the app), and Fastify serves a route in a plugin more slowly than one on the root instance.
  { name: 'fastify (plugin)', baseline: 'fastify (plugin)', restcanon: 'restcanon/fastify', goal: '95% of the native route' },
  { name: 'express 5', baseline: 'express 5', restcanon: 'restcanon/express 5', goal: '95% of the native route' },
  { name: 'express 4', baseline: 'express 4', restcanon: 'restcanon/express 4', goal: '95% of the native route' },
  { name: 'fetch', baseline: 'hono', restcanon: 'restcanon/fetch', goal: 'none set; Hono for reference' },
];

/** @param {string} name @returns {ServerDefinition} */
export function serverNamed(name) {
  const server = SERVERS.find((candidate) => candidate.name === name);
  if (server === undefined) throw new TypeError(`No server "${name}"; use one of ${SERVERS.map((s) => s.name).join(', ')}`);
  return server;
}

/** What every server must answer, before any timing. */
export const GATE = [
  { path: '/users/1', status: 200, exact: true },
  { path: '/users/abc', status: 400, exact: false },
  { path: '/users/999', status: 404, exact: false },
];
