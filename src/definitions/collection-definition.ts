import type { Promisable, Simplify } from 'type-fest' with { 'resolution-mode': 'import' };
import type { HeaderRecord, QueryRecord } from '../core/contract.js';
import type { AnyContext, Authorize, BodyOption, ChosenOutcome, Context, DeclaredErrors, Principal } from '../core/endpoint.js';
import type { BodyOf, ResultOf } from './endpoint-config.js';
import type { ListContext } from '../conventions/lists/lists.js';
import type { PageOption } from '../conventions/lists/lists.js';
import type { InferInput, InferOutput, StandardSchema } from '../core/standard-schema.js';

/** The six operations of a collection: list and create on its URL; read, replace, update and remove on an item's. */
export const COLLECTION_OPERATIONS = ['list', 'read', 'create', 'replace', 'update', 'remove'] as const;

/**
 * One of the six operations a collection can declare.
 *
 * @example
 * const publicOps: CollectionOperation[] = ['list', 'read'];
 */
export type CollectionOperation = (typeof COLLECTION_OPERATIONS)[number];

/**
 * The operations an owner rule can guard: every one but create, which makes an item rather than
 * reaching one.
 *
 * @example
 * const changes: OwnedOperation[] = ['replace', 'update', 'remove'];
 */
export type OwnedOperation = Exclude<CollectionOperation, 'create'>;

/**
 * Whether the caller may see and change an item: `true` lets them.
 *
 * @example
 * const isAuthor: OwnerRule<{ authorId: number }> = (article, principal) => article.authorId === principal.id;
 */
export type OwnerRule<Item = unknown> = (item: Item, principal: Principal) => boolean;

/**
 * The `owner` of a collection: a rule for every operation, or a rule with the operations it guards
 * (`on`), such as `['replace', 'update', 'remove']` for "anyone reads, only the author changes".
 *
 * @example
 * const owner: OwnerOption<Article> = { rule: (article, principal) => article.authorId === principal.id, on: ['replace', 'update', 'remove'] };
 */
export type OwnerOption<Item = unknown> = OwnerRule<Item> | (OwnerGuard<Item> & { on: readonly OwnedOperation[] }) | (OwnerGuard<Item> & { scope: OwnerScope });

/** The object form of `owner`: a rule, the operations it guards, and a list's scope. */
interface OwnerGuard<Item> {
  rule: OwnerRule<Item>;
  /** The operations it guards; every one but create when left out (with `scope`). */
  on?: readonly OwnedOperation[];
  /**
   * The filter values of the caller's items (`(principal) => ({ userId: principal.id })`): a list
   * handler receives them in `ctx.filter`, so it asks its store for the caller's items only and a
   * page is never short. A request that filters for other values is a 403; without a caller the list
   * is empty. `rule` stays the safety net, which drops any other item.
   */
  scope?: OwnerScope;
}

/**
 * The filter values of a caller's own items.
 *
 * @example
 * const scope: OwnerScope = (principal) => ({ userId: principal.id });
 */
export type OwnerScope = (principal: Principal) => Record<string, unknown>;

/** The id `idOf` gives for a created item's `Location`. */
type ItemId = string | number | bigint;

type Output<Schema, Fallback> = Schema extends StandardSchema ? InferOutput<Schema> : Fallback;

/** An operation's own body option wins; without one, the collection's. */
type OwnOr<Own, Fallback> = [Own] extends [undefined] ? Fallback : Own;

/**
 * The body update's handler receives: its own, else `patch`; without either, update merges (anything
 * else is refused when the collection is declared), and the merged item passed `body`.
 */
type UpdateBodyOf<UpdateBody, PatchSchema, BodySchema> = OwnOr<UpdateBody, OwnOr<PatchSchema, BodySchema>>;

