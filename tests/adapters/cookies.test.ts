/**
 * Headers of several values and cookies: `ctx.cookie` and `ctx.append('Set-Cookie')` go out as one
 * `Set-Cookie` line each on every host, beside the cookies the host set before the API answered;
 * `ctx.append` of another header joins its values with commas; what could split the answer or add an
 * attribute is refused; `ctx.cookies` reads the request's `Cookie` header.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express5 from 'express';
import express4 from 'express4';
import Fastify from 'fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import Koa2 from 'koa2';
import { parse as parseCookie, serialize as serializeCookie } from 'cookie';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toExpress } from '../../src/adapters/express.js';
import { toFastify } from '../../src/adapters/fastify.js';
import { toFetch } from '../../src/adapters/fetch.js';
import { toHono } from '../../src/adapters/hono.js';
import { toKoa } from '../../src/adapters/koa.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { createApi, endpoint, UnauthorizedError, type Api, type ErrorInfo } from '../../src/index.js';
import { createTestClient, createTestContext } from '../../src/testing.js';
import { createClient } from '../../src/client/index.js';

const SESSION_LINE = 'session=abc123; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax';
const THEME_LINE = 'theme=dark; Path=/; Secure; SameSite=Strict';
const LINKS = '</session/renew>; rel="renew", </session/end>; rel="end"';
/** What a host's own middleware sets before the API answers (a CSRF token, a session). */
const HOST_LINE = 'csrf=t0k3n; Path=/';

function cookieApi(reports: ErrorInfo[] = []): Api {
  return createApi({
    onError: (_error, info) => reports.push(info),
    endpoints: [
      endpoint('GET', '/session', {
        handle: (ctx) => {
          ctx.cookie('session', 'abc123', { maxAge: 3600 });
          ctx.cookie('theme', 'dark', { httpOnly: false, sameSite: 'strict' });
          ctx.append('Link', '</session/renew>; rel="renew"');
          ctx.append('link', '</session/end>; rel="end"');
          return { cookies: ctx.cookies };
        },
      }),
      endpoint('DELETE', '/session', {
        handle: (ctx) => {
          ctx.cookie('session', '', { maxAge: 0 });
          ctx.append('Set-Cookie', 'theme=; Max-Age=0; Path=/');
          return true;
        },
      }),
      endpoint('GET', '/injected', {
        handle: (ctx) => {
          ctx.cookie('good', 'kept');
          ctx.cookie('session', 'x; Domain=evil.example');
          return { never: 'sent' };
        },
      }),
    ],
  });
}

