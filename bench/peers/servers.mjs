/**
 * The servers of the peers benchmark: the API of api.mjs built on each stack, each the way that
 * stack's documentation shows. Every server listens on 127.0.0.1 and a free port; libraries are
 * imported lazily, so a server process loads only its own stack.
 *
 * Equal work where the stacks let it be: the zod stacks use the same zod schemas; Express apps turn
 * off `etag` and `x-powered-by` (restcanon computes no ETag; express-zod-api turns off
 * `x-powered-by` itself); every JSON body is sent with `charset=utf-8`, as restcanon sends it.
 */
import { createServer, STATUS_CODES } from 'node:http';
import { fileURLToPath } from 'node:url';
import { importRestcanon } from '../lib/dist.mjs';
import { HOST, listenFastify, listening, listeningOn } from '../lib/listen.mjs';
import {
  badRequest,
  createStore,
  errorsOfIssues,
  ID_PARAMS_JSON_SCHEMA,
  idSchema,
  JSON_TYPE,
  NOT_FOUND,
  pointerOf,
  PROBLEM_MEDIA_TYPE,
  PROBLEM_TYPE,
  USER_BODY_JSON_SCHEMA,
  USER_JSON_SCHEMA,
  userBodySchema,
  userSchema,
} from './api.mjs';

/**
 * @typedef {import('../lib/listen.mjs').Listening} Listening
 * @typedef {object} PeerServer
 * @property {string} name
 * @property {string} description how the server is built
 * @property {string[]} packages the packages whose versions the results print
 * @property {string} [note] a fact about the versions used
 * @property {string[]} [nodeArgs] options of the server's node process
 * @property {() => Promise<Listening>} listen
 */

/** A problem body for any other error status a framework raises (malformed JSON, 415, 500). */
const problemOfStatus = (status) => ({ type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status });
/** @param {any} error @returns {number} the error's 4xx status, or 500 */
const clientStatusOf = (error) => {
  const status = error?.statusCode ?? error?.status;
  return Number.isInteger(status) && status >= 400 && status < 500 ? status : 500;
};

/**
 * The users API with restcanon, over the store of this process.
 * @param {object} [options] more `createApi` options
 */
async function restcanonUsersApi(options = {}) {
  const restcanon = await importRestcanon('index.js');
  const store = createStore();
  const users = restcanon.collection('users', {
    id: idSchema,
    body: userBodySchema,
    item: userSchema,
    read: (ctx) => store.get(ctx.params.id),
    create: (ctx) => store.create(ctx.body),
  });
  return restcanon.createApi({ ...options, resources: [users] });
}

/** Express 5 with `etag` and `x-powered-by` off. */
async function quietExpress() {
  const { default: express } = await import('express');
  const app = express();
  app.set('etag', false);
  app.disable('x-powered-by');
  return { express, app };
}

/** The last middleware of the Express apps: any other error as a problem body. */
function expressProblemHandler(error, _req, res, next) {
  if (res.headersSent) return next(error);
  const status = clientStatusOf(error);
  res.status(status).type(PROBLEM_MEDIA_TYPE).json(problemOfStatus(status));
}

