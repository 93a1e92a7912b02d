/**
 * The types of `restcanon/client`, read from what `createApi()`, `collection()` and `endpoint()`
 * recorded of an API (types only, never set at run time). An API's routes become one table per
 * method, keyed by path template, built once per API type; a call is one lookup in it, and only the
 * routes a program calls have their request and result types worked out.
 */
import type { ERROR_CODES } from '../core/error-codes.js';
import type { ProblemDetails } from '../core/errors.js';
import type { Page } from '../conventions/lists/lists.js';
import type { OUTCOMES } from '../core/outcomes.js';
import type { PathParams } from '../core/path.js';

type Outcomes = typeof OUTCOMES;
type Codes = typeof ERROR_CODES;

/** The methods a client calls, each a function of the client. */
export type ClientMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * A problem body (RFC 9457) whose `code` is one of `Code`.
 *
 * @example
 * const problem: Problem<'RC_NOT_FOUND'> = { type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND' };
 */
export type Problem<Code extends string = string> = Omit<ProblemDetails, 'code'> & { code: Code };

/**
 * A success answer: its status, headers and body.
 *
 * @example
 * const answer: Success<200, { id: number }> = { ok: true, status: 200, headers: new Headers(), body: { id: 1 } };
 */
export interface Success<Status extends number = number, Body = unknown> {
  readonly ok: true;
  readonly status: Status;
  readonly headers: Headers;
  readonly body: Body;
}

/**
 * An error answer: its status, headers and problem body.
 *
 * @example
 * if (!answer.ok && answer.problem.code === 'RC_NOT_FOUND') console.log(answer.problem.detail);
 */
export interface Failure<Status extends number = number, Code extends string = string> {
  readonly ok: false;
  readonly status: Status;
  readonly headers: Headers;
  readonly problem: Problem<Code>;
}

/** What a query string may hold: values, or arrays of them for repeated keys. */
export type QueryInput = Record<string, string | number | boolean | readonly (string | number | boolean)[] | undefined>;

/** A path param's value, sent percent-encoded. */
type ParamValue = string | number;

/** Codes a 400 can carry: the outcome's, and those of the steps that find bad input. */
type BadRequestCode = Codes['BAD_REQUEST' | 'INVALID_INPUT' | 'MALFORMED_BODY' | 'FORBIDDEN_KEY' | 'TOO_DEEP' | 'UNEXPECTED_BODY' | 'AMBIGUOUS_CREDENTIALS' | 'MALFORMED_URL'];

type ErrorOutcomeName = { [O in keyof Outcomes]: Outcomes[O] extends { code: string } ? O : never }[keyof Outcomes];

/** One error member per outcome; statuses are `number` under a custom policy. */
type FailureOf<O, Custom> = O extends ErrorOutcomeName
  ? Failure<Custom extends true ? number : Outcomes[O]['status'], O extends 'badRequest' ? BadRequestCode : Outcomes[O]['code']>
  : never;

type StatusOf<O extends keyof Outcomes, Custom> = Custom extends true ? number : Outcomes[O]['status'];

/** A schema's input type; `'unvalidated'` takes anything, `'ignored'` nothing; no schema, the fallback. */
// Read from `~standard.types` directly: matching a whole schema type against StandardSchema costs far more.
type In<Schema, Fallback = unknown> = Schema extends { readonly '~standard': { readonly types?: { readonly input: infer Input } | undefined } }
  ? Input
  : Schema extends 'unvalidated'
    ? unknown
    : Schema extends 'ignored'
      ? never
      : Schema extends 'bytes' | 'stream'
        ? Uint8Array | ArrayBuffer | Blob | string
        : Fallback;
type Out<Schema, Fallback = unknown> = Schema extends { readonly '~standard': { readonly types?: { readonly output: infer Output } | undefined } } ? Output : Fallback;
/** A param's input type, or any string or number where the schema takes anything (as coercing schemas do). */
type ParamIn<Schema> = unknown extends In<Schema> ? ParamValue : In<Schema>;

/**
 * One route as the client sees it: the request's parts and the answers it can get.
 * `body` is `never` on a route that takes none.
 */
export interface Route<Params = unknown, Query = unknown, Body = unknown, Answer = unknown> {
  params: Params;
  query: Query;
  body: Body;
  answer: Answer;
}

/** A route the types know nothing of (an endpoint built without `endpoint()`, an untyped API): anything goes. */
export type LooseRoute = Route<Record<string, ParamValue>, QueryInput, unknown, Success | Failure>;

// ---------------------------------------------------------------------------------------------------
// The API's facts, and the table of its routes.

interface ApiShape {
  resources: unknown;
  endpoints: unknown;
  timeout: unknown;
  options: string;
}

type FactsOf<A> = A extends { readonly '~routes'?: infer Facts } ? Facts : never;
type ElementOf<List> = List extends readonly (infer Element)[] ? Element : never;
type MemberFacts<Member> = Member extends { readonly '~facts'?: infer Facts } ? Facts : never;

/** What decides the outcomes of every route of an API. */
interface ApiTraits<Auth extends boolean = boolean, Authorize extends boolean = boolean, Custom extends boolean = boolean, Timeout extends boolean = boolean> {
  auth: Auth;
  authorize: Authorize;
  custom: Custom;
  timeout: Timeout;
}

type ItemOperation = 'read' | 'replace' | 'update' | 'remove';
type CollectionOperation = 'list' | 'create' | ItemOperation;
interface OperationMethods {
  list: 'GET';
  create: 'POST';
  read: 'GET';
  replace: 'PUT';
  update: 'PATCH';
  remove: 'DELETE';
}

/** One entry of the table: where it is, what its route is read from, and what decides its outcomes. */
interface Entry<Method = string, Path = string, Source = unknown, Operation = unknown, Traits = ApiTraits> {
  method: Method;
  path: Path;
  source: Source;
  operation: Operation;
  traits: Traits;
}

type EntriesOf<Facts, Traits> = Facts extends { kind: 'endpoint'; method: infer Method extends string; path: infer Path extends string }
  ? Entry<Method, Path, Facts, 'endpoint', Traits>
  : Facts extends { kind: 'collection'; path: infer Path extends string; declared: infer Keys }
    ? { [Op in Extract<Keys, CollectionOperation>]: Entry<OperationMethods[Op], Op extends 'list' | 'create' ? Path : `${Path}/:id`, Facts, Op, Traits> }[Extract<Keys, CollectionOperation>]
    : never;

/** Every route of a typed API, by method and path template. */
type TableOf<Facts extends ApiShape, Traits extends ApiTraits, Entries extends Entry = EntriesOf<MemberFacts<ElementOf<Facts['resources']> | ElementOf<Facts['endpoints']>>, Traits>> = {
  [Method in ClientMethod]: Settled<{ [E in Entries as E['method'] extends Method ? E['path'] & string : never]: E }>;
};

// The keys of a mapped type with `as` are worked out again, one per entry, each time they are asked
// for; this copy keeps them as one union, so checking a call's path against them costs one lookup.
type Settled<T> = { [K in keyof T]: T[K] };

/** What every route table is: the entries of each method, by path template. */
export type TableShape = { [Method in ClientMethod]: object };

/**
 * The routes of an API by method and path template, with what decides their outcomes. An API whose
 * type holds no routes (an untyped `Api`) gets a table where every path is a {@link LooseRoute}.
 *
 * @example
 * type Paths = keyof RouteTable<typeof api>['GET']; // '/users' | '/users/:id' | ...
 */
export type RouteTable<A> = [FactsOf<A>] extends [infer Facts extends ApiShape]
  ? // The traits are four literal booleans written here, not an alias of the API's facts, which each route would walk again.
    TableOf<
      Facts,
      ApiTraits<
        'authenticate' extends Facts['options'] ? true : false,
        'authorize' extends Facts['options'] ? true : false,
        'policy' extends Facts['options'] ? true : false,
        Facts['timeout'] extends false ? false : true
      >
    >
  : LooseTable;

type LooseTable = { [Method in ClientMethod]: Record<string, LooseRoute> };

/**
 * The paths of the paged lists of a table: lists of collections that declare `page`.
 *
 * @example
 * type Paged = PagedPaths<RouteTable<typeof api>>; // '/users/:userId/orders'
 */
export type PagedPaths<Table extends TableShape> = {
  [Path in keyof Table['GET']]: Table['GET'][Path] extends { operation: 'list'; source: { page: infer Page } } ? ([Page] extends [undefined] ? never : Path) : never;
}[keyof Table['GET']];

// ---------------------------------------------------------------------------------------------------
// One route, worked out from its entry when a program calls it.

/**
 * The route of one table entry: its request's parts and its answers.
 *
 * @example
 * type ReadUser = RouteOf<RouteTable<typeof api>, 'GET', '/users/:id'>;
 */
export type RouteOf<Table extends TableShape, Method extends ClientMethod, Path extends keyof Table[Method]> = RouteOfEntry<Table[Method][Path]>;

type RouteOfEntry<E> = E extends Entry<unknown, unknown, infer Source, infer Operation, infer Traits extends ApiTraits>
  ? Operation extends 'endpoint'
    ? EndpointRoute<Source, Traits>
    : CollectionRoute<Source, Operation, Traits>
  : E;

/** Outcomes every route can reach: 406, 500, and 503 for a timeout unless `timeout: false`. */
type CommonErrors<Traits extends ApiTraits> = 'notAcceptable' | 'internalError' | (Traits['timeout'] extends true ? 'timeout' : never);

// An endpoint declared with endpoint().

type EndpointRoute<F, Traits extends ApiTraits> = F extends {
  method: infer Method;
  path: infer Path extends string;
  params: infer ParamsSchema;
  query: infer QuerySchema;
  body: infer BodySchema;
  public: infer IsPublic;
  result: infer Result;
  response: infer Response;
  operation: infer Declared;
  outcomes: infer Chosen;
  errors: infer Errors;
  declared: infer Keys;
}
  ? Route<
      EndpointParams<Path, ParamsSchema>,
      In<QuerySchema, QueryInput>,
      [BodySchema] extends [undefined] ? never : In<BodySchema>,
      | SuccessesOf<[Declared] extends [never] ? DefaultOperation[Method & keyof DefaultOperation] : Declared, Chosen | ('conditional' extends Keys ? (Method extends 'GET' ? 'notModified' : never) : never), ProducedBody<F, Out<Response, Awaited<Result>>>, Traits['custom']>
      | FailureOf<
          | CommonErrors<Traits>
          | (Path extends `${string}:${string}` ? 'badRequest' : never)
          | (Traits['auth'] extends true ? 'badRequest' | (IsPublic extends true ? never : 'unauthorized') : never)
          | (Method extends 'POST' | 'PUT' | 'PATCH' ? ([BodySchema] extends ['ignored'] ? never : 'badRequest') : never)
          | ([BodySchema] extends [undefined | 'ignored'] ? never : 'payloadTooLarge' | 'unsupportedMediaType' | 'badRequest')
          | ([ParamsSchema | QuerySchema] extends [undefined] ? ('headers' extends Keys ? 'badRequest' : never) : 'badRequest')
          // The API's authorize covers protected endpoints only.
          | ('authorize' extends Keys ? 'forbidden' : Traits['authorize'] extends true ? (IsPublic extends true ? never : 'forbidden') : never)
          | ('conditional' extends Keys ? 'notFound' | 'preconditionFailed' | (Method extends 'GET' ? never : 'preconditionRequired') : never)
          // An item operation whose handler gives nothing answers 404, with params or without.
          | (([Declared] extends [never] ? DefaultOperation[Method & keyof DefaultOperation] : Declared) extends ItemOperation ? 'notFound' : never)
          | Errors,
          Traits['custom']
        >
    >
  : LooseRoute;

/**
 * The success body of an endpoint as the client reads it under each type of its `produces`: a
 * stream for `text/event-stream`, the data for JSON, a string for text and XML, a `Blob` for any
 * other type; the data where it has no `produces`.
 */
type ProducedBody<F, Data> = F extends { produces: infer Produces extends readonly string[] } ? BodyUnder<Lowercase<Produces[number]>, Data> : Data;
type BodyUnder<Type extends string, Data> = Type extends `text/event-stream${string}`
  ? ReadableStream<Uint8Array>
  : Type extends `${string}/json${string}` | `${string}+json${string}`
    ? Data
    : Type extends `text/${string}` | `${string}/xml${string}` | `${string}+xml${string}`
      ? string
      : Blob;

interface DefaultOperation {
  GET: 'read';
  POST: 'submit';
  PUT: 'replace';
  PATCH: 'update';
  DELETE: 'remove';
}

type EndpointParams<Path extends string, Schema> = Schema extends { readonly '~standard': unknown }
  ? In<Schema>
  : { [Name in keyof PathParams<Path>]: Name extends keyof Schema ? ParamIn<Schema[Name]> : ParamValue };

/** The success members of an operation and the outcomes it may choose; 304 keeps the body the client holds. */
type SuccessesOf<Operation, Chosen, Body, Custom> = Operation extends keyof Outcomes
  ?
      | Success<StatusOf<Operation, Custom>, Body>
      | (Outcomes[Operation] extends { mayBeEmpty: true } ? Success<StatusOf<'empty', Custom>, undefined> : never)
      | (Chosen extends 'accepted' ? Success<StatusOf<'accepted', Custom>, Body> : never)
      | (Chosen extends 'empty' ? Success<StatusOf<'empty', Custom>, undefined> : never)
      | (Chosen extends 'notModified' ? Success<StatusOf<'notModified', Custom>, Body | undefined> : never)
  : never;

// An operation of a collection.

interface CollectionShape {
  path: string;
  id: unknown;
  body: unknown;
  patch: unknown;
  query: unknown;
  item: unknown;
  createBody: unknown;
  replaceBody: unknown;
  updateBody: unknown;
  page: unknown;
  sort: unknown;
  filter: unknown;
  public: unknown;
  declared: unknown;
  nested: unknown;
  operations: { [Op in CollectionOperation]: { errors: unknown; response: unknown } };
}

type OwnOr<Own, Fallback> = [Own] extends [undefined] ? Fallback : Own;

/** The body each operation takes: create and replace `body` (or their own), update `patch` (or its own), else a merge patch of `body`. */
type CollectionBody<C extends CollectionShape, Op> = Op extends 'create'
  ? In<OwnOr<C['createBody'], C['body']>>
  : Op extends 'replace'
    ? In<OwnOr<C['replaceBody'], C['body']>>
    : Op extends 'update'
      ? [C['updateBody'] | C['patch']] extends [undefined]
        ? MergePatch<In<C['body']>>
        : In<OwnOr<C['updateBody'], C['patch']>>
      : never;

/** A JSON merge patch (RFC 7396) of an object: any of its members, `null` to remove an optional one. */
export type MergePatch<T> = T extends object ? { [K in keyof T]?: T[K] | (undefined extends T[K] ? null : never) } : T;

/** A list's query: its schema's input, and the page, sort and filter parameters it declares. */
type ListQuery<C extends CollectionShape> = In<C['query'], {}> &
  ([C['page']] extends [undefined] ? {} : { limit?: number | string; after?: string; before?: string; cursor?: string; offset?: number | string }) &
  ([C['sort']] extends [never] ? {} : { sort?: SortParam<C['sort']> }) & { [K in keyof C['filter']]?: In<C['filter'][K]> | string };

/** A field of a list's order, ascending or descending (`-name`). */
type SortKey<Field> = Field extends string ? Field | `-${Field}` : never;

/**
 * What a list's `sort` takes: one declared field, or two different ones (`name,-createdAt`). A longer
 * order, which the server takes too, is a string the types do not list: cast it.
 *
 * @example
 * const sort: SortParam<'name' | 'createdAt'> = 'name,-createdAt';
 */
export type SortParam<Fields, All = Fields> = Fields extends string ? SortKey<Fields> | `${SortKey<Fields>},${SortKey<Exclude<All, Fields>>}` : never;

type CollectionParams<Path extends string, C extends CollectionShape, Op> = {
  [Name in keyof PathParams<Op extends 'list' | 'create' ? Path : `${Path}/:id`>]: Name extends 'id' ? ParamIn<C['id']> : ParamValue;
};

type IsPublic<Public, Op> = Public extends true ? true : Public extends readonly (infer Listed)[] ? (Op extends Listed ? true : false) : false;

type CollectionRoute<C, Op, Traits extends ApiTraits> = C extends CollectionShape
  ? Route<
      CollectionParams<C['path'], C, Op>,
      Op extends 'list' ? ListQuery<C> : QueryInput,
      CollectionBody<C, Op>,
      | CollectionSuccesses<C, Op, Out<C['item']>, C['operations'][Op & CollectionOperation]['response'], Traits['custom']>
      | FailureOf<
          | CommonErrors<Traits>
          | keyof C['operations'][Op & CollectionOperation]['errors']
          | (C['nested'] extends true ? 'badRequest' | 'forbidden' | 'notFound' : never)
          | (Op extends ItemOperation ? 'badRequest' | 'notFound' : never)
          | (Op extends 'create' | 'replace' | 'update' ? 'badRequest' | 'payloadTooLarge' | 'unsupportedMediaType' : never)
          | (Op extends 'list' ? ([C['query'] | C['page']] extends [undefined] ? ([C['sort']] extends [never] ? ({} extends C['filter'] ? never : 'badRequest') : 'badRequest') : 'badRequest') : never)
          | (Traits['auth'] extends true ? 'badRequest' | (IsPublic<C['public'], Op> extends true ? never : 'unauthorized') : never)
          // An operation's own `authorize` is not in the collection's facts: any operation may refuse the caller.
          | 'forbidden'
          | ('owner' extends C['declared'] ? (Op extends ItemOperation ? 'forbidden' : Op extends 'list' ? ('filter' extends C['declared'] ? 'forbidden' : never) : never) : never)
          | (Op extends ItemOperation ? ([Extract<C['declared'], 'etag' | 'lastModified'>] extends [never] ? never : 'preconditionFailed') : never)
          | (Op extends 'replace' | 'update' | 'remove' ? ('requireIfMatch' extends C['declared'] ? 'preconditionRequired' : never) : never),
          Traits['custom']
        >
    >
  : LooseRoute;

/** An operation's successes; one with its own `response` answers what that schema gives. */
type CollectionSuccesses<C extends CollectionShape, Op, Item, Response, Custom> = [Response] extends [never]
  ? ItemSuccesses<C, Op, Item, Custom>
  : Op extends 'remove'
    ? Success<StatusOf<'remove', Custom>, Out<Response>> | Success<StatusOf<'empty', Custom>, undefined>
    : Success<StatusOf<Op & ('list' | 'create' | ItemOperation), Custom>, Out<Response>>;

type ItemSuccesses<C extends CollectionShape, Op, Item, Custom> = Op extends 'list'
  ? Success<StatusOf<'list', Custom>, [C['page']] extends [undefined] ? Item[] : Page<Item>>
  : Op extends 'create'
    ? Success<StatusOf<'create', Custom>, Item>
    : Op extends 'remove'
      ? Success<StatusOf<'remove', Custom>, Item> | Success<StatusOf<'empty', Custom>, undefined>
      :
          | Success<StatusOf<Op & ItemOperation, Custom>, Item>
          | (Op extends 'read' ? ([Extract<C['declared'], 'etag' | 'lastModified'>] extends [never] ? never : Success<StatusOf<'notModified', Custom>, Item | undefined>) : never);
