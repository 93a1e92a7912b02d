import type { Promisable, Simplify } from 'type-fest' with { 'resolution-mode': 'import' };
import type { ApiRequest, HeaderRecord, QueryRecord } from './contract.js';
import type { Method } from './http.js';
import type { PathParams } from './path.js';
import type { ErrorOutcome, SuccessOutcome } from './outcomes.js';
import type { Validators } from '../conventions/conditional/conditions.js';
import type { ListRules, PageRequest, SortField } from '../conventions/lists/lists.js';
import type { Operation } from './policy.js';
import type { InferInput, InferOutput, StandardSchema } from './standard-schema.js';
import type { PartSchema } from './validation.js';

/**
 * Declare your principal type once, and every handler's `ctx.principal` is typed with it.
 *
 * @example
 * declare module 'restcanon' {
 *   interface Register { principal: { id: number; role: 'user' | 'admin' } }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface Register {}

/**
 * The principal type declared through {@link Register}, or `unknown`.
 *
 * @example
 * function isAdmin(principal: Principal) { ... }
 */
export type Principal = Register extends { principal: infer P } ? P : unknown;

/**
 * What `authenticate` gives: the caller (an object, typed by {@link Register}), or `undefined`,
 * `null` or `false` for an anonymous request.
 *
 * @example
 * const authenticate = async (request: ApiRequest): Promise<Authenticated> => db.tokens.findUnique({ where: { token: tokenOf(request) } });
 */
export type Authenticated = (Principal & object) | undefined | null | false;

/**
 * What a handler receives: validated and typed input, the caller, and the request.
 *
 * @example
 * const handle = (ctx: Context<{ id: number }>) => db.users.get(ctx.params.id);
 */
export interface Context<Params = Record<string, string>, Query = QueryRecord, Headers = HeaderRecord, Body = unknown, Caller = Principal> {
  params: Params;
  query: Query;
  headers: Headers;
  body: Body;
  principal: Caller;
  request: ApiRequest;
  /**
   * The item the URL names, when it was loaded before the handler ran (for an owner rule, a
   * precondition or a merge patch): what `read` gave. Undefined otherwise.
   */
  item: unknown;
  /**
   * Sets a header of the success answer (`Link`, `Cache-Control`, `ETag`, `X-Total-Count`, ...).
   * Not sent with an error; `Content-Type`, `Content-Encoding`, `Content-Length` and the connection's headers are
   * restcanon's; a name or value that could split the answer throws.
   *
   * @example
   * ctx.set('X-Total-Count', String(total));
   */
  set(name: string, value: string): void;
  /**
   * Answers with another success outcome than the operation's, one the endpoint declares in
   * `outcomes` (`accepted` for work that goes on, `empty` for nothing to send); the policy gives its
   * status. Any other throws: errors are thrown, never chosen.
   *
   * @example
   * ctx.outcome('accepted'); // 202
   */
  outcome(outcome: ChosenOutcome): void;
  /** What `set` and `outcome` recorded; undefined until one is called. */
  readonly reply: Reply | undefined;
}

/** What a handler set for its answer with `ctx.set` and `ctx.outcome`. */
export interface Reply {
  headers: Record<string, string>;
  outcome: ChosenOutcome | undefined;
}

/** A success outcome a handler may choose with `ctx.outcome`: any but `options`. */
export type ChosenOutcome = Exclude<SuccessOutcome, 'options'>;

/**
 * An error an endpoint declares it answers, for its documentation: what it means here, or that and
 * a schema of the members it adds to the problem body.
 *
 * @example
 * const taken: DeclaredError = { description: 'An account with this email exists' };
 */
export type DeclaredError = string | { readonly description?: string; readonly schema?: StandardSchema };

/** The domain errors an endpoint answers, by outcome. */
export type DeclaredErrors = { readonly [K in ErrorOutcome]?: DeclaredError };

/** A context before its types are known; what guards and the pipeline pass around. */
export type AnyContext = Context<any, any, any, any, any> & Partial<ListContext<any, any>>;

/** Decides whether the caller may go on; `false` answers 403. */
export type Authorize<Ctx = AnyContext> = (ctx: Ctx) => Promisable<boolean>;

/**
 * A step that runs after validation and authorization and before the handler. It may throw an
 * `HttpError` (a missing parent is 404, someone else's item 403). Resources use guards for parents
 * and ownership.
 */