/** @type {PeerServer[]} */
export const SERVERS = [
  {
    name: 'restcanon/node',
    description: '`http.createServer(toNodeListener(api))`, `api` from `createApi({ resources: [collection(\'users\', { id, body, item, read, create })] })`',
    packages: ['zod'],
    async listen() {
      const { toNodeListener } = await importRestcanon('node.js');
      return listening(createServer(toNodeListener(await restcanonUsersApi())));
    },
  },
  {
    name: 'restcanon/fastify',
    description: "`app.register(toFastify(api))` on Fastify 5, the same API built with `serializerCompiler: fastJson` (fast-json-stringify), as the http benchmark's restcanon/fastify",
    packages: ['fastify', 'fast-json-stringify', 'zod'],
    async listen() {
      const { toFastify } = await importRestcanon('fastify.js');
      const { default: fastJson } = await import('fast-json-stringify');
      const api = await restcanonUsersApi({ serializerCompiler: fastJson });
      return listenFastify((app) => app.register(toFastify(api)));
    },
  },
  {
    name: 'Fastify + JSON Schema (ajv)',
    description:
      "routes on the root instance with `schema: { params, body, response }` as JSON Schema (Fastify's ajv validates, fast-json-stringify serializes), `setErrorHandler` answering `error.validation` with a problem body, the handler answering 404 with one",
    packages: ['fastify', '@fastify/ajv-compiler', 'ajv', 'fast-json-stringify'],
    listen: () =>
      listenFastify((app) => {
        const store = createStore();
        app.setErrorHandler((error, _request, reply) => {
          if (error.validation) {
            const errors = error.validation.map((issue) => ({
              in: error.validationContext === 'params' ? 'path' : error.validationContext,
              pointer: issue.params?.missingProperty === undefined ? `#${issue.instancePath}` : pointerOf([...issue.instancePath.split('/').slice(1), issue.params.missingProperty]),
              detail: issue.message ?? 'is invalid',
            }));
            return reply.code(400).type(PROBLEM_TYPE).send(badRequest(errors));
          }
          const status = clientStatusOf(error);
          return reply.code(status).type(PROBLEM_TYPE).send(problemOfStatus(status));
        });
        app.get('/users/:id', { schema: { params: ID_PARAMS_JSON_SCHEMA, response: { 200: USER_JSON_SCHEMA } } }, async (request, reply) => {
          const user = store.get(request.params.id);
          if (user === undefined) return reply.code(404).type(PROBLEM_TYPE).send(NOT_FOUND);
          return user;
        });
        app.post('/users', { schema: { body: USER_BODY_JSON_SCHEMA, response: { 201: USER_JSON_SCHEMA } } }, async (request, reply) => {
          const user = store.create(request.body);
          return reply.code(201).header('location', `/users/${user.id}`).send(user);
        });
      }),
  },
  {
    name: 'Fastify + type-provider-zod',
    description:
      "`setValidatorCompiler(validatorCompiler)` and `setSerializerCompiler(serializerCompiler)` from fastify-type-provider-zod, routes on the root instance with zod `params`, `body` and `response` schemas, `setErrorHandler` answering `hasZodFastifySchemaValidationErrors(error)` with a problem body",
    packages: ['fastify', 'fastify-type-provider-zod', 'zod'],
    async listen() {
      const { z } = await import('zod');
      const { hasZodFastifySchemaValidationErrors, serializerCompiler, validatorCompiler } = await import('fastify-type-provider-zod');
      return listenFastify((fastify) => {
        const store = createStore();
        fastify.setValidatorCompiler(validatorCompiler);
        fastify.setSerializerCompiler(serializerCompiler);
        fastify.setErrorHandler((error, _request, reply) => {
          if (hasZodFastifySchemaValidationErrors(error)) {
            const where = error.validationContext === 'params' ? 'path' : error.validationContext;
            const errors = error.validation.map((issue) => ({ in: where, pointer: `#${issue.instancePath}`, detail: issue.message }));
            return reply.code(400).type(PROBLEM_TYPE).send(badRequest(errors));
          }
          const status = clientStatusOf(error);
          return reply.code(status).type(PROBLEM_TYPE).send(problemOfStatus(status));
        });
        const app = fastify.withTypeProvider();
        app.route({
          method: 'GET',
          url: '/users/:id',
          schema: { params: z.object({ id: idSchema }), response: { 200: userSchema } },
          handler: async (request, reply) => {
            const user = store.get(request.params.id);
            if (user === undefined) return reply.code(404).type(PROBLEM_TYPE).send(NOT_FOUND);
            return user;
          },
        });
        app.route({
          method: 'POST',
          url: '/users',
          schema: { body: userBodySchema, response: { 201: userSchema } },
          handler: async (request, reply) => {
            const user = store.create(request.body);
            return reply.code(201).header('location', `/users/${user.id}`).send(user);
          },
        });
      });
    },
  },
  {
    name: 'Hono + zod-validator',
    description:
      "`new Hono()` with `zValidator('param', ...)` and `zValidator('json', ...)` from @hono/zod-validator, whose hook answers a failed validation with a problem body; `c.json(...)` with the `Content-Type` restcanon sends; on @hono/node-server's `serve`",
    packages: ['hono', '@hono/zod-validator', '@hono/node-server', 'zod'],
    async listen() {
      const { z } = await import('zod');
      const { Hono } = await import('hono');
      const { zValidator } = await import('@hono/zod-validator');
      const { serve } = await import('@hono/node-server');
      const store = createStore();
      const problemHook = (result, c) => {
        if (!result.success) return c.json(badRequest(errorsOfIssues(result.error.issues, result.target === 'param' ? 'path' : 'body')), 400, { 'Content-Type': PROBLEM_TYPE });
      };
      const app = new Hono();
      app.get('/users/:id', zValidator('param', z.object({ id: idSchema }), problemHook), (c) => {
        const user = store.get(c.req.valid('param').id);
        if (user === undefined) return c.json(NOT_FOUND, 404, { 'Content-Type': PROBLEM_TYPE });
        return c.json(user, 200, { 'Content-Type': JSON_TYPE });
      });
      app.post('/users', zValidator('json', userBodySchema, problemHook), (c) => {
        const user = store.create(c.req.valid('json'));
        return c.json(user, 201, { 'Content-Type': JSON_TYPE, Location: `/users/${user.id}` });
      });
      app.onError((error, c) => {
        const status = clientStatusOf(error);
        return c.json(problemOfStatus(status), status, { 'Content-Type': PROBLEM_TYPE });
      });
      return new Promise((resolve) => {
        const server = serve({ fetch: app.fetch, port: 0, hostname: HOST }, (info) => {
          resolve({ port: info.port, close: () => new Promise((done) => server.close(() => done())) });
        });
      });
    },
  },
  {
    name: 'express-zod-api',
    description:
      "`createServer(config, routing)` with `'get /users/:id'` and `'post /users'` endpoints built by `EndpointsFactory`s over a `ResultHandler` that sends the output (200, or 201 with Location) or a problem body (`InputValidationError` 400, `createHttpError(404)`); logger level `warn`, `etag` off in `beforeRouting`",
    packages: ['express-zod-api', '@express-zod-api/zod-plugin', 'express', 'zod43'],
    note:
      'express-zod-api 29 needs Node ^22.19 (its `engines`). 27.3.0, the last release for Node 20, declares zod ~4.3.4, which npm cannot install beside the repository\'s zod 4.6.7; 27.2.4 (zod ^4.3.4) installs, with @express-zod-api/zod-plugin 4.1.0. Neither runs on zod 4.4 or later (`TypeError: Cannot redefine property: brand` when the plugin patches zod), so this server runs on zod 4.3.6 (the devDependency `zod43`, loaded in place of `zod` by bench/peers/zod-4.3.mjs); every other server runs on zod 4.6.7',
    nodeArgs: ['--import', fileURLToPath(new URL('./zod-4.3.mjs', import.meta.url))],
    async listen() {
      const { z } = await import('zod');
      const { createConfig, createServer: createEzServer, EndpointsFactory, ensureHttpError, InputValidationError, ResultHandler } = await import('express-zod-api');
      const { default: createHttpError } = await import('http-errors');
      const store = createStore();
      const problemSchema = z.object({ type: z.string(), title: z.string(), status: z.number().int(), detail: z.string().optional(), errors: z.array(z.object({ pointer: z.string(), detail: z.string() })).optional() });
      /** @param {200 | 201} statusCode */
      const resultHandler = (statusCode) =>
        new ResultHandler({
          positive: (output) => ({ statusCode, schema: output, mimeType: 'application/json' }),
          negative: { statusCode: [400, 404], schema: problemSchema, mimeType: PROBLEM_MEDIA_TYPE },
          handler: ({ error, output, response }) => {
            if (error) {
              const { statusCode: status } = ensureHttpError(error);
              const body = error instanceof InputValidationError ? badRequest(errorsOfIssues(error.cause.issues)) : problemOfStatus(status);
              return void response.status(status).type(PROBLEM_MEDIA_TYPE).json(body);
            }
            if (statusCode === 201) response.location(`/users/${output.id}`);
            response.status(statusCode).json(output);
          },
        });
      const readUser = new EndpointsFactory(resultHandler(200)).build({
        method: 'get',
        input: z.object({ id: idSchema }),
        output: userSchema,
        handler: async ({ input }) => {
          const user = store.get(input.id);
          if (user === undefined) throw createHttpError(404, 'Not Found');
          return user;
        },
      });
      const createUser = new EndpointsFactory(resultHandler(201)).build({
        method: 'post',
        input: userBodySchema,
        output: userSchema,
        handler: async ({ input }) => store.create(input),
      });
      const config = createConfig({
        http: { listen: { port: 0, host: HOST } },
        cors: false,
        startupLogo: false,
        logger: { level: 'warn', color: false },
        beforeRouting: ({ app }) => {
          app.set('etag', false);
        },
      });
      const { servers } = await createEzServer(config, { 'get /users/:id': readUser, 'post /users': createUser });
      const [server] = servers;
      if (!server.listening) await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
      return listeningOn(server);
    },
  },
  {
    name: 'ts-rest on Express 5',
    description:
      "a contract from `initContract()` (zod `pathParams`, `body` and `responses`, the 404 as `c.otherResponse({ contentType: 'application/problem+json' })`), `createExpressEndpoints(contract, router, app, { requestValidationErrorHandler })` answering a failed validation with a problem body, after `app.use(express.json())`; `res.location(...)` in the create handler",
    packages: ['@ts-rest/core', '@ts-rest/express', 'express', 'zod'],
    note: 'ts-rest 3.52.1, its latest stable release, needs zod 3 (peer `^3.22.3`) and Express 4 (`@ts-rest/express` peer `^4.0.0`); 3.53.0-rc.1 validates through Standard Schema (zod 4) and supports Express 5',
    async listen() {
      const { z } = await import('zod');
      const { initContract } = await import('@ts-rest/core');
      const { createExpressEndpoints, initServer } = await import('@ts-rest/express');
      const store = createStore();
      const c = initContract();
      const problem = c.otherResponse({ contentType: PROBLEM_MEDIA_TYPE, body: c.type() });
      const contract = c.router({
        readUser: { method: 'GET', path: '/users/:id', pathParams: z.object({ id: idSchema }), responses: { 200: userSchema, 404: problem } },
        createUser: { method: 'POST', path: '/users', body: userBodySchema, responses: { 201: userSchema } },
      });
      const router = initServer().router(contract, {
        readUser: async ({ params }) => {
          const user = store.get(params.id);
          return user === undefined ? { status: 404, body: NOT_FOUND } : { status: 200, body: user };
        },
        createUser: async ({ body, res }) => {
          const user = store.create(body);
          res.location(`/users/${user.id}`);
          return { status: 201, body: user };
        },
      });
      const { express, app } = await quietExpress();
      app.use(express.json());
      createExpressEndpoints(contract, router, app, {
        requestValidationErrorHandler: (error, _req, res) => {
          const errors = [...errorsOfIssues(error.pathParams?.issues ?? [], 'path'), ...errorsOfIssues(error.body?.issues ?? [], 'body')];
          res.status(400).type(PROBLEM_MEDIA_TYPE).json(badRequest(errors));
        },
      });
      app.use(expressProblemHandler);
      return listening(createServer(app));
    },
  },
  {
    name: 'Express 5 + zod by hand',
    description: "`app.use(express.json())`, `app.get('/users/:id', ...)` and `app.post('/users', ...)` calling `safeParse` and answering with `res.json` or a problem body",
    packages: ['express', 'zod'],
    async listen() {
      const { express, app } = await quietExpress();
      const store = createStore();
      app.use(express.json());
      app.get('/users/:id', (req, res) => {
        const id = idSchema.safeParse(req.params.id);
        if (!id.success) return void res.status(400).type(PROBLEM_MEDIA_TYPE).json(badRequest(errorsOfIssues(id.error.issues.map((issue) => ({ ...issue, path: ['id', ...issue.path] })), 'path')));
        const user = store.get(id.data);
        if (user === undefined) return void res.status(404).type(PROBLEM_MEDIA_TYPE).json(NOT_FOUND);
        res.json(user);
      });
      app.post('/users', (req, res) => {
        const body = userBodySchema.safeParse(req.body);
        if (!body.success) return void res.status(400).type(PROBLEM_MEDIA_TYPE).json(badRequest(errorsOfIssues(body.error.issues, 'body')));
        const user = store.create(body.data);
        res.status(201).location(`/users/${user.id}`).json(user);
      });
      app.use(expressProblemHandler);
      return listening(createServer(app));
    },
  },
];

/** @param {string} name @returns {PeerServer} */
export function serverNamed(name) {
  const server = SERVERS.find((candidate) => candidate.name === name);
  if (server === undefined) throw new TypeError(`No server "${name}"; use one of ${SERVERS.map((s) => `"${s.name}"`).join(', ')}`);
  return server;
}

/** The server every ratio is taken against. */
export const BASELINE = 'restcanon/node';
