/**
 * A host's mount prefix and the API's basePath: with Express, a mount path that ends with the base
 * path serves the API once; with Fastify, such a prefix is refused when the plugin is registered.
 * Real servers on ephemeral ports, Express 4 and 5 alike.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import express4 from 'express4';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { collection, createApi, type Api } from '../../src/index.js';
import { listen, type MountedServer } from './conformance.js';

/** A notes API below `basePath`, with a store of its own. */
function notesApi(basePath: string): Api {
  const notes = new Map([[1, { id: 1, text: 'hi' }]]);
  const resource = collection('notes', {
    id: z.coerce.number().int(),
    body: z.object({ text: z.string() }),
    list: () => [...notes.values()],
    read: (ctx) => notes.get(ctx.params.id),
    create: (ctx) => {
      const note = { id: notes.size + 1, ...ctx.body };
      notes.set(note.id, note);
      return note;
    },
  });
  return createApi({ basePath, resources: [resource] });
}

async function get(server: MountedServer, path: string): Promise<{ status: number; type: string | null; body: unknown }> {
  const response = await fetch(server.baseUrl + path);
  const text = await response.text();
  const type = response.headers.get('content-type');
  return { status: response.status, type, body: type?.includes('json') ? JSON.parse(text) : text };
}

async function post(server: MountedServer, path: string, body: string): Promise<{ status: number; location: string | null; body: unknown }> {
  const response = await fetch(server.baseUrl + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, location: response.headers.get('location'), body: await response.json() };
}

for (const [name, express] of [
  ['express 4', express4],
  ['express 5', express5],
] as const) {
  describe(`${name}: a mount path that ends with the basePath`, () => {
    let server: MountedServer;
    beforeAll(async () => {
      const app = express();
      app.use(express.json());
      app.use('/api/v1', toExpress(notesApi('/api/v1')));
      const router = express.Router();
      router.use('/api/v1', toExpress(notesApi('/api/v1')));
      app.use('/svc', router);
      app.use('/v1', toExpress(notesApi('/api')));
      server = await listen(http.createServer(app));
    });
    afterAll(() => server.close());

    it('serves the API once, at the mount path', async () => {
      expect(await get(server, '/api/v1/notes/1')).toEqual({ status: 200, type: 'application/json; charset=utf-8', body: { id: 1, text: 'hi' } });
      expect(await get(server, '/api/v1/notes?page=1')).toMatchObject({ status: 200, body: [{ id: 1, text: 'hi' }] });
      expect(await get(server, '/api/v1/notes/')).toMatchObject({ status: 200, body: [{ id: 1, text: 'hi' }] });
    });

    it('does not serve the base path twice', async () => {
      const doubled = await get(server, '/api/v1/api/v1/notes/1');
      expect(doubled.status).toBe(404);
      expect(doubled.type).not.toContain('problem');
    });

    it('names a created item under the mount path in Location', async () => {
      expect(await post(server, '/api/v1/notes', '{"text":"new"}')).toEqual({ status: 201, location: '/api/v1/notes/2', body: { id: 2, text: 'new' } });
    });

    it('keeps what comes before the base path in a nested mount path', async () => {
      expect(await get(server, '/svc/api/v1/notes/1')).toMatchObject({ status: 200, body: { id: 1, text: 'hi' } });
      expect(await post(server, '/svc/api/v1/notes', '{"text":"new"}')).toMatchObject({ status: 201, location: '/svc/api/v1/notes/2' });
    });

    it("answers a body parser's failure on the API's paths as the API", async () => {
      const malformed = await post(server, '/api/v1/notes', '{"text":');
      expect(malformed).toMatchObject({ status: 400, body: { code: 'RC_MALFORMED_BODY' } });
    });

    it('puts a mount path that does not end with the basePath in front of it', async () => {
      expect(await get(server, '/v1/api/notes/1')).toMatchObject({ status: 200, body: { id: 1, text: 'hi' } });
      expect(await post(server, '/v1/api/notes', '{"text":"new"}')).toMatchObject({ status: 201, location: '/v1/api/notes/2' });
      expect((await get(server, '/v1/notes/1')).status).toBe(404);
    });
  });
}

describe('fastify: a prefix and the basePath', () => {
  const apps: FastifyInstance[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  async function registered(prefix: string, basePath: string): Promise<FastifyInstance> {
    const app = Fastify({ forceCloseConnections: true });
    apps.push(app);
    await app.register(toFastify(notesApi(basePath)), { prefix });
    return app;
  }

  it('refuses at registration a prefix that is the basePath, saying which to drop', async () => {
    await expect(registered('/api/v1', '/api/v1')).rejects.toThrow(
      "toFastify(): the prefix '/api/v1' ends with the API's basePath '/api/v1', so every path would be served at /api/v1/api/v1/...; drop one of them: register(toFastify(api)) without a prefix, or createApi() without basePath: '/api/v1'",
    );
  });

  it('refuses a prefix that ends with the basePath, with the prefix to keep', async () => {
    await expect(registered('/svc/api/v1/', '/api/v1')).rejects.toThrow(/drop one of them: register\(toFastify\(api\), \{ prefix: '\/svc' \}\)/);
  });

  it('fails to start a server whose plugin was not awaited', async () => {
    const app = Fastify({ forceCloseConnections: true });
    apps.push(app);
    void app.register(toFastify(notesApi('/api/v1')), { prefix: '/api/v1' });
    await expect(app.listen({ port: 0, host: '127.0.0.1' })).rejects.toThrow(/ends with the API's basePath/);
  });

  it('serves a prefix that does not end with the basePath in front of it', async () => {
    const app = await registered('/v1', '/api');
    await app.listen({ port: 0, host: '127.0.0.1' });
    const server: MountedServer = { baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
    expect(await get(server, '/v1/api/notes/1')).toMatchObject({ status: 200, body: { id: 1, text: 'hi' } });
    expect(await post(server, '/v1/api/notes', '{"text":"new"}')).toMatchObject({ status: 201, location: '/v1/api/notes/2' });
    expect((await get(server, '/v1/notes/1')).status).toBe(404);
  });
});
