import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { toHono } from '../../src/adapters/hono.js';
import { listening, runAdapterSuite } from './conformance.js';

runAdapterSuite(
  'hono',
  (api, { prefix }) => {
    const app = new Hono();
    const sub = new Hono();
    sub.use(toHono(api, { fallthrough: false }));
    app.route(prefix ?? '/', sub);
    return listening(serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server);
  },
  { prefix: 'mount' },
);
