/**
 * restcanon/client sends forms, bytes and streams as they are, and reads answers as a Blob, a
 * stream, text or server-sent events: over a node:http server of the test's own, which sees what
 * went over the wire, and in memory.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { ApiRequest, ApiResponse } from '../../src/core/contract.js';
import { bodyOf, createClient } from '../../src/client/index.js';
import { readEvents, type ServerEvent } from '../../src/client/event-stream.js';

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Arrived {
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A server that records each request's headers and body and answers `{}`, or what `answer` says. */
async function recorder(answer: (arrived: Arrived, response: ServerResponse, count: number) => void = (_, response) => response.end('{}')) {
  const arrived: Arrived[] = [];
  const url = await listen(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    arrived.push({ headers: request.headers, body: Buffer.concat(chunks) });
    answer(arrived.at(-1)!, response, arrived.length);
  });
  return { url, arrived };
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

describe('a body sent as it is', () => {
  it('FormData with a file goes as multipart/form-data with its boundary, not as JSON', async () => {
    const { url, arrived } = await recorder();
    const form = new FormData();
    form.append('title', 'Holiday');
    form.append('photo', new Blob([PNG], { type: 'image/png' }), 'beach.png');
    await createClient({ baseUrl: url }).post('/photos', { body: form });
    const [{ headers, body }] = arrived as [Arrived];
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(headers['content-type']!)?.[1];
    expect(boundary).toBeDefined();
    const text = body.toString('latin1');
    expect(text.startsWith(`--${boundary}\r\n`)).toBe(true);
    expect(text).toContain('Content-Disposition: form-data; name="title"\r\n\r\nHoliday\r\n');
    expect(text).toContain('Content-Disposition: form-data; name="photo"; filename="beach.png"\r\nContent-Type: image/png\r\n\r\n');
    expect(body.includes(Buffer.from(PNG))).toBe(true);
    expect(text.endsWith(`--${boundary}--\r\n`)).toBe(true);
  });

  it('a Blob goes with its own type; the call\'s Content-Type wins over it', async () => {
    const { url, arrived } = await recorder();
    const client = createClient({ baseUrl: url });
    await client.put('/avatar', { body: new Blob([PNG], { type: 'image/png' }) });
    await client.put('/avatar', { body: new Blob([PNG], { type: 'image/png' }), headers: { 'Content-Type': 'image/x-png' } });
    expect(arrived.map(({ headers }) => headers['content-type'])).toEqual(['image/png', 'image/x-png']);
    expect(arrived.map(({ body }) => [...body])).toEqual([[...PNG], [...PNG]]);
  });

  it('URLSearchParams goes as a form', async () => {
    const { url, arrived } = await recorder();
    await createClient({ baseUrl: url }).post('/login', { body: new URLSearchParams({ user: 'ada', note: 'a b&c' }) });
    expect(arrived[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(arrived[0]!.body.toString()).toBe('user=ada&note=a+b%26c');
  });

  it('an ArrayBuffer and a typed array go as their bytes, with no Content-Type of the client\'s own', async () => {
    const { url, arrived } = await recorder();
    const client = createClient({ baseUrl: url });
    await client.post('/blobs', { body: PNG.buffer });
    await client.post('/blobs', { body: PNG.subarray(1, 4) });
    await client.post('/blobs', { body: PNG, headers: { 'content-type': 'application/octet-stream' } });
    expect(arrived.map(({ headers }) => headers['content-type'])).toEqual([undefined, undefined, 'application/octet-stream']);
    expect(arrived.map(({ body }) => [...body])).toEqual([[...PNG], [...PNG.subarray(1, 4)], [...PNG]]);
  });

  it('a ReadableStream goes chunked, as it is read', async () => {
    const { url, arrived } = await recorder();
    const parts = ['id,name\n', '1,Ada\n', '2,Grace\n'];
    const body = new ReadableStream<Uint8Array>({ pull: (controller) => (parts.length ? controller.enqueue(new TextEncoder().encode(parts.shift())) : controller.close()) });
    await createClient({ baseUrl: url }).post('/imports', { body, headers: { 'content-type': 'text/csv' } });
    expect(arrived[0]!.headers['transfer-encoding']).toBe('chunked');
    expect(arrived[0]!.headers['content-type']).toBe('text/csv');
    expect(arrived[0]!.body.toString()).toBe('id,name\n1,Ada\n2,Grace\n');
  });

  it('a call with a stream body is not retried (the stream is spent); one with a Blob is, with its whole body', async () => {
    const { url, arrived } = await recorder((_, response, count) => {
      response.statusCode = count < 3 ? 503 : 200;
      response.end('{}');
    });
    const client = createClient({ baseUrl: url, retry: { sleep: async () => {} } });
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => (controller.enqueue(PNG), controller.close()) });
    expect((await client.post('/uploads', { body: stream, idempotencyKey: true })).status).toBe(503);
    expect(arrived).toHaveLength(1);
    expect((await client.post('/uploads', { body: new Blob([PNG]), idempotencyKey: true })).status).toBe(200);
    expect(arrived.slice(1).map(({ body }) => [...body])).toEqual([[...PNG], [...PNG]]);
  });

  it('a plain object still goes as JSON', async () => {
    const { url, arrived } = await recorder();
    await createClient({ baseUrl: url }).post('/notes', { body: { text: 'hi' } });
    expect(arrived[0]!.headers['content-type']).toBe('application/json');
    expect(arrived[0]!.body.toString()).toBe('{"text":"hi"}');
  });
});

