import { parseTemplate } from './path.js';
import { isStandardSchema, jsonSchemaOf } from './standard-schema.js';
import type { PartSchema } from './validation.js';

/**
 * What a params schema may name: the params of its path. A schema that requires a key the path does
 * not have, or is strict and lacks one it has, would refuse every request with a 400; it is refused
 * where it is declared instead.
 */

/** Keywords that make the keys of an object schema depend on more than its own `properties`. */
const COMBINATIONS = ['anyOf', 'oneOf', 'allOf', 'not', 'if', '$ref', 'patternProperties', 'dependencies', 'dependentSchemas'];

/**
 * Throws when a params schema and the path template disagree. The keys of a schema per param are its
 * own; those of one schema of the whole object are read from the JSON Schema the library gives of its
 * input (Standard JSON Schema), the one description every library shares: where it gives none, or its
 * keys depend on a combination, nothing is known and nothing is said.
 *
 * @example
 * checkParamsSchema(z.object({ wid: z.string() }), '/widgets/:id', 'endpoint(GET /widgets/:id)'); // throws: "wid" is not a param of the path
 */
export function checkParamsSchema(params: PartSchema | undefined, path: string, where: string): void {
  if (params === undefined) return;
  const names = parseTemplate(path).flatMap((segment) => (segment.kind === 'param' ? [segment.name] : []));
  const fix = (name: string): string =>
    names.length === 0 ? `add ":${name}" to the path` : `rename it to a param of the path (${names.map((param) => `:${param}`).join(', ')}), or add ":${name}" to the path`;
  if (!isStandardSchema(params)) {
    for (const name of Object.keys(params)) {
      if (!names.includes(name)) throw new TypeError(`${where}: "params" has a schema for "${name}", which is not a param of the path; ${fix(name)}`);
    }
    return;
  }
  const schema = jsonSchemaOf(params, 'draft-07');
  if (schema === undefined || schema.type !== 'object' || COMBINATIONS.some((keyword) => keyword in schema)) return;
  const properties = typeof schema.properties === 'object' && schema.properties !== null ? Object.keys(schema.properties) : [];
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  for (const name of required) {
    if (!names.includes(name)) throw new TypeError(`${where}: the params schema requires "${name}", which is not a param of the path, so every request would be a 400; ${fix(name)}`);
  }
  if (schema.additionalProperties !== false) return;
  for (const name of names) {
    if (!properties.includes(name)) {
      throw new TypeError(`${where}: the params schema is strict and lacks "${name}", a param of the path, so every request would be a 400; add ${name} to it, or let it take other keys`);
    }
  }
}
