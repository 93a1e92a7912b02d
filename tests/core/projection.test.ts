import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileProjection } from '../../src/core/projection.js';
import type { StandardResult, StandardSchema } from '../../src/index.js';

/** A Standard Schema that hands out a fixed JSON Schema, for keywords no library writes. */
function fromJsonSchema(json: Record<string, unknown>): StandardSchema {
  const standard = { version: 1 as const, vendor: 'test', validate: (value: unknown) => ({ value }), jsonSchema: { input: () => json } };
  return { '~standard': standard };
}

/** A Standard Schema without `jsonSchema`, such as a hand-written one. */
function withoutJsonSchema(validate: (value: unknown) => StandardResult<unknown> | Promise<StandardResult<unknown>>): StandardSchema {
  return { '~standard': { version: 1, vendor: 'custom', validate } };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const user = { id: 7, name: 'Ada', passwordHash: '$2b$10$abc' };

describe('compileProjection: one library each', () => {
  it('zod: a field the object schema leaves out is dropped', () => {
    const project = compileProjection(z.object({ id: z.number(), name: z.string() }));
    expect(project(user)).toStrictEqual({ id: 7, name: 'Ada' });
  });

  it('valibot: a field the object schema leaves out is dropped', () => {
    const project = compileProjection(toStandardJsonSchema(v.object({ id: v.number(), name: v.string() })));
    expect(project(user)).toStrictEqual({ id: 7, name: 'Ada' });
  });

  it('arktype: a field the object schema leaves out is dropped', () => {
    const project = compileProjection(type({ id: 'number', name: 'string' }));
    expect(project(user)).toStrictEqual({ id: 7, name: 'Ada' });
  });
});

describe('compileProjection: objects and arrays', () => {
  it('projects nested objects and arrays of objects by their own schemas', () => {
    const project = compileProjection(
      z.object({
        id: z.number(),
        owner: z.object({ name: z.string() }),
        members: z.array(z.object({ name: z.string() })),
      }),
    );
    const team = {
      id: 1,
      secret: 's',
      owner: { name: 'Ada', passwordHash: 'x' },
      members: [
        { name: 'Grace', passwordHash: 'y' },
        { name: 'Linus', token: 'z' },
      ],
    };
    expect(project(team)).toStrictEqual({ id: 1, owner: { name: 'Ada' }, members: [{ name: 'Grace' }, { name: 'Linus' }] });
  });

  it('a record keeps every key and projects each value', () => {
    const project = compileProjection(z.record(z.string(), z.object({ score: z.number() })));
    expect(project({ ada: { score: 3, passwordHash: 'x' }, grace: { score: 5 } })).toStrictEqual({ ada: { score: 3 }, grace: { score: 5 } });
  });

  it('z.looseObject keeps its extra keys, with their nested values as they are', () => {
    const project = compileProjection(z.looseObject({ id: z.number(), owner: z.object({ name: z.string() }) }));
    const value = { id: 1, owner: { name: 'Ada', passwordHash: 'x' }, extra: { anything: true } };
    expect(project(value)).toStrictEqual({ id: 1, owner: { name: 'Ada' }, extra: { anything: true } });
  });

  it('z.object().catchall() projects extra keys by the catchall schema', () => {
    const project = compileProjection(z.object({ id: z.number() }).catchall(z.object({ name: z.string() })));
    expect(project({ id: 1, ada: { name: 'Ada', passwordHash: 'x' } })).toStrictEqual({ id: 1, ada: { name: 'Ada' } });
  });

  it('z.unknown() and z.array(z.unknown()) keep whatever they hold', () => {
    const value = { id: 1, nested: { passwordHash: 'x' } };
    expect(compileProjection(z.unknown())(value)).toBe(value);
    expect(compileProjection(z.object({ data: z.unknown() }))({ data: value, drop: 1 })).toStrictEqual({ data: value });
    expect(compileProjection(z.array(z.unknown()))([value])).toStrictEqual([value]);
  });

  it('metadata beside z.unknown() does not turn it into "keep nothing"', () => {
    const value = { nested: { anything: true } };
    expect(compileProjection(z.object({ data: z.unknown().meta({ owner: 'billing' }) }))({ data: value })).toStrictEqual({ data: value });
  });

  it('allOf of schemas that accept anything keeps everything', () => {
    const value = { id: 1, nested: { anything: true } };
    expect(compileProjection(fromJsonSchema({ allOf: [{}, { description: 'any' }] }))(value)).toBe(value);
  });

  it('an arktype `unknown[]` keeps its items as they are', () => {
    const value = [{ passwordHash: 'x' }];
    expect(compileProjection(type({ items: 'unknown[]' }))({ items: value })).toStrictEqual({ items: value });
  });

  it('a tuple projects each position and drops the items after the last one', () => {
    const project = compileProjection(type(['string', { id: 'number' }]));
    expect(project(['a', { id: 1, passwordHash: 'x' }, 'extra'])).toStrictEqual(['a', { id: 1 }]);
  });

  it('draft 2020-12 prefixItems with items: a tuple with a rest', () => {
    const project = compileProjection(
      fromJsonSchema({
        type: 'array',
        prefixItems: [{ type: 'string' }],
        items: { type: 'object', properties: { id: { type: 'number' } } },
      }),
    );
    expect(project(['a', { id: 1, passwordHash: 'x' }, { id: 2, token: 'y' }])).toStrictEqual(['a', { id: 1 }, { id: 2 }]);
  });

  it('patternProperties keep the keys they match, projected by their schema, and drop the others', () => {
    const project = compileProjection(type({ id: 'number', '[/^x-/]': { value: 'string' } }));
    const value = { id: 1, 'x-trace': { value: 'a', passwordHash: 'h' }, passwordHash: 'h' };
    expect(project(value)).toStrictEqual({ id: 1, 'x-trace': { value: 'a' } });
  });

  it('a bare { type: "object" } keeps no key: undeclared keys are dropped', () => {
    expect(compileProjection(type('object'))({ passwordHash: 'x' })).toStrictEqual({});
  });

  it('an object where the schema wants a string keeps no key', () => {
    expect(compileProjection(z.object({ name: z.string() }))({ name: { passwordHash: 'x' } })).toStrictEqual({ name: {} });
  });

  it('primitives and null are returned as they are', () => {
    const project = compileProjection(z.object({ id: z.number() }));
    for (const value of [1, 'a', true, null, undefined]) expect(project(value)).toBe(value);
  });
});

describe('compileProjection: references', () => {
  it('a recursive zod tree loses undeclared fields at every depth', () => {
    const Node = z.object({
      name: z.string(),
      get children(): z.ZodArray<typeof Node> {
        return z.array(Node);
      },
    });
    const project = compileProjection(Node);
    const tree = { name: 'a', secret: 1, children: [{ name: 'b', secret: 2, children: [{ name: 'c', secret: 3, children: [] }] }] };
    expect(project(tree)).toStrictEqual({ name: 'a', children: [{ name: 'b', children: [{ name: 'c', children: [] }] }] });
  });

  it('a recursive valibot tree ($defs) loses undeclared fields at every depth', () => {
    type TreeNode = { name: string; children: TreeNode[] };
    const Node: v.GenericSchema<TreeNode> = v.object({ name: v.string(), children: v.array(v.lazy(() => Node)) });
    const project = compileProjection(toStandardJsonSchema(Node));
    const tree = { name: 'a', secret: 1, children: [{ name: 'b', secret: 2, children: [] }] };
    expect(project(tree)).toStrictEqual({ name: 'a', children: [{ name: 'b', children: [] }] });
  });

  it('a schema reused under an id (#/definitions/...) is projected where it is referred to', () => {
    const Person = z.object({ name: z.string() }).meta({ id: 'Person' });
    const project = compileProjection(z.object({ author: Person, reviewer: Person }));
    const value = { author: { name: 'Ada', passwordHash: 'x' }, reviewer: { name: 'Grace', token: 'y' } };
    expect(project(value)).toStrictEqual({ author: { name: 'Ada' }, reviewer: { name: 'Grace' } });
  });

  it('a $ref with allOf siblings keeps the keys of both', () => {
    const project = compileProjection(
      fromJsonSchema({
        $defs: { Base: { type: 'object', properties: { id: { type: 'number' } } } },
        allOf: [{ $ref: '#/$defs/Base' }, { type: 'object', properties: { name: { type: 'string' } } }],
      }),
    );
    expect(project({ id: 1, name: 'Ada', passwordHash: 'x' })).toStrictEqual({ id: 1, name: 'Ada' });
  });

  it('an annotation beside a $ref does not loosen it', () => {
    const project = compileProjection(
      fromJsonSchema({ definitions: { User: { type: 'object', properties: { id: { type: 'number' } } } }, $ref: '#/definitions/User', description: 'A user' }),
    );
    expect(project(user)).toStrictEqual({ id: 7 });
  });

  it('a reference to another document is refused where the endpoint is defined', () => {
    expect(() => compileProjection(fromJsonSchema({ $ref: 'https://example.com/user.json' }))).toThrow(TypeError);
    expect(() => compileProjection(fromJsonSchema({ $ref: '#/$defs/Missing' }))).toThrow(/does not define/);
  });
});

describe('compileProjection: unions', () => {
  const Shape = z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('circle'), radius: z.number() }),
    z.object({ kind: z.literal('square'), side: z.number() }),
  ]);

  it('a discriminated union keeps only the keys its branches declare', () => {
    const project = compileProjection(Shape);
    expect(project({ kind: 'circle', radius: 2, passwordHash: 'x' })).toStrictEqual({ kind: 'circle', radius: 2 });
    expect(project({ kind: 'square', side: 3, owner: 'y' })).toStrictEqual({ kind: 'square', side: 3 });
  });

  it('a union keeps undeclared keys when one branch allows them', () => {
    const project = compileProjection(z.union([z.object({ id: z.number() }), z.record(z.string(), z.string())]));
    expect(project({ id: 1, note: 'kept' })).toStrictEqual({ id: 1, note: 'kept' });
  });

  it('a nullable object keeps null and projects the object', () => {
    const project = compileProjection(z.object({ manager: z.object({ name: z.string() }).nullable() }));
    expect(project({ manager: null })).toStrictEqual({ manager: null });
    expect(project({ manager: { name: 'Ada', passwordHash: 'x' } })).toStrictEqual({ manager: { name: 'Ada' } });
    expect(compileProjection(z.object({ id: z.number() }).nullable())(null)).toBe(null);
  });

  it('a union of an array and an object picks the array branch for an array', () => {
    const project = compileProjection(z.union([z.object({ id: z.number() }), z.array(z.object({ name: z.string() }))]));
    expect(project([{ name: 'Ada', passwordHash: 'x' }])).toStrictEqual([{ name: 'Ada' }]);
    expect(project({ id: 1, passwordHash: 'x' })).toStrictEqual({ id: 1 });
  });
});

