import type { Answer, ApiRequest, ApiResponse } from './contract.js';
import type { Endpoint, Register } from './endpoint.js';
import { MethodNotAllowedError, withoutStack } from './errors.js';
import type { Compiled } from './exchange.js';
import type { Serializer } from '../formats/formats.js';
import { checkNaming, type NamingOptions } from '../naming/naming.js';
import { remember } from './memo.js';
import { checkOptions } from './options.js';
import { joinPaths } from './path.js';
import type { Outcome } from './outcomes.js';
import type { StatusPolicy } from './policy.js';
import { EMPTY_HEADERS, splitUrl, withLowerCaseHeaders } from './request.js';
import { requestIdOf } from './request-id.js';
import { isHeaderValue } from './http.js';
import { createRouter } from './router.js';
import { NO_ROUTE, optionsResponse } from './answers.js';
import { compile } from './compile.js';
import { createRuntime, type Runtime } from './runtime.js';
import { apiOptionsOf, modulesOf, wrapResponder } from './modules.js';
import type { Convention, Responder } from './seam.js';
import type { ProblemBody, RuntimeOptions } from './settings.js';

/**
 * Creating an API: its options checked, its endpoints compiled behind one router, and the answer to
 * a request, from routing (404, 405, OPTIONS, HEAD) to the endpoint's steps.
 */

/**
 * A resource as `createApi({ resources })` takes it: anything that declares endpoints, such as a
 * collection (which brings its items and its nested collections).
 *
 * @example
 * const resources: Resource[] = [users, { endpoints: [health] }];
 */
export interface Resource {
  readonly endpoints: readonly Endpoint[];
}

/** One route of an API, as adapters and documentation see it. */
export interface RouteInfo {
  method: string;
  path: string;
  endpoint: Endpoint;
  /** Every outcome the route can answer, recorded when its endpoint was compiled; `api.policy` gives each its status. */
  outcomes: readonly Outcome[];
}

/**
 * Options of {@link createApi}.
 *
 * @example
 * const options: ApiOptions = { basePath: '/api', endpoints: [health], bodyLimit: 64 * 1024 };
 */
export interface ApiOptions extends RuntimeOptions {
  /** A prefix for every path, such as `/api/v1`. */
  basePath?: string;
  endpoints?: readonly Endpoint[];
  resources?: readonly Resource[];
  /** What a path that breaks the naming conventions does at start-up. Default `'error'`. */
  naming?: 'error' | 'warn' | 'off';
  /** Segment names or whole paths the naming check lets through. */
  namingAllow?: NamingOptions['allow'];
  /**
   * Serves a description of the API, built on the first request: `openApi({ info })` from
   * `restcanon/openapi` serves the OpenAPI document at `GET /openapi.json`.
   */
  openapi?: ApiDocument;
  /**
   * Modules on the engine's seam, in order: conventions (`cors(...)`) and extensions
   * (`extension({ ... })`) that add steps, per-request state and observers to every endpoint.
   */
  use?: readonly Convention[];
}

/**
 * An API: every endpoint behind one router and one policy.
 *
 * @example
 * const response = await api.handle({ method: 'GET', url: '/api/users/7' });
 */
export interface Api<Routes = unknown> {
  /**
   * What `createApi()` was given that `restcanon/client` types its calls from (its resources and
   * endpoints, `authenticate`, `policy`, `timeout`): types only, never set at run time.
   */
  readonly '~routes'?: Routes;
  /**
   * Runs the whole pipeline in memory. Never rejects: every failure is a response. While its answer
   * is pending, the request's deadline keeps the process alive, so that a handler that never settles
   * gets its 503 in a script or a unit test too.
   */
  handle(request: ApiRequest): Promise<ApiResponse>;
  /**
   * The answer for adapters, this package's and yours: the response itself when every step of the
   * request was synchronous (so that it can be written out in the same tick), its promise when a
   * step had to wait. With `unmatched: 'pass'`, a path no endpoint matches answers undefined, so a
   * host router can go on. Never throws, and the promise never rejects. Every response is the
   * caller's own, headers included: an adapter may add to them (`Content-Length`, say).
   *
   * @example
   * const answer = api.respond(request, { unmatched: 'pass', lowerCaseHeaders: true });
   * const response = answer instanceof Promise ? await answer : answer; // undefined: not the API's path
   */
  respond(request: ApiRequest, options?: RespondOptions & { unmatched?: 'answer' }): ApiResponse | Promise<ApiResponse>;
  respond(request: ApiRequest, options: RespondOptions): Answer;
  /** Like `handle`, but resolves to undefined when no path matches, so a host router can go on. */
  dispatch(request: ApiRequest): Promise<ApiResponse | undefined>;
  /** Whether some endpoint matches a path (with or without query string). */
  matches(url: string): boolean;
  /** Every method and path, for adapters and documentation. */
  readonly routes: readonly RouteInfo[];
  /** Its modules: restcanon's own conventions and those of `use`, in the order their steps run within a phase. */
  readonly modules: readonly Convention[];
  readonly basePath: string;
  /** The status policy every answer follows. */
  readonly policy: StatusPolicy;
  /** Response formats in the server's order of preference. */
  readonly formats: readonly Serializer[];
  /** The `WWW-Authenticate` challenge of its 401s. */
  readonly challenge: string;
  /** The largest request body in bytes: a larger one answers the policy's `payloadTooLarge` status. */
  readonly bodyLimit: number;
  /** The API's own error body, when it shapes one. */
  readonly problemBody: ProblemBody | undefined;
}

