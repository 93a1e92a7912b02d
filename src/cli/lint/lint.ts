/**
 * `restcanon lint`: a document read, its references resolved and its structure checked, then every
 * lint rule the config leaves on, each finding with its severity and its line.
 */
import type { CliConfig } from '../config.js';
import type { Report } from '../findings.js';
import { buildModel } from './model.js';
import { resolveRefs } from './refs.js';
import { lintModel } from './run.js';
import { parseSource } from './source.js';
import { checkStructure, checkVersion } from './structure.js';

/**
 * Lints a document (a file, or a URL fetched once) under a config; throws a CliError for a document
 * that cannot be read as OpenAPI 3.0 or 3.1.
 *
 * @example
 * const report = await lintDocument('openapi.yaml', defaultConfig());
 * report.findings.length; // 0 for a document that follows the conventions
 */
export async function lintDocument(location: string, config: CliConfig, options: { timeoutMs?: number; cwd?: string } = {}): Promise<Report> {
  const source = await parseSource(location, { timeoutMs: options.timeoutMs ?? 10_000, cwd: options.cwd ?? process.cwd() });
  checkVersion(source);
  const deref = await resolveRefs(source);
  checkStructure(source, deref);
  const model = buildModel(source.value as Record<string, unknown>, deref);
  const { findings, rules } = lintModel(model, config, source.locate);
  // Read top to bottom, as the document is; the rules' order breaks ties.
  const plain = findings.map(({ keys: _keys, ...finding }) => finding).sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const operations = model.operations.length;
  return {
    command: 'lint',
    target: location,
    findings: plain,
    rules,
    notes: [`OpenAPI ${String(model.root.openapi)}: ${counted(model.paths.length, 'path')}, ${counted(operations, 'operation')}`],
  };
}

/** `1 path`, `2 paths`. */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
