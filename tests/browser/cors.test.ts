/**
 * The `cors` option against a real browser: headless Chromium loads a page from one origin, and
 * the page calls the API on another with `fetch`, as a single-page application does. The page
 * writes what it could read into its DOM, which Chromium prints (`--dump-dom`). A page from an
 * origin the API does not list must not read anything: its `fetch` rejects with a TypeError.
 *
 * Without Chromium on the PATH the tests are skipped, and say how to install it.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import http, { type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toNodeListener } from '../../src/adapters/node.js';
import { collection, createApi } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { createDemoApi } from '../../examples/demo-api.mjs';
import { OPEN_TIMEOUT, openDemoDatabase } from '../helpers/demo-database.js';

const run = promisify(execFile);

/** The Chromium binary on the PATH, if any. */
function findChromium(): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      const candidate = join(folder, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // Not in this folder.
      }
    }
  }
  return undefined;
}

const chromium = findChromium();
const SKIPPED = 'browser test skipped: chromium is not installed; install it with `apt-get install -y chromium` (Debian) to run tests/browser';
if (chromium === undefined) console.log(SKIPPED);

/** What the page read from the API, or the error its first `fetch` rejected with. */
interface PageResult {
  get?: { status: number; etag: string | null; link: string | null; internal: string | null; body: unknown };
  post?: { status: number; location: string | null; body: unknown };
  anonymous?: { status: number; challenge: string | null };
  error?: string;
}

/**
 * A page that calls the API at `apiUrl` as an application would: a bearer-token GET with
 * credentials, a JSON POST, and a GET without a token. It writes what it read into `#result`, as
 * percent-encoded JSON, so that the DOM dump holds it verbatim.
 */
function pageFor(apiUrl: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>cors</title></head><body><pre id="result">pending</pre>
<script>
(async () => {
  const result = {};
  try {
    const listed = await fetch(${JSON.stringify(`${apiUrl}/notes`)}, { headers: { authorization: 'Bearer reader' }, credentials: 'include' });
    result.get = { status: listed.status, etag: listed.headers.get('etag'), link: listed.headers.get('link'), internal: listed.headers.get('x-internal'), body: await listed.json() };
    const created = await fetch(${JSON.stringify(`${apiUrl}/notes`)}, {
      method: 'POST',
      headers: { authorization: 'Bearer reader', 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'from the browser' }),
    });
    result.post = { status: created.status, location: created.headers.get('location'), body: await created.json() };
    const anonymous = await fetch(${JSON.stringify(`${apiUrl}/notes`)});
    result.anonymous = { status: anonymous.status, challenge: anonymous.headers.get('www-authenticate') };
  } catch (error) {
    result.error = error.name;
  }
  document.getElementById('result').textContent = encodeURIComponent(JSON.stringify(result));
})();
</script></body></html>`;
}

/** Serves one HTML page at every path: the page's current `html`. */
function pageServer(page: { html: string }): Server {
  return http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(page.html);
  });
}

/** Loads a page in headless Chromium, with a profile of its own, and gives what the page wrote. */
async function readPage(url: string): Promise<PageResult> {
  const profile = mkdtempSync(join(tmpdir(), 'restcanon-chromium-'));
  try {
    const { stdout } = await run(
      chromium!,
      ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', `--user-data-dir=${profile}`, '--virtual-time-budget=15000', '--dump-dom', url],
      { timeout: 60_000, maxBuffer: 1024 * 1024 },
    );
    const written = /<pre id="result">([^<]*)<\/pre>/.exec(stdout)?.[1];
    if (written === undefined || written === 'pending') throw new Error(`the page wrote no result; Chromium printed: ${stdout.slice(0, 2000)}`);
    return JSON.parse(decodeURIComponent(written)) as PageResult;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

describe('cors in a real browser (headless Chromium)', () => {
  const servers: MountedServer[] = [];
  let allowedPage: MountedServer;
  let otherPage: MountedServer;
  const seenByApi: string[] = [];

  beforeAll(async () => {
    if (chromium === undefined) return;
    // The pages' servers listen first, so that the API can list the first one's origin; the page
    // itself, which names the API's URL, is known once the API listens too.
    const page = { html: '' };
    allowedPage = await listen(pageServer(page));
    otherPage = await listen(pageServer(page));
    let nextId = 2;
    const api = createApi({
      cors: { origins: [allowedPage.baseUrl], credentials: true },
      authenticate: (request) => {
        seenByApi.push(`${request.method} ${request.headers?.origin ?? ''}`);
        return request.headers?.authorization === 'Bearer reader' ? { name: 'reader' } : undefined;
      },
      resources: [
        collection('notes', {
          id: z.coerce.number().int(),
          body: z.object({ text: z.string() }),
          list: (ctx) => {
            ctx.set('ETag', '"v1"');
            ctx.set('Link', '</notes?page=2>; rel="next"');
            ctx.set('X-Internal', 'not exposed');
            return [{ id: 1, text: 'first' }];
          },
          create: (ctx) => ({ id: nextId++, text: ctx.body.text }),
        }),
      ],
    });
    const apiServer = await listen(http.createServer(toNodeListener(api)));
    servers.push(allowedPage, otherPage, apiServer);
    page.html = pageFor(apiServer.baseUrl);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('lets a page on a listed origin read the answers and the headers restcanon exposes', { timeout: 90_000 }, async (ctx) => {
    ctx.skip(chromium === undefined, SKIPPED);
    const result = await readPage(`${allowedPage.baseUrl}/`);
    expect(result).toEqual({
      get: { status: 200, etag: '"v1"', link: '</notes?page=2>; rel="next"', internal: null, body: [{ id: 1, text: 'first' }] },
      post: { status: 201, location: '/notes/2', body: { id: 2, text: 'from the browser' } },
      anonymous: { status: 401, challenge: 'Bearer realm="api"' },
    });
  });

  it('leaves a page on another origin unable to read: its fetch rejects with a TypeError', { timeout: 90_000 }, async (ctx) => {
    ctx.skip(chromium === undefined, SKIPPED);
    seenByApi.length = 0;
    const result = await readPage(`${otherPage.baseUrl}/`);
    expect(result).toEqual({ error: 'TypeError' });
    // The preflight of the bearer-token GET was refused, so the browser never sent the GET itself.
    expect(seenByApi).toEqual([]);
  });
});

/**
 * The demo's page: on http://localhost:5173, the origin the demo lists, it reads Alice, changes
 * nothing, follows her orders' first page and adds an order, as its single-page application would.
 */
function demoPage(apiUrl: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>demo</title></head><body><pre id="result">pending</pre>
<script>
(async () => {
  const result = {};
  const alice = { authorization: 'Bearer alice-token' };
  try {
    const user = await fetch(${JSON.stringify(`${apiUrl}/users/1`)}, { headers: alice });
    result.get = { status: user.status, etag: user.headers.get('etag'), body: await user.json() };
    const orders = await fetch(${JSON.stringify(`${apiUrl}/users/1/orders?limit=1`)}, { headers: alice });
    result.page = { status: orders.status, link: orders.headers.get('link'), count: (await orders.json()).items.length };
    const created = await fetch(${JSON.stringify(`${apiUrl}/users/1/orders`)}, {
      method: 'POST',
      headers: { ...alice, 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'Stapler', quantity: 1 }),
    });
    result.post = { status: created.status, location: created.headers.get('location') };
  } catch (error) {
    result.error = error.name;
  }
  document.getElementById('result').textContent = encodeURIComponent(JSON.stringify(result));
})();
</script></body></html>`;
}

