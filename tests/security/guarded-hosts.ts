/**
 * Hosts that guard `<prefix>/admin` in front of an API, each on a real server: Express 4 and 5 with
 * `app.use`, Fastify with an `onRequest` hook, `node:http` and a Fetch handler that check the path
 * first, Koa with koa-mount, Hono with `app.use`. The security suites send targets to them that the
 * guard and the API might read differently.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, serve } from '@hono/node-server';
import express5, { type Request as ExpressRequest, type Response as ExpressResponse } from 'express';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import mount from 'koa-mount';
import Router from '@koa/router';
import { afterAll, beforeAll } from 'vitest';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { toHono } from '../../src/adapters/hono.js';
import { toKoa } from '../../src/adapters/koa.js';
import { toNodeListener } from '../../src/adapters/node.js';
import type { Api } from '../../src/index.js';
import { listen, listening, type MountedServer } from '../adapters/conformance.js';

/** The body of the guard's 403. */
export const GUARDED = 'guarded';

/** Whether a path is the guarded prefix or below it, as a prefix guard compares. */
export function underPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

export interface Host {
  name: string;
  /** Where the API is mounted: `''` or `/v1`. */
  prefix: string;
  /** Whether the guard reads the raw target as a string: it cannot see an absolute-form target. */
  raw?: boolean;
  start: (api: Api) => Promise<MountedServer>;
}

export type Express = typeof express5;

/** Express's routing settings a host turns on. */
export type ExpressRouting = 'case sensitive routing' | 'strict routing';

/**
 * `app.use('<prefix>/admin', guard)` in front of `app.use('<prefix>', toExpress(api))`; with `router`,
 * the API's templates are routes of an `express.Router(router)`.
 */
export function expressHost(name: string, express: Express, prefix: string, routing?: ExpressRouting, router?: { caseSensitive?: boolean; strict?: boolean }): Host {
  return {
    name: `${name}${prefix === '' ? '' : `, mounted at ${prefix}`}${routing === undefined ? '' : `, ${routing}`}${router === undefined ? '' : `, the API's routes on express.Router(${JSON.stringify(router)})`}`,
    prefix,
    start: (api) => {
      const app = express();
      if (routing !== undefined) app.set(routing, true);
      app.use(`${prefix}/admin`, (_req: ExpressRequest, res: ExpressResponse) => void res.status(403).send(GUARDED));
      app.use(prefix || '/', toExpress(api, router === undefined ? {} : { router: express.Router(router) }));
      app.use((_req: ExpressRequest, res: ExpressResponse) => void res.status(404).send('host 404'));
      return listen(http.createServer(app));
    },
  };
}

/** An `onRequest` hook in front of `register(toFastify(api), { prefix })`, reading the route Fastify matched or the raw URL. */
export function fastifyHost(reads: 'routeOptions.url' | 'request.url', prefix: string): Host {
  return {
    name: `fastify, a guard on ${reads}${prefix === '' ? '' : `, prefix ${prefix}, fallthrough: false`}`,
    prefix,
    raw: reads === 'request.url',
    start: async (api) => {
      const app = Fastify({ forceCloseConnections: true });
      app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
        const path = reads === 'request.url' ? request.url.split('?', 1)[0]! : request.routeOptions.url;
        if (path !== undefined && underPrefix(path, `${prefix}/admin`)) return reply.code(403).send(GUARDED);
      });
      await app.register(toFastify(api, prefix === '' ? {} : { fallthrough: false }), prefix === '' ? {} : { prefix });
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
    },
  };
}

/** A `node:http` server that checks the path before it calls the API's listener. */
export function nodeHost(reads: 'new URL(req.url, base)' | 'req.url'): Host {
  return {
    name: `node:http, a guard on ${reads}`,
    prefix: '',
    raw: reads === 'req.url',
    start: (api) => {
      const listener = toNodeListener(api);
      return listen(
        http.createServer((req, res) => {
          let path: string;
          try {
            path = reads === 'req.url' ? req.url!.split('?', 1)[0]! : new URL(req.url!, 'http://host.test').pathname;
          } catch {
            return void res.writeHead(400, { 'content-length': '9' }).end('not a URL');
          }
          if (underPrefix(path, '/admin')) return void res.writeHead(403, { 'content-length': String(GUARDED.length) }).end(GUARDED);
          void listener(req, res);
        }),
      );
    },
  };
}

/** A Fetch handler (on @hono/node-server) that checks the pathname of the Request's URL before it calls the API. */
export const fetchHost: Host = {
  name: 'fetch on @hono/node-server, a guard on new URL(request.url).pathname',
  prefix: '',
  start: (api) => {
    const handle = toFetch(api);
    const guarded = (request: Request) => (underPrefix(new URL(request.url).pathname, '/admin') ? new Response(GUARDED, { status: 403 }) : handle(request));
    return listen(createAdaptorServer({ fetch: guarded }) as Server);
  },
};

/**
 * `mount('<prefix>/admin', guard)` in front of `mount('<prefix>', toKoa(api))`: koa-mount compares the
 * target as sent. Mounted at `<prefix>/`, koa-mount takes the slash after the prefix along, so that
 * `/v1//admin/stats` reaches the API as `/admin/stats`.
 */
export function koaHost(prefix: string, mountedAt = prefix, routed = false): Host {
  return {
    name: `koa, a guard mounted with koa-mount${mountedAt === '' ? '' : `, the API mounted at ${mountedAt}`}${routed ? `, the API's routes on an @koa/router router` : ''}`,
    prefix,
    start: (api) => {
      const app = new Koa();
      app.silent = true;
      app.use(mount(`${prefix}/admin`, (ctx) => void ((ctx.status = 403), (ctx.body = GUARDED))));
      const middleware = toKoa(api, routed ? { router: new Router() } : {});
      app.use(mountedAt === '' ? middleware : mount(mountedAt, middleware));
      return listening(app.listen(0, '127.0.0.1'));
    },
  };
}

/** `app.use('<prefix>/admin/*', guard)` in front of `app.use('<prefix>/*', toHono(api))` on @hono/node-server: Hono routes the decoded path. */
export function honoHost(prefix: string, routed = false): Host {
  return {
    name: `hono on @hono/node-server, a guard on app.use('${prefix}/admin/*')${prefix === '' ? '' : `, the API at ${prefix}/*`}${routed ? ', its routes on a sub-app' : ''}`,
    prefix,
    start: (api) => {
      const app = new Hono();
      app.use(`${prefix}/admin/*`, async (c) => c.text(GUARDED, 403));
      if (routed) {
        const sub = new Hono();
        toHono(api, { router: sub });
        app.route(prefix || '/', sub);
      } else app.use(`${prefix}/*`, toHono(api));
      return listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
    },
  };
}

/**
 * Turns Node's deprecation warnings off for the suite: Express reads an absolute-form target with
 * Node's url.parse, which warns (DEP0170) about a port such as `http://x:8a/...`, one of the targets
 * sent; the warning is the framework's, not a finding.
 */
export function withoutDeprecationWarnings(): void {
  let noDeprecation = false;
  beforeAll(() => {
    noDeprecation = process.noDeprecation === true;
    process.noDeprecation = true;
  });
  afterAll(() => {
    process.noDeprecation = noDeprecation;
  });
}
