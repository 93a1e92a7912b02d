/**
 * The package as a user installs it: built into a temporary directory (never over `dist/`, which
 * other tests may be reading), packed with `npm pack`, installed from the tarball into an empty
 * project without the network, then imported from ESM and required from CommonJS, subpath by subpath,
 * and type-checked as a CommonJS and an ES module project that check libraries too.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entries } from '../tsup.config.js';
import { markTypeFestImports } from '../scripts/declarations.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const windows = process.platform === 'win32';

interface ConditionalExport {
  import: { types: string; default: string };
  require: { types: string; default: string };
}

const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, ConditionalExport | string> };
const subpaths = Object.keys(entries).map((entry) => (entry === 'index' ? manifest.name : `${manifest.name}/${entry}`));

/** Sorted export names of each adapter subpath: its public surface, changed on purpose only. */
const ADAPTER_EXPORTS: Record<string, string[]> = {
  'restcanon/node': ['fromNodeRequest', 'nodeHandler', 'readNodeBody', 'sendNodeResponse', 'toNodeListener'],
  'restcanon/express': ['expressHandler', 'toExpress'],
  'restcanon/fastify': ['fastifyHandler', 'frameworkErrorsOf', 'toFastify'],
  'restcanon/fetch': ['fromFetchRequest', 'toFetch', 'toFetchResponse'],
  'restcanon/koa': ['parserErrorsOf', 'toKoa'],
  'restcanon/hono': ['toHono'],
};

/** Sorted export names of the store subpaths: restcanon/redis loads without ioredis, which it never imports. */
const STORE_EXPORTS: Record<string, string[]> = {
  'restcanon/store': ['StoreUnavailableError', 'memoryStore', 'withTimeout'],
  'restcanon/redis': ['redisStore'],
};

/** Names that must exist wherever they are exported from. */
const REQUIRED_EXPORTS: Record<string, string[]> = {
  restcanon: ['createApi', 'endpoint', 'isHttpError', 'NotFoundError'],
  'restcanon/testing': ['createTestClient'],
  'restcanon/client': ['createClient', 'bodyOf', 'ClientError'],
  'restcanon/otel': ['tracing'],
  'restcanon/rate-limit': ['rateLimit', 'QUOTA_EXCEEDED'],
  'restcanon/deprecation': ['deprecation'],
  'restcanon/multipart': ['multipart'],
  'restcanon/idempotency': ['idempotency', 'IDEMPOTENCY_PROBLEMS'],
  'restcanon/client/tanstack': ['queryOptions', 'infiniteQueryOptions', 'mutationOptions'],
  'restcanon/client/events': ['readEvents'],
  ...ADAPTER_EXPORTS,
  ...STORE_EXPORTS,
};

describe('package.json exports', () => {
  it('has one conditional export per tsup entry, and nothing else', () => {
    const expected: Record<string, ConditionalExport | string> = { './package.json': './package.json' };
    for (const entry of Object.keys(entries)) {
      expected[entry === 'index' ? '.' : `./${entry}`] = {
        import: { types: `./dist/${entry}.d.ts`, default: `./dist/${entry}.js` },
        require: { types: `./dist/${entry}.d.cts`, default: `./dist/${entry}.cjs` },
      };
    }
    expect(manifest.exports).toEqual(expected);
  });
});

