/**
 * Ranges and server-sent events over every adapter on a real server: the same 206, multipart 206,
 * 416 and HEAD on each; events flushed one by one as they come (the first read while the source
 * waits before the second), `Last-Event-ID`, and the source closed when the client goes away.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, endpoint, type Api, type ErrorInfo } from '../../src/index.js';
import type { MountedServer } from './conformance.js';
import { SILENT_MOUNTS } from './mounts.js';
import { eventually, request, type Answer } from '../helpers/raw-answer.js';

const BODY = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(10);

interface Seen {
  /** Sources of events closed by their `finally`. */
  closed: number;
  /** Lets the source of /feed go on to its second event. */
  release: (() => void) | undefined;
  reports: [unknown, ErrorInfo][];
}

function apiFor(seen: Seen): Api {
  return createApi({
    naming: 'off',
    onError: (error, info) => seen.reports.push([error, info]),
    endpoints: [
      endpoint('GET', '/file', {
        produces: ['text/plain'],
        handle: (ctx) => {
          ctx.set('etag', '"v1"');
          return new Blob([BODY]);
        },
      }),
      endpoint('GET', '/feed', {
        produces: ['text/event-stream'],
        handle: (ctx) =>
          (async function* () {
            try {
              yield { id: '1', data: `after ${ctx.lastEventId ?? 'nothing'}` };
              await new Promise<void>((resolve) => (seen.release = resolve));
              yield { id: '2', event: 'second', data: { n: 2 } };
            } finally {
              seen.closed++;
            }
          })(),
      }),
      endpoint('GET', '/quiet', {
        produces: ['text/event-stream'],
        handle: () =>
          (async function* () {
            try {
              await new Promise<void>((resolve) => (seen.release = resolve));
              yield 'at last';
            } finally {
              seen.closed++;
            }
          })(),
      }),
      endpoint('GET', '/endless', {
        produces: ['text/event-stream'],
        handle: () =>
          (async function* () {
            try {
              for (let n = 0; ; n++) {
                yield String(n);
                await new Promise((resolve) => setTimeout(resolve, 5));
              }
            } finally {
              seen.closed++;
            }
          })(),
      }),
    ],
  });
}

/** What every adapter must answer alike: status, the API's headers, body (the boundary made fixed). */
function seenOf(answer: Answer) {
  const type = answer.headers['content-type'];
  const boundary = /boundary=(.+)$/.exec(type ?? '')?.[1];
  const plain = (text: string) => (boundary === undefined ? text : text.split(boundary).join('BOUNDARY'));
  // A problem's instance is the request's id, which each host makes its own way.
  const problem = answer.status >= 400;
  return {
    status: answer.status,
    'content-type': type === undefined ? undefined : plain(type),
    'content-length': problem ? undefined : answer.headers['content-length'],
    'content-range': answer.headers['content-range'],
    'accept-ranges': answer.headers['accept-ranges'],
    received: problem ? undefined : String(answer.body.length),
    body: plain(answer.body.toString()).replace(/"instance":"[^"]*"/, '"instance":"ID"'),
  };
}

const RANGE_CASES: [string, Record<string, string>, string?][] = [
  ['no Range', {}],
  ['one range', { range: 'bytes=10-19' }],
  ['two ranges', { range: 'bytes=0-2,300-309' }],
  ['a range past the end', { range: 'bytes=1000-' }],
  ['an If-Range that does not hold', { range: 'bytes=0-0', 'if-range': '"v0"' }],
  ['HEAD with a Range', { range: 'bytes=0-9' }, 'HEAD'],
];

const answers = new Map<string, ReturnType<typeof seenOf>[]>();

for (const [name, mount] of Object.entries(SILENT_MOUNTS)) {
  describe(`ranges and server-sent events on ${name}`, () => {
    const seen: Seen = { closed: 0, release: undefined, reports: [] };
    let server: MountedServer;
    beforeAll(async () => {
      server = await mount(apiFor(seen), {});
    });
    afterAll(() => server.close());

    it('answers ranges as every other adapter does: 206, multipart 206, 416, If-Range, HEAD', async () => {
      const got = [];
      for (const [, headers, method] of RANGE_CASES) got.push(seenOf(await request(server.baseUrl, '/file', { headers, ...(method === undefined ? {} : { method }) })));
      expect(got.map((answer) => answer.status)).toEqual([200, 206, 206, 416, 200, 200]);
      expect(got[1]).toMatchObject({ 'content-range': `bytes 10-19/${BODY.length}`, 'content-length': '10', body: BODY.slice(10, 20) });
      expect(got[2]!['content-type']).toBe('multipart/byteranges; boundary=BOUNDARY');
      expect(got[2]!['content-length']).toBe(got[2]!.received);
      expect(got[3]!['content-range']).toBe(`bytes */${BODY.length}`);
      expect(got[5]).toMatchObject({ 'accept-ranges': 'bytes', 'content-length': String(BODY.length), body: '' });
      answers.set(name, got);
      const first = answers.values().next().value!;
      expect(got).toEqual(first);
    });

    it('sends each event at once: the first arrives while the source waits before the second', async () => {
      const closed = seen.closed;
      seen.release = undefined;
      const received: string[] = [];
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.get(`${server.baseUrl}/feed`, { headers: { 'last-event-id': '7' } }, resolve);
        req.on('error', reject);
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-encoding']).toBeUndefined();
      res.setEncoding('utf8');
      res.on('data', (text: string) => received.push(text));
      const ended = new Promise((resolve) => res.on('end', resolve));
      await eventually(() => received.join('') === 'id: 1\ndata: after 7\n\n', 'the first event');
      expect(seen.release).toBeDefined();
      seen.release!();
      await ended;
      expect(received.join('')).toBe('id: 1\ndata: after 7\n\nevent: second\nid: 2\ndata: {"n":2}\n\n');
      await eventually(() => seen.closed === closed + 1, 'the source finished');
    });

    it('sends the headers before the first event: an EventSource opens while the source is quiet', async () => {
      const closed = seen.closed;
      seen.release = undefined;
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.get(`${server.baseUrl}/quiet`, resolve);
        req.on('error', reject);
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      await eventually(() => seen.release !== undefined, 'the source waiting');
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      const ended = new Promise((resolve) => res.on('end', resolve));
      seen.release!();
      await ended;
      expect(text).toBe('data: at last\n\n');
      await eventually(() => seen.closed === closed + 1, 'the source finished');
    });

    it('a client that goes away calls return() on the source of events', async () => {
      const closed = seen.closed;
      await new Promise<void>((resolve, reject) => {
        const req = http.get(`${server.baseUrl}/endless`, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
      });
      await eventually(() => seen.closed === closed + 1, 'the source closed');
      expect(seen.reports).toEqual([]);
    });
  });
}
