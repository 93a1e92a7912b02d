/**
 * restcanon probe against servers that do not behave: one that hangs, one that closes every
 * connection, one that answers web pages, one that redirects to another host, one that hangs on a
 * single path. Each ends with a sentence and exit code 2 (or a finding, when the rest of the server
 * answers), within a short timeout, and no request ever reaches a host other than the one probed: the
 * "other host" of these tests is a server on loopback that counts what it receives.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/cli/probe/limiter.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { runCli } from './run.js';

const FAST = ['--rate', '1000', '--timeout', '300', '--max-requests', '60'];
const servers: MountedServer[] = [];

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<MountedServer & { requests: string[] }> {
  const requests: string[] = [];
  const server = await listen(
    http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      handler(req, res);
    }),
  );
  servers.push(server);
  return { ...server, requests };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('restcanon probe: servers that cannot be probed', () => {
  it('a server that never answers: exit 2 once the timeout passes', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const started = Date.now();
      const result = await runCli(['probe', `http://127.0.0.1:${port}`, ...FAST]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`restcanon: GET http://127.0.0.1:${port}/ did not answer within 300 ms. Is it the API, and is it up? Allow it longer with --timeout (now 300 ms).\n`);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a server that closes every connection: exit 2', async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const result = await runCli(['probe', `http://127.0.0.1:${port}`, ...FAST]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`restcanon: GET http://127.0.0.1:${port}/: the server closed the connection without an answer.\n`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('nothing listening: exit 2', async () => {
    const server = await serve(() => {});
    const url = server.baseUrl;
    await servers.pop()!.close();
    const result = await runCli(['probe', url, ...FAST]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/nothing listens there \(connection refused\)\. Is the server running\?/);
  });

  it('a server that answers every request with a web page: exit 2, it is not an API', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Welcome</title><p>Welcome to our shop');
    });
    const result = await runCli(['probe', server.baseUrl, ...FAST]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/answers every request with an HTML page, not an API's answer: is http:\/\/127\.0\.0\.1:\d+\/ the API's base URL\?/);
  });

  it('a server that redirects to another host: exit 2, and the other host gets nothing', async () => {
    const elsewhere = await serve((_req, res) => res.end('{}'));
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: `${elsewhere.baseUrl}/api` });
      res.end();
    });
    const result = await runCli(['probe', server.baseUrl, ...FAST]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`restcanon: ${server.baseUrl}/ answered 302, a redirect to ${elsewhere.baseUrl}/api, another host; the probe sends requests to one host only and follows no redirect. If the API lives there, probe that URL.\n`);
    expect(elsewhere.requests).toEqual([]);
  });

  it('--openapi on another host: exit 2 before any request to it', async () => {
    const elsewhere = await serve((_req, res) => res.end('{}'));
    const server = await serve((_req, res) => res.end('{}'));
    const result = await runCli(['probe', server.baseUrl, ...FAST, '--openapi', `${elsewhere.baseUrl}/openapi.json`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is on another host than http:\/\/127\.0\.0\.1:\d+; the probe sends requests to one host only/);
    expect(elsewhere.requests).toEqual([]);
  });

  it('a base URL that is not one, and options out of range: exit 2 with the fix', async () => {
    // A URL reads localhost:3000 as the scheme "localhost:": the message said the probe does not speak it.
    expect(await runCli(['probe', 'localhost:3000'])).toEqual({ code: 2, stdout: '', stderr: 'restcanon: localhost:3000 has no http:// or https://; give http://localhost:3000\n' });
    expect((await runCli(['probe', 'ftp://127.0.0.1'])).stderr).toBe('restcanon: ftp://127.0.0.1: the probe speaks http and https, not ftp:\n');
    expect((await runCli(['probe', 'http://127.0.0.1:1', '--rate', '0'])).stderr).toBe('restcanon: --rate takes a positive number; got "0"\n');
    expect((await runCli(['probe', 'http://127.0.0.1:1', '--param', 'userId'])).stderr).toBe('restcanon: --param takes name=value, such as --param userId=1; got "userId"\n');
    expect((await runCli(['probe', 'http://127.0.0.1:1', '--frobnicate'])).stderr).toMatch(/^restcanon: Unknown option '--frobnicate'\. See restcanon --help\.\n$/);
  });
});

/** A small API that follows the conventions except where a test says, with its document. */
function api(overrides: { slow?: boolean; createdElsewhere?: string } = {}) {
  const document = {
    openapi: '3.1.0',
    info: { title: 'notes', version: '1' },
    paths: {
      '/notes': { get: { responses: { '200': { description: 'the notes' } } }, post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '201': { description: 'created', headers: { Location: { schema: { type: 'string' } } } } } } },
      '/notes/{id}': { get: { responses: { '200': { description: 'a note' }, '404': { description: 'none' } } }, delete: { responses: { '204': { description: 'gone' } } } },
    },
  };
  const notes = new Map<string, { id: number; text: string }>([['1', { id: 1, text: 'hello' }]]);
  let nextId = 2;
  return (req: IncomingMessage, res: ServerResponse) => {
    const problem = (status: number, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
      res.end(JSON.stringify({ type: 'about:blank', title: http.STATUS_CODES[status], status }));
    };
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
    };
    const url = req.url ?? '/';
    if (url === '/openapi.json') return json(200, document);
    if (url === '/') return json(200, { notes: '/notes' });
    if (url === '/notes') {
      if (req.method === 'GET' || req.method === 'HEAD') return json(200, [...notes.values()]);
      if (req.method === 'OPTIONS') return void res.writeHead(204, { allow: 'GET, HEAD, POST, OPTIONS' }).end();
      if (req.method !== 'POST') return problem(405, { allow: 'GET, HEAD, POST, OPTIONS' });
      if (!String(req.headers['content-type']).startsWith('application/json')) return problem(415);
      if (Number(req.headers['content-length']) > 65_536) return problem(413, { connection: 'close' });
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      return void req.on('end', () => {
        let text: unknown;
        try {
          text = (JSON.parse(Buffer.concat(chunks).toString()) as { text?: unknown }).text;
        } catch {
          return problem(400);
        }
        const note = { id: nextId++, text: String(text) };
        notes.set(String(note.id), note);
        json(201, note, { location: overrides.createdElsewhere ?? `/notes/${note.id}` });
      });
    }
    const id = /^\/notes\/([^/]+)$/.exec(url)?.[1];
    if (id === undefined) return problem(404);
    // Hangs: a request the server never answers, while the rest of the API answers.
    if (overrides.slow === true && id === '1' && req.method === 'GET') return;
    if (req.method === 'OPTIONS') return void res.writeHead(204, { allow: 'GET, HEAD, DELETE, OPTIONS' }).end();
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE') return problem(405, { allow: 'GET, HEAD, DELETE, OPTIONS' });
    const note = notes.get(id);
    if (note === undefined) return problem(404);
    if (req.method === 'DELETE') {
      notes.delete(id);
      return void res.writeHead(204).end();
    }
    return json(200, note);
  };
}

