/**
 * A request body that a schema accepts, for the one write the probe makes (a create it deletes again):
 * the document's own example when it has one, else the smallest value each schema keyword allows,
 * with strings that say they come from the probe.
 */
import type { Deref } from '../lint/refs.js';

type Schema = Record<string, unknown>;

const MARK = 'restcanon-probe';
const MAX_DEPTH = 8;

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringFor(schema: Schema): string {
  const formats: Record<string, string> = {
    email: 'restcanon-probe@example.com',
    uuid: '00000000-0000-4000-8000-000000000001',
    'date-time': new Date(0).toISOString(),
    date: '1970-01-01',
    uri: 'https://example.com/restcanon-probe',
    'uri-reference': '/restcanon-probe',
    url: 'https://example.com/restcanon-probe',
    password: 'restcanon-probe-password',
  };
  let value = typeof schema.format === 'string' && formats[schema.format] !== undefined ? formats[schema.format]! : MARK;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  while (value.length < min) value += '-x';
  return value.slice(0, Math.max(min, Math.min(max, value.length)));
}

function numberFor(schema: Schema, integer: boolean): number {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : 0.5) : 1;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  const value = Math.min(Math.max(1, minimum), maximum);
  return integer ? Math.ceil(value) : value;
}

/**
 * A value the schema accepts, as far as its keywords tell.
 *
 * @example
 * sampleOf({ type: 'object', required: ['title'], properties: { title: { type: 'string', minLength: 1 } } }, (value) => value);
 * // { title: 'restcanon-probe' }
 */
export function sampleOf(raw: unknown, deref: Deref, depth = 0): unknown {
  const schema = deref(raw);
  if (!isObject(schema) || depth > MAX_DEPTH) return MARK;
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((part) => sampleOf(part, deref, depth + 1)).filter(isObject));
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const choices = schema[key];
    if (Array.isArray(choices) && choices.length > 0) return sampleOf(choices[0], deref, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== 'null') : schema.type;
  if (type === 'object' || (type === undefined && isObject(schema.properties))) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : Object.keys(properties);
    return Object.fromEntries(required.map((name) => [name, sampleOf(properties[name], deref, depth + 1)]));
  }
  if (type === 'array') {
    const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
    return Array.from({ length: count }, () => sampleOf(schema.items, deref, depth + 1));
  }
  if (type === 'integer') return numberFor(schema, true);
  if (type === 'number') return numberFor(schema, false);
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  return stringFor(schema);
}

/**
 * The JSON body of a request body object: its example, else a sample of its schema; undefined when
 * it takes no JSON.
 *
 * @example
 * jsonBodyOf({ content: { 'application/json': { example: { title: 'Dune' } } } }, (value) => value); // { title: 'Dune' }
 */
export function jsonBodyOf(requestBody: Schema | undefined, deref: Deref): unknown {
  const content = requestBody === undefined ? undefined : requestBody.content;
  if (!isObject(content)) return undefined;
  const entry = Object.entries(content).find(([type]) => /^application\/([\w.-]+\+)?json\b/i.test(type));
  if (entry === undefined) return undefined;
  const media = deref(entry[1]);
  if (!isObject(media)) return undefined;
  if (media.example !== undefined) return media.example;
  if (isObject(media.examples)) {
    const first = deref(Object.values(media.examples)[0]);
    if (isObject(first) && first.value !== undefined) return first.value;
  }
  return sampleOf(media.schema, deref);
}
