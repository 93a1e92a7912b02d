/**
 * The probe's HTML report in a real browser: headless Chromium loads it from a loopback server that
 * records every request, prints the page it rendered, and takes a screenshot, kept as a test artifact
 * outside the repository (RESTCANON_ARTIFACTS, or restcanon-artifacts in the temporary folder). The
 * page must render its findings, log no error, and ask for nothing but itself.
 *
 * Without Chromium on the PATH the tests are skipped, and say how to install it.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { createSloppyExpress } from './apps/sloppy-express.js';
import { runCli } from './run.js';

const run = promisify(execFile);

function findChromium(): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      try {
        accessSync(path.join(folder, name), constants.X_OK);
        return path.join(folder, name);
      } catch {
        // Not in this folder.
      }
    }
  }
  return undefined;
}

const chromium = findChromium();
const SKIPPED = 'browser test skipped: chromium is not installed; install it with `apt-get install -y chromium` (Debian) to run tests/cli/html-report.test.ts';
if (chromium === undefined) console.log(SKIPPED);

const ARTIFACTS = process.env.RESTCANON_ARTIFACTS ?? path.join(tmpdir(), 'restcanon-artifacts');
const scratch = mkdtempSync(path.join(tmpdir(), 'restcanon-html-'));

describe('the probe’s HTML report', () => {
  let api: MountedServer;
  let page: MountedServer;
  let html: string;
  const requested: string[] = [];

  beforeAll(async () => {
    api = await listen(http.createServer(createSloppyExpress()));
    const result = await runCli(['probe', api.baseUrl, '--rate', '1000', '--timeout', '3000', '--auth', 'Bearer alice-token', '--auth2', 'Bearer bob-token', '--output', 'report.html'], scratch);
    expect(result.code).toBe(1);
    html = readFileSync(path.join(scratch, 'report.html'), 'utf8');
    page = await listen(
      http.createServer((req, res) => {
        requested.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(html);
      }),
    );
  });
  afterAll(async () => {
    await Promise.all([api?.close(), page?.close()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('is one file that loads nothing: no script, no resource from anywhere, a policy that forbids it', () => {
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">/);
    expect(html).not.toMatch(/<script|<img|<iframe|<object|@import|url\(/i);
    expect([...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]).filter((target) => !target!.startsWith('#') && target !== 'data:,')).toEqual([]);
  });

  it('escapes what the server answered: its stack traces and HTML are text in the report', () => {
    expect(html).toContain('&#60;!DOCTYPE html&#62;');
    expect(html).not.toMatch(/<pre>[^<]*<!DOCTYPE/);
  });

  it('renders in headless Chromium without an error or a request for anything else', { timeout: 90_000 }, async (ctx) => {
    ctx.skip(chromium === undefined, SKIPPED);
    const profile = mkdtempSync(path.join(tmpdir(), 'restcanon-chromium-'));
    mkdirSync(ARTIFACTS, { recursive: true });
    const screenshot = path.join(ARTIFACTS, 'probe-report.png');
    const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', `--user-data-dir=${profile}`, '--enable-logging=stderr', '--v=0', '--window-size=1280,2000'];
    try {
      const dumped = await run(chromium!, [...flags, '--dump-dom', `${page.baseUrl}/report.html`], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
      expect(dumped.stdout).toContain('<h1>restcanon probe <code>');
      for (const rule of ['forbidden', 'no-leak', 'not-found', 'create-location']) expect(dumped.stdout).toContain(`<section class="rule" id="${rule}">`);
      expect(dumped.stderr).not.toMatch(/CONSOLE|Refused to|Uncaught/);
      rmSync(screenshot, { force: true });
      const shot = await run(chromium!, [...flags, `--screenshot=${screenshot}`, `${page.baseUrl}/report.html`], { timeout: 60_000 });
      expect(shot.stderr).not.toMatch(/CONSOLE|Refused to|Uncaught/);
      expect(statSync(screenshot).size).toBeGreaterThan(10_000);
      expect(requested).toEqual(['GET /report.html', 'GET /report.html']);
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
  });
});
