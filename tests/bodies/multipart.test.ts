/**
 * restcanon/multipart over node:http: uploads from Node's own `FormData`, limits, malformed bodies
 * written on a raw socket, and a property test of the framing.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { createApi, endpoint } from '../../src/index.js';
import { multipart } from '../../src/multipart.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { rawRequest } from '../security/raw-http.js';
import { expectProblem } from '../helpers/problem.js';

async function text(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('latin1');
}

const seen: string[] = [];

function uploadsApi() {
  const photos = endpoint('POST', '/photos', {
    consumes: ['multipart/form-data'],
    body: z.object({ title: z.string().min(1), tags: z.array(z.string()).optional() }),
    handle: async (ctx) => {
      const files = [];
      for await (const file of ctx.files!) files.push({ field: file.field, filename: file.filename, type: file.type, content: await text(file.stream) });
      return { fields: ctx.body, files };
    },
  });
  const skipper = endpoint('POST', '/skips', {
    consumes: ['multipart/form-data'],
    body: 'unvalidated',
    handle: async (ctx) => {
      const names = [];
      for await (const file of ctx.files!) names.push(file.filename);
      return { names };
    },
  });
  const limited = endpoint('POST', '/limited', {
    consumes: ['multipart/form-data'],
    body: 'unvalidated',
    conventions: { multipart: { fileSize: 8, files: 2, fields: 2, fieldSize: 8, parts: 3, headerPairs: 3 } },
    handle: async (ctx) => {
      seen.push('handler');
      let size = 0;
      for await (const file of ctx.files!) size += (await text(file.stream)).length;
      return { fields: ctx.body, size };
    },
  });
  const framed = endpoint('POST', '/framed', {
    consumes: ['multipart/form-data'],
    body: 'unvalidated',
    bodyLimit: 16 * 1024 * 1024,
    conventions: { multipart: { fields: 1000, files: 1000, parts: 2000, fieldSize: 1024 * 1024 } },
    handle: async (ctx) => {
      const files = [];
      for await (const file of ctx.files!) files.push([file.field, file.filename, Buffer.from(await text(file.stream), 'latin1').toString('hex')]);
      return { fields: ctx.body, files };
    },
  });
  const parts = endpoint('POST', '/parts', {
    consumes: ['multipart/form-data'],
    body: 'unvalidated',
    conventions: { multipart: { fields: 100_000, parts: 1000 } },
    handle: () => {
      seen.push('handler');
      return {};
    },
  });
  return createApi({ endpoints: [photos, skipper, limited, framed, parts], use: [multipart()], onError: () => {} });
}

let server: MountedServer;
beforeAll(async () => {
  server = await listen(http.createServer(toNodeListener(uploadsApi())));
});
afterAll(() => server.close());

const post = (path: string, body: FormData): Promise<Response> => fetch(server.baseUrl + path, { method: 'POST', body });

describe('multipart uploads from FormData', () => {
  it('fields are validated and files stream to the handler, with their field, name and type', async () => {
    const form = new FormData();
    form.append('title', 'Holiday');
    form.append('tags', 'sea');
    form.append('photo', new Blob([Uint8Array.of(0xff, 0xd8, 0xff, 0x00)], { type: 'image/jpeg' }), 'beach.jpg');
    form.append('photo', new Blob(['second']), '../../etc/passwd');
    const response = await post('/photos', form);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      fields: { title: 'Holiday', tags: ['sea'] },
      files: [
        { field: 'photo', filename: 'beach.jpg', type: 'image/jpeg', content: '\xff\xd8\xff\x00' },
        { field: 'photo', filename: 'passwd', type: 'application/octet-stream', content: 'second' },
      ],
    });
  });

  it('fields that fail the body schema are a 400 before the handler reads any file', async () => {
    const form = new FormData();
    form.append('title', '');
    form.append('photo', new Blob(['x']), 'a.txt');
    const response = await post('/photos', form);
    expect(response.status).toBe(400);
    expect((await response.json()).code).toBe('RC_INVALID_INPUT');
  });

  it('files the handler skips are drained, and the next ones still arrive', async () => {
    const form = new FormData();
    for (const name of ['a.bin', 'b.bin', 'c.bin']) form.append('file', new Blob([new Uint8Array(200_000).fill(7)]), name);
    const response = await post('/skips', form);
    expect(await response.json()).toEqual({ names: ['a.bin', 'b.bin', 'c.bin'] });
  });
});

describe('multipart limits, each with its own code', () => {
  const cases: [string, () => FormData, number, string][] = [
    ['a file over fileSize', () => withFiles(['123456789']), 413, 'RC_FILE_TOO_LARGE'],
    ['more files than files', () => withFiles(['1', '2', '3']), 413, 'RC_TOO_MANY_FILES'],
    ['more fields than fields', () => withFields(['a', 'b', 'c']), 413, 'RC_TOO_MANY_FIELDS'],
    ['a field over fieldSize', () => withFields(['123456789']), 413, 'RC_FIELD_TOO_LARGE'],
  ];
  it.each(cases)('%s', async (_name, form, status, code) => {
    const response = await post('/limited', form());
    expect(response.status).toBe(status);
    expect((await response.json()).code).toBe(code);
  });

  it('more parts than parts', async () => {
    const form = withFields(['a', 'b']);
    form.append('f', new Blob(['1']), '1');
    form.append('g', new Blob(['1']), '2');
    const response = await post('/limited', form);
    expect(response.status).toBe(413);
    expect((await response.json()).code).toBe('RC_TOO_MANY_PARTS');
  });
});

function withFiles(contents: string[]): FormData {
  const form = new FormData();
  contents.forEach((content, index) => form.append('file', new Blob([content]), `${index}.txt`));
  return form;
}

function withFields(values: string[]): FormData {
  const form = new FormData();
  values.forEach((value, index) => form.append(`field${index}`, value));
  return form;
}

const BOUNDARY = 'XyZ123';

function raw(path: string, body: string, contentType = `multipart/form-data; boundary=${BOUNDARY}`) {
  return rawRequest(server, [`POST ${path} HTTP/1.1`, `Content-Type: ${contentType}`], body);
}

const part = (headers: string[], content: string): string => `--${BOUNDARY}\r\n${headers.join('\r\n')}\r\n\r\n${content}\r\n`;
const end = `--${BOUNDARY}--\r\n`;

describe('malformed multipart bodies over a raw socket: a 400 before the handler', () => {
  it('a Content-Type without a boundary', async () => {
    expectProblem(await raw('/limited', part(['Content-Disposition: form-data; name="a"'], '1') + end, 'multipart/form-data'), { status: 400, code: 'RC_MALFORMED_BODY' });
  });

  it('a body that ends within a part', async () => {
    expectProblem(await raw('/limited', `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n12`), { status: 400, code: 'RC_MALFORMED_BODY' });
  });

  it('a part with no end (no closing delimiter)', async () => {
    expectProblem(await raw('/limited', part(['Content-Disposition: form-data; name="a"'], '1')), { status: 400, code: 'RC_MALFORMED_BODY' });
  });

  it('a field after a file', async () => {
    const body = part(['Content-Disposition: form-data; name="f"; filename="a.txt"'], 'x') + part(['Content-Disposition: form-data; name="late"'], '1') + end;
    seen.length = 0;
    const answer = await raw('/limited', body);
    expectProblem(answer, { status: 400, code: 'RC_FIELD_AFTER_FILE' });
  });

  it('a part with more header lines than headerPairs', async () => {
    const headers = ['Content-Disposition: form-data; name="a"', 'X-1: 1', 'X-2: 2', 'X-3: 3'];
    seen.length = 0;
    expectProblem(await raw('/limited', part(headers, '1') + end), { status: 400, code: 'RC_TOO_MANY_PART_HEADERS' });
    expect(seen).toEqual([]);
  });

  it('10,000 parts stop at the parts limit with a 413, before the handler', async () => {
    seen.length = 0;
    const body = part(['Content-Disposition: form-data; name="a"'], '1').repeat(10_000) + end;
    expectProblem(await raw('/parts', body), { status: 413, code: 'RC_TOO_MANY_PARTS' });
    expect(seen).toEqual([]);
  });

  it('the boundary inside a part header is no delimiter: the part is read as sent', async () => {
    const body = part([`Content-Disposition: form-data; name="--${BOUNDARY}"`], 'v') + end;
    const answer = await raw('/limited', body);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).fields).toEqual({ [`--${BOUNDARY}`]: 'v' });
  });

  it('a __proto__ field is refused as a JSON key is', async () => {
    expectProblem(await raw('/limited', part(['Content-Disposition: form-data; name="__proto__"'], '1') + end), { status: 400, code: 'RC_FORBIDDEN_KEY' });
  });
});

describe('the framing of multipart bodies (property)', () => {
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/);
  const boundary = fc.stringMatching(/^[A-Za-z0-9'()+_,.\-]{1,60}$/);
  const bytes = fc.uint8Array({ maxLength: 300 });

  it('random fields and files with random boundaries round-trip exactly', async () => {
    await fc.assert(
      fc.asyncProperty(boundary, fc.uniqueArray(name, { maxLength: 5 }), fc.array(fc.string({ maxLength: 40 }), { maxLength: 5 }), fc.array(fc.tuple(name, bytes), { maxLength: 4 }), async (bound, keys, values, files) => {
        const fields = Object.fromEntries(keys.map((key, index) => [key, values[index] ?? '']));
        const chunks: Buffer[] = [];
        for (const [key, value] of Object.entries(fields)) chunks.push(Buffer.from(`--${bound}\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${value}\r\n`));
        files.forEach(([field, content], index) => {
          chunks.push(Buffer.from(`--${bound}\r\nContent-Disposition: form-data; name="${field}"; filename="f${index}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n'));
        });
        chunks.push(Buffer.from(`--${bound}--\r\n`));
        const response = await fetch(`${server.baseUrl}/framed`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary="${bound}"` }, body: Buffer.concat(chunks) });
        expect(response.status).toBe(200);
        const answer = await response.json();
        expect(answer.fields).toEqual(fields);
        expect(answer.files).toEqual(files.map(([field, content], index) => [field, `f${index}.bin`, Buffer.from(content).toString('hex')]));
      }),
      { numRuns: 60 },
    );
  });
});

describe('a slow upload and the deadline', () => {
  it('a multipart body that stops coming is answered 503 at the deadline, and the handler’s read ends with an error', async () => {
    const ends: string[] = [];
    const api = createApi({
      timeout: 150,
      use: [multipart()],
      onError: () => {},
      endpoints: [
        endpoint('POST', '/slow', {
          consumes: ['multipart/form-data'],
          body: 'unvalidated',
          handle: async (ctx) => {
            try {
              for await (const file of ctx.files!) await text(file.stream);
              ends.push('clean');
            } catch (error) {
              ends.push(String((error as { status?: number }).status));
            }
            return {};
          },
        }),
      ],
    });
    const slow = await listen(http.createServer(toNodeListener(api)));
    try {
      const { port } = new URL(slow.baseUrl);
      const started = part(['Content-Disposition: form-data; name="f"; filename="a.bin"'], 'x'.repeat(1000)).slice(0, -2);
      const answer = await new Promise<string>((resolve) => {
        let received = '';
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(`POST /slow HTTP/1.1\r\nHost: test\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 100000\r\n\r\n${started}`);
        });
        socket.on('data', (data) => {
          received += data.toString('latin1');
          if (received.includes('\r\n\r\n')) {
            socket.destroy();
            resolve(received);
          }
        });
        socket.on('error', () => {});
      });
      expect(answer).toMatch(/^HTTP\/1\.1 503 /);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(ends).toEqual(['503']);
    } finally {
      await slow.close();
    }
  });

  it('a file over its limit while the handler reads it answers the 413', async () => {
    const form = new FormData();
    form.append('photo', new Blob(['x'.repeat(300_000)]), 'big.bin');
    const response = await fetch(`${server.baseUrl}/limited`, { method: 'POST', body: form });
    expect(response.status).toBe(413);
  });
});

describe('a file the handler holds unread when the deadline passes', () => {
  it('is let go without an uncaught error: the request answers 503 and the server lives on', async () => {
    const api = createApi({
      timeout: 100,
      use: [multipart()],
      onError: () => {},
      endpoints: [
        endpoint('POST', '/holds', {
          consumes: ['multipart/form-data'],
          body: 'unvalidated',
          handle: async (ctx) => {
            await ctx.files![Symbol.asyncIterator]().next();
            await new Promise((resolve) => setTimeout(resolve, 250));
            return {};
          },
        }),
      ],
    });
    const holding = await listen(http.createServer(toNodeListener(api)));
    try {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(256 * 1024)]), 'held.bin');
      const response = await fetch(`${holding.baseUrl}/holds`, { method: 'POST', body: form });
      expect(response.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect((await fetch(`${holding.baseUrl}/holds`, { method: 'GET' })).status).toBe(405);
    } finally {
      await holding.close();
    }
  });
});
