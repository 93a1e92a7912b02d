import type { Promisable, Simplify } from 'type-fest' with { 'resolution-mode': 'import' };
import type { ApiRequest, HeaderRecord, QueryRecord } from './contract.js';
import type { Method } from './http.js';
import { METHODS } from './http.js';
import type { PathParams } from './path.js';
import { parseTemplate } from './path.js';
import type { Operation } from './policy.js';
import { checkOptions } from './options.js';
import { checkSchema, isStandardSchema, type InferInput, type InferOutput, type StandardSchema } from './standard-schema.js';
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
 * const authenticate = async (request: ApiRequest): Promise<Authenticated> => db.sessions.findUnique({ where: { token: tokenOf(request) } });
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
}

/** A context before its types are known; what guards and the pipeline pass around. */
export type AnyContext = Context<any, any, any, any, any>;

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
 * The body option of an endpoint or a collection: a schema, or `'unvalidated'` to take any JSON
 * unchecked (the handler then sees `unknown`). Without either, an endpoint takes no body.
 *
 * @example
 * const body: BodyOption = 'unvalidated';
 */
export type BodyOption = StandardSchema | 'unvalidated';

/** The body a handler sees: the schema's output, `unknown` when unvalidated, nothing without a body option. */
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
> {
  /** What the endpoint does; decides its success status. Defaults from the method: GET read, POST submit, PUT replace, PATCH update, DELETE remove. */
  operation?: Operation;
  params?: ParamsSchema;
  query?: QuerySchema;
  headers?: HeadersSchema;
  /**
   * The schema of the request body, or `'unvalidated'` to take any body unchecked. A POST, PUT or
   * PATCH endpoint without it takes no body: a request that sends one is a 400.
   */
  body?: BodySchema;
  /** Media types of request bodies. Defaults to `['application/json']`, which admits every `+json` type. */
  consumes?: readonly string[];
  /** Reachable without a principal when the API authenticates. */
  public?: IsPublic;
  /** Extra permission check; `false` answers 403. */
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
  handle: (ctx: EndpointContext<Path, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic>) => Promisable<Result>;
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
export interface Endpoint {
  readonly method: Method;
  readonly path: string;
  readonly operation: Operation;
  readonly params: PartSchema | undefined;
  readonly query: StandardSchema | undefined;
  readonly headers: StandardSchema | undefined;
  /** The body's schema; `'unvalidated'` takes any body; undefined takes none. */
  readonly body: BodyOption | undefined;
  readonly consumes: readonly string[];
  readonly public: boolean;
  readonly authorize: readonly Authorize[];
  readonly guards: readonly Guard[];
  readonly filters: readonly ResultFilter[];
  readonly location: ((result: unknown, ctx: AnyContext) => string | undefined) | undefined;
  /** For `create` without `location`: the template of the new item's URL, filled with the params and the result's `id`. */
  readonly itemPath: string | undefined;
  readonly summary: string | undefined;
  /** The body of a successful answer, if declared. */
  readonly response?: ResponseSchema | undefined;
  readonly handle: (ctx: AnyContext) => unknown;
}

const ENDPOINT_OPTIONS = ['operation', 'params', 'query', 'headers', 'body', 'consumes', 'public', 'authorize', 'location', 'response', 'summary', 'handle'];

/**
 * Throws unless a body option is undefined, a Standard Schema or `'unvalidated'`.
 *
 * @example
 * checkBodyOption('unvalidated', 'endpoint(POST /imports): "body"');
 */
export function checkBodyOption(value: unknown, what: string): void {
  if (value !== undefined && value !== 'unvalidated' && !isStandardSchema(value)) {
    throw new TypeError(`${what} must be a Standard Schema, such as a zod schema, or 'unvalidated' to take any body unchecked`);
  }
}

const OPERATIONS: readonly Operation[] = ['list', 'read', 'create', 'submit', 'replace', 'update', 'remove'];

const DEFAULT_OPERATION: Readonly<Record<Method, Operation>> = {
  GET: 'read',
  HEAD: 'read',
  POST: 'submit',
  PUT: 'replace',
  PATCH: 'update',
  DELETE: 'remove',
  OPTIONS: 'submit',
};

/**
 * Declares one endpoint. Its `ctx.params` are typed from the path template (or the params schemas),
 * `ctx.query`, `ctx.headers` and `ctx.body` from their schemas.
 *
 * @example
 * const search = endpoint('POST', '/searches', {
 *   body: z.object({ text: z.string() }),
 *   handle: (ctx) => index.search(ctx.body.text), // a POST that submits: 200
 * });
 */
export function endpoint<
  const Path extends string,
  ParamsSchema extends PartSchema | undefined = undefined,
  QuerySchema extends StandardSchema | undefined = undefined,
  HeadersSchema extends StandardSchema | undefined = undefined,
  BodySchema extends BodyOption | undefined = undefined,
  IsPublic extends boolean = false,
  Response extends StandardSchema | undefined = undefined,
  Result extends ResultOf<Response> = ResultOf<Response>,
>(method: Method, path: Path, config: EndpointConfig<Path, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic, Result, Response>): Endpoint {
  if (!(METHODS as readonly string[]).includes(method)) {
    throw new TypeError(`endpoint(): unknown method ${JSON.stringify(method)}; use one of ${METHODS.join(', ')}`);
  }
  parseTemplate(path);
  const where = `endpoint(${method} ${path})`;
  checkOptions(where, config, ENDPOINT_OPTIONS);
  if (typeof config?.handle !== 'function') throw new TypeError(`${where}: "handle" must be a function`);
  checkSchema(config.response, `${where}: "response"`);
  checkSchema(config.query, `${where}: "query"`);
  checkSchema(config.headers, `${where}: "headers"`);
  checkBodyOption(config.body, `${where}: "body"`);
  if (config.params !== undefined && !isStandardSchema(config.params)) {
    for (const [name, schema] of Object.entries(config.params)) checkSchema(schema, `${where}: the params schema of "${name}"`);
  }
  if (config.operation !== undefined && !OPERATIONS.includes(config.operation)) {
    throw new TypeError(`${where}: "operation" must be one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(config.operation)}`);
  }
  const operation = config.operation ?? DEFAULT_OPERATION[method];
  return defineEndpoint({
    method,
    path,
    operation,
    params: config.params,
    query: config.query,
    headers: config.headers,
    body: config.body,
    consumes: config.consumes ?? ['application/json'],
    public: config.public === true,
    authorize: config.authorize === undefined ? [] : [config.authorize as Authorize],
    guards: [],
    filters: [],
    location: config.location as Endpoint['location'],
    itemPath: operation === 'create' ? `${path}/:id` : undefined,
    summary: config.summary,
    response: config.response === undefined ? undefined : { schema: config.response, array: false },
    handle: config.handle as Endpoint['handle'],
  });
}

/**
 * Freezes a complete endpoint description. Resources build theirs with it; most code wants {@link endpoint}.
 *
 * @example
 * defineEndpoint({ ...existing, path: '/v2' + existing.path });
 */
export function defineEndpoint(definition: Endpoint): Endpoint {
  const where = `defineEndpoint(${definition?.method} ${definition?.path})`;
  checkOptions(where, definition, DEFINITION_KEYS);
  checkBodyOption(definition.body, `${where}: "body"`);
  checkSchema(definition.query, `${where}: "query"`);
  checkSchema(definition.headers, `${where}: "headers"`);
  checkSchema(definition.response?.schema, `${where}: "response"`);
  return Object.freeze({ ...definition });
}

const DEFINITION_KEYS = [
  'method', 'path', 'operation', 'params', 'query', 'headers', 'body', 'consumes', 'public', 'authorize', 'guards', 'filters', 'location', 'itemPath', 'summary', 'response', 'handle',
];
