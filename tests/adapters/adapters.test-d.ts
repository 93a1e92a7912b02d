import express from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { describe, expectTypeOf, it } from 'vitest';
import { expressHandler, toExpress } from '../../src/adapters/express.js';
import { fastifyHandler, frameworkErrorsOf, toFastify } from '../../src/adapters/fastify.js';
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
    app.get('/notes/:id', expressHandler(readNote));
    // @ts-expect-error: a misspelled option
    toExpress(api, { fallthru: false });
  });

  it('frameworkErrorsOf: what Fastify() takes as frameworkErrors; toFastify: what register takes', async () => {
    const app = Fastify({ frameworkErrors: frameworkErrorsOf(api, { prefix: '/v1' }) });
    await app.register(toFastify(api), { prefix: '/v1' });
    app.get('/notes/:id', fastifyHandler(readNote));
    expectTypeOf(frameworkErrorsOf(api)).returns.toEqualTypeOf<void>();
  });
});
