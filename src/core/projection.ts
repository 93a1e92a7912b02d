/**
 * Projection: a response schema keeps only the fields it declares, whatever format the client asks
 * for. The schema's JSON Schema is compiled once into a graph of nodes; each response then walks the
 * result along that graph.
 */
import { jsonSchemaOf, type StandardResult, type StandardSchema } from './standard-schema.js';

/**
 * Keeps what a response schema declares of a result and drops the rest. Returns the result itself
 * when nothing is dropped, a copy otherwise; it never changes the result.
 *
 * @example
 * const project: Projection = compileProjection(z.object({ id: z.number() }));
 * project({ id: 7, passwordHash: 'x' }); // { id: 7 }
 */
export type Projection = (value: unknown) => unknown;

/**
 * Containers a result may nest. A cycle reached through the schema nests without end, so it is
 * refused by the same bound, on its first turn round the loop, before any fan-out can multiply.
 */
const MAX_DEPTH = 64;

/** What a schema keeps of an object. `null`: the schema is `false` or absent, so the key is dropped. */
interface ObjectPlan {
  readonly properties: ReadonlyMap<string, SchemaNode | null>;
  readonly patterns: readonly (readonly [RegExp, SchemaNode | null])[];
  /** The schema of undeclared keys. */
  readonly additional: SchemaNode | null;
}

/** What a schema keeps of an array. */
interface ArrayPlan {
  readonly prefix: readonly SchemaNode[];
  /** The schema of the items after `prefix`; `null` drops them. */
  readonly rest: SchemaNode | null;
}

/** What a schema keeps of a value; `ANY_PLAN` keeps it as it is. */
interface Plan {
  /** Undefined: the schema declares nothing about objects, so an object keeps no key. */
  readonly object: ObjectPlan | undefined;
  /** Undefined: the schema does not describe arrays, so their items keep nothing either. */
  readonly array: ArrayPlan | undefined;
}

/** One schema object of the JSON Schema, compiled. */
interface SchemaNode {
  plan: Plan | undefined;
  /**
   * The value matches one node of each group: the schema's own keywords, its `$ref`, each `allOf`
   * branch, its `anyOf` and its `oneOf`.
   */
  readonly groups: (readonly SchemaNode[])[];
}

// Every plan and node has the same shape, so that the per-response walk reads their fields monomorphically.
const ANY_PLAN: Plan = { object: undefined, array: undefined };
const NOTHING_PLAN: Plan = { object: undefined, array: undefined };
const ANY: SchemaNode = { plan: ANY_PLAN, groups: [] };
/** Keeps primitives and no key of any object: where a schema and a value disagree. */
const NOTHING: SchemaNode = { plan: NOTHING_PLAN, groups: [] };
const NO_KEYS: ObjectPlan = { properties: new Map(), patterns: [], additional: null };
const NO_ITEMS: ArrayPlan = { prefix: [], rest: NOTHING };

/**
 * Keywords that say something about objects or arrays. A schema with none of them (`{}`, `true`, or
 * only annotations and string or number constraints) accepts any object as it is; an unknown keyword
 * such as `.meta()` data must not turn `z.unknown()` into "keep nothing".
 */
const STRUCTURAL_KEYWORDS = (
  'type const enum not if properties additionalProperties patternProperties propertyNames required dependentSchemas dependencies ' +
  'unevaluatedProperties items prefixItems additionalItems contains unevaluatedItems $dynamicRef $recursiveRef'
).split(' ');

/**
 * Compiles a response schema into the function that keeps only what it declares. Build it once per
 * endpoint; the function it returns runs per response and throws a `TypeError` for a result nested
 * deeper than 64 objects and arrays or with a cycle (JSON cannot carry either).
 *
 * - Objects keep the keys in `properties`, the keys matching `patternProperties`, and other keys only
 *   when `additionalProperties` is `true` or a schema (records, loose objects): without it they are
 *   dropped, as fast-json-stringify does. Each kept value is projected by its own schema.
 * - Arrays keep their items (`items`; tuples through `prefixItems`, or array `items` in draft-07,
 *   drop the items after the last position unless `additionalItems`/`items` describes them).
 * - Unions (`anyOf`, `oneOf`, nullable `type` lists) keep the keys any branch declares.
 * - Strings, numbers, booleans and `null` are kept as they are, and so is an object whose `toJSON`
 *   gives a primitive (a `Date`); an object whose `toJSON` gives an object is projected from what
 *   `toJSON` gives, which is what every serializer would write.
 *
 * A schema without a JSON Schema (a zod `z.date()` or `z.bigint()`, a custom Standard Schema without
 * `jsonSchema`) is applied with its own `~standard.validate` instead, and its output is sent: zod and
 * valibot objects drop unknown keys, arktype keeps them. The function then throws a `TypeError` when
 * the result does not match the schema, or when the schema validates asynchronously (a projection
 * must be synchronous).
 *
 * @example
 * const project = compileProjection(z.object({ id: z.number(), name: z.string() }));
 * project({ id: 7, name: 'Ada', passwordHash: '$2b$...' }); // { id: 7, name: 'Ada' }
 */