describe('the demo in a real browser (headless Chromium)', () => {
  const servers: MountedServer[] = [];
  let db: Awaited<ReturnType<typeof openDemoDatabase>> | undefined;
  let pageUrl: string;

  beforeAll(async () => {
    if (chromium === undefined) return;
    const page = { html: '' };
    const server = pageServer(page);
    // The origin the demo lists; the port may be taken on a developer's machine (a Vite server, say).
    const onDemoOrigin = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(5173, () => resolve(true));
    });
    let options = {};
    if (onDemoOrigin) {
      pageUrl = 'http://localhost:5173/';
      servers.push({ baseUrl: 'http://localhost:5173', close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
    } else {
      const elsewhere = await listen(pageServer(page));
      servers.push(elsewhere);
      pageUrl = `${elsewhere.baseUrl}/`;
      options = { cors: { origins: [elsewhere.baseUrl] } };
    }
    db = await openDemoDatabase();
    const demo = await listen(http.createServer(toNodeListener(createDemoApi(db, { onError: () => {}, ...options }))));
    servers.push(demo);
    page.html = demoPage(demo.baseUrl);
  }, OPEN_TIMEOUT);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await db?.close();
  });

  it('lets its page send a bearer-token GET and a JSON POST and read ETag, Link and Location', { timeout: 90_000 }, async (ctx) => {
    ctx.skip(chromium === undefined, SKIPPED);
    const result = await readPage(pageUrl);
    expect(result).toMatchObject({
      get: { status: 200, etag: '"1"', body: { id: 1, name: 'Alice', email: 'alice@example.com' } },
      page: { status: 200, count: 1 },
      post: { status: 201, location: '/users/1/orders/4' },
    });
    expect((result as { page: { link: string } }).page.link).toMatch(/^<\/users\/1\/orders\?limit=1&cursor=[\w-]+>; rel="next"$/);
  });
});
