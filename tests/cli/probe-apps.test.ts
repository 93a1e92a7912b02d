/**
 * restcanon probe against real servers on loopback: a sloppy Express app and a Fastify app with its
 * default error handling (each planted violation found, nothing reported on the parts that follow the
 * conventions), the demo API that `npm start` serves, and the Conduit example (only what it breaks on
 * purpose, which its config turns off). Requests are paced fast and bounded, for the tests' sake.
 */
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toNodeListener } from '../../src/adapters/node.js';
import { createDemoApi } from '../../examples/demo-api.mjs';
import { OPEN_TIMEOUT, openDemoDatabase } from '../helpers/demo-database.js';
import { createConduitApi, openConduitDatabase } from '../../examples/conduit/api.mjs';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { createFastifyDefault } from './apps/fastify-default.js';
import { createSloppyExpress } from './apps/sloppy-express.js';
import { foundIn, runCli } from './run.js';

const FAST = ['--rate', '1000', '--timeout', '3000', '--max-requests', '120', '--format', 'json'];

interface JsonReport {
  findings: { rule: string; severity: string; message: string; request?: { method: string; url: string }; answer?: { status: number; excerpt?: string } }[];
  rules: { rule: string; checked: number; failed: number; notRun: string[] }[];
  notes: string[];
}

async function probe(baseUrl: string, ...args: string[]): Promise<{ code: number; report: JsonReport; stderr: string }> {
  const result = await runCli(['probe', baseUrl, ...FAST, ...args]);
  if (result.stdout === '') throw new Error(`no report: ${result.stderr}`);
  return { code: result.code, report: JSON.parse(result.stdout) as JsonReport, stderr: result.stderr };
}

function passed(report: JsonReport): string[] {
  return report.rules.filter((rule) => rule.checked > 0 && rule.failed === 0).map((rule) => rule.rule).sort();
}

