/**
 * A document's text and the lines of its nodes: read from a file or fetched from one URL (no redirect
 * followed), parsed by the `yaml` package, which reads JSON as well, keeping where every node starts so
 * that a finding can name its line.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Document, LineCounter, Node as YamlNode } from 'yaml';
import { CliError } from '../errors.js';
import { exchange, ExchangeError, textOf } from '../probe/http.js';
import { loadYaml } from '../peers.js';

/**
 * The largest document read, in bytes.
 *
 * @example
 * MAX_DOCUMENT_BYTES; // 33554432
 */
export const MAX_DOCUMENT_BYTES = 32 * 1024 * 1024;

/**
 * A parsed document: its value, where it came from, and the line of any JSON pointer in it.
 *
 * @example
 * const parsed = await parseSource('openapi.yaml');
 * parsed.locate(['paths', '/users']); // { line: 7, column: 3 }
 */
export interface ParsedSource {
  /** The path or URL as given. */
  location: string;
  /** What `$ref`s resolve against: an absolute file path or the URL. */
  base: string;
  value: unknown;
  locate(pointer: readonly string[]): { line: number; column: number } | undefined;
}

/**
 * Reads the text of a document: a file, or an http(s) URL fetched once.
 *
 * @example
 * const text = await readSource('openapi.yaml', { timeoutMs: 10_000 });
 */
export async function readSource(location: string, options: { timeoutMs: number; cwd?: string }): Promise<{ text: string; base: string }> {
  if (/^https?:\/\//i.test(location)) return { text: await fetchDocument(location, options.timeoutMs), base: location };
  const file = path.resolve(options.cwd ?? process.cwd(), location);
  const info = await stat(file).catch(() => undefined);
  if (info === undefined) throw new CliError(`${location}: no such file`);
  if (!info.isFile()) throw new CliError(`${location}: not a file; give the path of an OpenAPI document (JSON or YAML)`);
  if (info.size > MAX_DOCUMENT_BYTES) throw new CliError(`${location}: ${info.size} bytes, more than the ${MAX_DOCUMENT_BYTES} a document may have`);
  return { text: await readFile(file, 'utf8'), base: file };
}

async function fetchDocument(url: string, timeoutMs: number): Promise<string> {
  let answer;
  try {
    answer = await exchange({ method: 'GET', url, headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.1' } }, { timeoutMs, maxBodyBytes: MAX_DOCUMENT_BYTES + 1 });
  } catch (error) {
    if (error instanceof ExchangeError) throw new CliError(`${url}: ${error.message.replace(`GET ${url}: `, '').replace(`GET ${url} `, '')}`);
    throw error;
  }
  if (answer.status >= 300 && answer.status < 400) {
    const target = answer.headers.location ?? 'nowhere';
    throw new CliError(`${url} answered ${answer.status}, a redirect to ${target}; restcanon follows no redirect: give that URL itself`);
  }
  if (answer.status !== 200) throw new CliError(`${url} answered ${answer.status}, not 200 with a document`);
  if (answer.truncated) throw new CliError(`${url}: more than the ${MAX_DOCUMENT_BYTES} bytes a document may have`);
  return textOf(answer);
}

/**
 * Parses JSON or YAML text, keeping the position of every node.
 *
 * @example
 * const parsed = await parseText('openapi: 3.1.0\n', 'inline.yaml', '/tmp/inline.yaml');
 */
export async function parseText(text: string, location: string, base: string): Promise<ParsedSource> {
  const yaml = await loadYaml();
  const lines = new yaml.LineCounter();
  // Aliases are capped (a "billion laughs" document stops at the cap); keys must be unique, as in
  // JSON, so a document means one thing to every reader.
  const document = yaml.parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const error = document.errors[0];
  if (error !== undefined) {
    const position = lines.linePos(error.pos[0]);
    throw new CliError(`${location}:${position.line}:${position.col}: not valid JSON or YAML: ${error.message.split('\n')[0]}`);
  }
  // A merge key is YAML 1.1: Spectral merges the members in, swagger-parser (js-yaml's JSON schema)
  // keeps a member named "<<". Refused, since the two would lint two documents.
  let merge: number | undefined;
  yaml.visit(document, {
    Pair: (_, pair) => {
      const key = pair.key;
      if (yaml.isScalar(key) && key.value === '<<' && key.type === 'PLAIN') {
        merge = key.range?.[0];
        return yaml.visit.BREAK;
      }
      return undefined;
    },
  });
  if (merge !== undefined) {
    const position = lines.linePos(merge);
    throw new CliError(`${location}:${position.line}:${position.col}: a YAML merge key (<<), which YAML 1.2 does not have: Spectral merges the members in, swagger-parser reads a member named "<<"; write the members out`);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 1000 });
  } catch (cause) {
    throw new CliError(`${location}: not a usable document: ${(cause as Error).message}`);
  }
  return { location, base, value, locate: (pointer) => locate(document, lines, pointer) };
}

/**
 * Reads and parses a document.
 *
 * @example
 * const parsed = await parseSource('openapi.yaml');
 */
export async function parseSource(location: string, options: { timeoutMs: number; cwd?: string } = { timeoutMs: 10_000 }): Promise<ParsedSource> {
  const { text, base } = await readSource(location, options);
  return parseText(text, location, base);
}

// The deepest node the pointer reaches: a key's position for a member, an item's for an element,
// so that a finding about a missing member points at the object that lacks it.
function locate(document: Document, lines: LineCounter, pointer: readonly string[]): { line: number; column: number } | undefined {
  let node = document.contents as YamlNode | null;
  let offset = node?.range?.[0];
  for (const segment of pointer) {
    if (node === null || typeof node !== 'object') break;
    const items = (node as unknown as { items?: unknown[] }).items;
    if (!Array.isArray(items)) break;
    let next: YamlNode | null | undefined;
    let start: number | undefined;
    for (const [index, item] of items.entries()) {
      const pair = item as { key?: { value?: unknown; range?: [number, number, number] } | null; value?: YamlNode | null };
      if (pair !== null && typeof pair === 'object' && 'key' in pair) {
        if (String(pair.key?.value) === segment) {
          next = pair.value ?? null;
          start = pair.key?.range?.[0];
          break;
        }
      } else if (String(index) === segment) {
        next = item as YamlNode;
        start = (item as YamlNode).range?.[0];
        break;
      }
    }
    if (next === undefined) break;
    node = next;
    offset = start ?? offset;
  }
  if (offset === undefined) return undefined;
  const position = lines.linePos(offset);
  return { line: position.line, column: position.col };
}