describe('the packed package, installed from its tarball', () => {
  let workspace: string;
  let consumer: string;

  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'restcanon-package-'));
    const packageDir = path.join(workspace, 'package');
    consumer = path.join(workspace, 'consumer');
    await mkdir(packageDir);
    await mkdir(path.join(consumer, 'node_modules'), { recursive: true });
    for (const file of ['package.json', 'LICENSE', 'README.md', 'bin']) {
      await cp(path.join(root, file), path.join(packageDir, file), { recursive: true }).catch(() => {});
    }
    const tsup = path.join(root, 'node_modules', 'tsup', 'dist', 'cli-default.js');
    await run(process.execPath, [tsup, '--out-dir', path.join(packageDir, 'dist')], { cwd: root });
    await markTypeFestImports(path.join(packageDir, 'dist'));
    // A cache of its own: nothing comes from the user's cache or the network. The one dependency
    // (type-fest, types only, and its own) is packed from this checkout's node_modules.
    const cache = path.join(workspace, 'npm-cache');
    const pack = (directory: string) => run('npm', ['pack', '--ignore-scripts', '--pack-destination', workspace, '--cache', cache], { cwd: directory, shell: windows });
    await pack(packageDir);
    for (const dependency of ['type-fest', 'tagged-tag', '@fastify/busboy']) await pack(path.join(root, 'node_modules', dependency));
    const tarballs = (await readdir(workspace)).filter((file) => file.endsWith('.tgz')).map((file) => path.join(workspace, file));
    await writeFile(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    await run('npm', ['install', ...tarballs, '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--cache', cache], { cwd: consumer, shell: windows });
    // The optional peer dependencies of restcanon/xml, restcanon/hono (which reads the route with
    // hono/route) and restcanon/otel, as a user of those subpaths installs them. Express, Fastify and
    // Koa are left out on purpose: their adapters must load without them.
    await mkdir(path.join(consumer, 'node_modules', '@opentelemetry'));
    for (const peer of ['fast-xml-parser', 'hono', '@opentelemetry/api']) await symlink(path.join(root, 'node_modules', peer), path.join(consumer, 'node_modules', peer), 'junction');
  }, 120_000);

  afterAll(async () => {
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
  });

  async function exportsOf(file: string, source: string): Promise<Record<string, string[]>> {
    await writeFile(path.join(consumer, file), source);
    const { stdout } = await run(process.execPath, [file], { cwd: consumer });
    return JSON.parse(stdout) as Record<string, string[]>;
  }

  /** A script that prints the sorted export names of every subpath, each loaded with `load`. */
  function namesScript(load: (specifier: string) => string): string {
    const lines = subpaths.map((subpath) => `names[${JSON.stringify(subpath)}] = Object.keys(${load(JSON.stringify(subpath))}).sort();`);
    return ['const names = {};', ...lines, 'console.log(JSON.stringify(names));'].join('\n');
  }

  it('every subpath imports from ESM, without express, fastify, koa or ioredis installed', async () => {
    const names = await exportsOf('names.mjs', namesScript((specifier) => `await import(${specifier})`));
    expect(Object.keys(names)).toEqual(subpaths);
    for (const [subpath, required] of Object.entries(REQUIRED_EXPORTS)) expect(names[subpath]).toEqual(expect.arrayContaining(required));
    for (const [subpath, exported] of Object.entries({ ...ADAPTER_EXPORTS, ...STORE_EXPORTS })) expect(names[subpath]).toEqual(exported);
  });

  it('every subpath requires from CommonJS with the same names', async () => {
    const esm = await exportsOf('names.mjs', namesScript((specifier) => `await import(${specifier})`));
    const cjs = await exportsOf('names.cjs', namesScript((specifier) => `require(${specifier})`));
    expect(cjs).toEqual(esm);
  });

  it('an error from the ESM build is an HttpError to the CommonJS build', async () => {
    const source = [
      "import { createRequire } from 'node:module';",
      "import { NotFoundError } from 'restcanon';",
      "const { isHttpError } = createRequire(import.meta.url)('restcanon');",
      'console.log(JSON.stringify({ branded: [isHttpError(new NotFoundError())] }));',
    ].join('\n');
    expect(await exportsOf('brand.mjs', source)).toEqual({ branded: [true] });
  });

  it('serves a request through the installed fetch adapter', async () => {
    const source = [
      "const { createApi, endpoint } = require('restcanon');",
      "const { toFetch } = require('restcanon/fetch');",
      "const api = createApi({ endpoints: [endpoint('GET', '/health', { handle: () => ({ status: 'ok' }) })] });",
      "toFetch(api)(new Request('http://example.test/health')).then(async (response) => {",
      '  console.log(JSON.stringify({ answer: [String(response.status), await response.text()] }));',
      '});',
    ].join('\n');
    expect(await exportsOf('serve.cjs', source)).toEqual({ answer: ['200', '{"status":"ok"}'] });
  });

  it('installs the restcanon command, which needs its optional peers only to read a document', async () => {
    const bin = path.join(consumer, 'node_modules', 'restcanon', 'bin', 'restcanon.mjs');
    const manifestVersion = (JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
    expect((await run(process.execPath, [bin, '--version'], { cwd: consumer })).stdout).toBe(`${manifestVersion}\n`);
    await writeFile(path.join(consumer, 'openapi.json'), JSON.stringify({ openapi: '3.1.0', paths: {} }));
    const lint = await run(process.execPath, [bin, 'lint', 'openapi.json'], { cwd: consumer }).catch((error: { code: number; stderr: string }) => error);
    expect(lint).toMatchObject({ code: 2, stderr: expect.stringContaining('Install it beside restcanon (npm install --save-dev yaml @apidevtools/json-schema-ref-parser)') });
  });

  it('the adapters’ and the Redis store’s type declarations import nothing from express, fastify, koa, hono or ioredis', async () => {
    const dist = path.join(consumer, 'node_modules', 'restcanon', 'dist');
    for (const adapter of ['express', 'fastify', 'koa', 'hono', 'redis']) {
      for (const extension of ['d.ts', 'd.cts']) {
        // Without comments: an @example may show the import a user writes.
        const declarations = (await readFile(path.join(dist, `${adapter}.${extension}`), 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '');
        expect(declarations).not.toMatch(/from ['"](express|fastify|koa|hono|ioredis)(\/[^'"]*)?['"]/);
      }
    }
  });

  /**
   * A project that type-checks restcanon's declarations with its own (`skipLibCheck: false`), as
   * `node16` resolves them for its kind of module: `.d.cts` for CommonJS, `.d.ts` for ESM, and
   * writes declarations of its own, which must name every type its exported API and client hold.
   */
  async function typeCheck(kind: 'commonjs' | 'module'): Promise<string> {
    const project = path.join(consumer, `types-${kind}`);
    await mkdir(project, { recursive: true });
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: `types-${kind}`, private: true, type: kind }));
    const compilerOptions = { module: 'node16', moduleResolution: 'node16', target: 'es2022', strict: true, skipLibCheck: false, declaration: true, emitDeclarationOnly: true, outDir: 'types', types: ['node'], typeRoots: [path.join(root, 'node_modules', '@types')] };
    await writeFile(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['api.ts'] }));
    await writeFile(path.join(project, 'api.ts'), TYPED_CONSUMER);
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    try {
      await run(process.execPath, [tsc, '-p', project], { cwd: project });
      return '';
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  }

  it('type-checks in a CommonJS project under node16 with skipLibCheck: false', async () => {
    expect(await typeCheck('commonjs')).toBe('');
  }, 60_000);

  it('type-checks in an ES module project under node16 with skipLibCheck: false', async () => {
    expect(await typeCheck('module')).toBe('');
  }, 60_000);
});