describe('restcanon probe: bounded', () => {
  it('a path that hangs is a finding with the timeout, and the run goes on', async () => {
    const server = await serve(api({ slow: true }));
    const started = Date.now();
    const result = await runCli(['probe', server.baseUrl, ...FAST, '--format', 'json']);
    const report = JSON.parse(result.stdout) as { findings: { rule: string; message: string }[] };
    expect(report.findings.filter((finding) => finding.rule === 'server-error').map((finding) => finding.message)).toEqual([`GET ${server.baseUrl}/notes/1 did not answer within 300 ms: every request gets an answer`]);
    expect(result.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('a Location on another host is a finding, and is not followed', async () => {
    const elsewhere = await serve((_req, res) => res.end('{}'));
    const server = await serve(api({ createdElsewhere: `${elsewhere.baseUrl}/notes/2` }));
    const result = await runCli(['probe', server.baseUrl, ...FAST, '--format', 'json']);
    const report = JSON.parse(result.stdout) as { findings: { rule: string; message: string }[] };
    expect(report.findings.map((finding) => finding.rule)).toEqual(['create-location']);
    expect(report.findings[0]!.message).toBe(`POST /notes answered Location: ${elsewhere.baseUrl}/notes/2, on another host; the probe does not follow it. Location names the new item on this API`);
    expect(elsewhere.requests).toEqual([]);
  });

  it('sends no more requests than --max-requests, and says which checks did not run', async () => {
    const server = await serve(api());
    const result = await runCli(['probe', server.baseUrl, '--rate', '1000', '--max-requests', '5', '--format', 'json']);
    const report = JSON.parse(result.stdout) as { notes: string[]; rules: { rule: string; notRun: string[] }[] };
    expect(server.requests).toHaveLength(5);
    expect(report.notes).toContain('The request budget of 5 ran out before every check ran.');
    expect(report.rules.find((rule) => rule.rule === 'create-location')?.notRun).toEqual(['the request budget (--max-requests 5) is spent; raise it with --max-requests']);
  });

  it('creates one item and deletes it again', async () => {
    const server = await serve(api());
    const result = await runCli(['probe', server.baseUrl, ...FAST, '--format', 'json']);
    expect(JSON.parse(result.stdout).findings).toEqual([]);
    const writes = server.requests.filter((request) => /^(POST|DELETE) /.test(request));
    // The malformed, text and huge bodies, each refused; then the one create, and its delete.
    expect(writes).toEqual(['POST /notes', 'POST /notes', 'POST /notes', 'POST /notes', 'DELETE /notes/2']);
    expect(result.code).toBe(0);
  });

  it('--no-writes sends only GET, HEAD and OPTIONS', async () => {
    const server = await serve(api());
    const result = await runCli(['probe', server.baseUrl, ...FAST, '--no-writes', '--format', 'json']);
    expect(result.code).toBe(0);
    expect(new Set(server.requests.map((request) => request.split(' ')[0]))).toEqual(new Set(['GET', 'HEAD', 'OPTIONS']));
  });
});

describe('the rate limiter', () => {
  it('spaces requests evenly at the rate, without bursts (a fake clock)', async () => {
    let now = 1000;
    const waits: number[] = [];
    const take = createLimiter(4, { now: () => now, sleep: async (ms) => void waits.push(ms) });
    for (let request = 0; request < 5; request += 1) await take();
    expect(waits).toEqual([250, 500, 750, 1000]);
    now += 5000;
    await take();
    expect(waits).toHaveLength(4);
  });

  it('holds a real run to the rate: 6 requests at 50 a second take at least 100 ms', async () => {
    const server = await serve(api());
    const started = Date.now();
    await runCli(['probe', server.baseUrl, '--rate', '50', '--max-requests', '6', '--format', 'json']);
    expect(server.requests).toHaveLength(6);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('refuses a rate that is not a positive number', () => {
    expect(() => createLimiter(0)).toThrow('rate must be a positive number of requests per second; got 0');
  });
});

afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
