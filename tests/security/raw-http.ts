/**
 * Every adapter behind a real server on 127.0.0.1, and a client that writes requests on a raw socket:
 * no HTTP client sends a header twice, a Content-Type of 16,000 spaces or a CR in a path as asked.
 */
import http, { type Server } from 'node:http';
import net from 'node:net';
import { createAdaptorServer, serve } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { toExpress } from '../../src/adapters/express.js';
import { frameworkErrorsOf, toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { toHono } from '../../src/adapters/hono.js';
import { toKoa } from '../../src/adapters/koa.js';
import { toNodeListener } from '../../src/adapters/node.js';
import type { Api } from '../../src/index.js';
import { listen, listening, type MountedServer } from '../adapters/conformance.js';

/** One server per adapter, serving the API at the root. */
export const ADAPTER_SETUPS: Record<string, (api: Api) => Promise<MountedServer>> = {
  node: (api) => listen(http.createServer(toNodeListener(api))),
  'express 5': (api) => listen(http.createServer(express5().use(toExpress(api)))),
  'express 4': (api) => listen(http.createServer((express4 as unknown as typeof express5)().use(toExpress(api)))),
  fastify: async (api) => {
    const app = Fastify({ forceCloseConnections: true, frameworkErrors: frameworkErrorsOf(api) });
    await app.register(toFastify(api));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as net.AddressInfo;
    return { baseUrl: `http://127.0.0.1:${port}`, close: () => app.close() };
  },
  'fetch on @hono/node-server': (api) => listen(createAdaptorServer({ fetch: toFetch(api) }) as Server),
  koa: (api) => listening(new Koa().use(toKoa(api)).listen(0, '127.0.0.1')),
  'hono on @hono/node-server': (api) => listening(serve({ fetch: new Hono().use(toHono(api)).fetch, port: 0, hostname: '127.0.0.1' }) as Server),
};

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes a request head (and body, with its Content-Length) with `Connection: close` and parses what the server answered. */
export function rawRequest(server: MountedServer, head: string[], body = ''): Promise<RawAnswer> {
  const { port } = new URL(server.baseUrl);
  const bodyHeader = body === '' ? '' : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return new Promise((resolve) => {
    let received = '';
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(`${head.join('\r\n')}\r\nHost: test\r\n${bodyHeader}Connection: close\r\n\r\n${body}`));
    socket.on('data', (data) => (received += data.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      const [top = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = top.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}
