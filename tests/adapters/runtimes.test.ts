/**
 * restcanon/fetch on the runtimes docs/adapters.md names, each the real one from devDependencies:
 * Bun (`Bun.serve`), Deno (`Deno.serve`) and a Next.js app's catch-all route handler (`next build`,
 * then `next start`). The package is built into a temporary directory, installed there as
 * node_modules/restcanon, and each runtime serves the same API on a loopback port; the test asks it
 * over HTTP. Nothing is skipped: a runtime that does not start fails its tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Options } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import tsupConfig, { entries } from '../../tsup.config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

/** The API every runtime serves, below `basePath`. */
const API_MODULE = `
import { createApi, endpoint, NotFoundError } from 'restcanon';

export function notesApi(basePath) {
  const notes = new Map([['1', { id: '1', text: 'hello' }]]);
  return createApi({
    basePath,
    endpoints: [
      endpoint('GET', '/notes/:id', {
        handle: (ctx) => {
          const note = notes.get(ctx.params.id);
          if (note === undefined) throw new NotFoundError(\`No note \${ctx.params.id}\`);
          return note;
        },
      }),
      endpoint('POST', '/notes', {
        operation: 'create',
        body: 'unvalidated',
        handle: (ctx) => {
          const note = { id: String(notes.size + 1), text: ctx.body.text };
          notes.set(note.id, note);
          return note;
        },
      }),
      endpoint('GET', '/whoami', { handle: (ctx) => ({ ip: ctx.ip ?? null }) }),
    ],
  });
}
`;

const BUN_SERVER = `
import { toFetch } from 'restcanon/fetch';
import { notesApi } from '../api.mjs';

const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: toFetch(notesApi('/api')) });
console.log(\`listening on \${server.port}\`);
`;

const DENO_SERVER = `
import { toFetch } from 'restcanon/fetch';
import { notesApi } from '../api.mjs';

Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(\`listening on \${port}\`) }, toFetch(notesApi('/api')));
`;

const NEXT_ROUTE = `
import { toFetch } from 'restcanon/fetch';
import { notesApi } from '../../../api.mjs';

const handler = toFetch(notesApi('/api'));
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as HEAD, handler as OPTIONS };
`;

let workspace: string;
const started: ChildProcess[] = [];

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'restcanon-runtimes-'));
  const packageDir = path.join(workspace, 'node_modules', 'restcanon');
  await mkdir(packageDir, { recursive: true });
  await cp(path.join(root, 'package.json'), path.join(packageDir, 'package.json'));
  // The package's own build (tsup.config.ts), its ES modules only: the two entries the servers import.
  const [library] = tsupConfig as Options[];
  await build({ ...library, entry: { index: entries.index, fetch: entries.fetch }, format: ['esm'], dts: false, clean: false, outDir: path.join(packageDir, 'dist'), config: false, silent: true });
  for (const dependency of ['next', 'react', 'react-dom']) await symlink(path.join(root, 'node_modules', dependency), path.join(workspace, 'node_modules', dependency), 'junction');
  await writeFile(path.join(workspace, 'package.json'), JSON.stringify({ name: 'runtimes', version: '1.0.0', private: true, type: 'module' }));
  await writeFile(path.join(workspace, 'api.mjs'), API_MODULE);
}, 60_000);

afterAll(async () => {
  for (const child of started) stop(child);
  if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
});

/** Stops a server this file started, with the processes it started (its own process group). */
function stop(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Starts `command` in its own process group and resolves once `ready` matches its output, with the match. */
function startServer(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; ready: RegExp; timeout: number }): Promise<RegExpExecArray> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (reason: string) => {
      clearTimeout(timer);
      stop(child);
      reject(new Error(`${path.basename(command)} ${args.join(' ')}: ${reason}\n${output}`));
    };
    const timer = setTimeout(() => fail(`not ready within ${options.timeout} ms`), options.timeout);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = options.ready.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('error', (error) => fail(error.message));
    child.once('exit', (code, signal) => fail(`exited with ${code ?? signal} before it listened`));
  });
}