export type Guard = (ctx: AnyContext) => Promisable<void>;

/**
 * A step that may change or check a result before it is sent (ownership filters lists with one).
 * `report` hands something worth an operator's attention to the API's `onError`.
 */
export type ResultFilter = (result: unknown, ctx: AnyContext, report: (error: unknown) => void) => unknown;

/** The params a handler sees: the schemas' outputs where given, strings elsewhere. */
export type ParamsOf<Path extends string, Schema> = Schema extends StandardSchema
  ? InferOutput<Schema>
  : Schema extends Readonly<Record<string, StandardSchema>>
    ? Simplify<Omit<PathParams<Path>, keyof Schema> & { [K in keyof Schema]: InferOutput<Schema[K]> }>
    : PathParams<Path>;

/** A part's type: the schema's output, or the fallback without a schema. */
export type PartOf<Schema, Fallback> = Schema extends StandardSchema ? InferOutput<Schema> : Fallback;

/**
 * The body option of an endpoint or a collection: a schema, `'unvalidated'` to take any JSON
 * unchecked (the handler then sees `unknown`), or `'ignored'` to let a body arrive and never read it
 * (the handler sees none, and the API documents none). Without any, an endpoint takes no body.
 *
 * @example
 * const body: BodyOption = 'unvalidated';
 */
export type BodyOption = StandardSchema | 'unvalidated' | 'ignored';

/** The body a handler sees: the schema's output, `unknown` when unvalidated, nothing when ignored or without a body option. */
export type BodyOf<Schema> = Schema extends StandardSchema ? InferOutput<Schema> : Schema extends 'unvalidated' ? unknown : undefined;

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
   * The schema of the request body, `'unvalidated'` to take any body unchecked, or `'ignored'` to let
   * a body arrive and never read it (`ctx.body` is undefined). A POST, PUT or PATCH endpoint without
   * it takes no body: a request that sends one is a 400.
   */
  body?: BodySchema;
  /** Media types of request bodies. Defaults to `['application/json']`, which admits every `+json` type. */
  consumes?: readonly string[];
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
 * The `conditional` option of an endpoint: how to load its item, and its validators.
 *
 * @example
 * const conditional: ConditionalOption<AnyContext, Doc> = { load: (ctx) => docs.get(ctx.params.id), etag: (doc) => doc.rev };
 */
export interface ConditionalOption<Ctx, Item> {
  load: (ctx: Ctx) => Promisable<Item | undefined | null>;
  etag?: (item: Item) => string;
  lastModified?: (item: Item) => Date;
  /** A PUT, PATCH or DELETE without `If-Match` (or `If-Unmodified-Since`) answers 428. */
  requireIfMatch?: boolean;
}

/**
 * What a handler may return when its endpoint declares a response schema: what the schema accepts,
 * or nothing (a 404 for an item, an empty answer otherwise). Anything without one.
 */
export type ResultOf<Response> = Response extends StandardSchema ? InferInput<Response> | undefined | null : unknown;

/**
 * What a successful answer of an endpoint carries: a value of `schema`, or with `array` (a collection's
 * list) an array of them.
 *
 * @example
 * const listed: ResponseSchema = { schema: UserSchema, array: true };
 */
export interface ResponseSchema {
  readonly schema: StandardSchema;
  readonly array: boolean;
  /** A paged list: the array is the `items` of a {@link Page}. */
  readonly page?: boolean | undefined;
}

/** The context of an endpoint, from its path and schemas. */
export type EndpointContext<Path extends string, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic> = Context<
  ParamsOf<Path, ParamsSchema>,
  PartOf<QuerySchema, QueryRecord>,
  PartOf<HeadersSchema, HeaderRecord>,
  BodyOf<BodySchema>,
  CallerOf<IsPublic>
>;

/**
 * An endpoint: a method and a path template, with its schemas, access rules and handler. The same
 * template with another method is another endpoint.
 *
 * @example
 * endpoint('GET', '/health', { public: true, handle: () => ({ ok: true }) });
 */