/**
 * How {@link Api.respond} takes a request. Adapters pass one object they keep, so that a request
 * allocates nothing for it.
 *
 * @example
 * const PASS_ON: RespondOptions = { unmatched: 'pass', lowerCaseHeaders: true };
 */
export interface RespondOptions {
  /** What a path no endpoint matches gets: the API's 404 (`'answer'`, the default), or undefined (`'pass'`). */
  unmatched?: 'answer' | 'pass';
  /**
   * Whether the header names are in lower case already, as `node:http` and a Fetch `Headers` give
   * them: then they are not lowered again. A request built by hand leaves it out.
   */
  lowerCaseHeaders?: boolean;
}

const ANSWER_ALL: RespondOptions = Object.freeze({});

/**
 * A document about an API that the API serves itself, such as its OpenAPI description. The core
 * knows only this shape, so APIs that serve no document never load the code that builds one.
 *
 * @example
 * createApi({ openapi: { path: '/openapi.json', public: true, build: (api) => describe(api) } });
 */
export interface ApiDocument {
  /** Where it is served, below `basePath`. */
  path: string;
  /** Reachable without a caller. */
  public: boolean;
  build(api: Api): unknown;
}

/**
 * The options argument of {@link createApi} and {@link createEndpointHandler}. Once {@link Register}
 * declares a principal, handlers are typed as if every protected request had one: that holds only
 * where something authenticates, so `authenticate` is then required.
 */
export type OptionsArgument<Options extends { authenticate?: unknown }> = Register extends { principal: unknown }
  ? [options: Options & { authenticate: NonNullable<Options['authenticate']> }]
  : [options?: Options];

/**
 * The type of {@link createApi}: `Extra` holds the options that its built-in conventions read (the
 * package's `createApi` takes `cors`).
 */
export type CreateApi<Extra = {}> = <
  const Resources extends readonly Resource[] = readonly Resource[],
  const Endpoints extends readonly Endpoint[] = readonly Endpoint[],
  const Timeout extends number | false = number | false,
  const Keys extends string = never,
>(
  ...given: OptionsArgument<ApiOptions & Extra & { resources?: Resources; endpoints?: Endpoints; timeout?: Timeout } & { [K in Keys]?: unknown }>
) => Api<ApiFacts<Resources, Endpoints, Timeout, Keys>>;

/**
 * The `createApi` of an API with these conventions built in, before those of `use`. The package's
 * own `createApi` is the engine with every convention restcanon has. `absent` names the convention
 * that reads an option (`{ cors: 'cors' }`), so that an API given that option without the
 * convention is told which one to add.
 *
 * @example
 * const createApi = apiWith<{ cors?: CorsOptions }>([cors, lists, conditional]);
 */
export function apiWith<Extra = {}>(builtIns: readonly Convention[], absent: Readonly<Record<string, string>> = {}): CreateApi<Extra> {
  // The facts are types only.
  return ((options?: ApiOptions) => buildApi(options ?? {}, builtIns, absent)) as CreateApi<Extra>;
}

/**
 * Builds an API from endpoints and resources. Every option is checked now: a mistake throws with a
 * sentence that says what to change, never at request time.
 */