describe('compileProjection: values that are not plain data', () => {
  it('a class instance keeps only its declared fields', () => {
    class UserRow {
      constructor(
        readonly id: number,
        readonly passwordHash: string,
      ) {}
    }
    expect(compileProjection(z.object({ id: z.number() }))(new UserRow(7, 'x'))).toStrictEqual({ id: 7 });
  });

  it('an object whose toJSON gives an object is projected from what toJSON gives', () => {
    const document = { toJSON: () => ({ id: 7, passwordHash: 'x' }), internal: true };
    expect(compileProjection(z.object({ id: z.number() }))(document)).toStrictEqual({ id: 7 });
  });

  it('a Date under a schema that describes it keeps being a Date', () => {
    const at = new Date(0);
    const project = compileProjection(type({ at: 'Date', id: 'number' }));
    const projected = project({ at, id: 1, passwordHash: 'x' }) as { at: unknown };
    expect(projected).toStrictEqual({ at, id: 1 });
    expect(projected.at).toBe(at);
  });

  it('a __proto__ key from JSON.parse stays an own key of the copy', () => {
    const project = compileProjection(z.record(z.string(), z.object({ id: z.number() })));
    const projected = project(JSON.parse('{"__proto__":{"id":1,"passwordHash":"x"}}')) as object;
    expect(Object.getPrototypeOf(projected)).toBe(Object.prototype);
    expect(JSON.stringify(projected)).toBe('{"__proto__":{"id":1}}');
  });
});