export interface Endpoint<Facts = unknown> {
  /**
   * What `endpoint()` knew of it, for the types of `restcanon/client` only: never set at run time.
   * `unknown` for an endpoint built by other means.
   */
  readonly '~facts'?: Facts;
  readonly method: Method;
  readonly path: string;
  readonly operation: Operation;
  readonly params: PartSchema | undefined;
  readonly query: StandardSchema | undefined;
  readonly headers: StandardSchema | undefined;
  /** The body's schema; `'unvalidated'` takes any body; `'ignored'` lets one arrive unread; undefined takes none. */
  readonly body: BodyOption | undefined;
  readonly consumes: readonly string[];
  readonly public: boolean;
  readonly authorize: readonly Authorize[];
  readonly guards: readonly Guard[];
  readonly filters: readonly ResultFilter[];
  readonly location: ((result: unknown, ctx: AnyContext) => string | undefined) | undefined;
  /** For `create` without `location`: the template of the new item's URL, filled with the params and the result's `id`. */
  readonly itemPath: string | undefined;
  /** For `create` without `location`: the new item's id, where the result's `id` is not it (a collection's `idOf`). */
  readonly locationId?: ((result: unknown, ctx: AnyContext) => unknown) | undefined;
  readonly summary: string | undefined;
  /** The body of a successful answer, if declared. */
  readonly response?: ResponseSchema | undefined;
  /** Success outcomes the handler may choose with `ctx.outcome`, besides its operation's. */
  readonly outcomes?: readonly ChosenOutcome[] | undefined;
  /** The domain errors the handler throws, by outcome. */
  readonly errors?: DeclaredErrors | undefined;
  /** How its item's `ETag` and `Last-Modified` are found: sent on success, and what preconditions compare. */
  readonly validators?: Validators | undefined;
  /** The item the URL names, loaded before the handler: for ownership, preconditions and merge patches. */
  readonly current?: CurrentItem | undefined;
  /** A list's conventions: pages, sorting, filtering, and the owner's scope. */
  readonly list?: ListConventions | undefined;
  readonly handle: (ctx: AnyContext) => unknown;
}

/**
 * How an endpoint loads the item its URL names before the handler runs: `load` gives it (nothing is a
 * 404), `owner` checks it is the caller's (403), and the request's preconditions are evaluated
 * against its validators.
 */
export interface CurrentItem {
  readonly load: (ctx: AnyContext) => unknown;
  readonly owner: ((item: any, principal: Principal) => boolean) | undefined;
  /** A change needs `If-Match` (or `If-Unmodified-Since`): 428 without one. */
  readonly requireCondition: boolean;
  /** The loader is the handler (a collection's read): the loaded item is the result. */
  readonly isHandler: boolean;
  /** A change answers the item as changed (a collection's), whose validators its answer carries; an endpoint's may answer anything. */
  readonly answersItem: boolean;
  /** A merge patch (RFC 7396) body is applied to the item, and the result must pass this schema. */
  readonly merge: StandardSchema | undefined;
}

/** A list's conventions, read once from its collection. */
export interface ListConventions {
  readonly rules: ListRules | undefined;
  /** The filter values that keep a caller to their own items, which the handler's query must use. */
  readonly scope: ((principal: Principal) => Record<string, unknown>) | undefined;
}

/**
 * What a list handler receives besides the context: the page, the order and the filter a request
 * asked for, each checked against what the collection declares.
 *
 * @example
 * const list = (ctx: ListContext<'createdAt', { status: string }>) => db.orders.find(ctx.filter, ctx.sort, ctx.page);
 */
export interface ListContext<Sort extends string = string, Filter = Record<string, unknown>> {
  /** The page asked for, when the collection pages its list. */
  page: PageRequest;
  /** The order asked for with `sort`, first field first; empty for the list's own order. */
  sort: SortField<Sort>[];
  /** The filter values asked for, each its schema's output, with the owner's scope on top. */
  filter: Filter;
}

/**
 * Whether an endpoint reads the body a request sends: it has a body option other than `'ignored'`.
 *
 * @example
 * readsBody({ body: 'ignored' }); // false
 */
export function readsBody(endpoint: Pick<Endpoint, 'body'>): boolean {
  return endpoint.body !== undefined && endpoint.body !== 'ignored';
}

/**
 * What `endpoint()` records of an endpoint's declaration, as types only: `restcanon/client` reads
 * them to type calls and answers. Nothing is computed from them on the server.
 */
export interface EndpointFacts<M, Path, ParamsSchema, QuerySchema, BodySchema, IsPublic, Result, Response, Op, Chosen, Errors, Keys> {
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
}
