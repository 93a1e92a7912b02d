import type { Promisable, Simplify } from 'type-fest' with { 'resolution-mode': 'import' };
import type { HeaderRecord, QueryRecord } from '../core/contract.js';
import type { Authorize, ChosenOutcome, Context, DeclaredErrors, BodyOption, EventsOptions, Principal } from '../core/endpoint.js';
import type { PathParams } from '../core/path.js';
import type { Operation } from '../core/policy.js';
import type { InferInput, InferOutput, StandardSchema } from '../core/standard-schema.js';
import type { PartSchema } from '../core/validation.js';
import type { ConditionalOption } from '../conventions/conditional/declare.js';

/**
 * The types of `endpoint()`'s declaration: its options, the context its handler receives, and what it
 * records for `restcanon/client`.
 */

/** The params a handler sees: the schemas' outputs where given, strings elsewhere. */
export type ParamsOf<Path extends string, Schema> = Schema extends StandardSchema
  ? InferOutput<Schema>
  : Schema extends Readonly<Record<string, StandardSchema>>
    ? Simplify<Omit<PathParams<Path>, keyof Schema> & { [K in keyof Schema]: InferOutput<Schema[K]> }>
    : PathParams<Path>;

/** A part's type: the schema's output, or the fallback without a schema. */
export type PartOf<Schema, Fallback> = Schema extends StandardSchema ? InferOutput<Schema> : Fallback;

/** The body a handler sees: the schema's output, `unknown` when unvalidated, bytes or their stream, nothing when ignored or without a body option. */
export type BodyOf<Schema> = Schema extends StandardSchema
  ? InferOutput<Schema>
  : Schema extends 'unvalidated'
    ? unknown
    : Schema extends 'bytes'
      ? Uint8Array
      : Schema extends 'stream'
        ? AsyncIterable<Uint8Array>
        : undefined;

/** The principal a handler sees: possibly absent on public endpoints. */
export type CallerOf<IsPublic> = IsPublic extends true ? Principal | undefined : Principal;

/**
 * The definition of one endpoint.
 *
 * @example
 * const config: EndpointConfig<'/users/:id'> = { handle: (ctx) => db.users.get(ctx.params.id) };
 */
export interface EndpointConfig<
  Path extends string,
  ParamsSchema extends PartSchema | undefined = undefined,
  QuerySchema extends StandardSchema | undefined = undefined,
  HeadersSchema extends StandardSchema | undefined = undefined,
  BodySchema extends BodyOption | undefined = undefined,
  IsPublic extends boolean = false,
  Result = unknown,
  Response extends StandardSchema | undefined = undefined,
  Loaded = unknown,
  Op extends Operation = Operation,
  Chosen extends ChosenOutcome = ChosenOutcome,
  Errors extends DeclaredErrors = DeclaredErrors,
