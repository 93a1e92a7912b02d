import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { xml } from '../../src/formats/xml.js';
import type { ProblemDetails } from '../../src/index.js';

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>';
const serialize = (value: unknown) => xml.serialize(value) as string;
const parse = (text: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false }).parse(text) as Record<string, unknown>;

describe('xml: results', () => {
  it('is application/xml, and problems are application/problem+xml', () => {
    expect([xml.type, xml.contentType, xml.problemType]).toEqual(['application/xml', 'application/xml; charset=utf-8', 'application/problem+xml']);
  });

  it('writes an object as <result> with one element per key', () => {
    expect(serialize({ id: 7, name: 'Ada', active: true })).toBe(`${HEAD}<result><id>7</id><name>Ada</name><active>true</active></result>`);
  });

  it('writes arrays as repeated <item> elements under their key, at any depth', () => {
    expect(serialize({ tags: ['a', 'b'], grid: [[1, 2], []], none: [] })).toBe(
      `${HEAD}<result><tags><item>a</item><item>b</item></tags><grid><item><item>1</item><item>2</item></item><item/></grid><none/></result>`,
    );
    expect(serialize([{ id: 1 }, 'x'])).toBe(`${HEAD}<result><item><id>1</id></item><item>x</item></result>`);
  });

  it('leaves out undefined and functions, writes null as an empty element, and dates as JSON does', () => {
    expect(serialize({ gone: undefined, run: () => 1, nothing: null, when: new Date(0), big: 10n })).toBe(
      `${HEAD}<result><nothing/><when>1970-01-01T00:00:00.000Z</when><big>10</big></result>`,
    );
  });

  it('escapes <, &, quotes and ]]> in values, and reads back to the same text', () => {
    const value = 'a < b && c > d ]]> "quoted" \'single\' <![CDATA[x]]>';
    const output = serialize({ value });
    expect(output).not.toContain(']]>');
    expect(output).not.toContain('<![CDATA[');
    expect(output).toContain('a &lt; b &amp;&amp; c &gt; d ]]&gt;');
    expect(XMLValidator.validate(output)).toBe(true);
    expect(parse(output)).toMatchObject({ result: { value } });
  });

  it('writes a key that is not an XML name as <entry key="...">, so no key breaks the document', () => {
    const keys = ['a b', '1st', '<evil attr="x">', 'ns:name', 'xml"quote', '', '#text', ':@', '@_attr', '?xml'];
    const output = serialize(Object.fromEntries(keys.map((key, index) => [key, index])));
    expect(XMLValidator.validate(output)).toBe(true);
    expect(output).toContain('<entry key="a b">0</entry>');
    expect(output).toContain('<entry key="&lt;evil attr=&quot;x&quot;&gt;">2</entry>');
    const entries = (parse(output).result as { entry: Array<{ '@key': string; '#text': string }> }).entry;
    expect(entries.map((entry) => entry['@key'])).toEqual(keys);
  });

  it('replaces characters XML 1.0 cannot carry, in values and keys', () => {
    const output = serialize({ text: 'nul\u0000 bell\u0007 lone\uD800 ok\uD83D\uDE00', ['key\u0001']: 1 });
    expect(XMLValidator.validate(output)).toBe(true);
    expect(output).toContain('nul\uFFFD bell\uFFFD lone\uFFFD ok\uD83D\uDE00');
    expect(output).toContain('<entry key="key\uFFFD">');
  });

  it('refuses a cycle (the pipeline turns it into a masked 500)', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(() => serialize(cyclic)).toThrow(TypeError);
  });

  it('a shared object that is not a cycle is written twice', () => {
    const shared = { id: 1 };
    expect(serialize({ a: shared, b: shared })).toBe(`${HEAD}<result><a><id>1</id></a><b><id>1</id></b></result>`);
  });

  it('always writes well-formed XML, whatever the keys and values (property)', () => {
    const anyText = fc.string({ unit: 'binary', maxLength: 12 });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        anyText,
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(anyText, tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (input) => {
        expect(XMLValidator.validate(serialize(input))).toBe(true);
      }),
      { seed: 7, numRuns: 150 },
    );
  });
});

describe('xml: problems (RFC 9457 Appendix B)', () => {
  const problem: ProblemDetails = {
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    code: 'RC_INVALID_INPUT',
    detail: 'The request has 2 invalid values',
    errors: [
      { in: 'body', pointer: '#/name', detail: 'must be a string' },
      { in: 'query', pointer: '#/page', detail: 'must be at least 1' },
    ],
  };

  it('is a <problem> in the urn:ietf:rfc:7807 namespace, arrays as <i>', () => {
    expect(xml.serializeProblem!(problem)).toBe(
      `${HEAD}<problem xmlns="urn:ietf:rfc:7807"><type>about:blank</type><title>Bad Request</title><status>400</status><code>RC_INVALID_INPUT</code>` +
        '<detail>The request has 2 invalid values</detail><errors><i><in>body</in><pointer>#/name</pointer><detail>must be a string</detail></i>' +
        '<i><in>query</in><pointer>#/page</pointer><detail>must be at least 1</detail></i></errors></problem>',
    );
  });

  it('escapes what it carries', () => {
    const output = xml.serializeProblem!({ ...problem, detail: 'a <b> & ]]>', instance: 'urn:x?a=1&b=2' }) as string;
    expect(XMLValidator.validate(output)).toBe(true);
    expect(parse(output)).toMatchObject({ problem: { '@xmlns': 'urn:ietf:rfc:7807', detail: 'a <b> & ]]>', instance: 'urn:x?a=1&b=2' } });
  });
});

describe('fast-xml-parser stays optional', () => {
  it('only src/formats/xml.ts imports it, so JSON-only users never load it', () => {
    const importers: string[] = [];
    const walk = (directory: string) => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        const file = join(directory, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (/from ['"]fast-xml-parser['"]/.test(readFileSync(file, 'utf8'))) importers.push(file.replaceAll('\\', '/'));
      }
    };
    walk('src');
    expect(importers).toEqual(['src/formats/xml.ts']);
  });
});