export function compileProjection(schema: StandardSchema): Projection {
  // Draft-07 first: it is the JSON Schema the `serializerCompiler` gets, so both paths keep the same keys.
  const json = jsonSchemaOf(schema, 'draft-07') ?? jsonSchemaOf(schema, 'draft-2020-12');
  if (json !== undefined) {
    const root = compileGraph(json, false);
    return root.plan === ANY_PLAN ? (value) => value : (value) => project(root, value, 0, MAX_DEPTH);
  }
  const standard = schema['~standard'];
  return (value) => {
    const result = standard.validate(value) as StandardResult<unknown> & Partial<PromiseLike<unknown>>;
    if (result.then) {
      // Nobody awaits this promise: a rejection must not become an unhandled one.
      result.then(undefined, () => undefined);
      throw new TypeError(`The response schema (${standard.vendor}) has no JSON Schema and validates asynchronously`);
    }
    if (result.issues) throw new TypeError('The result does not match its response schema', { cause: result.issues });
    return result.value;
  };
}

/**
 * Keeps only the members a schema names, at every depth: what a client may write of an item, for a
 * merge patch. Unlike {@link compileProjection}, an object that names members keeps no other key,
 * even where the schema takes others (zod `looseObject`, `passthrough`, `catchall`; valibot
 * `looseObject`, `objectWithRest`): an item's `id`, owner or flags are not named, so they never
 * reach the schema, and a patch cannot set them. Keys matching a `patternProperties` pattern are
 * named too. An object that names none (a record) keeps every key it allows. It walks as deep as
 * `maxDepth` (at least 64) before it throws. Undefined for a schema without a JSON Schema, whose
 * members cannot be told.
 *
 * @example
 * const writable = compileWritable(z.looseObject({ title: z.string() }))!;
 * writable({ id: 1, ownerId: 2, title: 'x' }); // { title: 'x' }
 */
export function compileWritable(schema: StandardSchema, maxDepth = MAX_DEPTH): Projection | undefined {
  // As deep as a body may nest (the API's `maxDepth`): a patch that passed it is never a 500 here.
  return compileTolerant(schema, true, Math.max(MAX_DEPTH, maxDepth + 1));
}

/**
 * What the JSON Schema of a schema keeps of a value, for checks made when an API is built: as
 * {@link compileProjection} does, but never by validating, and with `{}` (anything) where a part has
 * no JSON Schema, such as a `Date`, so that the objects around it are still read. Undefined for a
 * schema without a JSON Schema at all.
 *
 * @example
 * compileStructure(z.object({ id: z.number(), at: z.date() }))!({ id: 1, at: 'x', salary: 2 }); // { id: 1, at: 'x' }
 */
export function compileStructure(schema: StandardSchema): Projection | undefined {
  return compileTolerant(schema, false, MAX_DEPTH);
}

/**
 * Asks each library for `{}` where it has no JSON Schema of a part instead of failing: zod's
 * `unrepresentable`, valibot's `errorMode`, arktype's `fallback`. Each ignores the others' options.
 */
const TOLERANT = { unrepresentable: 'any', errorMode: 'ignore', fallback: (context: { base: unknown }) => context.base };

/** The projection of a schema's JSON Schema as {@link compileProjection} reads it, else of one with `{}` for the parts that have none. */
function compileTolerant(schema: StandardSchema, named: boolean, limit: number): Projection | undefined {
  const json = jsonSchemaOf(schema, 'draft-07') ?? jsonSchemaOf(schema, 'draft-2020-12') ?? jsonSchemaOf(schema, 'draft-07', TOLERANT);
  if (json === undefined) return undefined;
  const root = compileGraph(json, named);
  return (value) => project(root, value, 0, limit);
}