describe('an answer read as bytes, a stream or text', () => {
  const answering = (type: string, body: Uint8Array | string) =>
    listen((_, response) => {
      response.setHeader('content-type', type);
      response.end(body);
    });

  it('a binary answer is a Blob with its type, by default and with as: "blob"', async () => {
    const client = createClient({ baseUrl: await answering('image/png', PNG) });
    for (const body of [bodyOf(await client.get('/photo')), bodyOf(await client.get('/photo', { as: 'blob' }))]) {
      expect(body).toBeInstanceOf(Blob);
      const blob = body as Blob;
      expect(blob.type).toBe('image/png');
      expect([...new Uint8Array(await blob.arrayBuffer())]).toEqual([...PNG]);
    }
  });

  it('as: "stream" gives the body\'s ReadableStream of bytes', async () => {
    const client = createClient({ baseUrl: await answering('application/octet-stream', PNG) });
    const body = bodyOf(await client.get('/photo', { as: 'stream' }));
    expect(body).toBeInstanceOf(ReadableStream);
    expect([...new Uint8Array(await new Response(body).arrayBuffer())]).toEqual([...PNG]);
  });

  it('as: "text" gives JSON as its text; text/*, XML and an answer with no type stay text by default', async () => {
    expect(bodyOf(await createClient({ baseUrl: await answering('application/json', '{"a":1}') }).get('/a', { as: 'text' }))).toBe('{"a":1}');
    expect(bodyOf(await createClient({ baseUrl: await answering('text/csv', 'a,b\n') }).get('/a'))).toBe('a,b\n');
    expect(bodyOf(await createClient({ baseUrl: await answering('application/atom+xml', '<feed/>') }).get('/a'))).toBe('<feed/>');
    expect(bodyOf(await createClient({ baseUrl: await listen((_, response) => response.end('plain')) }).get('/a'))).toBe('plain');
  });

  it('an error answer is a problem whatever as says', async () => {
    const url = await listen((_, response) => {
      response.writeHead(404, { 'content-type': 'application/problem+json' });
      response.end('{"type":"about:blank","title":"Not Found","status":404,"code":"RC_NOT_FOUND"}');
    });
    const answer = await createClient({ baseUrl: url }).get('/photo', { as: 'blob' });
    expect(answer).toMatchObject({ ok: false, status: 404, problem: { code: 'RC_NOT_FOUND' } });
  });

  it('with etags, a stream answer is not kept for a 304: the next call sends no If-None-Match', async () => {
    const { url, arrived } = await recorder((_, response) => {
      response.writeHead(200, { etag: '"1"', 'content-type': 'application/octet-stream' });
      response.end(PNG);
    });
    const client = createClient({ baseUrl: url, etags: true });
    for (let call = 0; call < 2; call++) await bodyOf(await client.get('/photo', { as: 'stream' })).cancel();
    expect(arrived.map(({ headers }) => headers['if-none-match'])).toEqual([undefined, undefined]);
    await client.get('/photo', { as: 'blob' });
    await client.get('/photo', { as: 'blob' });
    expect(arrived.map(({ headers }) => headers['if-none-match'])).toEqual([undefined, undefined, undefined, '"1"']);
  });
});

describe('server-sent events over HTTP', () => {
  it('reads events written in chunks that split lines and CRLF line ends', async () => {
    const writes = ['data: fir', 'st\r', '\nid: 1\r\n\r', '\nevent: price\ndata: {"eur"', ':12}\n', '\n: ping\n\ndata: last\n\n'];
    const url = await listen(async (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      for (const write of writes) {
        response.write(write);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      response.end();
    });
    const body = bodyOf(await createClient({ baseUrl: url }).get('/prices'));
    expect(body).toBeInstanceOf(ReadableStream);
    const events: ServerEvent[] = [];
    for await (const event of readEvents(body as ReadableStream<Uint8Array>)) events.push(event);
    expect(events).toEqual([
      { event: 'message', data: 'first', id: '1', retry: undefined },
      { event: 'price', data: '{"eur":12}', id: '1', retry: undefined },
      { event: 'message', data: 'last', id: '1', retry: undefined },
    ]);
  });

  /** A server that sends an event every 10 ms until the connection closes, and says when it closed. */
  async function ticker() {
    let closed: () => void = () => {};
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const url = await listen((request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      let count = 0;
      const timer = setInterval(() => response.write(`data: ${++count}\n\n`), 10);
      response.once('close', () => (clearInterval(timer), closed()));
    });
    return { url, gone };
  }

  it('a break in for await closes the connection: the server sees it close', async () => {
    const { url, gone } = await ticker();
    const answer = await createClient({ baseUrl: url }).get('/ticks', { as: 'stream' });
    const seen: string[] = [];
    for await (const event of readEvents(bodyOf(answer))) if (seen.push(event.data) === 2) break;
    expect(seen).toEqual(['1', '2']);
    await gone;
  });

  it("the call's signal stops the events: the iteration rejects with its reason and the server sees the connection close", async () => {
    const { url, gone } = await ticker();
    const controller = new AbortController();
    const reason = new Error('the user left the page');
    const answer = await createClient({ baseUrl: url }).get('/ticks', { as: 'stream', signal: controller.signal });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of readEvents(bodyOf(answer), controller.signal)) if (seen.push(event.data) === 2) controller.abort(reason);
      })(),
    ).rejects.toBe(reason);
    expect(seen).toEqual(['1', '2']);
    await gone;
  });
});

