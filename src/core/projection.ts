/**
 * Projection: a response schema keeps only the fields it declares, whatever format the client asks
 * for. The schema's JSON Schema is compiled once into a graph of nodes; each response then walks the
 * result along that graph.
 */
import { jsonSchemaOf, type StandardIssue, type StandardResult, type StandardSchema } from './standard-schema.js';

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

/** What a schema keeps of an object. */
interface ObjectPlan {
  /** `null`: declared as `false`, so dropped. */
  readonly properties: ReadonlyMap<string, SchemaNode | null>;
  readonly patterns: readonly (readonly [RegExp, SchemaNode | null])[];
  /** The schema of undeclared keys; undefined drops them. */
  readonly additional: SchemaNode | undefined;
}

/** What a schema keeps of an array. */
interface ArrayPlan {
  readonly prefix: readonly SchemaNode[];
  /** The schema of the items after `prefix`; undefined drops them. */
  readonly rest: SchemaNode | undefined;
}

/** What a schema keeps of a value. */
interface Plan {
  /** Accepts any value: keep it as it is. */
  readonly any: boolean;
  /** Undefined: the schema declares nothing about objects, so an object keeps no key. */
  readonly object: ObjectPlan | undefined;
  /** Undefined: the schema does not describe arrays, so their items keep nothing either. */
  readonly array: ArrayPlan | undefined;
}

/** One schema object of the JSON Schema, compiled. */
interface SchemaNode {
  plan: Plan | undefined;
  /** What the schema's own keywords keep. */
  own: Plan;
  /** `$ref` and `allOf`: the value must match all of them. */
  readonly every: SchemaNode[];
  /** `anyOf` and `oneOf`: the value matches one branch of each list. */
  readonly some: SchemaNode[][];
  resolving: boolean;
}

const ANY_PLAN: Plan = { any: true, object: undefined, array: undefined };
const NOTHING_PLAN: Plan = { any: false, object: undefined, array: undefined };
const ANY: SchemaNode = { plan: ANY_PLAN, own: ANY_PLAN, every: [], some: [], resolving: false };
/** Keeps primitives and no key of any object: where a schema and a value disagree. */
const NOTHING: SchemaNode = { plan: NOTHING_PLAN, own: NOTHING_PLAN, every: [], some: [], resolving: false };
const MISMATCHED_ARRAY: ArrayPlan = { prefix: [], rest: NOTHING };

/**
 * Keywords that say something about objects or arrays. A schema with none of them (`{}`, `true`, or
 * only annotations and string or number constraints) accepts any object as it is; an unknown keyword
 * such as `.meta()` data must not turn `z.unknown()` into "keep nothing".
 */
const STRUCTURAL_KEYWORDS = [
  'type',
  'const',
  'enum',
  'not',
  'if',
  'properties',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'required',
  'dependentSchemas',
  'dependencies',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedItems',
  '$dynamicRef',
  '$recursiveRef',
] as const;

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
  if (json === undefined) return validatingProjection(schema);
  const root = compileGraph(json);
  if (root.plan!.any) return (value) => value;
  return (value) => project(root, value, 0);
}

function validatingProjection(schema: StandardSchema): Projection {
  const standard = schema['~standard'];
  return (value) => {
    const result: StandardResult<unknown> | PromiseLike<StandardResult<unknown>> = standard.validate(value);
    if (typeof (result as PromiseLike<unknown>).then === 'function') {
      // Nobody awaits this promise: a rejection must not become an unhandled one.
      Promise.resolve(result).catch(() => undefined);
      throw new TypeError(`The response schema (${standard.vendor}) validates asynchronously and has no JSON Schema, so it cannot strip fields from a result`);
    }
    const { issues } = result as StandardResult<unknown>;
    if (issues !== undefined) {
      throw new TypeError('The result does not match its response schema', { cause: issues satisfies ReadonlyArray<StandardIssue> });
    }
    return (result as { value: unknown }).value;
  };
}

