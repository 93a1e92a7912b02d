/**
 * One way to serve an API from each adapter on a real server at an ephemeral port, for suites that
 * run the same cases on every adapter (the conformance suite's own adapter files add the host
 * router variants).
 */
import http, { type Server } from 'node:http';
import { createAdaptorServer, serve } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import mount from 'koa-mount';
import type { AddressInfo } from 'node:net';
import { toExpress } from '../../src/adapters/express.js';
import { frameworkErrorsOf, toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { toHono } from '../../src/adapters/hono.js';
import { toKoa } from '../../src/adapters/koa.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { listen, listening, type Mount } from './conformance.js';

function expressMount(express: typeof express5): Mount {
  return (api, { prefix }) => {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use(prefix ?? '/', toExpress(api, { fallthrough: false }));
    return listen(http.createServer(app));
  };
}

/**
 * A mount per adapter, by name: each serves the whole API below `prefix` (or at the root).
 *
 * @example
 * for (const [name, mount] of Object.entries(MOUNTS)) describe(name, () => { ... });
 */
export const MOUNTS: Readonly<Record<string, Mount>> = {
  node: (api) => listen(http.createServer(toNodeListener(api))),
  'express 4': expressMount(express4 as unknown as typeof express5),
  'express 5': expressMount(express5),
  koa: (api, { prefix }) => {
    const app = new Koa();
    const middleware = toKoa(api, { fallthrough: false });
    app.use(prefix === undefined ? middleware : mount(prefix, middleware));
    return listening(app.listen(0, '127.0.0.1'));
  },
  fastify: async (api, { prefix }) => {
    const app = Fastify({ forceCloseConnections: true, frameworkErrors: frameworkErrorsOf(api, { ...(prefix === undefined ? {} : { prefix }), fallthrough: false }) });
    await app.register(toFastify(api, { fallthrough: false }), prefix === undefined ? {} : { prefix });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
  fetch: (api) => listen(createAdaptorServer({ fetch: toFetch(api) }) as Server),
  hono: (api, { prefix }) => {
    const app = new Hono();
    const sub = new Hono();
    sub.use(toHono(api, { fallthrough: false }));
    app.route(prefix ?? '/', sub);
    return listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
};

/**
 * {@link MOUNTS} with a silent Koa app: Koa reports a client that went away mid-answer
 * (`ECONNRESET`) to its app's error listener, which writes it to console.error unless the app is silent.
 *
 * @example
 * for (const [name, mount] of Object.entries(SILENT_MOUNTS)) describe(name, () => { ... });
 */
export const SILENT_MOUNTS: Readonly<Record<string, Mount>> = {
  ...MOUNTS,
  koa: (api) => {
    const app = new Koa();
    app.silent = true;
    app.use(toKoa(api, { fallthrough: false }));
    return listening(app.listen(0, '127.0.0.1'));
  },
};