describe('compileProjection: the handler value', () => {
  it('is never changed', () => {
    const project = compileProjection(z.object({ id: z.number(), members: z.array(z.object({ name: z.string() })) }));
    const value = { id: 1, passwordHash: 'x', members: [{ name: 'Ada', token: 't' }] };
    const before = structuredClone(value);
    expect(() => project(deepFreeze(value))).not.toThrow();
    expect(value).toStrictEqual(before);
  });

  it('is returned itself when there is nothing to drop', () => {
    const project = compileProjection(z.object({ id: z.number(), members: z.array(z.object({ name: z.string() })) }));
    const value = { id: 1, members: [{ name: 'Ada' }] };
    expect(project(value)).toBe(value);
  });

  it('keeps the objects that have nothing to drop when a sibling has', () => {
    const project = compileProjection(z.object({ owner: z.object({ name: z.string() }), secret: z.never().optional() }));
    const owner = { name: 'Ada' };
    expect((project({ owner, passwordHash: 'x' }) as { owner: unknown }).owner).toBe(owner);
  });
});

describe('compileProjection: unbounded values', () => {
  const Node = z.object({
    name: z.string(),
    get children(): z.ZodArray<typeof Node> {
      return z.array(Node);
    },
  });
  type Tree = { name: string; children: Tree[] };
  const chain = (depth: number): Tree => {
    let node: Tree = { name: 'leaf', children: [] };
    for (let level = 1; level < depth; level++) node = { name: `n${level}`, children: [node] };
    return node;
  };

  it('a cyclic result throws a TypeError instead of overflowing the stack', () => {
    const root: Tree = { name: 'root', children: [] };
    root.children.push(root, root);
    expect(() => compileProjection(Node)(root)).toThrow(/has a cycle/);
  });

  it('a cycle with wide fan-out is refused on its first turn, not after exponential work', () => {
    const root: Tree = { name: 'root', children: [] };
    for (let index = 0; index < 50; index++) root.children.push(root);
    expect(() => compileProjection(Node)(root)).toThrow(TypeError);
  });

  it('a result nested deeper than 64 levels throws a TypeError', () => {
    // Each tree level is an object and an array: 40 levels are 80 containers.
    expect(() => compileProjection(Node)(chain(40))).toThrow(/deeper than 64/);
    expect(() => compileProjection(Node)(chain(100_000))).toThrow(TypeError);
  });

  it('a result within 64 levels is projected', () => {
    expect(compileProjection(Node)(chain(32))).toStrictEqual(chain(32));
  });

  it('the same object twice, side by side, is no cycle', () => {
    const shared = { name: 'shared', children: [] };
    expect(compileProjection(Node)({ name: 'root', children: [shared, shared] })).toStrictEqual({ name: 'root', children: [shared, shared] });
  });
});

