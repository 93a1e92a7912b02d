import express from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { Hono, type MiddlewareHandler } from 'hono';
import Koa from 'koa';
import Koa2 from 'koa2';
import koaBodyParser from 'koa-bodyparser';
import mount from 'koa-mount';
import { describe, expectTypeOf, it } from 'vitest';
import { expressHandler, toExpress } from '../../src/adapters/express.js';
import { fastifyHandler, frameworkErrorsOf, toFastify } from '../../src/adapters/fastify.js';
import { toHono } from '../../src/adapters/hono.js';
import { parserErrorsOf, toKoa } from '../../src/adapters/koa.js';
import { createApi, endpoint } from '../../src/index.js';

const readNote = endpoint('GET', '/notes/:id', { handle: () => ({ id: 1 }) });
const api = createApi({ endpoints: [readNote] });

describe('the adapters fit the frameworks’ own typings, with nothing imported from them', () => {
  it('toExpress: app.use and router.use, at the root or at a prefix, on Express 5 and 4', () => {
    const app = express();
    app.use(toExpress(api));
    app.use('/v1', toExpress(api, { fallthrough: false }));
    express.Router().use(toExpress(api));
    express4().use('/v1', toExpress(api));
    app.use('/v1', toExpress(api, { router: express.Router({ caseSensitive: true, strict: true }) }));
    express4().use('/v1', toExpress(api, { router: express4.Router({ caseSensitive: true }) }));
    app.get('/notes/:id', expressHandler(readNote));
    // @ts-expect-error: a misspelled option
    toExpress(api, { fallthru: false });
  });

  it('frameworkErrorsOf: what Fastify() takes as frameworkErrors; toFastify: what register takes', async () => {
    const app = Fastify({ frameworkErrors: frameworkErrorsOf(api, { prefix: '/v1' }) });
    await app.register(toFastify(api), { prefix: '/v1' });
    await app.register(toFastify(api, { routeOptions: ({ path, method }) => (path === '/notes/:id' && method === 'GET' ? { config: { rateLimit: { max: 5 } } } : undefined) }), { prefix: '/v2' });
    app.get('/notes/:id', fastifyHandler(readNote));
    expectTypeOf(frameworkErrorsOf(api)).returns.toEqualTypeOf<void>();
  });

  it('toKoa: app.use, koa-mount and @koa/router on Koa 3 and 2; parserErrorsOf: the error option of both body parsers', () => {
    const app = new Koa();
    app.use(toKoa(api));
    app.use(mount('/v1', toKoa(api, { fallthrough: false })));
    new Router().all('/{*rest}', toKoa(api));
    new Koa2().use(toKoa(api));
    app.use(mount('/v2', toKoa(api, { router: new Router({ sensitive: true, strict: true }) })));
    app.use(koaBodyParser({ onerror: parserErrorsOf(api) }));
    app.use(bodyParser({ onError: parserErrorsOf(api, { prefix: '/v1' }) }));
    expectTypeOf(toKoa(api)).toExtend<Koa.Middleware>();
    // @ts-expect-error: a misspelled option
    toKoa(api, { fallthru: false });
  });

  it('toHono: app.use, app.all and a sub-app, as a MiddlewareHandler', () => {
    const app = new Hono();
    app.use('/v1/*', toHono(api));
    app.all('/v2/*', toHono(api, { fallthrough: false }));
    app.route('/v3', new Hono().use(toHono(api)));
    const routed = new Hono();
    toHono(api, { router: routed });
    app.route('/v4', routed);
    expectTypeOf(toHono(api)).toExtend<MiddlewareHandler>();
    // @ts-expect-error: a misspelled option
    toHono(api, { fallthru: false });
  });
});
