/**
 * restcanon lint over documents: hand-written ones with planted violations (found, each at its line),
 * the documents restcanon generates for the demo API and the Conduit example, the RealWorld document
 * when REALWORLD_OPENAPI names a copy of it, and every kind of input it must refuse with a sentence and exit code 2.
 */
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createDemoApi } from '../../examples/demo-api.mjs';
import { downDatabase } from '../helpers/demo-database.js';
import { createConduitApi } from '../../examples/conduit/api.mjs';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { FASTIFY_DOCUMENT } from './apps/fastify-default.js';
import { SLOPPY_DOCUMENT } from './apps/sloppy-express.js';
import { foundIn, runCli } from './run.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'restcanon-lint-'));
/** The RealWorld API's openapi.yml, which the repository does not hold: a path given by the environment. */
const REALWORLD = process.env.REALWORLD_OPENAPI ?? '';
const CONDUIT_FOLDER = path.join(import.meta.dirname, '..', '..', 'examples', 'conduit');

interface JsonReport {
  findings: { rule: string; severity: string; message: string; pointer?: string; line?: number; column?: number }[];
  rules: { rule: string; checked: number; failed: number }[];
  summary: { error: number; warn: number; info: number };
}

function write(name: string, text: string): string {
  const file = path.join(scratch, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

async function lint(file: string, ...args: string[]): Promise<{ code: number; report: JsonReport }> {
  const result = await runCli(['lint', file, '--format', 'json', ...args], scratch);
  if (result.stdout === '') throw new Error(`no report: ${result.stderr}`);
  return { code: result.code, report: JSON.parse(result.stdout) as JsonReport };
}

async function generated(api: { handle(request: { method: string; url: string }): Promise<{ status: number; body: unknown }> }, url: string, name: string): Promise<string> {
  const response = await api.handle({ method: 'GET', url });
  expect(response.status).toBe(200);
  return write(name, JSON.stringify(response.body, null, 2));
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('restcanon lint: planted violations', () => {
  it('finds each violation of the sloppy Express app’s document, at its line in the YAML', async () => {
    const file = write('sloppy.yaml', stringify(SLOPPY_DOCUMENT));
    const { code, report } = await lint(file);
    expect(foundIn(report)).toMatchInlineSnapshot(`
      [
        "bad-request /paths/~1orders/post/responses",
        "bad-request /paths/~1orders~1{id}/delete/responses",
        "bad-request /paths/~1orders~1{id}/get/responses",
        "bad-request /paths/~1orders~1{id}/patch/responses",
        "create-location /paths/~1orders/post/responses",
        "forbidden /paths/~1orders~1{id}/delete/responses",
        "forbidden /paths/~1orders~1{id}/get/responses",
        "forbidden /paths/~1orders~1{id}/patch/responses",
        "naming-vague /paths/~1data1",
        "naming-verb /paths/~1getUsers",
        "not-found /paths/~1orders~1{id}/delete/responses",
        "not-found /paths/~1orders~1{id}/get/responses",
        "not-found /paths/~1orders~1{id}/patch/responses",
        "server-error /paths/~1data1/get/responses",
        "server-error /paths/~1getUsers/get/responses",
        "server-error /paths/~1health/get/responses",
        "server-error /paths/~1orders/get/responses",
        "server-error /paths/~1orders/post/responses",
        "server-error /paths/~1orders~1{id}/delete/responses",
        "server-error /paths/~1orders~1{id}/get/responses",
        "server-error /paths/~1orders~1{id}/patch/responses",
        "success-not-error /paths/~1orders~1{id}/get/responses/200",
        "unauthorized /paths/~1data1/get/responses",
        "unauthorized /paths/~1getUsers/get/responses",
        "unauthorized /paths/~1orders/get/responses",
        "unauthorized /paths/~1orders/post/responses",
        "unauthorized /paths/~1orders~1{id}/delete/responses",
        "unauthorized /paths/~1orders~1{id}/get/responses",
        "unauthorized /paths/~1orders~1{id}/patch/responses",
      ]
    `);
    expect(code).toBe(1);
    const verb = report.findings.find((finding) => finding.rule === 'naming-verb')!;
    expect(verb.message).toBe('"getUsers" in /getUsers names an action; paths name resources. Suggestion: GET /users');
    expect(readFileSync(file, 'utf8').split('\n')[verb.line! - 1]).toMatch(/^\s*\/getUsers:/);
  });

  it('finds nothing in the Fastify app’s document, which follows the conventions (its server does not)', async () => {
    const { code, report } = await lint(write('fastify.json', JSON.stringify(FASTIFY_DOCUMENT, null, 2)));
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
  });
});

describe('restcanon lint: the documents restcanon generates', () => {
  it('finds nothing in the demo API’s document', async () => {
    const file = await generated(createDemoApi(downDatabase(), { onError: () => {} }), '/openapi.json', 'demo.json');
    const { code, report } = await lint(file);
    expect(report.findings).toEqual([]);
    expect(code).toBe(0);
    expect(report.rules.every((rule) => rule.checked > 0)).toBe(true);
  });

  it('finds in the Conduit example only what it breaks on purpose, and nothing under its config', async () => {
    const file = await generated(createConduitApi(downDatabase(), { onError: () => {} }), '/api/openapi.json', 'conduit.json');
    const { report } = await lint(file);
    expect([...new Set(report.findings.map((finding) => finding.rule))].sort()).toEqual(['bad-request', 'method-shape', 'problem-body']);
    const configured = await runCli(['lint', file, '--format', 'json'], CONDUIT_FOLDER);
    expect(JSON.parse(configured.stdout).findings).toEqual([]);
    expect(configured.code).toBe(0);
  });
});

describe.skipIf(REALWORLD === '' || !existsFile(REALWORLD))('restcanon lint: the RealWorld (Conduit) specification', () => {
  it('reports where it departs from the conventions', async () => {
    const { code, report } = await lint(REALWORLD);
    const counts = Object.fromEntries(report.rules.map((rule) => [rule.rule, rule.failed]));
    expect(counts).toMatchInlineSnapshot(`
      {
        "bad-request": 17,
        "create-location": 3,
        "forbidden": 3,
        "method-not-allowed": 0,
        "method-shape": 3,
        "naming-vague": 0,
        "naming-verb": 0,
        "not-found": 11,
        "path-shape": 0,
        "problem-body": 35,
        "server-error": 19,
        "success-not-error": 0,
        "success-status": 0,
        "unauthorized": 16,
      }
    `);
    expect(report.summary).toMatchInlineSnapshot(`
      {
        "error": 0,
        "info": 19,
        "warn": 88,
      }
    `);
    expect(code).toBe(0);
  });
});

function existsFile(file: string): boolean {
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
}
