/**
 * A size budget for what users load: the built package, bundled and minified by esbuild, gzipped.
 * A change that makes restcanon heavier has to show up here (and be worth it).
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const dist = join(import.meta.dirname, '..', 'dist');

/** A source bundled as a user's bundler would, with the optional peers a subpath needs left outside. */
function bundle(source: string) {
  return build({
    stdin: { contents: source, resolveDir: dist, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    write: false,
    metafile: true,
    external: ['fast-xml-parser', 'hono', '@opentelemetry/api', 'ioredis'],
    logLevel: 'silent',
  });
}

async function gzippedSize(source: string): Promise<number> {
  const result = await bundle(source);
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).byteLength;
}

/** The packages outside restcanon that a bundle of `source` imports. */
async function packagesImported(source: string): Promise<string[]> {
  const { metafile } = await bundle(source);
  return Object.values(metafile.outputs).flatMap((output) => output.imports.filter((imported) => imported.external).map((imported) => imported.path));
}

const KIB = 1024;
/** An API built from restcanon/engine, with no convention. */
const LEAN = "export { createApi } from './engine.js'; export { endpoint, collection } from './index.js';";

const CLIENT_BUDGET = 3.5 * KIB;
const STORE_BUDGET = 2 * KIB;

// What a user's bundle pays for restcanon: the core with every convention alone and beside an
// adapter, and the engine with none, minified and gzipped. The budgets catch a change that grows the bundle by accident; a budget grows only for a
// change worth its bytes, with the reason stated in CHANGELOG.md.
// The core answers bytes and streams on every endpoint that produces them; with it come the
// conventions of ranges (206, multipart/byteranges, 416, If-Range), of server-sent events (the
// encoder, keep-alive) and of urlencoded forms, which the engine alone does without.
const BUDGETS = [
  // Byte and stream answers with `produces` and bodies of any media type are the core's, and ranges, server-sent events and forms its conventions: about 7.5 KiB of it.
  { name: 'core: createApi, endpoint, collection', source: "export { createApi, endpoint, collection } from './index.js';", budget: 48.75 * KIB },
  // The Node adapters pipe a Node Readable of bytes once its first chunk is read (stream-out.ts), about 0.4 KiB.
  { name: 'core and the node adapter', source: "export { createApi, collection } from './index.js'; export { toNodeListener } from './node.js';", budget: 49.25 * KIB },
  { name: 'the fetch adapter beside the core', source: "export { createApi, collection } from './index.js'; export { toFetch } from './fetch.js';", budget: 49 * KIB },
  { name: 'the koa adapter beside the core', source: "export { createApi, collection } from './index.js'; export { toKoa } from './koa.js';", budget: 50.75 * KIB },
  { name: 'the hono adapter beside the core', source: "export { createApi, collection } from './index.js'; export { toHono } from './hono.js';", budget: 49.75 * KIB },
  // Byte and stream answers with `produces` and bodies of any media type, without ranges, server-sent events or forms (their conventions, below).
  { name: 'the engine alone: restcanon/engine createApi, endpoint, collection', source: LEAN, budget: 36.5 * KIB },
  // The client loads only buildPath of the core; its budget holds its hooks, its retries, its Fetch options and its raw bodies and ways to read.
  { name: 'the client alone', source: "export { createClient, bodyOf, ClientError } from './client.js';", budget: CLIENT_BUDGET },
  // The stores load nothing of the core: a convention that keeps state pays for its store alone.
  { name: 'the memory store alone', source: "export { memoryStore, withTimeout, StoreUnavailableError } from './store.js';", budget: STORE_BUDGET },
  { name: 'the Redis store alone', source: "export { redisStore } from './redis.js';", budget: STORE_BUDGET },
  // Its own entry: a client without TanStack Query pays nothing for it.
  { name: 'the TanStack Query options alone', source: "export { queryOptions, infiniteQueryOptions, mutationOptions } from './client/tanstack.js';", budget: 0.75 * KIB },
  // Its own entry: a client that reads no server-sent events pays nothing for their decoder.
  { name: 'the server-sent events decoder alone', source: "export { readEvents } from './client/events.js';", budget: 0.75 * KIB },
] as const;