function buildApi(options: ApiOptions, builtIns: readonly Convention[], absent: Readonly<Record<string, string>>): Api {
  const modules = modulesOf(builtIns, options.use);
  const taken = apiOptionsOf(modules);
  for (const [option, convention] of Object.entries(absent)) {
    if ((options as Record<string, unknown>)[option] !== undefined && !taken.includes(option)) {
      throw new TypeError(`createApi: "${option}" is an option of the "${convention}" convention, which this API does not have; add it, as createApi({ use: [${convention}] }) with ${convention} from restcanon/engine`);
    }
  }
  checkOptions('createApi()', options, [...API_OPTIONS, ...taken]);
  const basePath = joinPaths(options.basePath ?? '/', '/');
  const runtime = createRuntime(options);
  const served = options.openapi === undefined ? [] : [documentEndpoint(options.openapi, () => api)];
  // A nested collection's endpoints come with its parent's too: listing both must not declare them twice.
  const endpoints = [...new Set([...listedEndpoints(options.endpoints), ...served, ...listedResources(options.resources)])];
  const router = createRouter<Compiled>();
  const routes: RouteInfo[] = [];
  for (const definition of endpoints) {
    const template = joinPaths(basePath, definition.path);
    const compiled = compile(definition, template, runtime.settings, modules);
    router.add(definition.method, template, compiled);
    routes.push({ method: definition.method, path: template, endpoint: definition, outcomes: compiled.outcomes });
  }
  // A path that several methods share is linted once: lintPaths drops repeats.
  checkNaming(endpoints.map((definition) => definition.path), options.naming ?? 'error', { allow: options.namingAllow });

  // One 405 per distinct Allow value (a bounded memo, as for other repeated answers): the answer depends on nothing else.
  const notAllowed = new Map<string, MethodNotAllowedError>();

  /**
   * The response, synchronously when every step of the request was; undefined for an unmatched path
   * when `passUnmatched`. Every response is built for the request, with a headers object of its own.
   */
  function respond(given: ApiRequest, passUnmatched: boolean, lowerCaseHeaders = false): Answer {
    const request = lowerCaseHeaders ? given : withLowerCaseHeaders(given);
    const headers = request.headers ?? EMPTY_HEADERS;
    const method = request.method;
    let match;
    let search;
    try {
      const target = splitUrl(request.url);
      search = target.search;
      match = router.find(target.path);
    } catch (error) {
      return runtime.fail(error, request, headers);
    }
    if (match === undefined) return passUnmatched ? undefined : runtime.fail(NO_ROUTE, request, headers);
    let compiled = match.route.handlers[method];
    if (compiled === undefined) {
      if (method === 'HEAD' && match.route.handlers.GET !== undefined) compiled = match.route.handlers.GET;
      else if (method === 'OPTIONS') return optionsResponse(match.route.allow, runtime.settings);
      else return runtime.fail(remember(notAllowed, match.route.allow, methodNotAllowed, undefined), request, headers);
    }
    return runtime.run(compiled, match.params, search, headers, request);
  }

  /** The route a path matches, or undefined (no route, or a path that cannot be read). */
  const routeOf = (url: string) => {
    try {
      return router.find(splitUrl(url).path)?.route;
    } catch {
      return undefined;
    }
  };
  // Without a module that wraps it (CORS, an observer) every request goes straight to `respond`.
  const wrapped: Responder = wrapResponder(respond, modules, options as Readonly<Record<string, unknown>>, {
    settings: runtime.settings,
    allowOf: (url) => routeOf(url)?.allow,
    templateOf: (url) => routeOf(url)?.template,
    exposes: modules.flatMap((module) => module.exposes ?? []),
  });
  // A wrapper of a module of `use` may fail on a request: that is a masked 500, never a throw out of `respond`.
  const guarded = modules.some((module) => module.api !== undefined && !builtIns.includes(module)) ? neverFailing(wrapped, runtime) : wrapped;
  const echo = runtime.settings.requestIdEcho;
  const answer = echo === undefined ? guarded : echoingIds(guarded, runtime, echo);

  const api: Api = {
    handle: (request) => awaited(runtime, answer(request, false) as ApiResponse | Promise<ApiResponse>),
    dispatch: (request) => Promise.resolve(answer(request, true)),
    // Only a path that matched nothing answers undefined, and only when asked to pass it on.
    respond: ((request: ApiRequest, options: RespondOptions = ANSWER_ALL) => answer(request, options.unmatched === 'pass', options.lowerCaseHeaders === true)) as Api['respond'],
    matches: (url) => {
      try {
        return router.find(splitUrl(url).path) !== undefined;
      } catch {
        return true;
      }
    },
    routes,
    modules,
    basePath,
    policy: runtime.settings.policy,
    formats: runtime.settings.formats,
    challenge: runtime.settings.challenge,
    bodyLimit: runtime.settings.bodyLimit,
    problemBody: runtime.settings.problemBody,
  };
  return api;
}