describe('compileProjection: schemas without a JSON Schema', () => {
  // z.date() has no JSON Schema, so the schema itself strips the result.
  const Event = z.object({ name: z.string(), at: z.date() });

  it('run their own validate and send its output', () => {
    const at = new Date(0);
    expect(compileProjection(Event)({ name: 'launch', at, passwordHash: 'x' })).toStrictEqual({ name: 'launch', at });
  });

  it('throw a TypeError when the result does not match', () => {
    expect(() => compileProjection(Event)({ name: 'launch', at: 'yesterday' })).toThrow(new TypeError('The result does not match its response schema'));
  });

  it('throw a TypeError when they validate asynchronously, and leave no unhandled rejection', () => {
    const project = compileProjection(withoutJsonSchema(() => Promise.reject(new Error('async'))));
    expect(() => project({ id: 1 })).toThrow(/asynchronously/);
  });

  it('a custom Standard Schema without jsonSchema sends what its validate gives', () => {
    const project = compileProjection(withoutJsonSchema((value) => ({ value: { id: (value as { id: number }).id } })));
    expect(project(user)).toStrictEqual({ id: 7 });
  });

  it('a zod transform is projected by its input shape, without running the transform', () => {
    const project = compileProjection(z.object({ name: z.string() }).transform((value) => ({ ...value, upper: value.name.toUpperCase() })));
    expect(project({ name: 'ada', passwordHash: 'x' })).toStrictEqual({ name: 'ada' });
  });
});
