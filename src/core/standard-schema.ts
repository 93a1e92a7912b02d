/**
 * The Standard Schema interface (standardschema.dev), declared here so that restcanon's published
 * types need no package: zod 4, valibot 1, arktype 2 and others implement it structurally.
 */

/** A path segment of an issue, as some libraries report it. */
export interface StandardPathSegment {
  readonly key: PropertyKey;
}

/** One problem a schema found. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | StandardPathSegment> | undefined;
}

/** What `validate` returns: the parsed value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/**
 * Any schema that implements Standard Schema v1.
 *
 * @example
 * import { z } from 'zod';
 * const schema: StandardSchema<unknown, { name: string }> = z.object({ name: z.string() });
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/**
 * The type a schema produces.
 *
 * @example
 * type User = InferOutput<typeof UserSchema>;
 */
export type InferOutput<Schema> = Schema extends StandardSchema<unknown, infer Output> ? Output : unknown;

/**
 * The type a schema accepts.
 *
 * @example
 * type NewUser = InferInput<typeof NewUserSchema>;
 */
export type InferInput<Schema> = Schema extends StandardSchema<infer Input, unknown> ? Input : unknown;

/**
 * The JSON Schema of the values a schema accepts, through Standard JSON Schema (`~standard.jsonSchema`,
 * which recent zod 4 releases, arktype 2.1.28+ and valibot's `toStandardJsonSchema` implement). Undefined when the
 * schema has no such interface or its type has no JSON Schema (a `Date`, a transform). `libraryOptions`
 * go to the library as Standard JSON Schema passes them.
 *
 * @example
 * jsonSchemaOf(z.object({ id: z.number() }), 'draft-07'); // { $schema: ..., type: 'object', properties: { id: { type: 'number' } }, ... }
 */
export function jsonSchemaOf(schema: StandardSchema, target: 'draft-07' | 'draft-2020-12', libraryOptions?: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    const converted = (schema['~standard'] as { jsonSchema?: { input?: (options: { target: string; libraryOptions?: object }) => unknown } }).jsonSchema?.input?.(libraryOptions === undefined ? { target } : { target, libraryOptions });
    return typeof converted === 'object' && converted !== null && !Array.isArray(converted) ? (converted as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Throws a `TypeError` naming `what` unless the value is undefined or a Standard Schema: a JSON
 * Schema passed by mistake fails where it is declared.
 *
 * @example
 * checkSchema(config.response, 'endpoint(GET /me): "response"');
 */
export function checkSchema(value: unknown, what: string): void {
  if (value !== undefined && !isStandardSchema(value)) throw new TypeError(`${what} must be a Standard Schema, such as a zod schema`);
}

/**
 * Whether a value implements Standard Schema v1.
 *
 * @example
 * isStandardSchema(z.string()); // true
 */
export function isStandardSchema(value: unknown): value is StandardSchema {
  const props = (value as { '~standard'?: { validate?: unknown } } | null | undefined)?.['~standard'];
  return typeof props === 'object' && props !== null && typeof props.validate === 'function';
}