> {
  /** What the endpoint does; decides its success status. Defaults from the method: GET read, POST submit, PUT replace, PATCH update, DELETE remove. */
  operation?: Op;
  params?: ParamsSchema;
  query?: QuerySchema;
  headers?: HeadersSchema;
  /**
   * The schema of the request body, `'unvalidated'` to take any body unchecked, `'bytes'` to take it
   * as a `Uint8Array` whatever its type, `'stream'` to read it in the handler (an async iterable of
   * `Uint8Array`, within `bodyLimit`), or `'ignored'` to let a body arrive and never read it
   * (`ctx.body` is undefined). A POST, PUT or PATCH endpoint without
   * it takes no body: a request that sends one is a 400.
   */
  body?: BodySchema;
  /**
   * Media types of request bodies, or ranges of them (`image/*`). Defaults to `['application/json']`,
   * which admits every `+json` type. JSON is parsed, `text/*` is a string, a urlencoded form a
   * record, `multipart/form-data` needs `multipart()` from `restcanon/multipart`, and any other type
   * is a `Uint8Array`.
   */
  consumes?: readonly string[];
  /**
   * The media types of its success answers, negotiated against `Accept` instead of the API's
   * formats (`['text/csv']`, `['image/png', 'image/webp']`): under a type no format writes, `handle`
   * returns bytes, a string, a `Blob` or a stream (a Node `Readable`, a `ReadableStream`, an async
   * iterable of `Uint8Array` or string chunks), sent as they are. A type of one of the API's
   * formats (`'application/json'`) writes a data result as that format does. The chosen type is
   * `ctx.responseType`.
   */
  produces?: readonly string[];
  /**
   * How the server-sent events of a `text/event-stream` answer go out: `keepAlive`, the milliseconds
   * of silence after which a comment is sent so that proxies keep the connection open (15 000 when
   * left out, 0 for none). Only with `text/event-stream` in `produces`.
   */
  events?: EventsOptions;
  /** The largest body this endpoint reads, in bytes, instead of the API's `bodyLimit` (an upload larger, a form smaller). */
  bodyLimit?: number;
  /** Reachable without a principal when the API authenticates. */
  public?: IsPublic;
  /** Extra permission check; `false` answers 403. Not on a public endpoint, which answers every caller alike. */
  authorize?: Authorize<EndpointContext<Path, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic>>;
  /** For `create`: the URL of the new item. Defaults to the request path plus the result's `id`. */
  location?: (result: Awaited<Result>, ctx: EndpointContext<Path, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic>) => string | undefined;
  /**
   * The body of a successful answer. It documents the response in OpenAPI, types what `handle` may
   * return, and with the API's `serializerCompiler` becomes this endpoint's compiled JSON
   * serializer. Results are not validated against it at run time.
   */
  response?: Response;
  /** One line for generated documentation. */
  summary?: string;
  /**
   * What this endpoint asks of the modules given to `createApi({ use })`, by their names, such as
   * `{ deprecation: { sunset: '2027-06-30' } }`: each module checks its own when the API is built, and
   * a name no module of the API has is refused then.
   */
  conventions?: Readonly<Record<string, unknown>>;
  /** Success outcomes the handler may choose with `ctx.outcome`, besides its operation's (`['accepted']`). */
  outcomes?: readonly Chosen[];
  /**
   * The domain errors the handler throws, by outcome, for the documentation (`{ conflict: 'The email
   * is taken' }`). A thrown 4xx that no step and no declaration gives is still answered, and reported
   * once to `onError` outside production.
   */
  errors?: Errors;
  /**
   * Conditional requests (RFC 9110 section 13): `load` gives the item the URL names before the
   * handler runs (nothing is a 404, and it is `ctx.item`), `etag` and `lastModified` its validators.
   * A GET whose `If-None-Match` or `If-Modified-Since` says the client's copy is current answers 304,
   * a change whose `If-Match` or `If-Unmodified-Since` does not hold answers 412, both without
   * calling `handle`; successes carry `ETag` and `Last-Modified`. `requireIfMatch` answers 428 to a
   * change that has no precondition.
   */
  conditional?: ConditionalOption<EndpointContext<Path, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic>, Loaded>;
  handle: (ctx: EndpointContext<Path, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic>) => Promisable<Result>;
}

/**
 * What a handler may return when its endpoint declares a response schema: what the schema accepts,
 * or nothing (a 404 for an item, an empty answer otherwise). Anything without one.
 */
export type ResultOf<Response> = Response extends StandardSchema ? InferInput<Response> | undefined | null : unknown;

/** The context of an endpoint, from its path and schemas. */
export type EndpointContext<Path extends string, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic> = Context<
  ParamsOf<Path, ParamsSchema>,
  PartOf<QuerySchema, QueryRecord>,
  PartOf<HeadersSchema, HeaderRecord>,
  BodyOf<BodySchema>,
  CallerOf<IsPublic>
>;

/**
 * What `endpoint()` records of an endpoint's declaration, as types only: `restcanon/client` reads
 * them to type calls and answers. Nothing is computed from them on the server.
 */
export interface EndpointFacts<M, Path, ParamsSchema, QuerySchema, BodySchema, IsPublic, Result, Response, Op, Chosen, Errors, Keys, Produces = undefined> {
  kind: 'endpoint';
  method: M;
  path: Path;
  params: ParamsSchema;
  query: QuerySchema;
  body: BodySchema;
  public: IsPublic;
  result: Result;
  response: Response;
  /** The declared operation; `never` for the method's default. */
  operation: Op;
  outcomes: Chosen;
  errors: keyof Errors;
  /** The keys of its definition, such as `authorize` and `conditional`. */
  declared: Keys;
  /** Its `produces`, each type as written; undefined for the API's formats. */
  produces: Produces;
}