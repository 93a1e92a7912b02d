/**
 * The OpenAPI documents of the demo API and of the Conduit example through the linters people run
 * on theirs: Redocly CLI with its `recommended` rules and Spectral with `spectral:oas`. Both run from
 * node_modules, offline, on the document each API serves (GET /openapi.json, GET /api/openapi.json).
 * The examples come from the built package (they import 'restcanon'): run `npm run build` first.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApi } from '../../examples/demo-api.mjs';
import { downDatabase } from '../helpers/demo-database.js';
import { createConduitApi } from '../../examples/conduit/api.mjs';
import { z } from 'zod';
import { createApi, endpoint, type Api } from '../../src/index.js';
import { openApi } from '../../src/openapi/index.js';
import { multipart } from '../../src/multipart.js';

const run = promisify(execFile);
const modules = join(import.meta.dirname, '..', '..', 'node_modules');
const scratch = mkdtempSync(join(tmpdir(), 'restcanon-lint-'));
/** Each API whose document is linted: the file it is written to, and where the API serves it. */
const DOCUMENTS = [
  { name: 'the demo API', file: join(scratch, 'demo.json'), api: () => createDemoApi(downDatabase(), { onError: () => {} }), url: '/openapi.json' },
  { name: 'the Conduit example', file: join(scratch, 'conduit.json'), api: () => createConduitApi(downDatabase(), { onError: () => {} }), url: '/api/openapi.json' },
  { name: 'an API of downloads (produces)', file: join(scratch, 'downloads.json'), api: downloadsApi, url: '/openapi.json' },
  { name: 'an API of uploads (multipart fileFields)', file: join(scratch, 'uploads.json'), api: uploadsApi, url: '/openapi.json' },
];

/** Multipart uploads whose file fields are declared: the body schema with the files, and their types in `encoding`. */
function uploadsApi(): Api {
  return createApi({
    naming: 'off',
    authenticate: () => ({ id: 'u1' }),
    use: [multipart()],
    openapi: openApi({ info: { title: 'uploads', version: '1.0.0' }, servers: [{ url: 'https://api.example.com' }] }),
    endpoints: [
      endpoint('POST', '/reports', {
        summary: 'A report with its cover and scans',
        consumes: ['multipart/form-data', 'application/json'],
        body: z.strictObject({ title: z.string() }),
        conventions: { multipart: { fileFields: { cover: 'image/png', scans: { type: ['application/pdf', 'image/*'], max: 3 } } } },
        handle: () => ({}),
      }),
      endpoint('POST', '/notes', { summary: 'Notes as files', consumes: ['multipart/form-data'], body: 'unvalidated', conventions: { multipart: { fileFields: { note: 'text/*' } } }, handle: () => ({}) }),
    ],
  });
}

/** Endpoints that answer bytes, text and streams under their `produces`, and one that also answers JSON. */
function downloadsApi(): Api {
  return createApi({
    naming: 'off',
    // An API that authenticates: its operations carry security, as the recommended rules ask.
    authenticate: () => ({ id: 'u1' }),
    openapi: openApi({ info: { title: 'downloads', version: '1.0.0' }, servers: [{ url: 'https://api.example.com' }] }),
    endpoints: [
      endpoint('GET', '/logos/:name', { summary: 'A logo', produces: ['image/png', 'image/webp'], handle: () => new Uint8Array(0) }),
      endpoint('GET', '/prices', { summary: 'Prices as they change', produces: ['text/event-stream'], handle: () => (async function* () {})() }),
      endpoint('GET', '/reports/:id', { summary: 'A report', produces: ['application/json', 'text/csv'], response: z.object({ rows: z.array(z.string()) }), handle: () => ({ rows: [] }) }),
    ],
  });
}
// No telemetry and no update check: the linters read nothing but the files given.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/** A linter's standard output: a linter that found errors exits with 1, and its report is still the answer. */
async function lint(bin: string, args: readonly string[]): Promise<string> {
  try {
    return (await run(process.execPath, [join(modules, bin), ...args], { cwd: scratch, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    if (stdout) return stdout;
    throw new Error(`${bin} failed: ${stderr}`, { cause: error });
  }
}

beforeAll(async () => {
  for (const { file, api, url } of DOCUMENTS) {
    const response = await api().handle({ method: 'GET', url });
    expect(response.status).toBe(200);
    writeFileSync(file, JSON.stringify(response.body, null, 2));
  }
  writeFileSync(join(scratch, 'spectral.yaml'), 'extends: ["spectral:oas"]\n');
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.each(DOCUMENTS)('the OpenAPI document of $name passes the linters', ({ file: documentFile }) => {
  it('redocly lint --extends recommended: no errors', async () => {
    const output = await lint('@redocly/cli/bin/cli.js', ['lint', '--extends', 'recommended', '--format', 'json', documentFile]);
    const report = JSON.parse(output) as { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };
    const errors = report.problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(errors, errors.join('\n')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });

  it('spectral lint with spectral:oas: no errors, and every tag an operation uses is defined', async () => {
    const output = await lint('@stoplight/spectral-cli/dist/index.js', ['lint', '--ruleset', 'spectral.yaml', '--format', 'json', '--quiet', documentFile]);
    const results = JSON.parse(output) as { code: string; severity: number; message: string; path: string[] }[];
    // Severity 0 is an error.
    const found = results.filter((result) => result.severity === 0 || result.code === 'operation-tag-defined').map((result) => `${result.code} at ${result.path.join('.')}: ${result.message}`);
    expect(found, found.join('\n')).toEqual([]);
  });
});