/** The options of an operation besides its handler. */
interface OperationOptions<Ctx, Errors extends DeclaredErrors = DeclaredErrors> {
  /** Reachable without a principal. */
  public?: boolean;
  /** A rule for this operation only, on top of the API's and the collection's. Not on a public operation. */
  authorize?: Authorize<Ctx>;
  /** One line for generated documentation. */
  summary?: string;
  /**
   * What this operation asks of the modules given to `createApi({ use })`, by their names, such as
   * `{ deprecation: { sunset: '2027-06-30' } }`: each module checks its own when the API is built, and
   * a name no module of the API has is refused then.
   */
  conventions?: Readonly<Record<string, unknown>>;
  /** Success outcomes the handler may choose with `ctx.outcome`, besides the operation's. */
  outcomes?: readonly ChosenOutcome[];
  /** The domain errors the handler throws, by outcome, for the documentation (`{ conflict: 'The slug is taken' }`). */
  errors?: Errors;
}

/**
 * An operation as a bare handler, or with its own access rules. Its result is checked against the
 * collection's `item`, unless the operation declares its own `response` (a list in an envelope, say).
 * `Own` holds the options only some operations take: create, replace and update take their own `body`.
 */
export type OperationDefinition<Ctx, Result, Own extends object = {}, Errors extends DeclaredErrors = DeclaredErrors, Response extends StandardSchema = StandardSchema> =
  | ((ctx: Ctx) => Promisable<Result>)
  | (OperationOptions<Ctx, Errors> & Own & { handle: (ctx: Ctx) => Promisable<Result>; response?: undefined })
  | (OperationOptions<Ctx, Errors> &
      Own & {
        handle: (ctx: Ctx) => Promisable<unknown>;
        /** The body of this operation's success, instead of the collection's `item`. */
        response: Response;
      });

/**
 * What each operation of a collection declares for itself: its `errors` and its `response` schema
 * (`never` without one). `collection()` infers them, and `restcanon/client` reads them.
 */
export interface OperationDeclarations<
  ListErrors extends DeclaredErrors = DeclaredErrors,
  ReadErrors extends DeclaredErrors = DeclaredErrors,
  CreateErrors extends DeclaredErrors = DeclaredErrors,
  ReplaceErrors extends DeclaredErrors = DeclaredErrors,
  UpdateErrors extends DeclaredErrors = DeclaredErrors,
  RemoveErrors extends DeclaredErrors = DeclaredErrors,
  ListResponse extends StandardSchema = StandardSchema,
  ReadResponse extends StandardSchema = StandardSchema,
  CreateResponse extends StandardSchema = StandardSchema,
  ReplaceResponse extends StandardSchema = StandardSchema,
  UpdateResponse extends StandardSchema = StandardSchema,
  RemoveResponse extends StandardSchema = StandardSchema,
> {
  list: { errors: ListErrors; response: ListResponse };
  read: { errors: ReadErrors; response: ReadResponse };
  create: { errors: CreateErrors; response: CreateResponse };
  replace: { errors: ReplaceErrors; response: ReplaceResponse };
  update: { errors: UpdateErrors; response: UpdateResponse };
  remove: { errors: RemoveErrors; response: RemoveResponse };
}

/** The options of create, replace and update besides the others: a body schema and a body limit of their own. */
export interface OwnBody<Schema> {
  /** This operation's body, instead of the collection's (`body`, or `patch` for update): a schema, or `'unvalidated'`. */
  body?: Schema;
  /** The largest body this operation reads, in bytes, instead of the API's `bodyLimit`. */
  bodyLimit?: number;
}

/** The options of update besides the others. */
export interface UpdateOptions<Schema> extends OwnBody<Schema> {
  /**
   * Takes a JSON merge patch (RFC 7396, `application/merge-patch+json` or `application/json`): it is
   * applied to the item as `read` gives it, and the handler receives the result once it passes the
   * schema of what a client may write of an item: update's own `body`, else the collection's `body`
   * (never `item`, which holds what the server owns, such as `id`).
   */
  merge?: boolean;
}

/** The filter a list handler receives: each declared field's output, and what an owner's scope adds. */
export type FilterOf<Filter> = Simplify<{ [K in keyof Filter]?: Output<Filter[K], unknown> } & { [key: string]: unknown }>;

