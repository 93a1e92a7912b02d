/**
 * `$ref`s, resolved by `@apidevtools/json-schema-ref-parser`: local pointers and other files (never
 * over the network). Rules read the document as written and follow a reference only where they look
 * through one, so a finding keeps the pointer and line of the place that uses the reference. Every
 * reference is checked once at load: one that points to nothing, or only to references that lead back
 * to it, makes the document unusable and is reported as such. A schema that contains itself through a
 * property is a recursive schema, which is fine.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CliError } from '../errors.js';
import { loadRefParser } from '../peers.js';
import { isRef, pointerOf } from './pointer.js';
import type { ParsedSource } from './source.js';

/**
 * Follows a value's `$ref`s to what they name; a value that is no reference is returned as it is.
 *
 * @example
 * const response = deref(operation.responses['404']);
 */
export type Deref = (value: unknown) => unknown;

function isUrl(base: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(base);
}

/** The reference's absolute form: the file or URL it names, and its pointer after '#'. */
function absolute(base: string, ref: string): string {
  if (ref.startsWith('#')) return `${base}${ref}`;
  if (isUrl(base)) return new URL(ref, base).href;
  if (isUrl(ref)) return ref;
  const resolved = new URL(ref, pathToFileURL(base));
  const hash = resolved.hash;
  resolved.hash = '';
  return `${fileURLToPath(resolved)}${decodeURIComponent(hash)}`;
}

function fileOf(reference: string): string {
  const hash = reference.indexOf('#');
  return hash === -1 ? reference : reference.slice(0, hash);
}

/**
 * Resolves every `$ref` of a parsed document and gives the function that follows them; throws a
 * {@link CliError} naming the place of a reference that cannot be followed.
 *
 * @example
 * const deref = await resolveRefs(await parseSource('openapi.yaml'));
 */
export async function resolveRefs(source: ParsedSource): Promise<Deref> {
  const { $RefParser } = await loadRefParser();
  let refs;
  try {
    // No resolver for http(s): a lint reads the files it is given, and never sends a request for a
    // reference, wherever the document came from.
    refs = await $RefParser.resolve(source.base, source.value as object, { resolve: { http: false, external: !isUrl(source.base) } });
  } catch (error) {
    throw new CliError(`${source.location}: a $ref cannot be followed: ${(error as Error).message}. References over HTTP are not followed; other files are read relative to the document.`);
  }
  const baseOf = new WeakMap<object, string>();
  const register = (value: unknown, base: string): void => {
    if (typeof value !== 'object' || value === null || baseOf.has(value)) return;
    baseOf.set(value, base);
    for (const child of Object.values(value)) register(child, base);
  };
  register(source.value, source.base);
  const values = refs.values() as unknown as Record<string, unknown>;
  for (const [file, value] of Object.entries(values)) register(value, file);

  const deref: Deref = (value) => {
    let current = value;
    let base = (typeof value === 'object' && value !== null ? baseOf.get(value) : undefined) ?? source.base;
    const seen: string[] = [];
    while (isRef(current)) {
      const target = absolute(base, current.$ref);
      if (seen.includes(target)) throw new CyclicRefError([...seen, target]);
      seen.push(target);
      current = refs.get(target);
      base = (typeof current === 'object' && current !== null ? baseOf.get(current) : undefined) ?? fileOf(target);
    }
    return current;
  };

  checkEveryRef(source, values, deref);
  return deref;
}

class CyclicRefError extends Error {
  constructor(readonly chain: string[]) {
    super(`the references lead back to themselves: ${chain.join(' -> ')}`);
  }
}

/** Follows every reference once, so that a broken one is reported at load, with its place. */
function checkEveryRef(source: ParsedSource, values: Record<string, unknown>, deref: Deref): void {
  const visit = (value: unknown, keys: string[], where: (keys: string[]) => string): void => {
    if (typeof value !== 'object' || value === null) return;
    if (isRef(value)) {
      try {
        deref(value);
      } catch (error) {
        const reason = error instanceof CyclicRefError ? error.message : (error as Error).message;
        throw new CliError(`${where(keys)}: the $ref "${value.$ref}" cannot be followed: ${reason}`);
      }
      return;
    }
    for (const [key, child] of Object.entries(value)) visit(child, [...keys, key], where);
  };
  visit(source.value, [], (keys) => {
    const position = source.locate(keys);
    return `${source.location}${position === undefined ? '' : `:${position.line}:${position.column}`} (${pointerOf(keys) || '/'})`;
  });
  for (const [file, value] of Object.entries(values)) {
    if (file === source.base || value === source.value) continue;
    visit(value, [], (keys) => `${path.relative(process.cwd(), file) || file} (${pointerOf(keys) || '/'})`);
  }
}