/** Compiles every schema object reachable from the root, then every node's plan, once. */
function compileGraph(root: Record<string, unknown>): SchemaNode {
  const nodes = new Map<object, SchemaNode>();
  const compile = (schema: unknown): SchemaNode | undefined => {
    if (schema === false) return undefined;
    if (schema === true) return ANY;
    // Not a schema at all: fail closed.
    if (!isRecord(schema)) return NOTHING;
    const known = nodes.get(schema);
    if (known !== undefined) return known;
    const node: SchemaNode = { plan: undefined, own: ANY_PLAN, every: [], some: [], resolving: false };
    // Registered before its children, so that a reference back to it finds it.
    nodes.set(schema, node);
    node.own = ownPlan(schema, compile);
    if (typeof schema.$ref === 'string') node.every.push(compile(resolvePointer(root, schema.$ref)) ?? NOTHING);
    for (const branch of listOf(schema.allOf)) node.every.push(compile(branch) ?? NOTHING);
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      if (!Array.isArray(schema[keyword])) continue;
      // A `false` branch matches no value, so it adds nothing to the union.
      node.some.push(listOf(schema[keyword]).flatMap((branch) => compile(branch) ?? []));
    }
    return node;
  };
  const rootNode = compile(root) ?? NOTHING;
  for (const node of nodes.values()) planOf(node);
  return rootNode;
}

/** The plan of a node: its own keywords, intersected with its `$ref`/`allOf` and its unions. */
function planOf(node: SchemaNode): Plan {
  if (node.plan !== undefined) return node.plan;
  // A schema that is its own part (`{ "$ref": "#" }` at the root) describes no value: keep nothing.
  if (node.resolving) return NOTHING_PLAN;
  node.resolving = true;
  const parts = [node.own, ...node.every.map(planOf), ...node.some.map((branches) => unite(branches.map(planOf)))];
  node.plan = parts.length === 1 ? node.own : intersect(parts);
  node.resolving = false;
  return node.plan;
}

function ownPlan(schema: Record<string, unknown>, compile: (schema: unknown) => SchemaNode | undefined): Plan {
  if (!STRUCTURAL_KEYWORDS.some((keyword) => Object.hasOwn(schema, keyword))) return ANY_PLAN;
  return { any: false, object: objectPlan(schema, compile), array: arrayPlan(schema, compile) };
}

function objectPlan(schema: Record<string, unknown>, compile: (schema: unknown) => SchemaNode | undefined): ObjectPlan | undefined {
  const { properties, patternProperties, additionalProperties } = schema;
  if (properties === undefined && patternProperties === undefined && additionalProperties === undefined) return undefined;
  const declared = new Map<string, SchemaNode | null>();
  if (isRecord(properties)) for (const key of Object.keys(properties)) declared.set(key, compile(properties[key]) ?? null);
  // Keys matching a pattern are declared, not additional: arktype writes index signatures such as
  // `[/^x-/]` this way, and fast-json-stringify keeps them too, so the JSON path and this one agree.
  const patterns: (readonly [RegExp, SchemaNode | null])[] = [];
  if (isRecord(patternProperties)) {
    for (const source of Object.keys(patternProperties)) {
      const pattern = toRegExp(source);
      if (pattern !== undefined) patterns.push([pattern, compile(patternProperties[source]) ?? null]);
    }
  }
  return { properties: declared, patterns, additional: additionalProperties === undefined ? undefined : compile(additionalProperties) };
}

function arrayPlan(schema: Record<string, unknown>, compile: (schema: unknown) => SchemaNode | undefined): ArrayPlan | undefined {
  const { items, prefixItems, additionalItems } = schema;
  const tuple = (positions: unknown[], rest: unknown): ArrayPlan => ({
    prefix: positions.map((position) => compile(position) ?? NOTHING),
    // Like `additionalProperties`: items no schema describes are dropped.
    rest: rest === undefined ? undefined : compile(rest),
  });
  if (Array.isArray(items)) return tuple(items, additionalItems);
  if (Array.isArray(prefixItems)) return tuple(prefixItems, items);
  if (items !== undefined) return { prefix: [], rest: compile(items) };
  // arktype writes `unknown[]` as `{ "type": "array" }`: an array of anything.
  const { type } = schema;
  return type === 'array' || (Array.isArray(type) && type.includes('array')) ? { prefix: [], rest: ANY } : undefined;
}

/** All of the parts: schemas that accept anything add nothing; undeclared keys stay only if every part allows them. */
function intersect(parts: readonly Plan[]): Plan {
  const constraining = parts.filter((part) => !part.any);
  if (constraining.length === 0) return ANY_PLAN;
  if (constraining.length === 1) return constraining[0]!;
  const objects = constraining.flatMap((part) => part.object ?? []);
  return {
    any: false,
    object: objects.length === 0 ? undefined : mergeObjects(objects, objects.every((object) => object.additional !== undefined)),
    array: constraining.find((part) => part.array !== undefined)?.array,
  };
}