/**
 * Compiles every schema object reachable from the root, then every node's plan, once. `named`: an
 * object that names members keeps no other key ({@link compileWritable}).
 */
function compileGraph(root: Record<string, unknown>, named: boolean): SchemaNode {
  const nodes = new Map<object, SchemaNode>();
  // `null` for `false` (or no schema at all): it matches nothing, so what it would describe is dropped.
  const compile = (schema: unknown): SchemaNode | null => {
    if (schema === true) return ANY;
    if (schema === false || schema === undefined) return null;
    // Not a schema at all: fail closed.
    if (!isRecord(schema)) return NOTHING;
    let node = nodes.get(schema);
    if (node === undefined) {
      const { $ref, allOf, anyOf, oneOf } = schema;
      const groups: SchemaNode[][] = [];
      // Registered before its children, so that a reference back to it finds it.
      nodes.set(schema, (node = { plan: undefined, groups }));
      // A `false` branch matches no value, so it adds nothing to the union.
      const group = (branches: unknown[]) => groups.push(branches.flatMap((branch) => compile(branch) ?? []));
      groups.push([{ plan: ownPlan(schema, compile, named), groups: [] }]);
      if (typeof $ref === 'string') group([resolvePointer(root, $ref)]);
      if (Array.isArray(allOf)) for (const branch of allOf) group([branch]);
      for (const branches of [anyOf, oneOf]) if (Array.isArray(branches)) group(branches);
    }
    return node;
  };
  const rootNode = compile(root)!;
  for (const node of nodes.values()) planOf(node);
  return rootNode;
}

/** The plan of a node: the intersection of its groups, each the union of its nodes. */
function planOf(node: SchemaNode): Plan {
  if (node.plan === undefined) {
    // A schema that is its own part (`{ "$ref": "#" }` at the root) describes no value: keep nothing.
    node.plan = NOTHING_PLAN;
    node.plan = combine(
      node.groups.map((group) => combine(group.map(planOf), false)),
      true,
    );
  }
  return node.plan;
}

function ownPlan(schema: Record<string, unknown>, compile: (schema: unknown) => SchemaNode | null, named: boolean): Plan {
  if (!STRUCTURAL_KEYWORDS.some((keyword) => Object.hasOwn(schema, keyword))) return ANY_PLAN;
  const { properties, patternProperties, items, prefixItems, additionalItems, type } = schema;
  let { additionalProperties } = schema;
  // Only the named members are writable: the other keys a loose object takes are the item's own (`id`, an owner).
  if (named && [properties, patternProperties].some((names) => isRecord(names) && Object.keys(names).length > 0)) additionalProperties = false;
  const tuple = (positions: unknown[], rest: unknown): ArrayPlan => ({ prefix: positions.map((position) => compile(position) ?? NOTHING), rest: compile(rest) });
  return {
    object:
      properties === undefined && patternProperties === undefined && additionalProperties === undefined
        ? undefined
        : {
            properties: new Map(isRecord(properties) ? Object.entries(properties).map(([key, value]) => [key, compile(value)]) : []),
            // Keys matching a pattern are declared, not additional: arktype writes index signatures such as
            // `[/^x-/]` this way, and fast-json-stringify keeps them too, so the JSON path and this one agree.
            patterns: isRecord(patternProperties)
              ? Object.entries(patternProperties).flatMap(([source, value]) => {
                  const pattern = toRegExp(source);
                  return pattern ? [[pattern, compile(value)] as const] : [];
                })
              : [],
            additional: compile(additionalProperties),
          },
    // Like `additionalProperties`: items no schema describes are dropped. arktype writes `unknown[]`
    // as `{ "type": "array" }`: an array of anything.
    array: Array.isArray(items)
      ? tuple(items, additionalItems)
      : Array.isArray(prefixItems)
        ? tuple(prefixItems, items)
        : items !== undefined
          ? tuple([], items)
          : [type].flat().includes('array')
            ? tuple([], true)
            : undefined,
  };
}

/**
 * One part of each (`all`), or one of the parts. All: parts that accept anything add nothing, and
 * undeclared keys stay only if every part allows them. One: keys any part declares, undeclared keys
 * if any part allows them.
 */