/**
 * `respond` that sends every answer with the request's id in the header `echo`: the id is found
 * once, before anything runs, and given to the request as its own, so that `ctx.id`, the problem's
 * `instance` and the header agree.
 */
function echoingIds(respond: Responder, runtime: Runtime, echo: string): Responder {
  const { settings } = runtime;
  const stamp = (response: ApiResponse | undefined, id: string): ApiResponse | undefined => {
    // An id of the host's that could not go on the wire is not sent back.
    if (response !== undefined && isHeaderValue(id)) response.headers[echo] = id;
    return response;
  };
  return (given, passUnmatched, lowerCaseHeaders = false) => {
    const lowered = lowerCaseHeaders ? given : withLowerCaseHeaders(given);
    const id = requestIdOf(lowered, lowered.headers ?? EMPTY_HEADERS, settings.requestIdFrom);
    const answer = respond(lowered.id === id ? lowered : { ...lowered, id }, passUnmatched, true);
    return answer instanceof Promise ? answer.then((response) => stamp(response, id)) : stamp(answer, id);
  };
}

/** `respond` that answers a failure of a wrapper as the API answers any failure: it never throws, and its promise never rejects. */
function neverFailing(respond: Responder, runtime: Runtime): Responder {
  const fail = (error: unknown, request: ApiRequest): ApiResponse => runtime.fail(error, request, withLowerCaseHeaders(request).headers ?? EMPTY_HEADERS);
  return (request, passUnmatched, lowerCaseHeaders) => {
    let answer: Answer;
    try {
      answer = respond(request, passUnmatched, lowerCaseHeaders);
    } catch (error) {
      return fail(error, request);
    }
    return answer instanceof Promise ? answer.then(undefined, (error: unknown) => fail(error, request)) : answer;
  };
}

/**
 * What an {@link Api} records of its options for `restcanon/client`, as types only: which routes
 * exist and which outcomes they reach. Nothing is computed from them on the server.
 */
export interface ApiFacts<Resources, Endpoints, Timeout, Keys> {
  resources: Resources;
  endpoints: Endpoints;
  timeout: Timeout;
  /** The options given, such as `authenticate` and `policy`. */
  options: Keys;
}

const ENDPOINT_HANDLER_OPTIONS = ['authenticate', 'authorize', 'challenge', 'onError', 'policy', 'bodyLimit', 'maxDepth', 'formats', 'serializerCompiler', 'problemBody', 'timeout', 'logger', 'requestId'];
const API_OPTIONS = [...ENDPOINT_HANDLER_OPTIONS, 'basePath', 'endpoints', 'resources', 'naming', 'namingAllow', 'openapi', 'use'];

const DECLARE_ENDPOINT = 'declare it with endpoint(method, path, { handle })';

/** Whether a value is an endpoint as `endpoint()` and `defineEndpoint()` give it. */
function isEndpoint(value: unknown): value is Endpoint {
  const candidate = value as Partial<Endpoint> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.method === 'string' && typeof candidate.path === 'string' && typeof candidate.handle === 'function' && Array.isArray(candidate.authorize);
}

/** Whether a value is a resource: something with a list of endpoints, such as a collection. */
function isResource(value: unknown): value is Resource {
  return typeof value === 'object' && value !== null && Array.isArray((value as Partial<Resource>).endpoints);
}

function listOf(name: 'endpoints' | 'resources', list: unknown): readonly unknown[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new TypeError(`createApi: "${name}" must be an array of ${name === 'endpoints' ? 'endpoints' : 'resources, such as collections'}`);
  return list;
}

/** The `endpoints` option, each one an endpoint: a collection there says where it belongs. */
function listedEndpoints(list: unknown): Endpoint[] {
  return listOf('endpoints', list).map((value, index) => {
    if (isEndpoint(value)) return value;
    if (isResource(value)) {
      const path = (value as { path?: unknown }).path;
      throw new TypeError(`createApi: endpoints[${index}] is a ${typeof path === 'string' ? `collection (${path})` : 'resource'}; pass it in "resources"`);
    }
    throw new TypeError(`createApi: endpoints[${index}] is not an endpoint; ${DECLARE_ENDPOINT}`);
  });
}

