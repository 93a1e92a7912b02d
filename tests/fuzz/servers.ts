/**
 * Each adapter serving an API from a real server on 127.0.0.1, mounted as the conformance suite
 * mounts it; a monitor of what the server saw; and a raw `node:http` client that sends a
 * {@link FuzzRequest} exactly as generated (any method token, any request-target, chunked or not).
 */
import http, { type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { toNodeListener } from '../../src/adapters/node.js';
import type { Api } from '../../src/index.js';
import { listen } from '../adapters/conformance.js';
import type { FuzzRequest } from './arbitraries.js';
import type { Target } from './settings.js';

export type AdapterName = Exclude<Target, 'handle'>;

/** One request as the server's `request` event saw it, and how often the response's head was written. */
export interface ServedRequest {
  method: string;
  url: string;
  writeHeads: number;
}

/** An adapter on a real server, with what it served since the last `seen.length = 0`. */
export interface FuzzServer {
  baseUrl: string;
  port: number;
  seen: ServedRequest[];
  send(request: FuzzRequest): Promise<HttpAnswer>;
  close(): Promise<void>;
}

/** What came back over the wire. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

type Started = { server: Server; close(): Promise<void> };

/**
 * The same mounts as the conformance suite, the API owning every path below its mount point (no
 * fallthrough). Express and Fastify mount at a prefix; node and fetch serve an API with a basePath.
 */
export const MOUNTING: Readonly<Record<AdapterName, 'mount' | 'basePath'>> = { node: 'basePath', express5: 'mount', express4: 'mount', fastify: 'mount', fetch: 'basePath' };

const MOUNTS: Readonly<Record<AdapterName, (api: Api, prefix: string) => Promise<Started>>> = {
  node: (api) => started(http.createServer(toNodeListener(api))),
  express5: (api, prefix) => {
    const app = express5();
    app.disable('x-powered-by');
    // Answers are compared with the API's in memory, which has no ETag of the app's.
    app.set('etag', false);
    app.use(prefix || '/', toExpress(api, { fallthrough: false }));
    return started(http.createServer(app));
  },
  express4: (api, prefix) => {
    const app = express4();
    app.disable('x-powered-by');
    // Answers are compared with the API's in memory, which has no ETag of the app's.
    app.set('etag', false);
    app.use(prefix || '/', toExpress(api, { fallthrough: false }));
    return started(http.createServer(app));
  },
  fastify: async (api, prefix) => {
    const app = Fastify({ forceCloseConnections: true });
    await app.register(toFastify(api, { fallthrough: false }), prefix === '' ? {} : { prefix });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { server: app.server, close: () => app.close() };
  },
  fetch: (api) => started(createAdaptorServer({ fetch: toFetch(api) }) as Server),
};

async function started(server: Server): Promise<Started> {
  const mounted = await listen(server);
  return { server, close: mounted.close };
}

/**
 * Serves an API with one adapter, mounted at `prefix` if the adapter mounts (see {@link MOUNTING}),
 * and watches every request the server hands to it.
 *
 * @example
 * const served = await serve('express5', fixture.api, '/v1');
 * const answer = await served.send(request);
 */
export async function serve(adapter: AdapterName, api: Api, prefix = ''): Promise<FuzzServer> {
  const { server, close } = await MOUNTS[adapter](api, prefix);
  const seen: ServedRequest[] = [];
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const entry: ServedRequest = { method: req.method ?? '', url: req.url ?? '', writeHeads: 0 };
    seen.push(entry);
    const writeHead = res.writeHead;
    res.writeHead = function countedWriteHead(this: http.ServerResponse, ...args: unknown[]) {
      entry.writeHeads++;
      return (writeHead as (...parameters: unknown[]) => http.ServerResponse).apply(this, args);
    } as typeof res.writeHead;
  });
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    seen,
    send: (request) => sendRaw(port, agent, request),
    close: async () => {
      agent.destroy();
      await close();
    },
  };
}

/** Chunks of a chunked body: small, so that a body spans several reads. */
const CHUNK = 256;
/** Longer than any answer takes; past it the request counts as never answered. */
const ANSWER_TIMEOUT = 10_000;

/**
 * Sends one request with `node:http` on a keep-alive connection and collects the answer. Rejects if
 * no complete answer arrives within 10 s.
 */
export function sendRaw(port: number, agent: http.Agent, request: FuzzRequest): Promise<HttpAnswer> {
  // node:http's client upper-cases every method, so a lower-case one is written by hand; and a method
  // Node's parser does not know ends its connection, which must not be one the agent pools.
  if (!http.METHODS.includes(request.method)) return sendOnSocket(port, request);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) {
      if (request.framing === 'chunked') headers['transfer-encoding'] = 'chunked';
      else headers['content-length'] = String(request.body.byteLength);
    }
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const client = http.request({ host: '127.0.0.1', port, agent, method: request.method, path: request.target, headers });
    const timer = setTimeout(() => {
      settle(() => reject(new Error(`no answer within ${ANSWER_TIMEOUT} ms`)));
      client.destroy();
    }, ANSWER_TIMEOUT);
    client.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => settle(() => reject(error)));
      response.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        settle(() => resolve({ status: response.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString('utf8') }));
      });
    });
    client.on('error', (error) => settle(() => reject(error)));
    const body = request.body;
    if (body !== undefined) {
      if (request.framing === 'chunked') for (let offset = 0; offset < body.byteLength; offset += CHUNK) client.write(body.subarray(offset, offset + CHUNK));
      else client.write(body);
    }
    client.end();
  });
}

/**
 * Writes a request on a fresh socket, with `Connection: close`, and reads the answer until the server
 * closes: only its status line and headers are parsed (the answers that take this path are Node's own).
 */
function sendOnSocket(port: number, request: FuzzRequest): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const lines = [`${request.method} ${request.target} HTTP/1.1`, `host: 127.0.0.1:${port}`, 'connection: close'];
    for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
    if (request.body !== undefined) lines.push(request.framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${request.body.byteLength}`);
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${ANSWER_TIMEOUT} ms`)), ANSWER_TIMEOUT);
    let failure: Error | undefined;
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may answer and close while the body is still being written (EPIPE, ECONNRESET):
    // only a socket that closes without any answer is a failure.
    socket.on('error', (error) => (failure = error));
    socket.on('close', () => {
      clearTimeout(timer);
      if (chunks.length === 0) return reject(failure ?? new Error('the server closed the connection without an answer'));
      const raw = Buffer.concat(chunks).toString('latin1');
      const [head = '', text = ''] = raw.split('\r\n\r\n', 2);
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, text });
    });
    socket.write(lines.join('\r\n') + '\r\n\r\n');
    const body = request.body;
    if (body === undefined) return;
    if (request.framing === 'length') socket.write(body);
    else if (body.byteLength === 0) socket.write('0\r\n\r\n');
    else socket.write(Buffer.concat([Buffer.from(`${body.byteLength.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]));
  });
}