/** One of the branches: keys any branch declares, undeclared keys if any branch allows them. */
function unite(branches: readonly Plan[]): Plan {
  if (branches.length === 0) return NOTHING_PLAN;
  if (branches.some((branch) => branch.any)) return ANY_PLAN;
  const objects = branches.flatMap((branch) => branch.object ?? []);
  return {
    any: false,
    object: objects.length === 0 ? undefined : mergeObjects(objects, objects.some((object) => object.additional !== undefined)),
    array: branches.find((branch) => branch.array !== undefined)?.array,
  };
}

function mergeObjects(objects: readonly ObjectPlan[], keepAdditional: boolean): ObjectPlan {
  const properties = new Map<string, SchemaNode | null>();
  for (const object of objects) {
    for (const [key, node] of object.properties) if (!properties.has(key)) properties.set(key, node);
  }
  return {
    properties,
    patterns: objects.flatMap((object) => object.patterns),
    additional: keepAdditional ? objects.find((object) => object.additional !== undefined)?.additional : undefined,
  };
}

/** `#`, `#/definitions/Name`, `#/$defs/Name` or any JSON Pointer into the same document. */
function resolvePointer(root: Record<string, unknown>, ref: string): unknown {
  if (!ref.startsWith('#')) throw new TypeError(`compileProjection: the response schema's JSON Schema refers to another document (${ref}); only references inside it are supported`);
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    throw new TypeError(`compileProjection: the response schema's JSON Schema has a malformed reference (${ref})`);
  }
  if (pointer === '') return root;
  let target: unknown = root;
  for (const token of pointer.slice(1).split('/')) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    target = Array.isArray(target) ? target[Number(key)] : isRecord(target) && Object.hasOwn(target, key) ? target[key] : undefined;
    if (target === undefined) throw new TypeError(`compileProjection: the response schema's JSON Schema refers to ${ref}, which it does not define`);
  }
  return target;
}

/** JSON Schema patterns are ECMA-262 regular expressions; one this engine rejects matches no key, so its keys are dropped. */
function toRegExp(source: string): RegExp | undefined {
  try {
    return new RegExp(source, 'u');
  } catch {
    try {
      return new RegExp(source);
    } catch {
      return undefined;
    }
  }
}

function project(node: SchemaNode, value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const plan = node.plan!;
  if (plan.any) return value;
  let source: object = value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const converted: unknown = toJSON.call(value);
    if (typeof converted !== 'object' || converted === null) return value;
    source = converted;
  }
  if (depth === MAX_DEPTH) throw new TypeError(`The result is nested deeper than ${MAX_DEPTH} objects and arrays, or has a cycle`);
  return Array.isArray(source) ? projectArray(plan.array ?? MISMATCHED_ARRAY, source, depth + 1) : projectObject(plan.object, source, depth + 1);
}

/** Copies only once something differs, so a result with nothing to drop is returned as it is. */
function projectObject(plan: ObjectPlan | undefined, value: object, depth: number): object {
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let copy: Record<string, unknown> | undefined;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const node = plan === undefined ? null : nodeOfKey(plan, key);
    if (node === null) {
      copy ??= copyKeys(record, keys, index);
      continue;
    }
    const child = record[key];
    const projected = project(node, child, depth);
    if (copy === undefined && projected !== child) copy = copyKeys(record, keys, index);
    if (copy !== undefined) put(copy, key, projected);
  }
  return copy ?? value;
}

function nodeOfKey(plan: ObjectPlan, key: string): SchemaNode | null {
  const declared = plan.properties.get(key);
  if (declared !== undefined) return declared;
  for (const [pattern, node] of plan.patterns) if (pattern.test(key)) return node;
  return plan.additional ?? null;
}

function copyKeys(record: Record<string, unknown>, keys: readonly string[], end: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (let index = 0; index < end; index++) put(copy, keys[index]!, record[keys[index]!]);
  return copy;
}

/** A `__proto__` key (from `JSON.parse`) stays an own property instead of replacing the copy's prototype. */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function projectArray(plan: ArrayPlan, value: readonly unknown[], depth: number): readonly unknown[] {
  const { prefix, rest } = plan;
  const length = rest === undefined ? Math.min(value.length, prefix.length) : value.length;
  let copy: unknown[] | undefined;
  for (let index = 0; index < length; index++) {
    const child = value[index];
    const projected = project(index < prefix.length ? prefix[index]! : rest!, child, depth);
    if (copy === undefined && projected !== child) copy = value.slice(0, index);
    if (copy !== undefined) copy.push(projected);
  }
  return copy ?? (length < value.length ? value.slice(0, length) : value);
}

function listOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
