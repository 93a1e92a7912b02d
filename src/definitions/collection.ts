import type { AnyContext, Authorize, BodyOption, CurrentItem, DeclaredErrors, Endpoint, Guard } from '../core/endpoint.js';
import { declaredConventions, freezeEndpoint, publicRule } from './endpoint-checks.js';
import { listRules, type PageOption } from '../conventions/lists/lists.js';
import { MERGE_PATCH_TYPE } from '../conventions/merge-patch/merge-patch.js';
import type { Resource } from '../core/api.js';
import { checkOptions } from '../core/options.js';
import type { Method } from '../core/http.js';
import type { Operation } from '../core/policy.js';
import { isStandardSchema, type StandardSchema } from '../core/standard-schema.js';
import { COLLECTION_OPERATIONS, type ChildParams, type CollectionDefinition, type CollectionOperation, type OperationDeclarations, type OperationDefinition } from './collection-definition.js';
import { bodyOf, checkDefinition, mergedSchemaOf, mergesOf } from './collection-checks.js';
import { ancestorGuard, ownerOf, ruleFor, type Level } from './ancestors.js';

const METHOD_OF: Readonly<Record<CollectionOperation, Method>> = {
  list: 'GET',
  create: 'POST',
  read: 'GET',
  replace: 'PUT',
  update: 'PATCH',
  remove: 'DELETE',
};

/**
 * The param name children use for a collection's id: `users` → `userId`, `categories` → `categoryId`.
 * Pass `param` to choose another.
 */
export type ChildParam<Name extends string> = Name extends `${infer Stem}ies` ? `${Stem}yId` : Name extends `${infer Stem}s` ? `${Stem}Id` : `${Name}Id`;

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
  const owns = operation === 'create' ? undefined : ruleFor(level, operation);
  const validators = operation === 'list' || (definition.etag === undefined && definition.lastModified === undefined) ? undefined : { etag: definition.etag, lastModified: definition.lastModified };
  const merge = operation === 'update' && mergesOf(definition) ? mergedSchemaOf(definition) : undefined;
  // The item is loaded before the handler for its owner, its preconditions or a merge patch; read loads it as its handler.
  // A `load` is declared for nothing else: with it, every change finds its item in `ctx.item`, and a missing one is a 404.
  let current: CurrentItem | undefined;
  if (onItem && (owns !== undefined || validators !== undefined || merge !== undefined || definition.load !== undefined)) {
    current = { load: level.loader!, isHandler: operation === 'read', answersItem: true };
  }
  const scope = operation === 'list' ? level.owner?.scope : undefined;
  const rules = operation === 'list' ? listRules(`collection("${level.name}")`, definition.page, definition.sort, definition.filter, definition.query !== undefined, checkOptions, isStandardSchema) : undefined;
  const response =
    options.response !== undefined
      ? { schema: options.response, array: false }
      : definition.item && { schema: definition.item, array: operation === 'list', page: operation === 'list' && definition.page !== undefined };
  // What each convention is asked for, by its name: the API's conventions read them when it is built.
  const conventions: Record<string, unknown> = {};
  if (rules !== undefined) conventions.lists = rules;
  if (owns !== undefined || scope !== undefined) conventions.ownership = { rule: owns, scope };
  if (validators !== undefined) conventions.conditional = { ...validators, requireIfMatch: definition.requireIfMatch === true };
  if (merge !== undefined) conventions.mergePatch = { schema: merge };

  return freezeEndpoint({
    method: METHOD_OF[operation],
    path: onItem ? itemPath : path,
    operation: operation as Operation,
    params: Object.keys(params).length > 0 ? params : undefined,
    query: operation === 'list' ? definition.query : undefined,
    headers: undefined,
    body: merge !== undefined ? 'unvalidated' : bodyOf(definition, operation),
    consumes: merge !== undefined ? [MERGE_PATCH_TYPE, 'application/json'] : ['application/json'],
    bodyLimit: 'bodyLimit' in options ? (options.bodyLimit as number | undefined) : undefined,
    public: isPublic,
    authorize,
    guards,
    location: undefined,
    locationId: operation === 'create' ? (definition.idOf as Endpoint['locationId']) : undefined,
    itemPath: operation === 'create' ? itemPath : undefined,
    summary: options.summary,
    outcomes: 'outcomes' in options ? options.outcomes : undefined,
    errors: 'errors' in options ? options.errors : undefined,
    // An operation's own response schema, or the collection's item (list: an array of them, or a page).
    response,
    current,
    conventions: declaredConventions(options.conventions, conventions, `the "${operation}" of collection("${level.name}")`),
    handle: options.handle,
  }, `the "${operation}" of collection("${level.name}")`);
}