describe('in memory', () => {
  /** An API that records what api.handle gets, and answers `answer`. */
  function fake(answer: Partial<ApiResponse> & { stream?: AsyncIterable<Uint8Array> } = {}) {
    const requests: ApiRequest[] = [];
    const api = {
      basePath: '',
      handle: async (request: ApiRequest) => (requests.push(request), { status: 200, headers: {}, body: undefined, payload: undefined, ...answer }),
    };
    return { api, requests };
  }

  it('a raw body reaches api.handle as the bytes Fetch would send, under their type', async () => {
    const { api, requests } = fake();
    const client = createClient({ api });
    const form = new FormData();
    form.append('photo', new Blob([PNG], { type: 'image/png' }), 'beach.png');
    await client.post('/photos', { body: form });
    await client.post('/login', { body: new URLSearchParams({ user: 'ada' }) });
    await client.post('/blobs', { body: PNG });
    const [multipart, login, bytes] = requests as [ApiRequest, ApiRequest, ApiRequest];
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(multipart.headers!['content-type'] as string)?.[1];
    expect(new TextDecoder('latin1').decode(multipart.body as Uint8Array)).toContain(`--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="beach.png"`);
    expect(login.headers!['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(new TextDecoder().decode(login.body as Uint8Array)).toBe('user=ada');
    expect(bytes.headers!['content-type']).toBeUndefined();
    expect([...(bytes.body as Uint8Array)]).toEqual([...PNG]);
  });

  it('a binary payload is a Blob with its type', async () => {
    const { api } = fake({ headers: { 'content-type': 'image/png' }, payload: PNG });
    const body = bodyOf(await createClient({ api }).get('/photo')) as Blob;
    expect(body.type).toBe('image/png');
    expect([...new Uint8Array(await body.arrayBuffer())]).toEqual([...PNG]);
  });

  it("the call's signal, aborted while the events are read, ends the source and rejects the read with its reason, as over HTTP", async () => {
    let ended = false;
    async function* source() {
      try {
        for (let count = 1; ; count++) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          yield new TextEncoder().encode(`data: ${count}\n\n`);
        }
      } finally {
        ended = true;
      }
    }
    const { api } = fake({ headers: { 'content-type': 'text/event-stream' }, stream: source() });
    const controller = new AbortController();
    const body = bodyOf(await createClient({ api }).get('/ticks', { signal: controller.signal })) as ReadableStream<Uint8Array>;
    const seen: string[] = [];
    const reason = new Error('the page closed');
    const read = (async () => {
      for await (const event of readEvents(body)) if (seen.push(event.data) === 2) controller.abort(reason);
    })();
    await expect(read).rejects.toBe(reason);
    expect(seen).toEqual(['1', '2']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ended).toBe(true);
  });

  it('a stream answer that comes after the call was aborted is closed unread', async () => {
    let started = false;
    async function* source() {
      started = true;
      yield new TextEncoder().encode('data: 1\n\n');
    }
    const stream = source();
    const api = { basePath: '', handle: async () => (await new Promise((resolve) => setTimeout(resolve, 20)), { status: 200, headers: { 'content-type': 'text/event-stream' }, body: undefined, payload: undefined, stream }) };
    const call = createClient({ api }).get('/ticks', { signal: AbortSignal.timeout(5) });
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
    await new Promise((resolve) => setTimeout(resolve, 40));
    // A generator never started runs no finally: return() before its first next() ends it at once.
    expect({ started, done: (await stream.next()).done }).toEqual({ started: false, done: true });
  });

  it("an answer's stream is read as events, and a break ends the source (its finally runs)", async () => {
    let ended = false;
    async function* source() {
      try {
        for (let count = 1; ; count++) yield new TextEncoder().encode(`data: ${count}\n\n`);
      } finally {
        ended = true;
      }
    }
    const { api } = fake({ headers: { 'content-type': 'text/event-stream' }, stream: source() });
    const body = bodyOf(await createClient({ api }).get('/ticks')) as ReadableStream<Uint8Array>;
    const seen: string[] = [];
    for await (const event of readEvents(body)) if (seen.push(event.data) === 3) break;
    expect(seen).toEqual(['1', '2', '3']);
    expect(ended).toBe(true);
  });
});
