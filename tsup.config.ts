import { defineConfig } from 'tsup';

/** Every public subpath is one entry; `splitting` keeps one shared copy of the core between them. */
export const entries = {
  index: 'src/index.ts',
  engine: 'src/engine.ts',
  testing: 'src/testing.ts',
  node: 'src/adapters/node.ts',
  express: 'src/adapters/express.ts',
  fastify: 'src/adapters/fastify.ts',
  fetch: 'src/adapters/fetch.ts',
  koa: 'src/adapters/koa.ts',
  hono: 'src/adapters/hono.ts',
  xml: 'src/formats/xml.ts',
  openapi: 'src/openapi/index.ts',
  client: 'src/client/index.ts',
  otel: 'src/conventions/tracing/index.ts',
  idempotency: 'src/idempotency.ts',
  store: 'src/store/index.ts',
  redis: 'src/store/redis.ts',
  'rate-limit': 'src/conventions/rate-limit/index.ts',
  deprecation: 'src/conventions/deprecation/index.ts',
  multipart: 'src/multipart.ts',
  'client/tanstack': 'src/client/tanstack.ts',
  'client/events': 'src/client/event-stream.ts',
};

/**
 * The `restcanon` command (bin/restcanon.mjs loads it) and the lint rules as a Spectral ruleset: no
 * public subpath, ES modules only, without declarations, each one file. The command's optional peers
 * (yaml, the $ref parser) stay outside the bundle, as peers do.
 */
export const cliEntries = { 'cli/restcanon': 'src/cli/main.ts', 'cli/spectral': 'src/cli/spectral.ts' };

export default defineConfig([
  {
    entry: entries,
    format: ['esm', 'cjs'],
    dts: true,
    splitting: true,
    sourcemap: false,
    // The CLI's build runs beside this one and writes dist/cli/: cleaning leaves it.
    clean: ['!cli/**'],
    treeshake: true,
    target: 'node20',
    outDir: 'dist',
    external: ['express', 'fastify', 'fast-xml-parser', 'koa', 'hono', '@opentelemetry/api', 'ioredis'],
  },
  {
    entry: cliEntries,
    format: ['esm'],
    dts: false,
    splitting: false,
    sourcemap: false,
    clean: false,
    treeshake: true,
    target: 'node20',
    platform: 'node',
    outDir: 'dist',
    external: ['yaml', '@apidevtools/json-schema-ref-parser'],
  },
]);