/** The endpoints of the `resources` option: an endpoint there says where it belongs. */
function listedResources(list: unknown): Endpoint[] {
  return listOf('resources', list).flatMap((value, index) => {
    if (isEndpoint(value)) throw new TypeError(`createApi: resources[${index}] is an endpoint (${value.method} ${value.path}); pass it in "endpoints"`);
    if (!isResource(value)) throw new TypeError(`createApi: resources[${index}] is not a resource; pass a collection(...), or { endpoints: [...] }`);
    return value.endpoints.map((member, position) => {
      if (isEndpoint(member)) return member;
      throw new TypeError(`createApi: resources[${index}] holds an endpoints[${position}] that is not an endpoint; ${DECLARE_ENDPOINT}`);
    });
  });
}

/**
 * The answer of a call made in memory (`api.handle`, an endpoint handler), as a promise. While it is
 * pending its deadline keeps the process alive: a script or a unit test that awaits a handler that
 * never settles gets the 503 rather than an exit with nothing. The adapters' door, `respond`, does
 * not hold it: their server keeps the process alive while it serves.
 */
function awaited(runtime: Runtime, answer: ApiResponse | Promise<ApiResponse>): Promise<ApiResponse> {
  const deadlines = runtime.settings.deadlines;
  if (!(answer instanceof Promise) || deadlines === undefined) return Promise.resolve(answer);
  deadlines.hold();
  return answer.then(
    (response) => {
      deadlines.release();
      return response;
    },
    (error: unknown) => {
      deadlines.release();
      throw error;
    },
  );
}

/** The 405 for a path's Allow value; {@link createApi} keeps one per distinct value. */
function methodNotAllowed(allow: string): MethodNotAllowedError {
  return withoutStack(() => new MethodNotAllowedError(allow));
}

/** The endpoint that serves a document about the API, built once, on the first request, when every route is known. */
function documentEndpoint(config: ApiDocument, apiOf: () => Api): Endpoint {
  if (typeof config !== 'object' || config === null || typeof config.build !== 'function' || typeof config.path !== 'string') {
    throw new TypeError('createApi: "openapi" must be a document to serve, such as openApi({ info }) from restcanon/openapi');
  }
  let document: unknown;
  return Object.freeze({
    method: 'GET',
    path: config.path,
    operation: 'read',
    params: undefined,
    query: undefined,
    headers: undefined,
    body: undefined,
    consumes: [],
    public: config.public === true,
    authorize: [],
    guards: [],
    location: undefined,
    itemPath: undefined,
    summary: 'A description of this API',
    handle: () => (document ??= config.build(apiOf())),
  });
}

/** Options of {@link createEndpointHandler}: those of `createApi` that apply to one endpoint, and its modules. */
export interface EndpointHandlerOptions extends RuntimeOptions {
  /** Modules on the engine's seam, as `createApi` takes them. */
  use?: readonly Convention[];
}

/** The type of {@link createEndpointHandler}. */
export type CreateEndpointHandler = (definition: Endpoint, ...given: OptionsArgument<EndpointHandlerOptions>) => (request: ApiRequest, params: Record<string, string>) => Promise<ApiResponse>;

/**
 * The `createEndpointHandler` of these built-in conventions, as {@link apiWith} gives `createApi`.
 *
 * @example
 * const createEndpointHandler = handlerWith([conditional]);
 */
export function handlerWith(builtIns: readonly Convention[]): CreateEndpointHandler {
  return (definition, ...given) => {
    const options: EndpointHandlerOptions = given[0] ?? {};
    checkOptions('createEndpointHandler()', options, [...ENDPOINT_HANDLER_OPTIONS, 'use']);
    const modules = modulesOf(builtIns, options.use);
    const wrapping = modules.find((module) => module.api !== undefined && !builtIns.includes(module));
    if (wrapping !== undefined) {
      throw new TypeError(`createEndpointHandler(): the module "${wrapping.name}" wraps an API's answer (an observer, CORS), and an endpoint handler has none to wrap; give it to createApi`);
    }
    const runtime = createRuntime(options);
    const compiled = compile(definition, definition.path, runtime.settings, modules);
    const { requestIdFrom, requestIdEcho } = runtime.settings;
    return async (given, params) => {
      const lowered = withLowerCaseHeaders(given);
      const headers = lowered.headers ?? EMPTY_HEADERS;
      const id = requestIdOf(lowered, headers, requestIdFrom);
      const request = lowered.id === id ? lowered : { ...lowered, id };
      let response: ApiResponse;
      try {
        response = await awaited(runtime, runtime.run(compiled, params, splitUrl(request.url).search, headers, request));
      } catch (error) {
        response = runtime.fail(error, request, headers, id);
      }
      if (requestIdEcho !== undefined && isHeaderValue(id)) response.headers[requestIdEcho] = id;
      return response;
    };
  };
}