/** What a list handler receives: the context, and the page, order and filter asked for. */
type ListCtx<Params, QuerySchema, Paged, Sort extends string, Filter> = Context<Params, Output<QuerySchema, QueryRecord>, HeaderRecord, undefined> &
  Omit<ListContext<Sort, FilterOf<Filter>>, 'page'> & { page: Paged extends PageOption ? ListContext['page'] : undefined };

/** What list may return with an item schema: an array of what the schema accepts. */
type ListResult<ItemSchema> = ItemSchema extends StandardSchema ? readonly InferInput<ItemSchema>[] : unknown;

/**
 * A collection's definition: schemas, access rules, and any of the six operations. Only the
 * operations it holds exist; the others answer 405 with `Allow`.
 *
 * @example
 * const definition: CollectionDefinition = { list: () => [...store.values()] };
 */
export interface CollectionDefinition<
  Params = {},
  IdSchema extends StandardSchema | undefined = undefined,
  BodySchema extends BodyOption | undefined = undefined,
  PatchSchema extends BodyOption | undefined = undefined,
  QuerySchema extends StandardSchema | undefined = undefined,
  Param extends string = string,
  Item = unknown,
  ItemSchema extends StandardSchema | undefined = undefined,
  CreateBody extends BodyOption | undefined = undefined,
  ReplaceBody extends BodyOption | undefined = undefined,
  UpdateBody extends BodyOption | undefined = undefined,
  Paged extends PageOption | undefined = undefined,
  Sort extends string = never,
  Filter extends Readonly<Record<string, StandardSchema>> = {},
  Public extends boolean | readonly CollectionOperation[] = boolean | readonly CollectionOperation[],
  Ops extends OperationDeclarations<any, any, any, any, any, any, any, any, any, any, any, any> = OperationDeclarations,
