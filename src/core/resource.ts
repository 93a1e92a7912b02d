import type { Promisable, Simplify } from 'type-fest' with { 'resolution-mode': 'import' };
import type { HeaderRecord, QueryRecord } from './contract.js';
import type { AnyContext, Authorize, BodyOf, BodyOption, ChosenOutcome, Context, DeclaredErrors, Endpoint, Guard, Principal, ResultFilter, ResultOf } from './endpoint.js';
import { checkBodyOption, checkValidators, freezeEndpoint, publicRule, type CurrentItem, type ListContext } from './endpoint.js';
import { listRules, type PageOption } from './lists.js';
import { MERGE_PATCH_TYPE } from './merge-patch.js';
import { contextWith } from './context.js';
import type { Resource } from './api.js';
import { FORBIDDEN_ITEM, ForbiddenError, MISSING_ITEM } from './errors.js';
import { checkFunction, checkOptions } from './options.js';
import type { Method } from './http.js';
import type { Operation } from './policy.js';
import { checkSchema, isStandardSchema, type InferInput, type InferOutput, type StandardSchema } from './standard-schema.js';

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

const METHOD_OF: Readonly<Record<CollectionOperation, Method>> = {
  list: 'GET',
  create: 'POST',
  read: 'GET',
  replace: 'PUT',
  update: 'PATCH',
  remove: 'DELETE',
};

type Output<Schema, Fallback> = Schema extends StandardSchema ? InferOutput<Schema> : Fallback;

/** An operation's own body option wins; without one, the collection's. */
type OwnOr<Own, Fallback> = [Own] extends [undefined] ? Fallback : Own;

/**
 * The body update's handler receives: its own, else `patch`; without either, update merges (anything
 * else is refused when the collection is declared), and the merged item passed `body`.
 */
type UpdateBodyOf<UpdateBody, PatchSchema, BodySchema> = OwnOr<UpdateBody, OwnOr<PatchSchema, BodySchema>>;

/**
 * The param name children use for a collection's id: `users` → `userId`, `categories` → `categoryId`.
 * Pass `param` to choose another.
 */
export type ChildParam<Name extends string> = Name extends `${infer Stem}ies` ? `${Stem}yId` : Name extends `${infer Stem}s` ? `${Stem}Id` : `${Name}Id`;

