/**
 * restcanon/xml: an XML serializer for results and problem details. It needs the optional peer
 * dependency `fast-xml-parser`; only this entry imports it, so JSON-only APIs never load it.
 */
import { XMLBuilder } from 'fast-xml-parser';
import type { ProblemDetails } from '../core/errors.js';
import type { Serializer } from './formats.js';

/** A node in fast-xml-parser's `preserveOrder` form: `{ name: children, ':@': attributes }` or `{ '#text': text }`. */
type XmlNode = Record<string, unknown>;

const builder = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
  processEntities: true,
});

const DECLARATION: XmlNode = { '?xml': [{ '#text': '' }], ':@': { '@_version': '1.0', '@_encoding': 'UTF-8' } };

/** The namespace of RFC 9457 Appendix B (kept from RFC 7807). */
const PROBLEM_NAMESPACE = 'urn:ietf:rfc:7807';

/**
 * Names that are safe as XML element names everywhere: ASCII letters, digits, `_`, `-` and `.`, not
 * starting with a digit, `-` or `.`, and without `:` (which would need a namespace).
 */
const ELEMENT_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Characters XML 1.0 cannot carry, not even escaped: controls other than tab and newlines, lone surrogates, U+FFFE/U+FFFF. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function xmlText(value: string): string {
  return value.replace(NOT_XML, '\uFFFD');
}

/**
 * The child nodes of a value. Objects become one element per key, arrays one `itemName` element per
 * item, `null` an empty element, `undefined` (and functions) nothing, as in JSON. A key that is not a
 * safe element name becomes `<entry key="...">` so that no key can break the document.
 */
function childrenOf(value: unknown, itemName: string, ancestors: Set<object>): XmlNode[] {
  if (value === null || value === undefined || typeof value === 'function' || typeof value === 'symbol') return [];
  if (typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return childrenOf((value as { toJSON(): unknown }).toJSON(), itemName, ancestors);
  }
  if (typeof value !== 'object') return [{ '#text': xmlText(String(value)) }];
  if (ancestors.has(value)) throw new TypeError('A result with a cycle cannot be serialized as XML');
  ancestors.add(value);
  const nodes: XmlNode[] = [];
  if (Array.isArray(value)) {
    for (const item of value) nodes.push({ [itemName]: childrenOf(item, itemName, ancestors) });
  } else {
    for (const [key, child] of Object.entries(value)) {
      if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
      const children = childrenOf(child, itemName, ancestors);
      nodes.push(ELEMENT_NAME.test(key) ? { [key]: children } : { entry: children, ':@': { '@_key': xmlText(key) } });
    }
  }
  ancestors.delete(value);
  return nodes;
}

function document(root: string, value: unknown, itemName: string, attributes?: Record<string, string>): string {
  const element: XmlNode = { [root]: childrenOf(value, itemName, new Set()) };
  if (attributes !== undefined) element[':@'] = attributes;
  return builder.build([DECLARATION, element]) as string;
}

/**
 * XML: results as `<result>`, problems as RFC 9457 Appendix B `<problem xmlns="urn:ietf:rfc:7807">`
 * (`application/problem+xml`). Arrays in results become repeated `<item>` elements under their key;
 * arrays in problems use RFC 9457's `<i>`. Text is escaped, and a key that is not a valid element
 * name becomes `<entry key="...">`. Add it to `formats` beside JSON; clients choose with `Accept`.
 *
 * @example
 * import { createApi, json } from 'restcanon';
 * import { xml } from 'restcanon/xml';
 * const api = createApi({ formats: [json, xml], endpoints });
 * // GET with Accept: application/xml → <?xml version="1.0" encoding="UTF-8"?><result><tags><item>a</item></tags></result>
 */
export const xml: Serializer = {
  type: 'application/xml',
  contentType: 'application/xml; charset=utf-8',
  serialize: (value) => document('result', value, 'item'),
  problemType: 'application/problem+xml',
  serializeProblem: (problem: ProblemDetails) => document('problem', problem, 'i', { '@_xmlns': PROBLEM_NAMESPACE }),
};
