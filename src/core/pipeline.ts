import { BODY_METHODS, isEmptyBodyStatus } from './http.js';
import { checkContentEncoding, checkContentLength, checkMediaType, inspectBody, isRawBody, parseBodyText, readBody, type BodyRules } from './body.js';
import { endpoint as declareEndpoint, type AnyContext, type ApiRequest, type Endpoint, type HeaderRecord } from './endpoint.js';
import {
  BadRequestError,
  ForbiddenError,
  HttpError,
  InternalServerError,
  isHttpError,
  MethodNotAllowedError,
  NotAcceptableError,
  NotFoundError,
  problemOf,
  UnauthorizedError,
  type InputIssue,
} from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import { createNegotiator, json, type Serializer } from './formats.js';
import { checkNaming, type NamingOptions } from './naming.js';
import { buildPath, joinPaths } from './path.js';
import { applyPolicy, DEFAULT_POLICY, type StatusPolicy } from './policy.js';
import { createRouter, type Route } from './router.js';
import { normalizeHeaders, parseQuery, single, splitUrl } from './request.js';
import { invalidInput, validatePart } from './validation.js';

/**
 * What the core answers: the status, the headers (lower-cased names), the body as a value (a result
 * or a problem object, for tests to read) and the payload as it goes on the wire (for adapters).
 *
 * @example
 * const response = await api.handle({ method: 'GET', url: '/users/7' });
 * response.status; // 404
 * response.body; // { type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND', ... }
 */
export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  payload: string | Uint8Array | undefined;
}

/** What `onError` learns besides the error: the id sent to the client in `instance`, and the request. */
export interface ErrorInfo {
  requestId: string;
  status: number;
  request: ApiRequest;
}

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
}

/**
 * Options of {@link createApi}.
 *
 * @example
 * const options: ApiOptions = { basePath: '/api', endpoints: [health], bodyLimit: 64 * 1024 };
 */
export interface ApiOptions {
  /** A prefix for every path, such as `/api/v1`. */
  basePath?: string;
  endpoints?: readonly Endpoint[];
  resources?: readonly Resource[];
  /** Finds the caller of a request; `undefined` is an anonymous caller. Once set, every endpoint that is not `public` needs a caller. */
  authenticate?: (request: ApiRequest) => unknown;
  /** A rule every protected request must pass; `false` answers 403. */
  authorize?: (ctx: AnyContext) => boolean | Promise<boolean>;
  /** The `WWW-Authenticate` challenge of a 401. Default `Bearer realm="api"`. */
  challenge?: string;
  /** Sees every error that becomes a 5xx, and what was hidden from a client; never changes the response. */
  onError?: (error: unknown, info: ErrorInfo) => void;
  policy?: StatusPolicy;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Deepest nesting of a JSON body. Default 64. */
  maxDepth?: number;
  /** Response formats in the server's order of preference. Default `[json]`. */
  formats?: readonly Serializer[];
  /** What a path that breaks the naming conventions does at start-up. Default `'error'`. */
  naming?: 'error' | 'warn' | 'off';
  /** Segment names or whole paths the naming check lets through. */
  namingAllow?: NamingOptions['allow'];
  /**
   * Milliseconds a request may take from routing to result. Past it the client gets the policy's
   * `timeout` status (503) and the request is freed; the handler's late result is dropped.
   */
  timeout?: number;
  /**
   * Serves a description of the API, built on the first request: `openApi({ info })` from
   * `restcanon/openapi` serves the OpenAPI document at `GET /openapi.json`.
   */
  openapi?: ApiDocument;
}

/**
 * An API: every endpoint behind one router and one policy.
 *
 * @example
 * const response = await api.handle({ method: 'GET', url: '/api/users/7' });
 */
export interface Api {
  /** Runs the whole pipeline in memory. Never rejects: every failure is a response. */
  handle(request: ApiRequest): Promise<ApiResponse>;
  /** Like `handle`, but resolves to undefined when no path matches, so a host router can go on. */
  dispatch(request: ApiRequest): Promise<ApiResponse | undefined>;
  /** Whether some endpoint matches a path (with or without query string). */
  matches(url: string): boolean;
  /** Every method and path, for adapters and documentation. */
  readonly routes: readonly RouteInfo[];
  readonly basePath: string;
  readonly bodyLimit: number;
  /** The status policy every answer follows. */
  readonly policy: StatusPolicy;
  /** Whether the API authenticates (then every endpoint that is not public needs a caller). */
  readonly authenticates: boolean;
  /** The `WWW-Authenticate` challenge of its 401s. */
  readonly challenge: string;
  /** Response formats in the server's order of preference. */
  readonly formats: readonly Serializer[];
  /** Whether an API-wide `authorize` rule runs (then every protected endpoint may answer 403). */
  readonly authorizes: boolean;
  /** The `timeout` option in milliseconds, if set (then every endpoint may answer the policy's `timeout` status). */
  readonly timeout: number | undefined;
}

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

