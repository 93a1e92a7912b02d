import { defineConfig } from 'tsup';

/** Every public subpath is one entry; `splitting` keeps one shared copy of the core between them. */
export const entries = {
  index: 'src/index.ts',
  testing: 'src/testing.ts',
  node: 'src/adapters/node.ts',
  express: 'src/adapters/express.ts',
  fastify: 'src/adapters/fastify.ts',
  fetch: 'src/adapters/fetch.ts',
  xml: 'src/formats/xml.ts',
  openapi: 'src/openapi/index.ts',
  client: 'src/client/index.ts',
};

export default defineConfig({
  entry: entries,
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  sourcemap: false,
  clean: true,
  treeshake: true,
  target: 'node20',
  outDir: 'dist',
  external: ['express', 'fastify', 'fast-xml-parser'],
});