/** The options of an operation besides its handler. */
interface OperationOptions<Ctx, Errors extends DeclaredErrors = DeclaredErrors> {
  /** Reachable without a principal. */
  public?: boolean;
  /** A rule for this operation only, on top of the API's and the collection's. Not on a public operation. */
  authorize?: Authorize<Ctx>;
  /** One line for generated documentation. */
  summary?: string;
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

/** The option of create, replace and update besides the others: a body schema of their own. */
interface OwnBody<Schema> {
  /** This operation's body, instead of the collection's (`body`, or `patch` for update): a schema, or `'unvalidated'`. */
  body?: Schema;
}

/** The options of update besides the others. */
interface UpdateOptions<Schema> extends OwnBody<Schema> {
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

/**
 * A collection and its items: `/<name>` and `/<name>/:id`, with nested collections below the item.
 * Pass it to `createApi({ resources })`; its `endpoints` include every nested collection's.
 *
 * @example
 * const orders = users.collection('orders', { list: (ctx) => db.orders.byUser(ctx.params.userId) });
 */
export interface Collection<ParentParams = {}, Facts = unknown> extends Resource {
  /** What `collection()` knew of it, for the types of `restcanon/client` only: never set at run time. */
  readonly '~facts'?: Facts;
  readonly name: string;
  /** The template of the collection, such as `/users/:userId/orders`. */
  readonly path: string;
  /** The template of one item, such as `/users/:userId/orders/:id`. */
  readonly itemPath: string;
  /** This collection's endpoints and every nested collection's. */
  readonly endpoints: readonly Endpoint[];
  /** Declares a collection below each item of this one. */
  collection<
    const Name extends string,
    IdSchema extends StandardSchema | undefined = undefined,
    BodySchema extends BodyOption | undefined = undefined,
    PatchSchema extends BodyOption | undefined = undefined,
    QuerySchema extends StandardSchema | undefined = undefined,
    const Param extends string = ChildParam<Name>,
    Item = unknown,
    ItemSchema extends StandardSchema | undefined = undefined,
    CreateBody extends BodyOption | undefined = undefined,
    ReplaceBody extends BodyOption | undefined = undefined,
    UpdateBody extends BodyOption | undefined = undefined,
    const Paged extends PageOption | undefined = undefined,
    const Sort extends string = never,
    Filter extends Readonly<Record<string, StandardSchema>> = {},
    const Public extends boolean | readonly CollectionOperation[] = false,
    const Keys extends string = never,
    ListErrors extends DeclaredErrors = {},
    ReadErrors extends DeclaredErrors = {},
    CreateErrors extends DeclaredErrors = {},
    ReplaceErrors extends DeclaredErrors = {},
    UpdateErrors extends DeclaredErrors = {},
    RemoveErrors extends DeclaredErrors = {},
    ListResponse extends StandardSchema = never,
    ReadResponse extends StandardSchema = never,
    CreateResponse extends StandardSchema = never,
    ReplaceResponse extends StandardSchema = never,
    UpdateResponse extends StandardSchema = never,
    RemoveResponse extends StandardSchema = never,
  >(
    name: Name,
    definition: CollectionDefinition<ParentParams, IdSchema, BodySchema, PatchSchema, QuerySchema, Param, Item, ItemSchema, CreateBody, ReplaceBody, UpdateBody, Paged, Sort, Filter, Public, OperationDeclarations<ListErrors, ReadErrors, CreateErrors, ReplaceErrors, UpdateErrors, RemoveErrors, ListResponse, ReadResponse, CreateResponse, ReplaceResponse, UpdateResponse, RemoveResponse>> & {
      [K in Keys]?: unknown;
    },
  ): Collection<
    ChildParams<ParentParams, IdSchema, Param>,
    CollectionFacts<`${ItemTemplate<Facts>}/${Name}`, Param, IdSchema, BodySchema, PatchSchema, QuerySchema, ItemSchema, CreateBody, ReplaceBody, UpdateBody, Paged, Sort, Filter, Public, Keys, true, OperationDeclarations<ListErrors, ReadErrors, CreateErrors, ReplaceErrors, UpdateErrors, RemoveErrors, ListResponse, ReadResponse, CreateResponse, ReplaceResponse, UpdateResponse, RemoveResponse>>
  >;
}

/** The template of an item of a collection, below which its children live: `/users/:userId`. */
type ItemTemplate<Facts> = Facts extends { path: infer Path extends string; param: infer Param extends string } ? `${Path}/:${Param}` : string;

/**
 * What `collection()` records of a collection's declaration, as types only: `restcanon/client` reads
 * them to type calls and answers. `declared` holds the keys of its definition (its operations, and
 * options such as `owner`, `etag` or `page`); `nested` is true below another collection.
 */
export interface CollectionFacts<Path, Param, IdSchema, BodySchema, PatchSchema, QuerySchema, ItemSchema, CreateBody, ReplaceBody, UpdateBody, Paged, Sort, Filter, Public, Keys, Nested, Ops> {
  kind: 'collection';
  path: Path;
  param: Param;
  id: IdSchema;
  body: BodySchema;
  patch: PatchSchema;
  query: QuerySchema;
  item: ItemSchema;
  createBody: CreateBody;
  replaceBody: ReplaceBody;
  updateBody: UpdateBody;
  page: Paged;
  sort: Sort;
  filter: Filter;
  public: Public;
  declared: Keys;
  nested: Nested;
  /** What each operation declares for itself: its `errors` and `response`. */
  operations: Ops;
}

interface Level {
  name: string;
  param: string;
  definition: CollectionDefinition<any, any, any, any, any, string, any, any, any, any, any, any, any, any>;
  /** What loads an item for the checks of ancestors and owners: the handler of read, or `load`. */
  loader: ((ctx: AnyContext) => unknown) | undefined;
  /** The owner rule and the operations it guards. */
  owner: Owner | undefined;
}

/** An `owner` option read once: the rule, and the operations it guards. */
interface Owner {
  rule: OwnerRule<any>;
  on: ReadonlySet<OwnedOperation>;
  scope: OwnerScope | undefined;
}

/**
 * Declares a collection (`/<name>`) and its items (`/<name>/:id`). Each operation maps to its method
 * and status: list GET 200, read GET 200 or 404, create POST 201 with `Location`, replace PUT and
 * update PATCH 200 or 404, remove DELETE 200 (204 by policy) or 404.
 *
 * @example
 * const users = collection('users', {
 *   id: z.coerce.number().int(),
 *   body: NewUser,
 *   list: () => db.users.list(),
 *   read: (ctx) => db.users.get(ctx.params.id), // undefined → 404
 *   create: (ctx) => db.users.add(ctx.body), // 201 + Location: /users/<id>
 * });
 */
export function collection<
  const Name extends string,
  IdSchema extends StandardSchema | undefined = undefined,
  BodySchema extends BodyOption | undefined = undefined,
  PatchSchema extends BodyOption | undefined = undefined,
  QuerySchema extends StandardSchema | undefined = undefined,
  const Param extends string = ChildParam<Name>,
  Item = unknown,
  ItemSchema extends StandardSchema | undefined = undefined,
  CreateBody extends BodyOption | undefined = undefined,
  ReplaceBody extends BodyOption | undefined = undefined,
  UpdateBody extends BodyOption | undefined = undefined,
  const Paged extends PageOption | undefined = undefined,
  const Sort extends string = never,
  Filter extends Readonly<Record<string, StandardSchema>> = {},
  const Public extends boolean | readonly CollectionOperation[] = false,
  const Keys extends string = never,
  ListErrors extends DeclaredErrors = {},
  ReadErrors extends DeclaredErrors = {},
  CreateErrors extends DeclaredErrors = {},
  ReplaceErrors extends DeclaredErrors = {},
  UpdateErrors extends DeclaredErrors = {},
  RemoveErrors extends DeclaredErrors = {},
  ListResponse extends StandardSchema = never,
  ReadResponse extends StandardSchema = never,
  CreateResponse extends StandardSchema = never,
  ReplaceResponse extends StandardSchema = never,
  UpdateResponse extends StandardSchema = never,
  RemoveResponse extends StandardSchema = never,
>(
  name: Name,
  definition: CollectionDefinition<{}, IdSchema, BodySchema, PatchSchema, QuerySchema, Param, Item, ItemSchema, CreateBody, ReplaceBody, UpdateBody, Paged, Sort, Filter, Public, OperationDeclarations<ListErrors, ReadErrors, CreateErrors, ReplaceErrors, UpdateErrors, RemoveErrors, ListResponse, ReadResponse, CreateResponse, ReplaceResponse, UpdateResponse, RemoveResponse>> & { [K in Keys]?: unknown },
): Collection<
  ChildParams<{}, IdSchema, Param>,
  CollectionFacts<`/${Name}`, Param, IdSchema, BodySchema, PatchSchema, QuerySchema, ItemSchema, CreateBody, ReplaceBody, UpdateBody, Paged, Sort, Filter, Public, Keys, false, OperationDeclarations<ListErrors, ReadErrors, CreateErrors, ReplaceErrors, UpdateErrors, RemoveErrors, ListResponse, ReadResponse, CreateResponse, ReplaceResponse, UpdateResponse, RemoveResponse>>
> {
  // The facts are types only: a collection without them fits every `Collection<Params, Facts>`.
  return build([], name, definition as unknown as Level['definition']) as Collection<any, never>;
}

function build(ancestors: readonly Level[], name: string, definition: Level['definition']): Collection<any> {
  checkDefinition(name, definition);
  const level: Level = { name, param: definition.param ?? childParam(name), definition, loader: handlerOf(definition.read) ?? definition.load, owner: ownerOf(definition.owner) };
  const parentPath = ancestors.map((ancestor) => `/${ancestor.name}/:${ancestor.param}`).join('');
  const path = `${parentPath}/${name}`;
  const itemPath = `${path}/:id`;
  const own = COLLECTION_OPERATIONS.flatMap((operation) => {
    const declared = definition[operation];
    return declared === undefined ? [] : [toEndpoint(ancestors, level, operation, declared, path, itemPath)];
  });
  const children: Collection<any>[] = [];
  return {
    name,
    path,
    itemPath,
    get endpoints() {
      return [...own, ...children.flatMap((child) => child.endpoints)];
    },
    collection(childName: string, childDefinition: Level['definition']) {
      const child = build([...ancestors, level], childName, childDefinition);
      children.push(child);
      return child;
    },
  } as Collection<any>;
}

const DEFINITION_OPTIONS = [
  'id', 'body', 'patch', 'query', 'item', 'param', 'public', 'authorize', 'owner', 'idOf', 'page', 'sort', 'filter', 'etag', 'lastModified', 'requireIfMatch', 'load', ...COLLECTION_OPERATIONS,
];
const OPERATION_OPTIONS = ['public', 'authorize', 'summary', 'outcomes', 'errors', 'handle', 'response'];
/** Create, replace and update receive a body, and may each have a schema of their own for it. */
const BODY_OPERATION_OPTIONS = [...OPERATION_OPTIONS, 'body'];
const UPDATE_OPTIONS = [...BODY_OPERATION_OPTIONS, 'merge'];
const OWNER_OPTIONS = ['rule', 'on', 'scope'];
/** The operations whose owner check loads the item through read before the handler runs. */
const LOADING_OPERATIONS: readonly OwnedOperation[] = ['replace', 'update', 'remove'];

function checkDefinition(name: string, definition: Level['definition']): void {
  if (typeof name !== 'string' || !/^[A-Za-z0-9][\w.~-]*$/.test(name)) {
    throw new TypeError(`collection(${JSON.stringify(name)}): a collection name is one path segment of letters, digits, "-", "_", "." or "~"`);
  }
  const where = `collection("${name}")`;
  if (typeof definition !== 'object' || definition === null) throw new TypeError(`${where}: the definition must be an object`);
  checkOptions(where, definition, DEFINITION_OPTIONS);
  for (const operation of COLLECTION_OPERATIONS) {
    const declared = definition[operation];
    if (declared !== undefined && typeof declared !== 'function' && typeof (declared as { handle?: unknown }).handle !== 'function') {
      throw new TypeError(`${where}: "${operation}" must be a function or an object with a "handle" function`);
    }
    if (typeof declared === 'object') {
      checkOptions(`the "${operation}" of ${where}`, declared, operation === 'update' ? UPDATE_OPTIONS : takesBody(operation) ? BODY_OPERATION_OPTIONS : OPERATION_OPTIONS);
      checkBodyOption(ownBodyOf(declared), `${where}: the "body" of "${operation}"`);
      checkFunction(declared.authorize, `${where}: the "authorize" of "${operation}"`, '(ctx) => true to let the caller go on');
    }
    checkSchema(typeof declared === 'object' ? declared.response : undefined, `${where}: the "response" of "${operation}"`);
  }
  checkFunction(definition.authorize, `${where}: "authorize"`, '(ctx) => true to let the caller go on');
  checkFunction(definition.load, `${where}: "load"`, '(ctx) => the item the URL names');
  if (definition.load !== undefined && definition.read !== undefined) {
    throw new TypeError(`${where}: "load" loads an item for a collection without "read", and "read" is declared; drop "load" (read loads the item) or "read" (to publish no GET of an item)`);
  }
  checkSchema(definition.item, `${where}: "item"`);
  checkSchema(definition.id, `${where}: "id"`);
  checkSchema(definition.query, `${where}: "query"`);
  checkBodyOption(definition.body, `${where}: "body"`);
  checkBodyOption(definition.patch, `${where}: "patch"`);
  // A handler that receives a body must have a schema for it, or say it takes any body.
  for (const operation of ['create', 'replace'] as const) {
    if (definition[operation] !== undefined && bodyOf(definition, operation) === undefined) {
      throw new TypeError(
        `${where}: "${operation}" receives a body, so the collection needs "body": a schema of it (such as body: z.object({ ... })), or body: 'unvalidated' to take any JSON unchecked; "${operation}" may also have a "body" of its own ({ body, handle })`,
      );
    }
  }
  const merge = typeof definition.update === 'object' ? (definition.update as UpdateOptions<unknown>).merge : undefined;
  if (merge !== undefined && typeof merge !== 'boolean') throw new TypeError(`${where}: the "merge" of "update" must be true or false`);
  if (mergesOf(definition)) checkMerge(where, definition);
  else if (definition.update !== undefined && bodyOf(definition, 'update') === undefined) {
    const fix = definition.body !== undefined && definition.body !== 'unvalidated' ? 'patch: body.partial() with zod, or another schema' : 'patch: a schema of the changes';
    throw new TypeError(`${where}: "update" receives a body, so the collection needs "patch" (${fix}), or patch: 'unvalidated' to take any JSON unchecked`);
  }
  checkOwner(where, definition);
  checkValidators(definition, where);
  if ((definition.etag !== undefined || definition.lastModified !== undefined) && loaderOf(definition) === undefined) {
    throw new TypeError(`${where}: "etag" and "lastModified" need "read", or "load" to publish no GET of an item: it loads the item whose validators the request's preconditions are compared with`);
  }
  if ((definition.page !== undefined || definition.sort !== undefined || definition.filter !== undefined) && definition.list === undefined) {
    throw new TypeError(`${where}: "page", "sort" and "filter" shape the list, which the collection does not declare`);
  }
  if (definition.page !== undefined && typeof definition.list === 'object' && definition.list.response !== undefined) {
    throw new TypeError(`${where}: a paged list answers a page of the collection's "item"s; drop the "response" of "list"`);
  }
  if (definition.idOf !== undefined && typeof definition.idOf !== 'function') {
    throw new TypeError(`${where}: "idOf" must be a function that gives a created item's id, such as (created) => created.article.slug`);
  }
}

/**
 * An owner is a rule, or `{ rule, on }` with the operations it guards, each one the collection
 * declares. Guarding an item before a change loads it through read, so read must exist then.
 */
function checkOwner(where: string, definition: Level['definition']): void {
  const owner = definition.owner;
  if (owner === undefined) return;
  if (typeof owner !== 'function') {
    if (typeof owner !== 'object' || owner === null) throw new TypeError(`${where}: "owner" must be a function (item, principal) => boolean, or { rule, on }`);
    checkOptions(`the "owner" of ${where}`, owner, OWNER_OPTIONS);
    if (typeof owner.rule !== 'function') throw new TypeError(`${where}: the "rule" of "owner" must be a function (item, principal) => boolean`);
    if (owner.scope !== undefined && typeof owner.scope !== 'function') throw new TypeError(`${where}: the "scope" of "owner" must be a function (principal) => the filter values of the caller's items`);
    if (owner.on === undefined && owner.scope === undefined) {
      throw new TypeError(`${where}: "owner" as an object needs "on", the operations it guards (such as on: ['replace', 'update', 'remove']), or "scope"; a rule for every operation is owner: (item, principal) => ...`);
    }
    if (owner.on !== undefined && (!Array.isArray(owner.on) || owner.on.length === 0)) {
      throw new TypeError(`${where}: the "on" of "owner" must list the operations it guards, such as on: ['replace', 'update', 'remove']; a rule for every operation is owner: (item, principal) => ...`);
    }
    if (owner.scope !== undefined && (definition.list === undefined || (owner.on !== undefined && !owner.on.includes('list')))) {
      throw new TypeError(`${where}: the "scope" of "owner" keeps a list to the caller's items, so the owner must guard a "list" the collection declares`);
    }
    for (const operation of (owner.on ?? []) as unknown[]) {
      if (operation === 'create') throw new TypeError(`${where}: "owner" cannot guard "create": it makes an item, so there is none to own yet (check the caller with "authorize")`);
      if (!(COLLECTION_OPERATIONS as readonly unknown[]).includes(operation)) {
        throw new TypeError(`${where}: the "on" of "owner" lists ${JSON.stringify(operation)}, which is not an operation; use list, read, replace, update or remove`);
      }
      if (definition[operation as OwnedOperation] === undefined) throw new TypeError(`${where}: the "on" of "owner" lists "${operation as string}", which the collection does not declare`);
    }
  }
  const on = typeof owner === 'function' || owner.on === undefined ? COLLECTION_OPERATIONS : owner.on;
  if (loaderOf(definition) === undefined && (typeof owner === 'function' || on.some((operation) => LOADING_OPERATIONS.includes(operation as OwnedOperation)))) {
    throw new TypeError(`${where}: "owner" needs "read", or "load" to publish no GET of an item: it loads an item so its owner can be checked before any change`);
  }
}

/** What loads an item before a change: read, or `load` where no read is published. */
function loaderOf(definition: Level['definition']): unknown {
  return definition.read ?? definition.load;
}

/** Whether update takes a merge patch. */
function mergesOf(definition: Level['definition']): boolean {
  return typeof definition.update === 'object' && (definition.update as UpdateOptions<unknown>).merge === true;
}

/** A merge patch needs the item (read) and a schema the merged item must pass; `patch` would go unused. */
function checkMerge(where: string, definition: Level['definition']): void {
  if (loaderOf(definition) === undefined) throw new TypeError(`${where}: "update" with "merge" applies the patch to the item, which "read" loads; declare read, or "load" to publish no GET of an item`);
  if (definition.patch !== undefined) throw new TypeError(`${where}: "update" with "merge" takes a merge patch and checks the merged item against "body"; "patch" would go unused, so drop it`);
  if (mergedSchemaOf(definition) === undefined) {
    throw new TypeError(
      `${where}: "update" with "merge" checks the merged item against what a client may write: give update a "body", or the collection a "body" schema ('unvalidated' is not one; "item" holds what the server owns, such as "id", which a patch must not set)`,
    );
  }
}

/** The schema a merged item must pass: update's own body, else the collection's; never `item`, whose server-owned fields a patch would then set. */
function mergedSchemaOf(definition: Level['definition']): StandardSchema | undefined {
  const own = ownBodyOf(definition.update);
  for (const schema of [own, definition.body]) if (isStandardSchema(schema)) return schema;
  return undefined;
}

/** An owner option read once: a rule alone guards every operation but create. */
function ownerOf(owner: Level['definition']['owner']): Owner | undefined {
  if (owner === undefined) return undefined;
  const every = COLLECTION_OPERATIONS.filter((operation): operation is OwnedOperation => operation !== 'create');
  if (typeof owner === 'function') return { rule: owner, on: new Set(every), scope: undefined };
  return { rule: owner.rule, on: new Set(owner.on ?? every), scope: owner.scope };
}

/** The owner rule of a level where it guards `operation`. */
function ruleFor(level: Level, operation: OwnedOperation): OwnerRule<any> | undefined {
  return level.owner !== undefined && level.owner.on.has(operation) ? level.owner.rule : undefined;
}

function takesBody(operation: CollectionOperation): operation is 'create' | 'replace' | 'update' {
  return operation === 'create' || operation === 'replace' || operation === 'update';
}

function ownBodyOf(declared: OperationDefinition<any, unknown> | undefined): BodyOption | undefined {
  return typeof declared === 'object' ? (declared as OwnBody<BodyOption>).body : undefined;
}

/** The body option of an operation: its own, or the collection's (`patch` for update). */
function bodyOf(definition: Level['definition'], operation: CollectionOperation): BodyOption | undefined {
  if (!takesBody(operation)) return undefined;
  return ownBodyOf(definition[operation]) ?? (operation === 'update' ? definition.patch : definition.body);
}

/** `users` → `userId`, `categories` → `categoryId`: the same rule as {@link ChildParam}. */
function childParam(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}yId`;
  if (name.endsWith('s')) return `${name.slice(0, -1)}Id`;
  return `${name}Id`;
}

function handlerOf(declared: OperationDefinition<any, unknown> | undefined): ((ctx: AnyContext) => unknown) | undefined {
  if (declared === undefined) return undefined;
  return typeof declared === 'function' ? declared : declared.handle;
}

function toEndpoint(
  ancestors: readonly Level[],
  level: Level,
  operation: CollectionOperation,
  declared: OperationDefinition<any, unknown>,
  path: string,
  itemPath: string,
): Endpoint {
  const { definition } = level;
  const options = typeof declared === 'function' ? { handle: declared } : declared;
  // list and create work on the collection; the others on one item.
  const onItem = operation !== 'list' && operation !== 'create';
  const isPublic = options.public ?? (Array.isArray(definition.public) ? definition.public.includes(operation) : definition.public === true);

  const params: Record<string, StandardSchema> = {};
  for (const ancestor of ancestors) if (ancestor.definition.id !== undefined) params[ancestor.param] = ancestor.definition.id;
  if (onItem && definition.id !== undefined) params.id = definition.id;

  // The collections' rules cover protected operations: a public one answers every caller alike, signed in or not.
  const authorize: Authorize[] = [];
  if (!isPublic) {
    for (const owner of [...ancestors, level]) if (owner.definition.authorize !== undefined) authorize.push(owner.definition.authorize);
    if (options.authorize !== undefined) authorize.push(options.authorize as Authorize);
  } else if (options.authorize !== undefined) {
    throw publicRule(`collection("${level.name}")`, `"${operation}" is public and`);
  }

  const guards: Guard[] = [];
  if (ancestors.length > 0) guards.push(ancestorGuard(ancestors));
  const filters: ResultFilter[] = [];
  const owns = operation === 'create' ? undefined : ruleFor(level, operation);
  if (owns !== undefined && operation === 'list') filters.push(listFilter(owns));
  const validators = definition.etag === undefined && definition.lastModified === undefined ? undefined : { etag: definition.etag, lastModified: definition.lastModified };
  const merge = operation === 'update' && mergesOf(definition) ? mergedSchemaOf(definition) : undefined;
  // The item is loaded before the handler for its owner, its preconditions or a merge patch; read loads it as its handler.
  // A `load` is declared for nothing else: with it, every change finds its item in `ctx.item`, and a missing one is a 404.
  let current: CurrentItem | undefined;
  if (onItem && (owns !== undefined || validators !== undefined || merge !== undefined || definition.load !== undefined)) {
    current = {
      load: level.loader!,
      owner: owns,
      requireCondition: definition.requireIfMatch === true,
      isHandler: operation === 'read',
      answersItem: true,
      merge,
    };
  }
  const scope = operation === 'list' ? level.owner?.scope : undefined;
  const rules = operation === 'list' ? listRules(`collection("${level.name}")`, definition.page, definition.sort, definition.filter, definition.query !== undefined, checkOptions, isStandardSchema) : undefined;
  const response =
    options.response !== undefined
      ? { schema: options.response, array: false }
      : definition.item && { schema: definition.item, array: operation === 'list', page: operation === 'list' && definition.page !== undefined };

  return freezeEndpoint({
    method: METHOD_OF[operation],
    path: onItem ? itemPath : path,
    operation: operation as Operation,
    params: Object.keys(params).length > 0 ? params : undefined,
    query: operation === 'list' ? definition.query : undefined,
    headers: undefined,
    body: merge !== undefined ? 'unvalidated' : bodyOf(definition, operation),
    consumes: merge !== undefined ? [MERGE_PATCH_TYPE, 'application/json'] : ['application/json'],
    public: isPublic,
    authorize,
    guards,
    filters,
    location: undefined,
    locationId: operation === 'create' ? (definition.idOf as Endpoint['locationId']) : undefined,
    itemPath: operation === 'create' ? itemPath : undefined,
    summary: options.summary,
    outcomes: 'outcomes' in options ? options.outcomes : undefined,
    errors: 'errors' in options ? options.errors : undefined,
    // An operation's own response schema, or the collection's item (list: an array of them, or a page).
    response,
    validators: operation === 'list' ? undefined : validators,
    current,
    list: rules === undefined && scope === undefined ? undefined : { rules, scope },
    handle: options.handle,
  }, `the "${operation}" of collection("${level.name}")`);
}

function isOwnedBy(owns: OwnerRule<any>, item: unknown, principal: unknown): boolean {
  return principal !== undefined && owns(item, principal as Principal) === true;
}

/**
 * Loads an item through a collection's `read`: 404 when it is missing, 403 when the collection has
 * an owner rule and the caller is not allowed the item.
 */
async function loadAllowed(read: (ctx: AnyContext) => unknown, owns: OwnerRule<any> | undefined, ctx: AnyContext): Promise<void> {
  const item = await read(ctx);
  if (item === undefined || item === null || item instanceof Error) throw MISSING_ITEM;
  if (owns !== undefined && !isOwnedBy(owns, item, ctx.principal)) throw FORBIDDEN_ITEM;
}

/** Loads every ancestor item, root first, so that nothing below a missing or foreign item runs. */
function ancestorGuard(ancestors: readonly Level[]): Guard {
  return async (ctx) => {
    for (const ancestor of ancestors) {
      if (ancestor.loader === undefined) continue;
      // An ancestor's owner rule applies to its children when it guards read: whoever may see the item may reach below it.
      await loadAllowed(ancestor.loader, ruleFor(ancestor, 'read'), contextWith(ctx, { params: { ...ctx.params, id: ctx.params[ancestor.param] }, body: undefined }));
    }
  };
}

/**
 * The safety net under a list handler that forgot to scope its query: other people's items are
 * dropped, from an array or from the `items` of an envelope (`{ items, total }`). A list of any other
 * shape cannot be checked, so it is never sent: a masked 500, reported.
 */
function listFilter(owns: OwnerRule<any>): ResultFilter {
  return (result, ctx, report) => {
    if (result === undefined || result === null) return result;
    const items = Array.isArray(result) ? result : (result as { items?: unknown }).items;
    if (!Array.isArray(items)) {
      throw new TypeError('A list of a collection with "owner" must return an array, or an envelope whose "items" is an array, so that other callers\' items can be dropped');
    }
    const visible = items.filter((item) => isOwnedBy(owns, item, ctx.principal));
    if (visible.length !== items.length) {
      report(new ForbiddenError(`A list handler returned ${items.length - visible.length} item(s) the caller may not see; they were dropped`));
    }
    return items === result ? visible : { ...(result as object), items: visible };
  };
}