const ONE_MEBIBYTE = 1024 * 1024;
const DEFAULT_DEPTH = 64;
const DEFAULT_CHALLENGE = 'Bearer realm="api"';

interface Compiled {
  endpoint: Endpoint;
  template: string;
  itemTemplate: string | undefined;
  bodyRules: BodyRules | undefined;
}

interface Settings {
  authenticate: ApiOptions['authenticate'];
  authorize: ApiOptions['authorize'];
  challenge: string;
  policy: StatusPolicy;
  maxDepth: number;
  bodyLimit: number;
  formats: readonly Serializer[];
  negotiator: ReturnType<typeof createNegotiator>;
  vary: boolean;
  report: (error: unknown, info: ErrorInfo) => void;
  timeout: number | undefined;
}

/**
 * Builds an API from endpoints and resources. Every option is checked now: a mistake throws with a
 * sentence that says what to change, never at request time.
 *
 * @example
 * const api = createApi({
 *   basePath: '/api',
 *   endpoints: [endpoint('GET', '/health', { handle: () => ({ ok: true }) })],
 *   onError: (error, { requestId }) => console.error(requestId, error),
 * });
 * await api.handle({ method: 'GET', url: '/api/health' }); // { status: 200, body: { ok: true }, ... }
 */
export function createApi(options: ApiOptions = {}): Api {
  const basePath = joinPaths(options.basePath ?? '/', '/');
  const runtime = createRuntime(options);
  // A nested collection's endpoints come with its parent's too: listing both must not declare them twice.
  const served = options.openapi === undefined ? [] : [documentEndpoint(options.openapi, () => api)];
  const endpoints = [...new Set([...(options.endpoints ?? []), ...served, ...(options.resources ?? []).flatMap((group) => group.endpoints)])];
  const router = createRouter<Compiled>();
  const routes: RouteInfo[] = [];
  for (const definition of endpoints) {
    const template = joinPaths(basePath, definition.path);
    router.add(definition.method, template, compile(definition, template, runtime.settings));
    routes.push({ method: definition.method, path: template, endpoint: definition });
  }
  const relativePaths = [...new Set(endpoints.map((definition) => definition.path))];
  checkNaming(relativePaths, options.naming ?? 'error', options.namingAllow === undefined ? {} : { allow: options.namingAllow });

  // One 405 per distinct Allow value: the answer depends on nothing else.
  const notAllowed = new Map<string, MethodNotAllowedError>();
  const methodNotAllowed = (allow: string): MethodNotAllowedError => {
    let error = notAllowed.get(allow);
    if (error === undefined) notAllowed.set(allow, (error = withoutStack(() => new MethodNotAllowedError(allow))));
    return error;
  };

  function respond(request: ApiRequest, passUnmatched: boolean): Promise<ApiResponse | undefined> {
    const headers = normalizeHeaders(request.headers);
    const method = request.method;
    let match;
    let search;
    try {
      const target = splitUrl(request.url);
      search = target.search;
      match = router.find(target.path);
    } catch (error) {
      return Promise.resolve(runtime.fail(error, request, headers));
    }
    if (match === undefined) {
      return Promise.resolve(passUnmatched ? undefined : runtime.fail(NO_ROUTE, request, headers));
    }
    let compiled = match.route.handlers[method];
    if (compiled === undefined) {
      if (method === 'HEAD' && match.route.handlers.GET !== undefined) compiled = match.route.handlers.GET;
      else if (method === 'OPTIONS') return Promise.resolve(optionsResponse(match.route, runtime.settings));
      else return Promise.resolve(runtime.fail(methodNotAllowed(match.route.allow), request, headers));
    }
    return runtime.run(compiled, match.params, search, headers, request);
  }

  const api: Api = {
    handle: (request) => respond(request, false) as Promise<ApiResponse>,
    dispatch: (request) => respond(request, true),
    matches: (url) => {
      try {
        return router.find(splitUrl(url).path) !== undefined;
      } catch {
        return true;
      }
    },
    routes,
    basePath,
    bodyLimit: runtime.settings.bodyLimit,
    policy: runtime.settings.policy,
    authenticates: runtime.settings.authenticate !== undefined,
    challenge: runtime.settings.challenge,
    formats: runtime.settings.formats,
    authorizes: runtime.settings.authorize !== undefined,
    timeout: runtime.settings.timeout,
  };
  return api;
}

