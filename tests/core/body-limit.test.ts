/**
 * A body limit per endpoint and per collection operation: an upload may take more than the API's
 * `bodyLimit`, a form less; the 413 is the same problem, before or while the body is read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint } from '../../src/index.js';
import { createOpenApiDocument } from '../../src/openapi/index.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { expectProblem } from '../helpers/problem.js';

const Note = z.object({ text: z.string() });
const json = { 'content-type': 'application/json' };
const bodyOf = (length: number): string => JSON.stringify({ text: 'x'.repeat(length - 11) });

function notesApi() {
  const small = endpoint('POST', '/feedback', { body: Note, bodyLimit: 32, handle: (ctx) => ctx.body });
  const large = endpoint('POST', '/imports', { body: Note, bodyLimit: 4096, handle: (ctx) => ctx.body });
  const notes = collection('notes', { body: Note, create: { bodyLimit: 64, handle: (ctx) => ({ id: 1, ...ctx.body }) }, replace: (ctx) => ({ id: ctx.params.id, ...ctx.body }) });
  return createApi({ endpoints: [small, large], resources: [notes], bodyLimit: 1024 });
}

describe('bodyLimit of an endpoint', () => {
  const api = notesApi();

  it('a body one byte over the endpoint’s limit is a 413, at the limit it is read', async () => {
    expect(bodyOf(32)).toHaveLength(32);
    expect((await api.handle({ method: 'POST', url: '/feedback', headers: json, body: bodyOf(32) })).status).toBe(200);
    expectProblem(await api.handle({ method: 'POST', url: '/feedback', headers: json, body: bodyOf(33) }), { status: 413, code: 'RC_PAYLOAD_TOO_LARGE' });
  });

  it('an endpoint may take more than the API’s limit, and the API’s limit still holds elsewhere', async () => {
    expect((await api.handle({ method: 'POST', url: '/imports', headers: json, body: bodyOf(2048) })).status).toBe(200);
    expectProblem(await api.handle({ method: 'POST', url: '/imports', headers: json, body: bodyOf(4097) }), { status: 413 });
    expectProblem(await api.handle({ method: 'PUT', url: '/notes/1', headers: json, body: bodyOf(1025) }), { status: 413 });
    expect((await api.handle({ method: 'PUT', url: '/notes/1', headers: json, body: bodyOf(1024) })).status).toBe(200);
  });

  it('a collection operation has a limit of its own', async () => {
    expect((await api.handle({ method: 'POST', url: '/notes', headers: json, body: bodyOf(64) })).status).toBe(201);
    expectProblem(await api.handle({ method: 'POST', url: '/notes', headers: json, body: bodyOf(65) }), { status: 413 });
  });

  it('the OpenAPI document states each endpoint’s own limit', () => {
    const document = createOpenApiDocument(api, { info: { title: 'Notes', version: '1' } }) as unknown as { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> };
    expect(document.paths['/feedback']!.post!.responses['413']!.description).toContain('32 bytes');
    expect(document.paths['/notes/{id}']!.put!.responses['413']!.description).toContain('1024 bytes');
  });
});

describe('bodyLimit over node:http', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer(toNodeListener(notesApi()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a Content-Length over the endpoint’s limit is a 413 before the body is read', async () => {
    const response = await fetch(`${base}/feedback`, { method: 'POST', headers: json, body: bodyOf(40) });
    expect(response.status).toBe(413);
    expect((await response.json()).code).toBe('RC_PAYLOAD_TOO_LARGE');
    expect((await fetch(`${base}/feedback`, { method: 'POST', headers: json, body: bodyOf(30) })).status).toBe(200);
  });
});

describe('bodyLimit is checked at definition', () => {
  it.each([-1, 1.5, Number.NaN, '10'])('%s is refused', (limit) => {
    expect(() => endpoint('POST', '/feedback', { body: Note, bodyLimit: limit as number, handle: () => undefined })).toThrow('"bodyLimit" must be a whole number of bytes');
  });

  it('an endpoint that reads no body has no body limit', () => {
    expect(() => endpoint('GET', '/feedback', { bodyLimit: 10, handle: () => undefined })).toThrow('"bodyLimit" limits the body it reads, and it reads none');
    expect(() => endpoint('POST', '/pings', { body: 'ignored', bodyLimit: 10, handle: () => undefined })).toThrow('"bodyLimit" limits the body it reads');
  });

  it('read and remove of a collection take no bodyLimit', () => {
    expect(() => collection('notes', { read: { bodyLimit: 10, handle: () => undefined } as never })).toThrow(/bodyLimit/);
  });
});