interface Started {
  base: string;
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<Started> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Each host serving the API at its root; with `hostCookie`, a middleware of the host's sets a cookie first. */
const HOSTS: Record<string, (api: Api, hostCookie: boolean) => Promise<Started>> = {
  node: (api) => listen(http.createServer(toNodeListener(api))),
  express5: (api, hostCookie) => {
    const app = express5();
    if (hostCookie) app.use((_req, res, next) => (res.cookie('csrf', 't0k3n', { encode: String }), next()));
    app.use(toExpress(api));
    return listen(http.createServer(app));
  },
  express4: (api, hostCookie) => {
    const app = express4();
    if (hostCookie) app.use((_req, res, next) => (res.cookie('csrf', 't0k3n', { encode: String }), next()));
    app.use(toExpress(api));
    return listen(http.createServer(app));
  },
  fastify: async (api, hostCookie) => {
    const app = Fastify();
    if (hostCookie) app.addHook('onRequest', async (_request, reply) => void reply.header('set-cookie', HOST_LINE));
    await app.register(toFastify(api));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  },
  fetch: async (api) => {
    const server = serve({ fetch: toFetch(api), port: 0, hostname: '127.0.0.1' }) as http.Server;
    await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', resolve)));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
  koa: (api, hostCookie) => {
    const app = new Koa();
    if (hostCookie) app.use((ctx, next) => (ctx.cookies.set('csrf', 't0k3n', { httpOnly: false }), next()));
    app.use(toKoa(api));
    return listen(http.createServer(app.callback()));
  },
  koa2: (api, hostCookie) => {
    const app = new Koa2();
    if (hostCookie) app.use((ctx, next) => (ctx.cookies.set('csrf', 't0k3n', { httpOnly: false }), next()));
    app.use(toKoa(api) as unknown as Koa2.Middleware);
    return listen(http.createServer(app.callback()));
  },
  hono: async (api, hostCookie) => {
    const app = new Hono();
    if (hostCookie) {
      app.use(async (c, next) => {
        c.header('set-cookie', HOST_LINE, { append: true });
        await next();
      });
    }
    app.use(toHono(api));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as http.Server;
    await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', resolve)));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  },
};

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The header lines as they came, name and value. */
  lines: [string, string][];
  text: string;
}

/** A request through Node's client, which keeps each `Set-Cookie` line apart and every raw line. */
function call(base: string, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${base}${path}`, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const raw = response.rawHeaders;
        const lines: [string, string][] = [];
        for (let index = 0; index < raw.length; index += 2) lines.push([raw[index]!.toLowerCase(), raw[index + 1]!]);
        resolve({ status: response.statusCode!, headers: response.headers, lines, text });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

function linesNamed(answer: RawAnswer, name: string): string[] {
  return answer.lines.filter(([line]) => line === name).map(([, value]) => value);
}

describe.each(Object.keys(HOSTS))('%s', (host) => {
  let server: Started;
  let withHostCookie: Started;
  const reports: ErrorInfo[] = [];
  beforeAll(async () => {
    server = await HOSTS[host]!(cookieApi(reports), false);
    withHostCookie = await HOSTS[host]!(cookieApi(), true);
  });
  afterAll(async () => {
    await server.close();
    await withHostCookie.close();
  });

  it('sends two cookies as two Set-Cookie lines, two Link values as one line joined with commas, and reads the Cookie header', async () => {
    const answer = await call(server.base, 'GET', '/session', { cookie: 'theme=light; lang=en%20GB; theme=dark' });
    expect(answer.status).toBe(200);
    expect(answer.headers['set-cookie']).toEqual([SESSION_LINE, THEME_LINE]);
    expect(linesNamed(answer, 'set-cookie')).toEqual([SESSION_LINE, THEME_LINE]);
    expect(linesNamed(answer, 'link')).toEqual([LINKS]);
    // A name sent twice keeps its first value; a percent-encoded value is decoded.
    expect(JSON.parse(answer.text)).toEqual({ cookies: { theme: 'light', lang: 'en GB' } });
  });

  it('a 204 carries its Set-Cookie lines, from ctx.cookie and ctx.append alike', async () => {
    const answer = await call(server.base, 'DELETE', '/session');
    expect(answer.status).toBe(204);
    expect(linesNamed(answer, 'set-cookie')).toEqual(['session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax', 'theme=; Max-Age=0; Path=/']);
  });

  it('a cookie value that would add "; Domain=evil.example" is a 500 with no Set-Cookie at all', async () => {
    const answer = await call(server.base, 'GET', '/injected');
    expect(answer.status).toBe(500);
    expect(linesNamed(answer, 'set-cookie')).toEqual([]);
    expect(answer.text).not.toContain('evil.example');
  });

  // Hono drops what a middleware prepared with c.header when a later one returns a Response of its
  // own, as toHono does: there, a cookie goes through the API (ctx.cookie) or on c.res after next().
  it.skipIf(host === 'node' || host === 'fetch' || host === 'hono')('keeps the cookie the host set before the API answered, beside the API’s', async () => {
    const answer = await call(withHostCookie.base, 'GET', '/session');
    expect(answer.status).toBe(200);
    const lines = linesNamed(answer, 'set-cookie');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^csrf=t0k3n; (path|Path)=\//);
    expect(lines.slice(1)).toEqual([SESSION_LINE, THEME_LINE]);
  });
});

describe('in memory', () => {
  it('api.handle gives set-cookie as the list of its lines, and the test client and the typed client see each', async () => {
    const api = cookieApi();
    const response = await api.handle({ method: 'GET', url: '/session', headers: { cookie: ['a=1', 'b=2; a=3'] } });
    expect(response.headers['set-cookie']).toEqual([SESSION_LINE, THEME_LINE]);
    expect(response.headers.link).toBe(LINKS);
    // Cookie headers sent apart (as HTTP/2 sends them) are read as one.
    expect(response.body).toEqual({ cookies: { a: '1', b: '2' } });
    expect((await createTestClient(api).get('/session')).headers['set-cookie']).toEqual([SESSION_LINE, THEME_LINE]);
    const client = createClient<typeof api>({ api }) as unknown as { get(path: string): Promise<{ headers: Headers }> };
    expect((await client.get('/session')).headers.getSetCookie()).toEqual([SESSION_LINE, THEME_LINE]);
  });

  it('a Fetch Response keeps each line for getSetCookie(), from toFetch and from toHono, where a record of headers would join them', async () => {
    const api = cookieApi();
    expect((await toFetch(api)(new Request('http://api.example/session'))).headers.getSetCookie()).toEqual([SESSION_LINE, THEME_LINE]);
    const app = new Hono();
    app.use(toHono(api));
    expect((await app.request('/session')).headers.getSetCookie()).toEqual([SESSION_LINE, THEME_LINE]);
  });

  it('an error’s set-cookie header (a 401 that ends the session) is a list of one line too', async () => {
    const api = createApi({
      authenticate: () => {
        throw new UnauthorizedError('The session has expired', { headers: { 'set-cookie': 'session=; Max-Age=0; Path=/' } });
      },
      endpoints: [endpoint('GET', '/me', { handle: () => ({}) })],
    });
    const response = await api.handle({ method: 'GET', url: '/me' });
    expect(response.status).toBe(401);
    expect(response.headers['set-cookie']).toEqual(['session=; Max-Age=0; Path=/']);
  });

  it('ctx.set of Set-Cookie replaces the lines before it; ctx.append adds one', () => {
    const ctx = createTestContext();
    ctx.cookie('a', '1');
    ctx.set('Set-Cookie', 'b=2');
    ctx.append('set-cookie', 'c=3');
    ctx.set('Cache-Control', 'private');
    ctx.append('Cache-Control', 'max-age=60');
    expect(ctx.reply?.headers).toEqual({ 'set-cookie': ['b=2', 'c=3'], 'cache-control': 'private, max-age=60' });
  });

  it('a handler that writes set-cookie lines into ctx.reply itself has them checked', async () => {
    const reports: unknown[] = [];
    /** What a handler writes past ctx.set: the headers of its reply, as the object they are. */
    const ownHeaders = (ctx: { set(name: string, value: string): void; reply: unknown }) => (ctx.set('x-a', '1'), (ctx.reply as { headers: Record<string, unknown> }).headers);
    const api = createApi({
      onError: (error) => reports.push(error),
      endpoints: [
        endpoint('GET', '/direct', { handle: (ctx) => ((ownHeaders(ctx)['set-cookie'] = ['ok=1', 'bad=1\r\nx-injected: 1']), { sent: false }) }),
        endpoint('GET', '/lines', { handle: (ctx) => ((ownHeaders(ctx)['Set-Cookie'] = ['a=1', 'b=2']), { sent: true }) }),
      ],
    });
    const direct = await api.handle({ method: 'GET', url: '/direct' });
    expect(direct.status).toBe(500);
    expect(direct.headers['set-cookie']).toBeUndefined();
    expect(String(reports[0])).toMatch(/ctx\.reply: the value of header "set-cookie"/);
    expect((await api.handle({ method: 'GET', url: '/lines' })).headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });
});

describe('refused', () => {
  it.each([
    ['Content-Length', '0'],
    ['Transfer-Encoding', 'chunked'],
    ['Connection', 'close'],
    ['Content-Type', 'text/html'],
    ['Access-Control-Allow-Origin', '*'],
  ])('ctx.append(%j) throws as ctx.set does', (name, value) => {
    const ctx = createTestContext();
    expect(() => ctx.append(name, value)).toThrow(TypeError);
    expect(() => ctx.append(name, value)).toThrow(/ctx\.append: "[a-z-]+" is (set by restcanon|a CORS grant)/);
    expect(ctx.reply).toBeUndefined();
  });

  it('ctx.append of a value with CR LF throws: it would split the answer', () => {
    expect(() => createTestContext().append('Set-Cookie', 'a=1\r\nLocation: https://evil.example')).toThrow(/ctx\.append: the value of header "Set-Cookie"/);
    expect(() => createTestContext().append('Link', '</a>\n')).toThrow(TypeError);
  });

  it.each([
    ['a value with ";" that would add an attribute', 'session', 'x; Domain=evil.example', {}],
    ['a value with CR LF that would add a header', 'session', 'x\r\nSet-Cookie: admin=1', {}],
    ['a value with a space', 'session', 'a b', {}],
    ['a value with a comma', 'session', 'a,b', {}],
    ['a value beyond ASCII', 'session', 'café', {}],
    ['a name with "="', 'a=b', 'x', {}],
    ['a name with ";"', 'a;b', 'x', {}],
    ['an empty name', '', 'x', {}],
    ['a path with ";"', 'session', 'x', { path: '/; Domain=evil.example' }],
    ['a domain with ";"', 'session', 'x', { domain: 'app.example; HttpOnly' }],
    ['a Max-Age that is no whole number', 'session', 'x', { maxAge: 1.5 }],
    ['a Max-Age past 2^53', 'session', 'x', { maxAge: 1e21 }],
    ['an invalid Expires', 'session', 'x', { expires: new Date('nope') }],
    ['an unknown SameSite', 'session', 'x', { sameSite: 'None; Secure' }],
    ['SameSite=None without Secure', 'session', 'x', { sameSite: 'none', secure: false }],
    ['a __Host- cookie with a Domain', '__Host-id', 'x', { domain: 'app.example' }],
    ['a __Secure- cookie without Secure', '__Secure-id', 'x', { secure: false }],
    ['a name and value over 4096 bytes', 'session', 'x'.repeat(4090), {}],
  ])('ctx.cookie throws on %s', (_what, name, value, options) => {
    const ctx = createTestContext();
    expect(() => ctx.cookie(name, value, options as never)).toThrow(TypeError);
    expect(ctx.reply).toBeUndefined();
  });

  it.each([
    [42, 'x', {}, 'ctx.cookie: "42" is no cookie name; a name is an HTTP token (RFC 6265 section 4.1.1)'],
    ['session', 42, {}, 'ctx.cookie: cookie "session": the value must be RFC 6265\'s cookie-octets'],
    ['session', 'a b', {}, 'encode other text first, with encodeURIComponent'],
    ['s', 'x'.repeat(4096), {}, 'ctx.cookie: cookie "s": browsers drop a name and value over 4096 bytes (RFC 6265 section 6.1)'],
    ['session', 'x', { maxAge: 1.5 }, 'ctx.cookie: cookie "session": maxAge must be a whole number of seconds'],
    ['session', 'x', { expires: new Date('nope') }, 'ctx.cookie: cookie "session": expires must be a valid Date'],
    ['session', 'x', { domain: 'app.example; HttpOnly' }, 'ctx.cookie: cookie "session": domain must be a host name (RFC 1034), such as "app.example"'],
    ['session', 'x', { domain: `${'a'.repeat(64)}.example` }, 'domain must be a host name'],
    ['session', 'x', { path: 'users' }, 'ctx.cookie: cookie "session": path must start with "/" and hold no ";" or control character'],
    ['session', 'x', { path: 'app/users' }, 'path must start with "/"'],
    ['session', 'x', { sameSite: 'Lax' }, "ctx.cookie: cookie \"session\": sameSite must be 'strict', 'lax' or 'none'"],
    ['session', 'x', { priority: 'urgent' }, "ctx.cookie: cookie \"session\": priority must be 'low', 'medium' or 'high'"],
    ['session', 'x', { partitioned: true, secure: false }, 'ctx.cookie: cookie "session": browsers drop it without Secure'],
    ['__Host-id', 'x', { secure: false }, 'browsers drop it without Secure'],
    ['__Host-id', 'x', { path: '/app' }, 'ctx.cookie: cookie "__Host-id": a __Host- cookie has no Domain and the path "/"; leave "domain" and "path" out'],
  ])('ctx.cookie(%j, %j, %j) says what is wrong', (name, value, options, message) => {
    expect(() => createTestContext().cookie(name as string, value as string, options as never)).toThrow(message);
  });

  it.each([
    ['a name and value of 4096 bytes', 's', 'x'.repeat(4095), {}],
    ['a one-letter domain label, a two-letter one and three labels', 'session', 'x', { domain: 'a.ab.example' }],
    ['a one-letter last domain label', 'session', 'x', { domain: 'app.e' }],
    ['a domain label of 63 letters', 'session', 'x', { domain: `${'a'.repeat(63)}.example` }],
    ['a __Host- cookie with its defaults', '__Host-id', 'x', {}],
    ['a name that only holds "__Host-" without Secure', 'x__Host-', 'x', { secure: false }],
  ])('ctx.cookie takes %s', (_what, name, value, options) => {
    const ctx = createTestContext();
    ctx.cookie(name, value, options);
    expect(ctx.reply?.headers['set-cookie']).toHaveLength(1);
  });

  it('writes no Secure when told, and each Priority in its case', () => {
    const ctx = createTestContext();
    ctx.cookie('plain', '1', { secure: false, httpOnly: false });
    ctx.cookie('low', '1', { priority: 'low' });
    ctx.cookie('medium', '1', { priority: 'medium' });
    expect(ctx.reply?.headers['set-cookie']).toEqual(['plain=1; Path=/; SameSite=Lax', 'low=1; Path=/; HttpOnly; Secure; Priority=Low; SameSite=Lax', 'medium=1; Path=/; HttpOnly; Secure; Priority=Medium; SameSite=Lax']);
  });

  it('an option ctx.cookie does not know is named, with the nearest one', () => {
    expect(() => createTestContext().cookie('a', '1', { maxage: 60 } as never)).toThrow('`maxage` is not an option of ctx.cookie; did you mean `maxAge`?');
  });

  it('writes what it is given: a quoted value, a Domain, an Expires, a Priority, Partitioned', () => {
    const ctx = createTestContext();
    ctx.cookie('q', '"v"', { domain: 'app.example', expires: new Date(Date.UTC(2030, 0, 1)), priority: 'high', partitioned: true, sameSite: 'none' });
    expect(ctx.reply?.headers['set-cookie']).toEqual(['q="v"; Domain=app.example; Path=/; Expires=Tue, 01 Jan 2030 00:00:00 GMT; HttpOnly; Secure; Partitioned; Priority=High; SameSite=None']);
  });
});

describe('ctx.cookies', () => {
  /** Text of the characters a Cookie header's parse turns on, and a few others. */
  const cookieText = fc.string({ unit: fc.constantFrom('a', 'b', '=', ';', ' ', '\t', '%', '2', '0', 'E', '"', '_'), maxLength: 40 });

  it('reads a Cookie header as the cookie package parses it, whatever the header', () => {
    fc.assert(
      fc.property(cookieText, (header) => {
        expect({ ...createTestContext({ request: { method: 'GET', url: '/', headers: { cookie: header } } }).cookies }).toEqual({ ...parseCookie(header) });
      }),
      { numRuns: 2000 },
    );
  });

  it('writes a cookie as the cookie package serializes it, for every value it takes', () => {
    const value = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '!', '#', '+', '-', ':', '<', '[', ']', '~', '%'), maxLength: 20 });
    fc.assert(
      fc.property(value, fc.option(fc.integer({ min: -1, max: 1e9 }), { nil: undefined }), fc.constantFrom('strict', 'lax', 'none') as fc.Arbitrary<'strict' | 'lax' | 'none'>, (text, maxAge, sameSite) => {
        const ctx = createTestContext();
        ctx.cookie('name', text, { maxAge, sameSite, domain: 'app.example', path: '/a' });
        expect(ctx.reply?.headers['set-cookie']).toEqual([serializeCookie('name', text, { ...(maxAge === undefined ? {} : { maxAge }), sameSite, domain: 'app.example', path: '/a', httpOnly: true, secure: true, encode: String })]);
      }),
    );
  });

  it('reads a Cookie header of many parts without "=" in one pass: 1,000,000 of them and one cookie', () => {
    const header = `${'a;'.repeat(1_000_000)}b=1`;
    const started = performance.now();
    expect(createTestContext({ request: { method: 'GET', url: '/', headers: { cookie: header } } }).cookies).toEqual({ b: '1' });
    // One pass is a few milliseconds; a scan to the "=" from each part would be 10^12 steps.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('is empty for a request without headers', () => {
    expect(createTestContext({ request: { method: 'GET', url: '/' } }).cookies).toEqual({});
  });

  it('reads the Cookie header of a test context’s headers', () => {
    expect(createTestContext({ headers: { cookie: 'session=abc; theme=dark' } }).cookies).toEqual({ session: 'abc', theme: 'dark' });
  });

  it('is frozen, empty without a Cookie header, and keeps a value it cannot decode as sent', () => {
    expect(createTestContext().cookies).toEqual({});
    const ctx = createTestContext({ request: { method: 'GET', url: '/', headers: { cookie: 'bad=%E0%A4%A; __proto__=x; ok=1' } } });
    expect({ ...ctx.cookies }).toEqual({ bad: '%E0%A4%A', ['__proto__']: 'x', ok: '1' });
    expect(Object.isFrozen(ctx.cookies)).toBe(true);
    expect(ctx.cookies).toBe(ctx.cookies);
  });
});