/** The endpoint that serves a document about the API, built once, on the first request, when every route is known. */
function documentEndpoint(config: ApiDocument, apiOf: () => Api): Endpoint {
  let document: unknown;
  return declareEndpoint('GET', config.path, {
    public: config.public,
    summary: 'A description of this API',
    handle: () => (document ??= config.build(apiOf())),
  });
}

/** Options of {@link createEndpointHandler}: those of `createApi` that apply to one endpoint. */
export type EndpointHandlerOptions = Omit<ApiOptions, 'basePath' | 'endpoints' | 'resources' | 'naming' | 'namingAllow' | 'openapi'>;

/**
 * Runs one endpoint through the pipeline with params that a host router already matched: for teams
 * that keep their own router and want validation, the status policy and safe errors on one route.
 * The framework wrappers (`expressHandler`, `fastifyHandler`, `nodeHandler`) are built on it.
 *
 * @example
 * const readUserHandler = createEndpointHandler(readUser);
 * const response = await readUserHandler({ method: 'GET', url: '/users/7' }, { id: '7' });
 */
export function createEndpointHandler(
  definition: Endpoint,
  options: EndpointHandlerOptions = {},
): (request: ApiRequest, params: Record<string, string>) => Promise<ApiResponse> {
  const runtime = createRuntime(options);
  const compiled = compile(definition, definition.path, runtime.settings);
  return async (request, params) => {
    const headers = normalizeHeaders(request.headers);
    try {
      return await runtime.run(compiled, params, splitUrl(request.url).search, headers, request);
    } catch (error) {
      return runtime.fail(error, request, headers);
    }
  };
}

interface Runtime {
  settings: Settings;
  run(compiled: Compiled, rawParams: Record<string, string>, search: string, headers: HeaderRecord, request: ApiRequest): Promise<ApiResponse>;
  fail(error: unknown, request: ApiRequest, headers: HeaderRecord): ApiResponse;
}

function createRuntime(options: ApiOptions): Runtime {
  const formats = options.formats ?? [json];
  if (formats.length === 0) throw new TypeError('createApi: "formats" needs at least one serializer, such as json');
  const onError = options.onError;
  function report(error: unknown, info: ErrorInfo): void {
    if (onError === undefined) return;
    try {
      onError(error, info);
    } catch {
      // A failing logger must not turn one error into a crash or change what the client gets.
    }
  }
  const settings: Settings = {
    authenticate: options.authenticate,
    authorize: options.authorize,
    challenge: options.challenge ?? DEFAULT_CHALLENGE,
    policy: options.policy ?? DEFAULT_POLICY,
    maxDepth: checkLimit('maxDepth', options.maxDepth, DEFAULT_DEPTH),
    bodyLimit: checkLimit('bodyLimit', options.bodyLimit, ONE_MEBIBYTE),
    formats,
    negotiator: createNegotiator(formats),
    vary: formats.length > 1,
    report,
    timeout: options.timeout === undefined ? undefined : checkLimit('timeout', options.timeout, 0),
  };

  function fail(error: unknown, request: ApiRequest, headers: HeaderRecord): ApiResponse {
    const httpError = isHttpError(error) ? applyPolicy(settings.policy, error) : new InternalServerError(undefined, { cause: error });
    let instance: string | undefined;
    if (httpError.status >= 500) {
      instance = `urn:uuid:${globalThis.crypto.randomUUID()}`;
      report(error, { requestId: instance, status: httpError.status, request });
    }
    const problem = problemOf(httpError, instance);
    const format = settings.negotiator.problem(single(headers.accept));
    const responseHeaders: Record<string, string> = { ...httpError.headers, 'content-type': `${format.problemType ?? 'application/problem+json'}; charset=utf-8` };
    if (settings.vary) responseHeaders.vary = 'Accept';
    if (request.method === 'HEAD') return { status: httpError.status, headers: responseHeaders, body: undefined, payload: undefined };
    const payload = (format.serializeProblem ?? json.serializeProblem!)(problem);
    return { status: httpError.status, headers: responseHeaders, body: problem, payload };
  }

  function runEndpoint(compiled: Compiled, rawParams: Record<string, string>, search: string, headers: HeaderRecord, request: ApiRequest): Promise<ApiResponse> {
    let running = run(compiled, rawParams, search, headers, request, settings);
    if (settings.timeout !== undefined) running = withTimeout(running, settings.timeout);
    return running.then(request.method === 'HEAD' ? withoutBody : undefined, (error: unknown) => fail(error, request, headers));
  }

  return { settings, run: runEndpoint, fail };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function withoutBody(response: ApiResponse): ApiResponse {
  response.body = undefined;
  response.payload = undefined;
  return response;
}

/** The answer for a path no route matches: one frozen error, since nothing about it varies. */
const NO_ROUTE = withoutStack(() => new NotFoundError('No resource matches this path'));

/**
 * Builds an error without capturing a stack trace. Routing answers (404, 405) are ordinary outcomes,
 * not faults: their stacks are never shown and capturing them was most of the cost of a 404.
 */
function withoutStack<T>(create: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return create();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function withTimeout<T>(running: Promise<T>, milliseconds: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new HttpError(503, { code: ERROR_CODES.TIMEOUT, detail: 'The request did not finish in time', expose: true })), milliseconds);
  });
  return Promise.race([running, expired]).finally(() => clearTimeout(timer));
}