/** Runs `command` to its end, and fails with its output if it does not succeed. */
function runToEnd(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeout: number }): Promise<void> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop(child);
      reject(new Error(`${path.basename(command)} ${args.join(' ')}: not done within ${options.timeout} ms\n${output}`));
    }, options.timeout);
    child.once('error', (error) => reject(error));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(command)} ${args.join(' ')}: exited with ${code ?? signal}\n${output}`));
    });
  });
}

/** A loopback port free now, for a server that cannot be given port 0 (next start). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function commonAncestor(one: string, other: string): string {
  const a = one.split(path.sep);
  const b = other.split(path.sep);
  let shared = 0;
  while (shared < a.length && a[shared] === b[shared]) shared++;
  return a.slice(0, shared).join(path.sep) || path.sep;
}

/** The same exchanges on every runtime, over HTTP, below `/api`. */
function servesTheApi(name: string, base: () => string, ip: string | null): void {
  it(`${name}: GET answers 200 with the note as JSON`, async () => {
    const response = await fetch(`${base()}/api/notes/1`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ id: '1', text: 'hello' });
  });

  it(`${name}: a missing note is a 404 problem`, async () => {
    const response = await fetch(`${base()}/api/notes/9`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await response.json()).toMatchObject({ status: 404, detail: 'No note 9' });
  });

  it(`${name}: POST with JSON answers 201 with a Location that reads back`, async () => {
    const response = await fetch(`${base()}/api/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"new"}' });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ id: '2', text: 'new' });
    const location = response.headers.get('location');
    expect(location).toBe('/api/notes/2');
    expect(await (await fetch(`${base()}${location}`)).json()).toEqual({ id: '2', text: 'new' });
  });

  it(`${name}: a method the path does not take is a 405 with Allow`, async () => {
    const response = await fetch(`${base()}/api/notes/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  });

  it(`${name}: ctx.ip is ${ip === null ? 'undefined, the host gives no address' : 'the client’s address'}`, async () => {
    expect(await (await fetch(`${base()}/api/whoami`)).json()).toEqual({ ip });
  });
}

describe('Bun', () => {
  let port = 0;
  beforeAll(async () => {
    const directory = path.join(workspace, 'bun');
    await mkdir(directory);
    await writeFile(path.join(directory, 'server.mjs'), BUN_SERVER);
    const env = { PATH: process.env.PATH, HOME: workspace, BUN_INSTALL_CACHE_DIR: path.join(workspace, 'bun-cache'), DO_NOT_TRACK: '1' };
    port = Number((await startServer(bin('bun'), ['--no-install', 'server.mjs'], { cwd: directory, env, ready: /listening on (\d+)/, timeout: 20_000 }))[1]);
  }, 30_000);

  servesTheApi('Bun.serve', () => `http://127.0.0.1:${port}`, '127.0.0.1');
});

describe('Deno', () => {
  let port = 0;
  beforeAll(async () => {
    const directory = path.join(workspace, 'deno');
    await mkdir(directory);
    await writeFile(path.join(directory, 'server.mjs'), DENO_SERVER);
    // A cache of its own, no update check, no remote module: Deno reads node_modules and nothing else.
    const env = { PATH: process.env.PATH, HOME: workspace, DENO_DIR: path.join(workspace, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', NO_COLOR: '1' };
    const args = ['run', '--no-remote', '--node-modules-dir=manual', '--no-lock', '--allow-net=127.0.0.1', `--allow-read=${workspace}`, '--allow-env', 'server.mjs'];
    port = Number((await startServer(bin('deno'), args, { cwd: directory, env, ready: /listening on (\d+)/, timeout: 20_000 }))[1]);
  }, 30_000);

  servesTheApi('Deno.serve', () => `http://127.0.0.1:${port}`, '127.0.0.1');
});

describe('Next.js', () => {
  let port = 0;
  beforeAll(async () => {
    const route = path.join(workspace, 'app', 'api', '[...path]');
    await mkdir(route, { recursive: true });
    await writeFile(path.join(route, 'route.js'), NEXT_ROUTE);
    await writeFile(path.join(workspace, 'app', 'layout.js'), 'export default function Layout({ children }) { return children; }\n');
    // next, react and react-dom are links to this checkout's: Turbopack compiles and resolves only
    // below its root, which must hold both the app and what the links point to.
    const shared = commonAncestor(await realpath(workspace), await realpath(root));
    await writeFile(path.join(workspace, 'next.config.mjs'), `export default { turbopack: { root: ${JSON.stringify(shared)} }, outputFileTracingRoot: ${JSON.stringify(shared)} };\n`);
    const env = { PATH: process.env.PATH, HOME: workspace, NEXT_TELEMETRY_DISABLED: '1', NEXT_IGNORE_INCORRECT_LOCKFILE: '1', NODE_ENV: 'production' };
    await runToEnd(process.execPath, [bin('next'), 'build'], { cwd: workspace, env, timeout: 240_000 });
    port = await freePort();
    await startServer(process.execPath, [bin('next'), 'start', '-H', '127.0.0.1', '-p', String(port)], { cwd: workspace, env, ready: /Ready in/, timeout: 30_000 });
  }, 300_000);

  servesTheApi('a Next.js route handler', () => `http://127.0.0.1:${port}`, null);
});
