import type { Endpoint } from '../core/endpoint.js';
import type { Outcome } from '../core/outcomes.js';
import type { StandardSchema } from '../core/standard-schema.js';
import type { JsonSchema } from './schemas.js';

/**
 * What a convention adds to the OpenAPI document: each convention's `openapi.ts` gives one, and the
 * document asks every one of them about every operation.
 */

/** How a convention's part turns schemas into the document's. */
export interface PartBook {
  /** A part of a request under a name: a `$ref` where it had to become a component. */
  embed(schema: StandardSchema, name: string): JsonSchema;
  /** A body or an answer as a component of its own, once per schema, under the first free name offered: its `$ref`. */
  model(schema: StandardSchema, offered: readonly string[]): JsonSchema;
  /** A component made from a schema by `transform` (its merge patch, say), once per schema and transform, under the first free name offered. */
  variant(schema: StandardSchema, offered: readonly string[], transform: (derived: JsonSchema) => JsonSchema): JsonSchema;
}

/**
 * A convention's part of the OpenAPI document. Every member is optional; each gives nothing for an
 * endpoint that does not use the convention.
 *
 * @example
 * const part: OpenApiPart = { headers: (endpoint, outcome) => (outcome === 'list' ? { 'X-Total-Count': { schema: { type: 'integer' } } } : undefined) };
 */
export interface OpenApiPart {
  /** The parameters it reads: those `in: 'query'` go before the endpoint's query, those in headers after its headers. */
  parameters?(endpoint: Endpoint, book: PartBook, name: string): JsonSchema[];
  /** The request body, where the convention takes one instead of the endpoint's own (a merge patch). */
  requestBody?(endpoint: Endpoint, book: PartBook, names: readonly string[]): JsonSchema | undefined;
  /** Headers of the success answer of an outcome (`ETag`, `Link`). */
  headers?(endpoint: Endpoint, outcome: Outcome): JsonSchema | undefined;
  /** The body of a paged list, from the schema of its items. */
  page?(items: JsonSchema): JsonSchema;
  /**
   * The answers it adds to an operation beyond those of its outcomes, and the header parameters
   * that ask for them (the ranges of a GET of bytes: `Range`, a 206, a 416), from the API's formats.
   */
  answers?(endpoint: Endpoint, formats: readonly { type: string }[]): PartAnswers | undefined;
  /**
   * What it marks on the whole operation once it is built (`deprecated`, an `x-` extension, headers
   * on every answer): it changes `operation` in place.
   */
  operation?(endpoint: Endpoint, operation: JsonSchema): void;
}

/**
 * What a convention's part adds to an operation's answers (see {@link OpenApiPart.answers}).
 *
 * @example
 * const added: PartAnswers = { errors: { 416: { reason: 'no range lies within the body' } } };
 */
export interface PartAnswers {
  /** Header parameters that ask for these answers, after every other parameter. */
  readonly parameters?: readonly JsonSchema[] | undefined;
  /** Successes by status, each described whole (description, headers, content). */
  readonly successes?: Readonly<Record<number, JsonSchema>> | undefined;
  /** Errors by status: what the status means here, and the headers it carries; its body is the API's problem. */
  readonly errors?: Readonly<Record<number, { readonly reason: string; readonly headers?: JsonSchema | undefined }>> | undefined;
}