describe('restcanon probe: a sloppy Express app', () => {
  let server: MountedServer;
  let report: JsonReport;
  let code: number;
  beforeAll(async () => {
    server = await listen(http.createServer(createSloppyExpress()));
    ({ report, code } = await probe(server.baseUrl, '--auth', 'Bearer alice-token', '--auth2', 'Bearer bob-token'));
  });
  afterAll(() => server.close());

  it('finds every planted violation', () => {
    expect(foundIn(report, server.baseUrl)).toMatchInlineSnapshot(`
      [
        "create-location POST /orders",
        "forbidden GET /orders/1",
        "method-not-allowed PATCH /data1",
        "method-not-allowed PATCH /getUsers",
        "method-not-allowed PATCH /health",
        "method-not-allowed PATCH /orders",
        "method-not-allowed PUT /orders/1",
        "no-leak PATCH /orders/1",
        "not-found GET /orders/999999999",
        "problem-body GET /",
        "problem-body GET /orders",
        "problem-body PATCH /orders/1",
        "server-error PATCH /orders/1",
        "success-not-error GET /orders/999999999",
        "unauthorized GET /data1",
        "unauthorized GET /getUsers",
        "unauthorized GET /orders",
        "unauthorized GET /orders/1",
        "unsupported-media-type PATCH /orders/1",
      ]
    `);
    expect(code).toBe(1);
    const message = (rule: string) => report.findings.filter((finding) => finding.rule === rule).map((finding) => finding.message).join('\n');
    expect(message('no-leak')).toMatch(/a stack trace/);
    expect(message('no-leak')).toMatch(/a file path of the server/);
    expect(message('unauthorized')).toMatch(/without credentials answered 403/);
    expect(message('not-found')).toMatch(/answered 200 \(body: \{"error":"Order not found"\}\)/);
    expect(message('forbidden')).toMatch(/The second user read the first user's item/);
    expect(message('create-location')).toMatch(/answered 200 without Location/);
  });

  it('reports nothing on the parts that follow the conventions', () => {
    expect(passed(report)).toMatchInlineSnapshot(`
      [
        "bad-request",
        "conditional-get",
        "head-options",
        "payload-too-large",
      ]
    `);
  });
});

describe('restcanon probe: a Fastify app with the default error handling', () => {
  let server: MountedServer;
  let report: JsonReport;
  beforeAll(async () => {
    const app = createFastifyDefault();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address() as { port: number };
    server = { baseUrl: `http://127.0.0.1:${address.port}`, close: () => app.close() };
    ({ report } = await probe(server.baseUrl, '--auth', 'Bearer alice-token', '--auth2', 'Bearer bob-token'));
  });
  afterAll(() => server.close());

  it('finds every planted violation', () => {
    const leaks = report.findings.filter((finding) => finding.rule === 'no-leak').map((finding) => finding.message);
    expect(leaks).toEqual([expect.stringContaining('credentials in a connection string')]);
    expect(report.findings.find((finding) => finding.rule === 'unauthorized')?.message).toMatch(/answered 401 without WWW-Authenticate/);
    expect(foundIn(report, server.baseUrl)).toMatchInlineSnapshot(`
      [
        "head-options OPTIONS /items",
        "head-options OPTIONS /items/1",
        "method-not-allowed PATCH /items",
        "method-not-allowed PATCH /items/1",
        "no-leak GET /items/restcanon-probe-unknown",
        "not-found GET /items/3",
        "not-found GET /items/restcanon-probe-unknown",
        "problem-body GET /",
        "problem-body GET /items/restcanon-probe-unknown",
        "problem-body GET /restcanon-probe-<random>",
        "problem-body POST /items",
        "server-error GET /items/3",
        "server-error GET /items/restcanon-probe-unknown",
        "unauthorized GET /items",
        "unauthorized GET /items/1",
        "unsupported-media-type POST /items",
      ]
    `);
  });

  it('reports nothing on the parts that follow the conventions', () => {
    expect(passed(report)).toMatchInlineSnapshot(`
      [
        "bad-request",
        "create-location",
        "forbidden",
        "payload-too-large",
        "success-not-error",
      ]
    `);
  });
});

describe('restcanon probe: the demo API (npm start)', () => {
  let server: MountedServer;
  let db: Awaited<ReturnType<typeof openDemoDatabase>>;
  beforeAll(async () => {
    db = await openDemoDatabase();
    server = await listen(http.createServer(toNodeListener(createDemoApi(db, { onError: () => {} }))));
  }, OPEN_TIMEOUT);
  afterAll(async () => {
    await server.close();
    await db.close();
  });

  it('finds nothing, with two users, and runs every check', async () => {
    const { code, report } = await probe(server.baseUrl, '--auth', 'Bearer alice-token', '--auth2', 'Bearer bob-token');
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
    expect(report.rules.filter((rule) => rule.checked === 0).map((rule) => rule.rule)).toEqual([]);
    expect(report.notes).toContain(`Document: ${server.baseUrl}/openapi.json (33 operations).`);
  });

  it('finds nothing without credentials, and says which checks need them', async () => {
    const { code, report } = await probe(server.baseUrl);
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
    expect(report.rules.find((rule) => rule.rule === 'forbidden')?.notRun).toEqual(['needs two users: --auth for the first, --auth2 for the second']);
  });
});

describe('restcanon probe: the Conduit example', () => {
  let server: MountedServer;
  let db: Awaited<ReturnType<typeof openConduitDatabase>>;
  const tokens: string[] = [];
  beforeAll(async () => {
    db = await openConduitDatabase();
    const api = createConduitApi(db, { onError: () => {} });
    for (const name of ['ada', 'grace']) {
      const json = { 'content-type': 'application/json' };
      const registered = await api.handle({ method: 'POST', url: '/api/users', headers: json, body: JSON.stringify({ user: { username: name, email: `${name}@example.com`, password: 'conduit-password' } }) });
      const token = (registered.body as { user: { token: string } }).user.token;
      tokens.push(`Token ${token}`);
      await api.handle({ method: 'POST', url: '/api/articles', headers: { ...json, authorization: `Token ${token}` }, body: JSON.stringify({ article: { title: `${name} writes`, description: 'a post', body: 'text' } }) });
    }
    server = await listen(http.createServer(toNodeListener(api)));
  }, OPEN_TIMEOUT);
  afterAll(async () => {
    await server.close();
    await db.close();
  });

  it('finds only what Conduit breaks on purpose: 422 for invalid input and its own error body', async () => {
    const { report } = await probe(`${server.baseUrl}/api`, '--auth', tokens[0]!, '--auth2', tokens[1]!);
    expect([...new Set(report.findings.map((finding) => finding.rule))].sort()).toEqual(['bad-request', 'problem-body']);
    expect(report.findings.find((finding) => finding.rule === 'bad-request')?.answer?.status).toBe(422);
  });

  it('finds the slug of an article listed at /articles for /articles/{id} and /articles/{slug}/comments/{id}, so every item path is checked', async () => {
    const { report } = await probe(`${server.baseUrl}/api`, '--auth', tokens[0]!);
    expect(report.rules.find((rule) => rule.rule === 'not-found')).toMatchObject({ notRun: [], failed: 0 });
    expect(report.rules.find((rule) => rule.rule === 'not-found')!.checked).toBeGreaterThanOrEqual(4);
  });

  it('finds nothing under the config in examples/conduit, which turns those rules off', async () => {
    const result = await runCli(['probe', `${server.baseUrl}/api`, ...FAST, '--auth', tokens[0]!, '--auth2', tokens[1]!], path.join(import.meta.dirname, '..', '..', 'examples', 'conduit'));
    expect(JSON.parse(result.stdout).findings).toEqual([]);
    expect(result.code).toBe(0);
  });
});
