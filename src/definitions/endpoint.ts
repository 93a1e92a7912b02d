import type { Method } from '../core/http.js';
import { BODY_METHODS, METHODS } from '../core/http.js';
import { parseTemplate } from '../core/path.js';
import type { Operation } from '../core/policy.js';
import { checkFunction, checkOptions } from '../core/options.js';
import { checkParamsSchema } from '../core/params-schema.js';
import { checkSchema, isStandardSchema, type StandardSchema } from '../core/standard-schema.js';
import type { PartSchema } from '../core/validation.js';
import { readsBody, type Authorize, type BodyOption, type ChosenOutcome, type CurrentItem, type DeclaredErrors, type Endpoint } from '../core/endpoint.js';
import { checkProduces } from '../core/produces.js';
import { checkEvents } from '../conventions/events/declare.js';
import { checkConditional } from '../conventions/conditional/declare.js';
import type { EndpointConfig, EndpointFacts, ResultOf } from './endpoint-config.js';
import { checkBodyOption, declaredConventions, freezeEndpoint, publicRule } from './endpoint-checks.js';
import { checkConsumes } from './consumes.js';

const ENDPOINT_OPTIONS = ['operation', 'params', 'query', 'headers', 'body', 'consumes', 'produces', 'events', 'bodyLimit', 'public', 'authorize', 'location', 'response', 'summary', 'outcomes', 'errors', 'conditional', 'conventions', 'handle'];

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
  const M extends Method,
  const Path extends string,
  ParamsSchema extends PartSchema | undefined = undefined,
  QuerySchema extends StandardSchema | undefined = undefined,
  HeadersSchema extends StandardSchema | undefined = undefined,
  BodySchema extends BodyOption | undefined = undefined,
  IsPublic extends boolean = false,
  Response extends StandardSchema | undefined = undefined,
  Result extends ResultOf<Response> = ResultOf<Response>,
  Loaded = unknown,
  const Op extends Operation = never,
  const Chosen extends ChosenOutcome = never,
  Errors extends DeclaredErrors = {},
  const Keys extends string = never,
  const Produces extends readonly string[] | undefined = undefined,
>(
  method: M,
  path: Path,
  config: EndpointConfig<Path, ParamsSchema, QuerySchema, HeadersSchema, BodySchema, IsPublic, Result, Response, Loaded, Op, Chosen, Errors> & { [K in Keys]?: unknown } & { produces?: Produces },
): Endpoint<EndpointFacts<M, Path, ParamsSchema, QuerySchema, BodySchema, IsPublic, Result, Response, Op, Chosen, Errors, Keys, Produces>> {
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
  checkBodyOption(config.body, `${where}: "body"`, true);
  if (config.consumes !== undefined && !(BODY_METHODS.has(method) && readsBody({ body: config.body }))) {
    throw new TypeError(`${where}: "consumes" names the media types of the body it reads, and it reads none; give "body" a schema or 'unvalidated', or drop "consumes"`);
  }
  checkConsumes(config.consumes, config.body, where);
  if (config.params !== undefined && !isStandardSchema(config.params)) {
    if (typeof config.params !== 'object' || config.params === null) throw new TypeError(`${where}: "params" must be a Standard Schema of the params, or a schema per param such as { id: z.coerce.number() }`);
    for (const [name, schema] of Object.entries(config.params)) checkSchema(schema, `${where}: the params schema of "${name}"`);
  }
  checkParamsSchema(config.params, path, where);
  if (config.operation !== undefined && !OPERATIONS.includes(config.operation)) {
    throw new TypeError(`${where}: "operation" must be one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(config.operation)}`);
  }
  checkFunction(config.authorize, `${where}: "authorize"`, '(ctx) => true to let the caller go on');
  checkFunction(config.location, `${where}: "location"`, '(result, ctx) => the URL of the new item');
  if (config.public === true && config.authorize !== undefined) throw publicRule(where, 'a public endpoint');
  const produces = checkProduces(config.produces, where);
  const events = checkEvents(config.events, produces, where);
  const operation = config.operation ?? DEFAULT_OPERATION[method];
  const conditional = checkConditional(config.conditional, where);
  // The facts are types only: an endpoint without them fits every `Endpoint<Facts>`.
  return freezeEndpoint({
    method,
    path,
    operation,
    params: config.params,
    query: config.query,
    headers: config.headers,
    body: config.body,
    consumes: config.consumes ?? ['application/json'],
    ...(produces === undefined ? {} : { produces }),
    ...(events === undefined ? {} : { events }),
    bodyLimit: config.bodyLimit,
    public: config.public === true,
    authorize: config.authorize === undefined ? [] : [config.authorize as Authorize],
    guards: [],
    location: config.location as Endpoint['location'],
    itemPath: operation === 'create' ? `${path}/:id` : undefined,
    summary: config.summary,
    response: config.response === undefined ? undefined : { schema: config.response, array: false },
    outcomes: config.outcomes,
    errors: config.errors,
    current: conditional && { load: conditional.load as CurrentItem['load'], isHandler: false, answersItem: false },
    conventions: declaredConventions(config.conventions, conditional && { conditional: { etag: conditional.etag, lastModified: conditional.lastModified, requireIfMatch: conditional.requireIfMatch === true } }, where),
    handle: config.handle as Endpoint['handle'],
  }, where) as Endpoint<never>;
}
