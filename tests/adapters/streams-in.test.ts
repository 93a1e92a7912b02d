/**
 * Bodies that are not JSON on every adapter: bytes arrive exact, streams are read by the handler,
 * forms are parsed and uploads stream, the same answers from each. Express with a host body parser
 * in front (express.raw, express.urlencoded) gives the same answers.
 */
import http from 'node:http';
import express5 from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint, type Api } from '../../src/index.js';
import { multipart } from '../../src/multipart.js';
import { toExpress } from '../../src/adapters/express.js';
import { listen, type MountedServer } from './conformance.js';
import { MOUNTS } from './mounts.js';

const hex = (bytes: unknown): string => Buffer.from(bytes as Uint8Array).toString('hex');

function bodiesApi(): Api {
  const blob = endpoint('PUT', '/blobs', { consumes: ['application/octet-stream'], body: 'bytes', handle: (ctx) => ({ hex: hex(ctx.body) }) });
  const streamed = endpoint('POST', '/streams', {
    consumes: ['application/octet-stream'],
    body: 'stream',
    bodyLimit: 64 * 1024,
    handle: async (ctx) => {
      let size = 0;
      for await (const chunk of ctx.body) size += chunk.byteLength;
      return { size };
    },
  });
  const signup = endpoint('POST', '/signups', {
    consumes: ['application/x-www-form-urlencoded'],
    body: z.object({ name: z.string(), tags: z.array(z.string()) }),
    handle: (ctx) => ctx.body,
  });
  const upload = endpoint('POST', '/uploads', {
    consumes: ['multipart/form-data'],
    body: z.object({ title: z.string() }),
    handle: async (ctx) => {
      const files: string[] = [];
      for await (const file of ctx.files!) {
        const chunks: Buffer[] = [];
        for await (const chunk of file.stream) chunks.push(Buffer.from(chunk));
        files.push(`${file.field}:${file.filename}:${Buffer.concat(chunks).toString('hex')}`);
      }
      return { title: ctx.body.title, files };
    },
  });
  const report = endpoint('POST', '/reports', {
    consumes: ['multipart/form-data'],
    body: z.object({ title: z.string() }),
    conventions: { multipart: { fileFields: { photo: 'image/*', scans: { type: 'application/pdf', max: 2 } } } },
    handle: async (ctx) => {
      const files: string[] = [];
      for await (const file of ctx.files!) {
        for await (const _chunk of file.stream);
        files.push(`${file.field}:${file.type}`);
      }
      return { files };
    },
  });
  return createApi({ endpoints: [blob, streamed, signup, upload, report], use: [multipart()], onError: () => {} });
}

function cases(server: () => MountedServer): void {
  const url = (path: string): string => server().baseUrl + path;

  it('the bytes FF FE 00 80 arrive exact', async () => {
    const response = await fetch(url('/blobs'), { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: Uint8Array.of(0xff, 0xfe, 0x00, 0x80) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ hex: 'fffe0080' });
  });

  it('a streamed body is read by the handler, and past its limit the handler’s loop ends in a 413', async () => {
    const ok = await fetch(url('/streams'), { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(40_000) });
    expect(await ok.json()).toEqual({ size: 40_000 });
    const over = await fetch(url('/streams'), { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(70_000) });
    expect(over.status).toBe(413);
  });

  it('a urlencoded form is parsed and validated', async () => {
    const response = await fetch(url('/signups'), { method: 'POST', body: new URLSearchParams([['name', 'Ada'], ['tags', 'math']]) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Ada', tags: ['math'] });
  });

  it('a multipart upload from FormData', async () => {
    const form = new FormData();
    form.append('title', 'Report');
    form.append('doc', new Blob([Uint8Array.of(0xff, 0xfe, 0x00, 0x80)]), 'report.bin');
    const response = await fetch(url('/uploads'), { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ title: 'Report', files: ['doc:report.bin:fffe0080'] });
  });

  it('fileFields: declared files arrive; an undeclared name is a 400, a type the field does not take a 415, one file past its max a 413', async () => {
    const send = (files: [string, string][]): Promise<Response> => {
      const form = new FormData();
      form.append('title', 'Report');
      files.forEach(([field, type], index) => form.append(field, new Blob(['%PDF'], { type }), `${index}.bin`));
      return fetch(url('/reports'), { method: 'POST', body: form });
    };
    const taken = await send([['photo', 'image/jpeg'], ['scans', 'application/pdf'], ['scans', 'application/pdf']]);
    expect(taken.status).toBe(200);
    expect(await taken.json()).toEqual({ files: ['photo:image/jpeg', 'scans:application/pdf', 'scans:application/pdf'] });
    for (const [files, status, code] of [
      [[['avatar', 'image/png']], 400, 'RC_UNEXPECTED_FILE'],
      [[['photo', 'application/pdf']], 415, 'RC_UNSUPPORTED_FILE_TYPE'],
      [[['scans', 'application/pdf'], ['scans', 'application/pdf'], ['scans', 'application/pdf']], 413, 'RC_TOO_MANY_FIELD_FILES'],
    ] as [[string, string][], number, string][]) {
      const response = await send(files);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect((await response.json()).code).toBe(code);
    }
  });
}

for (const [name, mount] of Object.entries(MOUNTS)) {
  describe(name, () => {
    let server: MountedServer;
    beforeAll(async () => {
      server = await mount(bodiesApi(), {});
    });
    afterAll(() => server.close());
    cases(() => server);
  });
}

for (const [name, express] of [['express 4', express4 as unknown as typeof express5], ['express 5', express5]] as const) {
  describe(`${name} behind express.raw() and express.urlencoded()`, () => {
    let server: MountedServer;
    beforeAll(async () => {
      const app = express();
      app.use(express.raw({ type: 'application/octet-stream' }), express.urlencoded({ extended: false }));
      app.use(toExpress(bodiesApi()));
      server = await listen(http.createServer(app));
    });
    afterAll(() => server.close());

    it('the bytes express.raw read arrive exact', async () => {
      const response = await fetch(`${server.baseUrl}/blobs`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: Uint8Array.of(0xff, 0xfe, 0x00, 0x80) });
      expect(await response.json()).toEqual({ hex: 'fffe0080' });
    });

    it('a form express.urlencoded parsed is validated', async () => {
      const response = await fetch(`${server.baseUrl}/signups`, { method: 'POST', body: new URLSearchParams([['name', 'Ada'], ['tags', 'math'], ['tags', 'poetry']]) });
      expect(await response.json()).toEqual({ name: 'Ada', tags: ['math', 'poetry'] });
    });
  });
}
