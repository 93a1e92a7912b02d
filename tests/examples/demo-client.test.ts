/**
 * `npm run demo:client` as a user runs it: examples/demo-client.mjs with node, against the demo it
 * serves itself, and against a demo already running (DEMO_URL). The example imports the built
 * package ('restcanon'): run `npm run build` first.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeListener } from '../../src/adapters/node.js';
import { createDemoApi } from '../../examples/demo-api.mjs';
import { OPEN_TIMEOUT, openDemoDatabase } from '../helpers/demo-database.js';

const run = promisify(execFile);
const script = join(import.meta.dirname, '..', '..', 'examples', 'demo-client.mjs');

describe('examples/demo-client.mjs', () => {
  let db: Awaited<ReturnType<typeof openDemoDatabase>>;
  beforeAll(async () => {
    db = await openDemoDatabase();
  }, OPEN_TIMEOUT);
  afterAll(() => db.close());

  // It opens a database of its own, PGlite in its process, first.
  it('calls every demo endpoint through the client and exits 0', { timeout: OPEN_TIMEOUT }, async () => {
    const { stdout } = await run(process.execPath, [script], { timeout: OPEN_TIMEOUT });
    expect(stdout).toContain('GET /health → 200 (ok)');
    expect(stdout).toContain('GET /users/:id (Alice, again: If-None-Match from the kept ETag) → 304 (ok)');
    expect(stdout).toContain('PATCH /users/:id (Alice, merge patch, If-Match from the kept ETag) → 200 (ok)');
    expect(stdout).toContain('DELETE /users/:id (admin) → 200 (ok)');
    expect(stdout).toMatch(/GET \/users\/:userId\/orders \(a page of one\) → \[.*"Eraser".*\], next/);
    expect(stdout).toContain('Every answer was the expected one.');
    expect(stdout).not.toContain('SURPRISE');
  });

  it('calls a demo that runs already, at DEMO_URL, and exits 1 on a surprise', async () => {
    // A demo whose users cannot be created: the client's POST /users gets a 403 instead of a 201.
    const server = createServer(toNodeListener(createDemoApi(db, { authorize: (ctx: { request: { method: string } }) => ctx.request.method !== 'POST', onError: () => {} })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const env = { ...process.env, DEMO_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
      const failure = await run(process.execPath, [script], { timeout: 15_000, env }).then(() => undefined, (error: { code?: number; stdout?: string }) => error);
      expect(failure?.code).toBe(1);
      expect(failure?.stdout).toContain('POST /users (admin) → 403 (SURPRISE, expected 201)');
    } finally {
      server.close();
    }
  });
});