// What each convention adds to an API built from restcanon/engine that uses it, and nothing more: an
// API pays for the conventions it imports.
const CONVENTION_BUDGETS = [
  { name: 'cors', source: "export { cors } from './engine.js';", budget: 2.25 * KIB },
  { name: 'lists', source: "export { lists } from './engine.js';", budget: 4 * KIB },
  { name: 'ownership', source: "export { ownership } from './engine.js';", budget: 0.75 * KIB },
  { name: 'conditional', source: "export { conditional } from './engine.js';", budget: 2 * KIB },
  { name: 'mergePatch', source: "export { mergePatch } from './engine.js';", budget: 2 * KIB },
  { name: 'projection', source: "export { projection } from './engine.js';", budget: 2 * KIB },
  // With the parsing of Range and If-Range and the multipart/byteranges body.
  { name: 'ranges', source: "export { ranges } from './engine.js';", budget: 2.5 * KIB },
  // With the encoder of events and its keep-alive comments.
  { name: 'events', source: "export { events } from './engine.js';", budget: 1.25 * KIB },
  // The parsing of a form into its record, within its bound on fields; the reading is the engine's own.
  { name: 'forms', source: "export { forms } from './engine.js';", budget: 0.5 * KIB },
  { name: 'extension', source: "export { extension } from './index.js';", budget: 1 * KIB },
  // restcanon/otel, with @opentelemetry/api outside the bundle: the application has it already.
  { name: 'tracing (restcanon/otel)', source: "export { tracing } from './otel.js';", budget: 1 * KIB },
  // With the in-memory store it counts in by default.
  { name: 'rateLimit', source: "export { rateLimit } from './rate-limit.js';", budget: 4.25 * KIB },
  { name: 'deprecation', source: "export { deprecation } from './deprecation.js';", budget: 1.5 * KIB },
  // With @fastify/busboy, its parser, bundled in: what an application that takes uploads loads; with
  // the checks of fileFields and its OpenAPI part (the files and their encoding in the document).
  { name: 'multipart (restcanon/multipart)', source: "export { multipart } from './multipart.js';", budget: 12.5 * KIB },
  // Its default store (memoryStore, with its expiry heap) comes with it.
  { name: 'idempotency', source: "export { idempotency } from './idempotency.js';", budget: 5.5 * KIB },
] as const;

describe('what an API without tracing loads', () => {
  it('restcanon, its engine and its adapters never import @opentelemetry/api: only restcanon/otel does', async () => {
    const everything = "export * from './index.js'; export * from './engine.js'; export * from './node.js'; export * from './express.js'; export * from './fastify.js'; export * from './fetch.js';";
    expect(await packagesImported(everything)).not.toContain('@opentelemetry/api');
    expect(await packagesImported("export { tracing } from './otel.js';")).toEqual(['@opentelemetry/api']);
  });
});

describe('size budget (minified, gzipped)', () => {
  it.each(CONVENTION_BUDGETS)('$name adds at most its budget to the engine alone', async ({ source, budget }) => {
    const added = (await gzippedSize(`${LEAN} ${source}`)) - (await gzippedSize(LEAN));
    expect(added).toBeGreaterThan(0.125 * KIB);
    expect(added).toBeLessThanOrEqual(budget);
  });

  it.each(BUDGETS)('$name stays within its budget', async ({ source, budget }) => {
    const size = await gzippedSize(source);
    expect(size).toBeGreaterThan(budget < 1 * KIB ? 0.25 * KIB : budget === CLIENT_BUDGET || budget === STORE_BUDGET ? 0.5 * KIB : 1 * KIB);
    expect(size).toBeLessThanOrEqual(budget);
  });
});
