/**
 * The `xml` objects of the document, which name the elements the XML format of `restcanon/xml`
 * writes: a result as `<result>`, each entry of an array as `<item>` inside the element of its key,
 * and a problem as RFC 9457's `<problem xmlns="urn:ietf:rfc:7807">`, its arrays with `<i>` entries.
 */
import type { JsonSchema } from './schemas.js';

/** The namespace of a problem in XML (RFC 9457 Appendix B, kept from RFC 7807). */
const PROBLEM_NAMESPACE = 'urn:ietf:rfc:7807';

/** The keywords whose value is one subschema, and those whose value is a list or a map of them. */
const ONE = ['items', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'not', 'if', 'then', 'else', 'contains'];
const MANY = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
const MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/**
 * Whether a media type is XML (`application/xml`, `application/problem+xml`).
 *
 * @example
 * isXml('application/problem+xml'); // true
 */
export function isXml(mediaType: string): boolean {
  return /[/+]xml$/i.test(mediaType);
}

/**
 * The schema of a success in XML: the root element is `<result>`; a list's items are `<item>` elements.
 *
 * @example
 * xmlResult({ $ref: '#/components/schemas/User' }); // { $ref: ..., xml: { name: 'result' } }
 */
export function xmlResult(schema: JsonSchema): JsonSchema {
  if (schema.type !== 'array' || !isRecord(schema.items)) return { ...schema, xml: { name: 'result' } };
  return { ...schema, xml: { name: 'result', wrapped: true }, items: { ...schema.items, xml: { name: 'item' } } };
}

/**
 * The schema of a problem in XML: `<problem>` in the RFC 9457 namespace.
 *
 * @example
 * xmlProblem({ $ref: '#/components/schemas/Problem' }); // { $ref: ..., xml: { name: 'problem', namespace: 'urn:ietf:rfc:7807' } }
 */
export function xmlProblem(schema: JsonSchema): JsonSchema {
  return { ...schema, xml: { name: 'problem', namespace: PROBLEM_NAMESPACE } };
}

/**
 * Marks every array in a schema, in place, as the XML format writes it: wrapped in the element of
 * its key, one `itemName` element per entry (`item` in results, `i` in problems).
 *
 * @example
 * markArrays(schema, 'item'); // { properties: { tags: { type: 'array', xml: { wrapped: true }, items: { type: 'string', xml: { name: 'item' } } } } }
 */
export function markArrays(schema: unknown, itemName: string): void {
  if (!isRecord(schema)) return;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('array')) {
    schema.xml = { ...(isRecord(schema.xml) ? schema.xml : {}), wrapped: true };
    const entries = [schema.items, ...(Array.isArray(schema.prefixItems) ? schema.prefixItems : [])];
    for (const entry of entries) if (isRecord(entry)) entry.xml = { ...(isRecord(entry.xml) ? entry.xml : {}), name: itemName };
  }
  for (const key of ONE) markArrays(schema[key], itemName);
  for (const key of MANY) if (Array.isArray(schema[key])) for (const inner of schema[key]) markArrays(inner, itemName);
  for (const key of MAPS) if (isRecord(schema[key])) for (const inner of Object.values(schema[key])) markArrays(inner, itemName);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