> {
  /** Schema of the `:id` segment (`/users/abc` is a 400 when it wants integers). Ids are strings without one. */
  id?: IdSchema;
  /**
   * The body of create (POST) and replace (PUT): a schema, or `'unvalidated'`. Required by either,
   * unless the operation has a `body` of its own.
   */
  body?: BodySchema;
  /** The body of update (PATCH): a schema (`body.partial()` with zod), or `'unvalidated'`. Required by update, unless it has a `body` of its own. */
  patch?: PatchSchema;
  /** The query of list. */
  query?: QuerySchema;
  /**
   * One item as the API sends it: the body of read, create, replace, update and remove, and list
   * answers an array of them. It documents the responses in OpenAPI, types what the operations may
   * return, and with the API's `serializerCompiler` becomes their compiled JSON serializer. Results
   * are not validated against it at run time.
   */
  item?: ItemSchema;
  /** The name of this collection's id in its children's paths. Default: singular name plus `Id`. */
  param?: Param;
  /** Operations reachable without a principal: `true` for all, or a list. */
  public?: Public;
  /** A rule for every protected operation of this collection and of its children; public operations never run it. */
  authorize?: Authorize<AnyContext>;
  /**
   * Whether the caller may see and change an item. A rule alone guards every operation; with
   * `{ rule, on }` only those listed. Read, replace, update and remove load the item through `read`
   * (or `load`) first and answer 404 for a missing item, then 403 for someone else's (before any
   * change); list drops such items (and reports them to `onError`); children check an ancestor's rule
   * when it guards read.
   */
  owner?: OwnerOption<ItemSchema extends StandardSchema ? InferInput<ItemSchema> : Item>;
  /**
   * The id of a created item, for `Location`, when create's result has none of its own (an `_id`, an
   * item wrapped as `{ article: { slug } }`). The URL is built as for `id`: base path, parents, the id
   * percent-encoded.
   */
  idOf?: (created: ItemSchema extends StandardSchema ? InferInput<ItemSchema> : Item, ctx: Context<Params, QueryRecord, HeaderRecord, BodyOf<OwnOr<CreateBody, BodySchema>>>) => ItemId;
  /**
   * Pages the list: `{ by: 'cursor' }` (opaque cursors, stable while items are added) or
   * `{ by: 'offset' }`, with `limit: { default, max }` (20 and 100 unless given). The list answers a
   * {@link Page} (`{ items, next, prev }`) and a `Link` header; its handler receives `ctx.page`.
   */
  page?: Paged;
  /** The fields a request may sort the list by (`?sort=name,-createdAt`); the handler receives `ctx.sort`. */
  sort?: readonly Sort[];
  /** The fields a request may filter the list by (`?status=paid`), each with its schema; the handler receives `ctx.filter`. */
  filter?: Filter;
  /**
   * The item's entity tag, from its version or a hash (restcanon quotes it): `ETag` on reads, creates,
   * replaces and updates, compared with `If-None-Match` (a GET answers 304) and `If-Match` (a change
   * answers 412) before the handler runs. Needs `read` (or `load`), which loads the item.
   */
  etag?: (item: ItemSchema extends StandardSchema ? InferInput<ItemSchema> : Item) => string;
  /** The item's last change: `Last-Modified`, compared with `If-Modified-Since` and `If-Unmodified-Since`. */
  lastModified?: (item: ItemSchema extends StandardSchema ? InferInput<ItemSchema> : Item) => Date;
  /** Replace, update and remove need `If-Match` (or `If-Unmodified-Since`): 428 without one. */
  requireIfMatch?: boolean;
  list?: OperationDefinition<ListCtx<Params, QuerySchema, Paged, Sort, Filter>, ListResult<ItemSchema>, {}, Ops['list']['errors'], Ops['list']['response']>;
  read?: OperationDefinition<Context<ItemParams<Params, IdSchema>, QueryRecord, HeaderRecord, undefined>, ResultOf<ItemSchema>, {}, Ops['read']['errors'], Ops['read']['response']>;
  create?: OperationDefinition<
    Context<Params, QueryRecord, HeaderRecord, BodyOf<OwnOr<CreateBody, BodySchema>>>,
    ResultOf<ItemSchema>,
    OwnBody<CreateBody>,
    Ops['create']['errors'],
    Ops['create']['response']
  >;
  replace?: OperationDefinition<
    Context<ItemParams<Params, IdSchema>, QueryRecord, HeaderRecord, BodyOf<OwnOr<ReplaceBody, BodySchema>>>,
    ResultOf<ItemSchema>,
    OwnBody<ReplaceBody>,
    Ops['replace']['errors'],
    Ops['replace']['response']
  >;
  update?: OperationDefinition<
    Context<ItemParams<Params, IdSchema>, QueryRecord, HeaderRecord, BodyOf<UpdateBodyOf<UpdateBody, PatchSchema, BodySchema>>>,
    ResultOf<ItemSchema>,
    UpdateOptions<UpdateBody>,
    Ops['update']['errors'],
    Ops['update']['response']
  >;
  /**
   * Loads the item the URL names for a collection that publishes no `read` (comments that are listed,
   * created and removed, never fetched one by one): every replace, update and remove loads it first
   * (`ctx.item`), and so do children; nothing is a 404, and a GET of an item stays a 405. Not beside
   * `read`, which loads the item when declared.
   */
  load?: (ctx: Context<ItemParams<Params, IdSchema>, QueryRecord, HeaderRecord, undefined>) => Promisable<(ItemSchema extends StandardSchema ? InferInput<ItemSchema> : Item) | undefined | null>;
  /** An item answers with it, `true` with the policy's empty status, `false` or nothing with 404. */
  remove?: OperationDefinition<Context<ItemParams<Params, IdSchema>, QueryRecord, HeaderRecord, undefined>, ResultOf<ItemSchema> | boolean, {}, Ops['remove']['errors'], Ops['remove']['response']>;
}

/** The params of an item: the ancestors' and its own `id`. */
export type ItemParams<Params, IdSchema> = Simplify<Params & { id: Output<IdSchema, string> }>;

/** The params a child collection inherits: the ancestors' and this collection's id under its param name. */
export type ChildParams<Params, IdSchema, Param extends string> = Simplify<Params & { [K in Param]: Output<IdSchema, string> }>;
