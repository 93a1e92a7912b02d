/**
 * The installed versions of the packages each peer server runs, found the way Node resolves them
 * (a `node_modules` folder beside the importer or above it), and their `engines` ranges.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * A package's package.json as found from `from`, or from the package that `via` names (each one
 * found from the previous): `packageJson('ajv', ['fastify', '@fastify/ajv-compiler'])` is the ajv
 * that Fastify's validator compiler loads.
 *
 * @param {string} name
 * @param {string[]} [via]
 * @returns {{ name: string, version: string, engines?: Record<string, string>, dir: string } | undefined}
 */
export function packageJson(name, via = []) {
  let from = HERE;
  for (const hop of [...via, name]) {
    const dir = packageDir(hop, from);
    if (dir === undefined) return undefined;
    from = dir;
  }
  return { ...JSON.parse(readFileSync(join(from, 'package.json'), 'utf8')), dir: from };
}

/** @param {string} name @param {string} from @returns {string | undefined} */
function packageDir(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** How a package is looked up, when the server loads it through another one. */
const VIA = {
  ajv: ['fastify', '@fastify/ajv-compiler'],
  '@fastify/ajv-compiler': ['fastify'],
};

/**
 * `name version` for the results, such as `fastify 5.12.8`; an npm alias shows the package it
 * installs (`zod 4.3.6 (as zod43)`).
 * @param {string} name
 */
export function describeVersion(name) {
  const found = packageJson(name, VIA[name] ?? []);
  if (found === undefined) return `${name} (not installed)`;
  return found.name === name ? `${name} ${found.version}` : `${found.name} ${found.version} (as ${name})`;
}

/** @param {string} name @returns {string | undefined} the `engines.node` range of the installed package */
export function nodeEngines(name) {
  return packageJson(name, VIA[name] ?? [])?.engines?.node;
}
