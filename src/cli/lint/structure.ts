/**
 * The shape the rules rely on: an OpenAPI 3.0 or 3.1 document whose paths, path items, operations,
 * parameters and responses are what the specification says they are. A document that is not is
 * refused with every place that is wrong, rather than linted into nonsense. The rest of the
 * specification is left to the validators people already run (Spectral's `oas` rules, Redocly).
 */
import { CliError } from '../errors.js';
import { OPERATION_METHODS } from './model.js';
import { pointerOf } from './pointer.js';
import type { Deref } from './refs.js';
import type { ParsedSource } from './source.js';

const MOST_REPORTED = 20;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Throws a {@link CliError} unless the document is an object that says it is OpenAPI 3.0 or 3.1: what
 * must hold before its references are followed.
 *
 * @example
 * checkVersion(source); // throws for `swagger: "2.0"`
 */
export function checkVersion(source: ParsedSource): void {
  const root = source.value;
  if (!isObject(root)) throw new CliError(`${source.location}: not an OpenAPI document: the top level is not an object`);
  if (root.swagger !== undefined) {
    throw new CliError(`${source.location}: an OpenAPI 2.0 (Swagger) document; restcanon reads OpenAPI 3.0 and 3.1: convert it first (for example with swagger2openapi)`);
  }
  if (typeof root.openapi !== 'string' || !/^3\.[01]\.\d+/.test(root.openapi)) {
    throw new CliError(`${source.location}: not an OpenAPI 3.0 or 3.1 document: "openapi" is ${JSON.stringify(root.openapi) ?? 'missing'}, not a version such as "3.1.0"`);
  }
}

/**
 * Throws a {@link CliError} listing what keeps the document from being read as OpenAPI 3.0 or 3.1.
 *
 * @example
 * checkStructure(source, deref); // throws for a path item that is a string
 */
export function checkStructure(source: ParsedSource, deref: Deref): void {
  checkVersion(source);
  const root = source.value as Record<string, unknown> & { openapi: string };
  const where = (keys: string[]): string => {
    const position = source.locate(keys);
    return `${pointerOf(keys) || '/'}${position === undefined ? '' : ` (line ${position.line})`}`;
  };
  const problems: string[] = [];
  const expect = (ok: boolean, keys: string[], what: string): boolean => {
    if (!ok) problems.push(`${where(keys)}: ${what}`);
    return ok;
  };
  if (root.paths === undefined) {
    expect(root.openapi.startsWith('3.1'), ['paths'], 'OpenAPI 3.0 requires "paths"');
  } else if (expect(isObject(root.paths), ['paths'], 'must be an object of paths')) {
    for (const [template, rawItem] of Object.entries(root.paths as Record<string, unknown>)) {
      const itemKeys = ['paths', template];
      expect(template.startsWith('/'), itemKeys, 'a path must start with "/"');
      const item = deref(rawItem);
      if (!isObject(item)) {
        expect(false, itemKeys, 'a path item must be an object');
        continue;
      }
      checkParameters(item.parameters, [...itemKeys, 'parameters'], deref, expect);
      for (const method of OPERATION_METHODS) {
        if (item[method] === undefined) continue;
        const operation = item[method];
        const keys = [...itemKeys, method];
        if (!isObject(operation)) {
          expect(false, keys, 'an operation must be an object');
          continue;
        }
        checkParameters(operation.parameters, [...keys, 'parameters'], deref, expect);
        if (operation.responses === undefined) {
          expect(root.openapi.startsWith('3.1'), [...keys, 'responses'], 'OpenAPI 3.0 requires "responses"');
        } else if (expect(isObject(operation.responses), [...keys, 'responses'], 'must be an object of responses')) {
          for (const [code, response] of Object.entries(operation.responses as Record<string, unknown>)) {
            expect(/^([1-5](\d\d|XX)|default)$/i.test(code), [...keys, 'responses', code], 'a response key is a status (such as 404), a range (4XX) or "default"');
            expect(isObject(deref(response)), [...keys, 'responses', code], 'a response must be an object');
          }
        }
        if (operation.requestBody !== undefined) expect(isObject(deref(operation.requestBody)), [...keys, 'requestBody'], 'must be an object');
      }
    }
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, MOST_REPORTED);
    const more = problems.length > shown.length ? [`... and ${problems.length - shown.length} more`] : [];
    throw new CliError([`${source.location}: not a valid OpenAPI ${root.openapi} document:`, ...shown.map((line) => `  ${line}`), ...more].join('\n'));
  }
}

function checkParameters(value: unknown, keys: string[], deref: Deref, expect: (ok: boolean, keys: string[], what: string) => boolean): void {
  if (value === undefined || !expect(Array.isArray(value), keys, 'must be an array of parameters')) return;
  for (const [index, raw] of (value as unknown[]).entries()) {
    const parameter = deref(raw);
    const at = [...keys, String(index)];
    if (!isObject(parameter)) {
      expect(false, at, 'a parameter must be an object');
      continue;
    }
    expect(typeof parameter.name === 'string' && typeof parameter.in === 'string', at, 'a parameter needs "name" and "in"');
  }
}
