/**
 * One server of the streams benchmark, in its own process, so that its peak RSS is its own:
 *
 *   node bench/streams/server.mjs <stack> <folder>
 *
 * <stack> is `plain` (node:http with `stream.pipeline` between the socket and a file, the
 * baseline), `fastify` (Fastify with the same plain handlers, a reference), `restcanon/node` or
 * `restcanon/fastify`. Every stack serves the same three routes:
 * `POST /upload` streams the body into a new file in <folder> and answers with the file's path,
 * `GET /download` streams <folder>/download (1 GiB) and `GET /events` sends one server-sent event
 * a second until the client leaves. It prints its port, then answers `peak` and `rss` on its IPC
 * channel with /proc/self/status's VmHWM and VmRSS in bytes.
 */
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { importRestcanon } from '../lib/dist.mjs';
import { HOST, listenFastify, listening } from '../lib/listen.mjs';

const [stack, folder] = process.argv.slice(2);
const GIB = 1024 ** 3;
// The download's length as the bench made it (BENCH_STREAMS_MIB), which the plain stack declares.
const downloadLength = statSync(join(folder, 'download')).size;
let uploads = 0;

/** A field of /proc/self/status in bytes (the kernel gives kB). */
function status(field) {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((entry) => entry.startsWith(`${field}:`));
  return Number(line.split(/\s+/)[1]) * 1024;
}

/** Events until the signal aborts: one a second, each with its number as id. */
async function* ticks(signal) {
  for (let id = 1; !signal.aborted; id++) {
    yield { id: String(id), event: 'tick', data: { id } };
    await sleep(1000, undefined, { signal }).catch(() => {});
  }
}

async function plain() {
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/upload') {
      const file = join(folder, `upload-${++uploads}`);
      pipeline(req, createWriteStream(file)).then(
        () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ file })),
        () => res.destroy(),
      );
    } else if (req.method === 'GET' && req.url === '/download') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(downloadLength) });
      pipeline(createReadStream(join(folder, 'download')), res).catch(() => {});
    } else if (req.method === 'GET' && req.url === '/events') writeEvents(res);
    else res.writeHead(404).end();
  });
  return listening(server);
}

/** Server-sent events written by hand to a Node response, until the client leaves. */
function writeEvents(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const controller = new AbortController();
  res.on('close', () => controller.abort());
  (async () => {
    for await (const event of ticks(controller.signal)) res.write(`id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
  })();
}

/**
 * Fastify with the same plain handlers, no restcanon: the body stream its catch-all parser hands
 * over piped to the file, the file's stream given to `reply.send` (chunked, as Fastify sends a
 * stream), events written by hand to the hijacked response. What Fastify itself costs.
 */
function fastifyPlain() {
  return listenFastify((app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    app.post('/upload', async (request) => {
      const file = join(folder, `upload-${++uploads}`);
      await pipeline(request.body, createWriteStream(file));
      return { file };
    });
    app.get('/download', (_request, reply) => reply.type('application/octet-stream').send(createReadStream(join(folder, 'download'))));
    app.get('/events', (_request, reply) => {
      reply.hijack();
      writeEvents(reply.raw);
    });
  });
}

async function restcanonApi() {
  const { createApi, endpoint } = await importRestcanon('index.js');
  return createApi({
    endpoints: [
      endpoint('POST', '/upload', {
        consumes: ['application/octet-stream'],
        body: 'stream',
        bodyLimit: 2 * GIB,
        handle: async (ctx) => {
          const file = join(folder, `upload-${++uploads}`);
          await pipeline(ctx.body, createWriteStream(file));
          return { file };
        },
      }),
      endpoint('GET', '/download', { produces: ['application/octet-stream'], handle: () => createReadStream(join(folder, 'download')) }),
      endpoint('GET', '/events', { produces: ['text/event-stream'], handle: (ctx) => ticks(ctx.signal) }),
    ],
  });
}

async function start() {
  if (stack === 'plain') return plain();
  if (stack === 'fastify') return fastifyPlain();
  const api = await restcanonApi();
  if (stack === 'restcanon/node') {
    const { toNodeListener } = await importRestcanon('node.js');
    return listening(http.createServer(toNodeListener(api)));
  }
  if (stack === 'restcanon/fastify') {
    const { toFastify } = await importRestcanon('fastify.js');
    return listenFastify((app) => app.register(toFastify(api)));
  }
  throw new Error(`Unknown stack ${stack}`);
}

const { port } = await start();
// A bench that failed leaves no server behind.
process.on('disconnect', () => process.exit());
process.on('message', (message) => process.send({ message, value: message === 'peak' ? status('VmHWM') : status('VmRSS') }));
console.log(JSON.stringify({ host: HOST, port }));