function checkLimit(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`createApi: "${name}" must be a whole number of at least 0, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  }
  return value;
}

function compile(endpoint: Endpoint, template: string, settings: Settings): Compiled {
  let bodyRules: BodyRules | undefined;
  if (BODY_METHODS.has(endpoint.method)) {
    const consumes = new Set(endpoint.consumes.map((type) => type.toLowerCase()));
    const headerName = endpoint.method === 'POST' ? 'accept-post' : endpoint.method === 'PATCH' ? 'accept-patch' : undefined;
    bodyRules = {
      limit: settings.bodyLimit,
      maxDepth: settings.maxDepth,
      consumes,
      acceptHeader: headerName === undefined ? undefined : { name: headerName, value: [...consumes].join(', ') },
    };
  }
  const itemTemplate = endpoint.itemPath === undefined ? undefined : joinPaths(template.slice(0, template.length - endpoint.path.length) || '/', endpoint.itemPath);
  return { endpoint, template, itemTemplate, bodyRules };
}

function optionsResponse(route: Route<Compiled>, settings: Settings): ApiResponse {
  return { status: settings.policy.decide('options'), headers: { allow: route.allow }, body: undefined, payload: undefined };
}

async function run(
  compiled: Compiled,
  rawParams: Record<string, string>,
  search: string,
  headers: HeaderRecord,
  request: ApiRequest,
  settings: Settings,
): Promise<ApiResponse> {
  const { endpoint, bodyRules } = compiled;
  let format = settings.negotiator.content(single(headers.accept));
  if (format === undefined) {
    if (settings.policy.unacceptable === 'reject') {
      throw new NotAcceptableError(`Available: ${settings.formats.map((serializer) => serializer.type).join(', ')}`);
    }
    format = json;
  }

  let mediaType: string | undefined;
  if (bodyRules !== undefined) {
    const contentType = single(headers['content-type']);
    if (contentType !== undefined) mediaType = checkMediaType(contentType, bodyRules);
    checkContentEncoding(single(headers['content-encoding']), bodyRules);
    checkContentLength(single(headers['content-length']), bodyRules.limit);
  }

  const ctx: AnyContext = {
    params: rawParams,
    query: search === '' ? Object.create(null) : parseQuery(search),
    headers,
    body: undefined,
    principal: undefined,
    request,
  };

  if (settings.authenticate !== undefined) {
    ctx.principal = await authenticate(settings, request, endpoint.public);
    if (ctx.principal === undefined && !endpoint.public) throw new UnauthorizedError(undefined, { challenge: settings.challenge });
  }

  if (bodyRules !== undefined) ctx.body = await readRequestBody(request.body, headers, mediaType, bodyRules);

  const issues: InputIssue[] = [];
  if (endpoint.params !== undefined) ctx.params = await validated(endpoint.params, rawParams, 'path', issues);
  if (endpoint.query !== undefined) ctx.query = await validated(endpoint.query, ctx.query, 'query', issues);
  if (endpoint.headers !== undefined) ctx.headers = await validated(endpoint.headers, headers, 'header', issues);
  if (endpoint.body !== undefined) {
    if (ctx.body === undefined) throw new BadRequestError('The request needs a body', { code: ERROR_CODES.MALFORMED_BODY });
    ctx.body = await validated(endpoint.body, ctx.body, 'body', issues);
  }
  if (issues.length > 0) throw invalidInput(issues);

  if (!endpoint.public || ctx.principal !== undefined) {
    if (settings.authorize !== undefined && (await settings.authorize(ctx)) !== true) throw new ForbiddenError();
    for (const rule of endpoint.authorize) if ((await rule(ctx)) !== true) throw new ForbiddenError();
  }
  for (const guard of endpoint.guards) await guard(ctx);

  let result = endpoint.handle(ctx);
  if (isThenable(result)) result = await result;
  if (result instanceof Error || isHttpError(result)) throw result;
  if (endpoint.filters.length > 0) {
    const report = (error: unknown) => settings.report(error, { requestId: `urn:uuid:${globalThis.crypto.randomUUID()}`, status: settings.policy.decide(endpoint.operation), request });
    for (const filter of endpoint.filters) result = await filter(result, ctx, report);
  }

  return succeed(compiled, result, ctx, rawParams, format, settings);
}

async function authenticate(settings: Settings, request: ApiRequest, isPublic: boolean): Promise<unknown> {
  try {
    return await settings.authenticate!(request);
  } catch (error) {
    if (!isHttpError(error) || error.status !== 401) throw error;
    // A bad token on a public endpoint leaves the caller anonymous; anywhere else it is the 401 it says.
    if (isPublic) return undefined;
    // An UnauthorizedError built without a challenge of its own gets the API's configured one.
    const challenge = error.headers['www-authenticate'];
    if (challenge !== undefined && challenge !== DEFAULT_CHALLENGE) throw error;
    throw new UnauthorizedError(error.detail, { challenge: settings.challenge, code: error.code });
  }
}

async function validated(schema: NonNullable<Endpoint['params']>, value: unknown, location: InputIssue['in'], issues: InputIssue[]): Promise<unknown> {
  const result = await validatePart(schema, value, location);
  if (result.ok) return result.value;
  issues.push(...result.issues);
  return value;
}

async function readRequestBody(body: unknown, headers: HeaderRecord, mediaType: string | undefined, rules: BodyRules): Promise<unknown> {
  if (body === undefined || body === null) return undefined;
  if (!isRawBody(body)) {
    // A framework's parsed body gets the same limit as a raw one (measured from below, never a false 413).
    inspectBody(body, rules.maxDepth, rules.limit);
    return body;
  }
  const text = await readBody(body, rules.limit);
  if (text === '') return undefined;
  const type = mediaType ?? checkMediaType(single(headers['content-type']), rules);
  const parsed = parseBodyText(text, type);
  inspectBody(parsed, rules.maxDepth);
  return parsed;
}

function succeed(compiled: Compiled, result: unknown, ctx: AnyContext, rawParams: Record<string, string>, format: Serializer, settings: Settings): ApiResponse {
  const { endpoint } = compiled;
  const operation = endpoint.operation;
  const missing = result === undefined || result === null;
  if (operation === 'read' || operation === 'replace' || operation === 'update' || operation === 'remove') {
    if (missing || (operation === 'remove' && result === false)) throw new NotFoundError();
  }
  const headers: Record<string, string> = {};
  if (settings.vary) headers.vary = 'Accept';
  let status: number;
  let body: unknown = result;
  if (operation === 'remove' && result === true) {
    status = settings.policy.decide('empty');
    body = undefined;
  } else if (missing && operation !== 'create') {
    status = settings.policy.decide('empty');
    body = undefined;
  } else {
    status = settings.policy.decide(operation);
  }
  if (operation === 'create' && !missing) {
    const location = endpoint.location !== undefined ? endpoint.location(result, ctx) : defaultLocation(compiled, result, rawParams, ctx.request.baseUrl);
    if (location !== undefined) headers.location = location;
  }
  if (isEmptyBodyStatus(status) || body === undefined || body === null) {
    return { status, headers, body: undefined, payload: undefined };
  }
  const payload = format.serialize(body);
  headers['content-type'] = format.contentType;
  return { status, headers, body, payload };
}

function defaultLocation(compiled: Compiled, result: unknown, rawParams: Record<string, string>, baseUrl: string | undefined): string | undefined {
  const id = (result as { id?: unknown }).id;
  if (compiled.itemTemplate === undefined || (typeof id !== 'string' && typeof id !== 'number' && typeof id !== 'bigint')) return undefined;
  const path = buildPath(compiled.itemTemplate, { ...rawParams, id });
  return baseUrl === undefined || baseUrl === '' || baseUrl === '/' ? path : joinPaths(encodeURI(baseUrl), path);
}