/** Uses the types that come from type-fest (`Simplify` in params, `Promisable` in handlers and rules), each subpath, and one mistake. */
const TYPED_CONSUMER = `
import { collection, createApi, endpoint, type Context } from 'restcanon';
import { toNodeListener } from 'restcanon/node';
import { toExpress } from 'restcanon/express';
import { toFastify } from 'restcanon/fastify';
import { toFetch } from 'restcanon/fetch';
import { parserErrorsOf, toKoa } from 'restcanon/koa';
import { toHono } from 'restcanon/hono';
import { createTestClient } from 'restcanon/testing';
import { createOpenApiDocument } from 'restcanon/openapi';
import { createClient } from 'restcanon/client';
import { tracing } from 'restcanon/otel';
import { memoryStore, StoreUnavailableError, withTimeout, type Store } from 'restcanon/store';
import { redisStore, type RedisClient } from 'restcanon/redis';

const notes = collection('notes', {
  read: async (ctx) => ({ id: ctx.params.id, text: 'hi' }),
  authorize: async () => true,
});
const health = endpoint('GET', '/users/:userId/health', { handle: (ctx) => ({ user: ctx.params.userId }) });
export const api = createApi({ resources: [notes], endpoints: [health], authenticate: async () => null, use: [tracing({ mountPath: '/v1' })] });
const userId: string = (null as unknown as Context<{ userId: string }>).params.userId;
// @ts-expect-error: a handler's params hold only the path's names
endpoint('GET', '/users/:userId', { handle: (ctx) => ctx.params.id });
export const listener = toNodeListener(api);
export const mounts = [toExpress(api), toFastify(api), toFetch(api), toKoa(api), toHono(api), parserErrorsOf(api, { prefix: '/v1' })];
export const client = createTestClient(api);
export const document = createOpenApiDocument(api, { info: { title: 'notes', version: '1.0.0' } });
export const typed = createClient<typeof api>({ api });
export const note = typed.get('/notes/:id', { params: { id: 1 } }).then((answer) => (answer.ok ? answer.body : answer.problem.code));
// @ts-expect-error: the API has no such path
typed.get('/nothing');
export const store: Store = memoryStore({ maxEntries: 100, now: Date.now });
export const shared: Store = redisStore({ client: null as unknown as RedisClient, prefix: 'orders:' });
export const held = withTimeout(store.setIfAbsent('idem:k1', 'running', 60_000), 100).catch((error: unknown) => error instanceof StoreUnavailableError);
// @ts-expect-error: a hit's window is a number of milliseconds
store.hit('rate', '1m');
export { userId };
`;