function combine(parts: Plan[], all: boolean): Plan {
  if (all) parts = parts.filter((part) => part !== ANY_PLAN);
  else if (parts.includes(ANY_PLAN)) return ANY_PLAN;
  if (parts.length < 2) return parts[0] ?? (all ? ANY_PLAN : NOTHING_PLAN);
  const objects = parts.flatMap((part) => part.object ?? []);
  const properties = new Map<string, SchemaNode | null>();
  for (const object of objects) for (const [key, node] of object.properties) if (!properties.has(key)) properties.set(key, node);
  return {
    object: objects.length === 0 ? undefined : {
      properties,
      patterns: objects.flatMap((object) => object.patterns),
      additional: all && objects.some((object) => !object.additional) ? null : (objects.find((object) => object.additional)?.additional ?? null),
    },
    array: parts.find((part) => part.array)?.array,
  };
}

/** `#`, `#/definitions/Name`, `#/$defs/Name` or any JSON Pointer into the same document. */
function resolvePointer(root: Record<string, unknown>, ref: string): unknown {
  try {
    const [head, ...tokens] = decodeURIComponent(ref.slice(1)).split('/');
    let target: unknown = ref[0] === '#' && !head ? root : undefined;
    for (const token of tokens) {
      const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
      // Own keys only: `#/__proto__` must not reach `Object.prototype`, a schema that accepts anything.
      target = Object.hasOwn(target as object, key) ? (target as Record<string, unknown>)[key] : undefined;
    }
    if (target !== undefined) return target;
  } catch {
    // A malformed percent-escape, or a path through `null` or `undefined`.
  }
  throw new TypeError(`compileProjection: the JSON Schema does not define ${ref}`);
}

/** JSON Schema patterns are ECMA-262 regular expressions; one this engine rejects matches no key, so its keys are dropped. */
function toRegExp(source: string): RegExp | undefined {
  // Then without `u`: Annex B patterns such as `\-` outside a class are refused in unicode mode.
  for (const flags of ['u', '']) {
    try {
      return new RegExp(source, flags);
    } catch {
      continue;
    }
  }
  return undefined;
}

function project(node: SchemaNode, value: unknown, depth: number, limit: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const plan = node.plan!;
  if (plan === ANY_PLAN) return value;
  const { toJSON } = value as { toJSON?: unknown };
  const source: unknown = typeof toJSON === 'function' ? toJSON.call(value) : value;
  if (typeof source !== 'object' || source === null) return value;
  if (depth === limit) throw new TypeError(`The result nests deeper than ${limit} levels or has a cycle`);
  return Array.isArray(source) ? projectArray(plan.array ?? NO_ITEMS, source, depth + 1, limit) : projectObject(plan.object ?? NO_KEYS, source as Record<string, unknown>, depth + 1, limit);
}

/** Copies only once something differs, so a result with nothing to drop is returned as it is. */
function projectObject(plan: ObjectPlan, value: Record<string, unknown>, depth: number, limit: number): object {
  const keys = Object.keys(value);
  let copy: Record<string, unknown> | undefined;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const node = nodeOfKey(plan, key);
    const child = node === null ? undefined : value[key];
    const projected = node === null ? child : project(node, child, depth, limit);
    if (copy === undefined && (node === null || projected !== child)) {
      copy = {};
      for (let kept = 0; kept < index; kept++) put(copy, keys[kept]!, value[keys[kept]!]);
    }
    if (copy !== undefined && node !== null) put(copy, key, projected);
  }
  return copy ?? value;
}

function nodeOfKey(plan: ObjectPlan, key: string): SchemaNode | null {
  const declared = plan.properties.get(key);
  if (declared !== undefined) return declared;
  for (const [pattern, node] of plan.patterns) if (pattern.test(key)) return node;
  return plan.additional;
}

/** A `__proto__` key (from `JSON.parse`) stays an own property instead of replacing the copy's prototype. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function projectArray(plan: ArrayPlan, value: readonly unknown[], depth: number, limit: number): readonly unknown[] {
  const { prefix, rest } = plan;
  const length = rest ? value.length : Math.min(value.length, prefix.length);
  let copy: unknown[] | undefined;
  for (let index = 0; index < length; index++) {
    const child = value[index];
    const projected = project(index < prefix.length ? prefix[index]! : rest!, child, depth, limit);
    if (copy === undefined && projected !== child) copy = value.slice(0, index);
    copy?.push(projected);
  }
  return copy ?? (length < value.length ? value.slice(0, length) : value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
