/**
 * OpenAPI 3.1 from the definitions the pipeline runs: paths from the templates, schemas from the
 * Standard Schemas (through Standard JSON Schema), and every response from the outcomes each route
 * can reach, with the status the policy gives it and the meaning the outcome table states.
 */
import type { Endpoint } from '../core/endpoint.js';
import { BODY_METHODS, isEmptyBodyStatus, METHODS, statusText, type Method } from '../core/http.js';
import { joinPaths, parseTemplate } from '../core/path.js';
import type { Api, RouteInfo } from '../core/api.js';
import { ERROR_BY_STATUS, MEANINGS, type ErrorOutcome } from '../core/outcomes.js';
import { createRouter } from '../core/router.js';
import { isStandardSchema, jsonSchemaOf, type StandardSchema } from '../core/standard-schema.js';
import { capitalize, modelNames, nounPhrase, operationName, optionsName, summaryOf, uniqueName } from './names.js';
import { COMPONENTS, OWN_SCHEMAS, refTo, type JsonSchema } from './schemas.js';
import { isXml, markArrays, xmlProblem, xmlResult } from './xml-hints.js';
import { MODULE_PARTS, OPENAPI_PARTS } from '../conventions/openapi.js';
import type { OpenApiPart, PartAnswers, PartBook } from './part.js';
import { requestBodyOf } from './request-body.js';
import { byteContent } from './byte-answers.js';

export type { JsonSchema } from './schemas.js';

/**
 * The `info` object of the document.
 *
 * @example
 * const info: OpenApiInfo = { title: 'Shop', version: '1.2.0' };
 */
export interface OpenApiInfo {
  title: string;
  version: string;
  summary?: string;
  description?: string;
  termsOfService?: string;
  contact?: { name?: string; url?: string; email?: string };
  license?: { name: string; identifier?: string; url?: string };
  [extension: `x-${string}`]: unknown;
}

/**
 * Options of {@link createOpenApiDocument}.
 *
 * @example
 * import { toJsonSchema } from '@valibot/to-json-schema';
 * const options: OpenApiOptions = {
 *   info: { title: 'Shop', version: '1.0.0' },
 *   servers: [{ url: 'https://shop.example' }],
 *   toJsonSchema: (schema) => (schema['~standard'].vendor === 'valibot' ? toJsonSchema(schema as never, { target: 'draft-2020-12' }) : undefined),
 * };
 */
export interface OpenApiOptions {
  info: OpenApiInfo;
  /** Default: one server at the API's `basePath`, which the paths are relative to; a URL given here ends with that `basePath`. */
  servers?: readonly { url: string; description?: string }[];
  /** For schemas without Standard JSON Schema (valibot 1): a converter. Returning undefined or throwing gives the permissive `{}`. */
  toJsonSchema?: (schema: StandardSchema) => JsonSchema | undefined;
  /** Replaces the scheme derived from the API's `challenge`; applied only when some route needs a caller. */
  securitySchemes?: Readonly<Record<string, JsonSchema>>;
}

/**
 * One operation of the document.
 *
 * @example
 * document.paths['/users/{id}']!.get!.responses['404']; // { description: 'Not Found: ...', content: { ... } }
 */
export interface OpenApiOperation {
  operationId: string;
  /** The endpoint's or operation's `summary`, else one from the operation and the path: "List orders of a user". */
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
  /** `[]` on a public endpoint of an API where other routes need a caller. */
  security?: Record<string, string[]>[];
  /** Marked by a module's part, such as a deprecation's. */
  deprecated?: boolean;
}

/**
 * An OpenAPI 3.1 document, ready for `JSON.stringify`.
 *
 * @example
 * const document: OpenApiDocument = createOpenApiDocument(api, { info: { title: 'Shop', version: '1.0.0' } });
 */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: OpenApiInfo;
  servers: { url: string; description?: string }[];
  /** The first static segment of each path, with what it covers. */
  tags?: { name: string; description: string }[];
  /** Each path item also says which methods it allows: any other answers 405 with that `Allow`. */
  paths: Record<string, Partial<Record<Lowercase<Method>, OpenApiOperation>> & { description: string; 'x-allow': string }>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes?: Record<string, JsonSchema> };
  security?: Record<string, string[]>[];
}

/** What a 415 names the accepted media types in (RFC 5789, Linked Data Platform); PUT has none. */
const ACCEPT_HEADERS: Readonly<Record<string, string>> = { POST: 'Accept-Post', PATCH: 'Accept-Patch' };
/** Header parameters OpenAPI describes elsewhere (content negotiation and security) and ignores here. */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
/** The summary the core gives the route that serves a document about the API. */
const DOCUMENT_SUMMARY = 'A description of this API';

/** What every operation of one document reads and adds to. */
interface Build {
  api: Api;
  book: SchemaBook;
  /** The security schemes, when some route needs a caller. */
  schemes: Readonly<Record<string, JsonSchema>> | undefined;
  usedIds: Set<string>;
  /** The top-level tags, in the order the paths first use them. */
  tags: Map<string, { name: string; description: string }>;
  /** Where `openApi()` serves the document, below the basePath. */
  served: string | undefined;
  /** The parts of restcanon's own conventions, then those of the API's other modules. */
  parts: readonly OpenApiPart[];
}

/**
 * Builds the OpenAPI 3.1 document of an API: every route with its path, query and header parameters
 * and request body (JSON Schemas from the Standard Schemas, bodies and answers as named components),
 * its success statuses and every error it can answer, each decided by `api.policy`, HEAD and OPTIONS
 * where they are served, and security from `authenticate` and `challenge`. Paths are relative to the
 * API's `basePath`, the default server. It never throws for a schema it cannot convert: that schema
 * is `{}` with a note.
 *
 * @example
 * const document = createOpenApiDocument(api, { info: { title: 'Shop', version: '1.0.0' } });
 * document.paths['/users/{id}']!.delete!.responses; // { '200': ..., '204': ..., '401': ..., '403': ..., '404': ... }
 */
export function createOpenApiDocument(api: Api, options: OpenApiOptions): OpenApiDocument {
  return buildDocument(api, options, undefined);
}

/**
 * {@link createOpenApiDocument} for `openApi()`, which knows where it serves the document: the
 * answer of that route is described as an OpenAPI document. Without `served`, that route is the one
 * the core declares for a document (its summary says so).
 *
 * @example
 * buildDocument(api, { info }, '/openapi.json').paths['/openapi.json']!.get!.responses['200'];
 */
export function buildDocument(api: Api, options: OpenApiOptions, served: string | undefined): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {};
  const book = schemaBook(schemas, options.toJsonSchema);
  // Security is described when some route needs a caller: a 401 is among its outcomes.
  const authenticates = api.routes.some((route) => route.outcomes.includes('unauthorized'));
  const schemes = authenticates ? (options.securitySchemes ?? securitySchemeOf(api.challenge)) : undefined;
  const parts = [...OPENAPI_PARTS, ...api.modules.flatMap((module) => [(module.openapi as OpenApiPart | undefined) ?? MODULE_PARTS.get(module.name)].filter((part) => part !== undefined))];
  const build: Build = { api, book, schemes, usedIds: new Set(), tags: new Map(), served: served === undefined ? undefined : joinPaths('/', served), parts };
  // The item of a collection takes its name first (`User`), so that an endpoint that answers it too does not name it.
  for (const { endpoint } of api.routes) if (endpoint.response?.array === true) book.name(endpoint.response.schema, modelNames(endpoint.operation, endpoint.path, 'item'));
  const router = createRouter<RouteInfo>();
  for (const route of api.routes) router.add(route.method, relativePath(route.path, api.basePath), route);
  const notAllowed = api.policy.decide('methodNotAllowed');
  const paths: OpenApiDocument['paths'] = {};
  for (const { allow, handlers, template } of router.list()) {
    const item: OpenApiDocument['paths'][string] = {
      description: `Allow: ${allow}. Any other method answers ${notAllowed} ${statusText(notAllowed)} with this Allow header.`,
      'x-allow': allow,
    };
    const operations: Partial<Record<string, OpenApiOperation>> = {};
    for (const route of Object.values(handlers) as RouteInfo[]) operations[route.method] = operationOf(build, route, allow);
    // HEAD answers as GET without the body, and OPTIONS with Allow, unless an endpoint declares them.
    if (operations.GET !== undefined) operations.HEAD ??= headOf(operations.GET, build.usedIds);
    operations.OPTIONS ??= optionsOf(build, template, allow);
    for (const method of METHODS) if (operations[method] !== undefined) item[method.toLowerCase() as Lowercase<Method>] = operations[method];
    paths[toOpenApiPath(template)] = item;
  }
  // Arrays in XML are wrapped in the element of their key, each entry an <item> (<i> in a problem).
  if (api.formats.some((format) => isXml(format.type))) for (const [name, schema] of Object.entries(schemas)) if (!(name in OWN_SCHEMAS)) markArrays(schema, 'item');
  if (api.formats.some((format) => format.problemType !== undefined && isXml(format.problemType))) markArrays(schemas.ValidationProblem, 'i');
  const servers = (options.servers ?? [{ url: api.basePath }]).map((server) => ({ ...server }));
  const tags = build.tags.size > 0 ? { tags: [...build.tags.values()] } : {};
  const document: OpenApiDocument = { openapi: '3.1.0', info: { ...options.info }, servers, ...tags, paths, components: { schemas } };
  if (schemes !== undefined) {
    document.components.securitySchemes = { ...schemes };
    document.security = Object.keys(schemes).map((scheme) => ({ [scheme]: [] }));
  }
  return document;
}

/** One operation: who, what is sent, then what comes back, in the order a reader scans. */
function operationOf(build: Build, route: RouteInfo, allow: string): OpenApiOperation {
  const { method, endpoint } = route;
  const { book, usedIds } = build;
  const operation: OpenApiOperation = {
    operationId: uniqueId(operationName(endpoint.operation, endpoint.path), usedIds),
    summary: endpoint.summary ?? summaryOf(endpoint.operation, endpoint.path),
  } as OpenApiOperation;
  const name = capitalize(operation.operationId);
  const tag = tagOf(build, endpoint.path);
  if (tag !== undefined) operation.tags = [tag];
  // What the conventions read: query parameters before the endpoint's own query, headers after its headers.
  const added = build.parts.flatMap((part) => part.parameters?.(endpoint, book, name) ?? []);
  const answers = build.parts.flatMap((part) => part.answers?.(endpoint, build.api.formats) ?? []);
  const parameters = [
    ...pathParameters(endpoint.path, endpoint.params, book, name),
    ...added.filter((parameter) => parameter.in === 'query'),
    ...partParameters(endpoint.query, 'query', book, `${name}Query`),
    ...partParameters(endpoint.headers, 'header', book, `${name}Headers`),
    ...added.filter((parameter) => parameter.in !== 'query'),
    ...answers.flatMap((answer) => answer.parameters ?? []),
  ];
  if (parameters.length > 0) operation.parameters = parameters;
  const bodyNames = modelNames(endpoint.operation, endpoint.path, 'body');
  const conventionBody = build.parts.reduce<JsonSchema | undefined>((found, part) => found ?? part.requestBody?.(endpoint, book, bodyNames), undefined);
  // An endpoint without a body schema takes no body, nor one that ignores it; one that opts out of validation takes any.
  if (conventionBody !== undefined) operation.requestBody = conventionBody;
  else if (BODY_METHODS.has(method) && endpoint.body !== undefined && endpoint.body !== 'ignored') {
    operation.requestBody = requestBodyOf(endpoint, () => (isStandardSchema(endpoint.body) ? book.model(endpoint.body, bodyNames) : {}));
  }
  operation.responses = responsesOf(build, route, allow, successSchema(build, route), answers);
  if (build.schemes !== undefined && endpoint.public) operation.security = [];
  for (const part of build.parts) part.operation?.(endpoint, operation as unknown as JsonSchema);
  return operation;
}

/** HEAD on a path with GET: GET's operation, each answer without its body. */
function headOf(get: OpenApiOperation, usedIds: Set<string>): OpenApiOperation {
  const { operationId, summary, requestBody: _none, responses, security, ...rest } = structuredClone(get);
  const head: OpenApiOperation = {
    operationId: uniqueId(`${operationId}Head`, usedIds),
    summary: `${summary}, headers only`,
    description: 'The answer GET gives, without its body.',
    ...rest,
    responses: Object.fromEntries(Object.entries(responses).map(([status, { content: _body, ...response }]) => [status, response])),
  };
  if (security !== undefined) head.security = security;
  return head;
}

/** OPTIONS on any path: the policy's `options` status with Allow, before authentication and validation. */
function optionsOf(build: Build, template: string, allow: string): OpenApiOperation {
  const status = build.api.policy.decide('options');
  const operation = { operationId: uniqueId(optionsName(template), build.usedIds), summary: `List the methods of ${nounPhrase('list', template)}` } as OpenApiOperation;
  const tag = tagOf(build, template);
  if (tag !== undefined) operation.tags = [tag];
  // OPTIONS validates no param: each is any string.
  const parameters = pathParameters(template, undefined, build.book, '');
  if (parameters.length > 0) operation.parameters = parameters;
  const headers = { Allow: { description: 'The methods of this path.', schema: { type: 'string', const: allow } } };
  operation.responses = { [status]: { description: `${statusText(status)}: ${MEANINGS.options}`, headers } };
  if (build.schemes !== undefined) operation.security = [];
  return operation;
}

/** The tag of a path, its first static segment, listed at the top level when first used. */
function tagOf(build: Build, template: string): string | undefined {
  const tag = parseTemplate(template).find((segment) => segment.kind === 'static')?.value;
  if (tag !== undefined && !build.tags.has(tag)) build.tags.set(tag, { name: tag, description: `The operations on /${tag} and the paths below it.` });
  return tag;
}

/** The answer of the route that serves the document itself, without a response schema of its own. */
function isDocumentRoute(build: Build, { method, path, endpoint }: RouteInfo): boolean {
  if (method !== 'GET' || endpoint.response !== undefined) return false;
  return build.served === undefined ? endpoint.summary === DOCUMENT_SUMMARY : relativePath(path, build.api.basePath) === build.served;
}

/** The schema of a success body, when the endpoint declares one: a list's is an array of its items. */
function successSchema(build: Build, route: RouteInfo): JsonSchema | undefined {
  const { operation, path, response } = route.endpoint;
  if (response === undefined) return isDocumentRoute(build, route) ? build.book.own('OpenApiDocument') : undefined;
  if (!response.array) return build.book.model(response.schema, modelNames(operation, path, 'response'));
  const items = build.book.model(response.schema, modelNames(operation, path, 'item'));
  const page = build.parts.find((part) => part.page !== undefined)?.page;
  return response.page === true && page !== undefined ? page(items) : { type: 'array', items };
}

/**
 * The success content of an endpoint with `produces`: each of its types, as the API's format of that
 * type documents it, or as bytes: a string of that media type (OpenAPI 3.1 says so with JSON
 * Schema's `contentMediaType`, where 3.0 said `format: binary`), text for a `text/*` type.
 */
function producedContent(produces: readonly string[], formats: readonly { type: string }[], formatContent: (format: { type: string }) => JsonSchema): JsonSchema {
  return Object.fromEntries(
    produces.map((type) => {
      const essence = type.split(';')[0]!.trim().toLowerCase();
      const format = formats.find((served) => served.type.split(';')[0]!.trim().toLowerCase() === essence);
      if (format !== undefined) return [type, formatContent(format)];
      return [type, byteContent(type)];
    }),
  );
}

/** The problem of an error answer in each problem media type: restcanon's, with what declared errors add. */
function problemContent(book: SchemaBook, validation: boolean, extensions: readonly JsonSchema[], types: ReadonlySet<string>): JsonSchema {
  const own = book.own(validation ? 'ValidationProblem' : 'Problem');
  const problem = extensions.length === 0 ? own : { allOf: [own, ...extensions] };
  return Object.fromEntries([...types].map((type) => [type, { schema: isXml(type) ? xmlProblem(problem) : problem }]));
}

function responsesOf(build: Build, route: RouteInfo, allow: string, schema: JsonSchema | undefined, added: readonly PartAnswers[]): Record<string, JsonSchema> {
  const { api, book } = build;
  const { endpoint } = route;
  const responses: Record<string, JsonSchema> = {};
  const errors = new Map<number, { reasons: string[]; validation: boolean; extensions: JsonSchema[]; headers?: JsonSchema | undefined }>();
  const formatContent = (format: { type: string }): JsonSchema => (schema === undefined ? {} : { schema: isXml(format.type) ? xmlResult(schema) : schema });
  const successContent = endpoint.produces === undefined ? Object.fromEntries(api.formats.map((format) => [format.type, formatContent(format)])) : producedContent(endpoint.produces, api.formats, formatContent);
  for (const outcome of route.outcomes) {
    const status = api.policy.decide(outcome);
    const meaning = MEANINGS[outcome];
    if (status >= 400) {
      const entry = errors.get(status) ?? { reasons: [], validation: false, extensions: [] };
      // A declared error says what it means here, and may add members to the problem.
      const declared = endpoint.errors?.[outcome as ErrorOutcome];
      const described = typeof declared === 'string' ? declared : declared?.description;
      entry.reasons.push(described ?? (outcome === 'payloadTooLarge' ? `${meaning} (${endpoint.bodyLimit ?? api.bodyLimit} bytes)` : meaning));
      if (typeof declared === 'object' && declared.schema !== undefined) entry.extensions.push(book.model(declared.schema, [`${capitalize(outcome)}Problem`]));
      entry.validation ||= outcome === 'badRequest';
      errors.set(status, entry);
      continue;
    }
    // The operation's own success comes first, so an `empty` that shares its status adds nothing.
    if (responses[status] !== undefined) continue;
    const empty = isEmptyBodyStatus(status) || outcome === 'empty';
    // A 304 has no body by what it means; any other success answered without one is done, with nothing to send.
    const response: JsonSchema = { description: `${statusText(status)}: ${empty && outcome !== 'notModified' ? MEANINGS.empty : meaning}` };
    if (!empty) response.content = successContent;
    const headers: JsonSchema = {};
    for (const part of build.parts) Object.assign(headers, part.headers?.(endpoint, outcome));
    if (outcome === 'create') headers.Location = { description: 'The URL of the new item.', schema: { type: 'string', format: 'uri-reference' } };
    if (Object.keys(headers).length > 0) response.headers = headers;
    responses[status] = response;
  }
  // What conventions answer besides the outcomes: the 206 and 416 of a Range.
  for (const answer of added) {
    for (const [status, response] of Object.entries(answer.successes ?? {})) responses[status] = response;
    for (const [status, { reason, headers }] of Object.entries(answer.errors ?? {})) errors.set(Number(status), { reasons: [reason], validation: false, extensions: [], headers });
  }
  const problemTypes = new Set(['application/problem+json', ...api.formats.flatMap((format) => (format.problemType === undefined ? [] : [format.problemType]))]);
  for (const [status, { reasons, validation, extensions, headers: own }] of [...errors].sort(([a], [b]) => a - b)) {
    // The API's own error body goes out in each format's own media type, as its schema says.
    const content = api.problemBody === undefined
      ? problemContent(book, validation, extensions, problemTypes)
      : Object.fromEntries(api.formats.map((format) => [format.type, { schema: api.problemBody!.schema === undefined ? {} : book.model(api.problemBody!.schema, ['ErrorBody']) }]));
    const response: JsonSchema = { description: `${statusText(status)}: ${reasons.join('; or ')}.`, content };
    const headers = own !== undefined ? { ...own } : errorHeaders(status, api.challenge, endpoint, allow);
    if (headers !== undefined) response.headers = headers;
    responses[status] = response;
  }
  return responses;
}

/** Headers an error carries while its status is the one the pipeline sets them on (a remapped error has none). */
function errorHeaders(status: number, challenge: string, { method, consumes }: Endpoint, allow: string): JsonSchema | undefined {
  const header = (description: string) => ({ description, schema: { type: 'string' } });
  const outcome = ERROR_BY_STATUS.get(status);
  if (outcome === 'unauthorized') return { 'WWW-Authenticate': header(`How to authenticate: ${challenge}`) };
  if (outcome === 'methodNotAllowed') return { Allow: header(`The methods of this path: ${allow}`) };
  if (outcome === 'tooManyRequests' || outcome === 'unavailable') return { 'Retry-After': header('When to try again: seconds, or an HTTP date; sent when the server knows') };
  const name = outcome === 'unsupportedMediaType' ? ACCEPT_HEADERS[method] : undefined;
  return name === undefined ? undefined : { [name]: header(`The media types accepted: ${consumes.join(', ')}`) };
}

function pathParameters(template: string, params: Endpoint['params'], book: SchemaBook, name: string): JsonSchema[] {
  const whole = isStandardSchema(params) ? propertiesOf(book.derive(params, `${name}Params`)) : undefined;
  return parseTemplate(template).flatMap((segment) => {
    if (segment.kind === 'static') return [];
    const own = params !== undefined && !isStandardSchema(params) ? params[segment.name] : undefined;
    const fromWhole = whole?.[segment.name];
    const schema = own !== undefined ? book.embed(own, name + capitalize(segment.name)) : isRecord(fromWhole) ? fromWhole : { type: 'string' };
    return [{ name: segment.name, in: 'path', required: true, schema }];
  });
}

/** Each property of a query or headers object schema is one parameter; a query without properties is one free-form object. */
function partParameters(schema: StandardSchema | undefined, location: 'query' | 'header', book: SchemaBook, name: string): JsonSchema[] {
  if (schema === undefined) return [];
  const derived = book.derive(schema, name);
  const properties = propertiesOf(derived);
  if (properties === undefined) return location === 'query' ? [{ name: 'query', in: 'query', style: 'form', explode: true, schema: derived }] : [];
  const required = new Set(Array.isArray(derived.required) ? derived.required : []);
  return Object.entries(properties)
    .filter(([key]) => location === 'query' || !RESERVED_HEADERS.has(key.toLowerCase()))
    .map(([key, property]) => ({ name: key, in: location, required: required.has(key), schema: isRecord(property) ? property : {} }));
}

type SchemaBook = ReturnType<typeof schemaBook>;

/**
 * Converts schemas into the document's components. `derive` and `embed` convert a part of a
 * request under a name (`embed` gives a `$ref` to one that had to become a component); `model` makes
 * a body or an answer a component of its own, once per schema object, under the name `name` gave it
 * (the first free one of those offered); `variant` makes a component of a schema changed by a
 * convention (its merge patch), once per schema object and change; `own` adds one of restcanon's schemas.
 */
function schemaBook(schemas: Record<string, JsonSchema>, fallback: OpenApiOptions['toJsonSchema']) {
  const names = new Map<StandardSchema, string>();
  const taken = new Set<string>(Object.keys(OWN_SCHEMAS));
  const derive = (schema: StandardSchema, name: string): JsonSchema => hoist(toJson(schema, fallback), name, schemas);
  const embed = (schema: StandardSchema, name: string): JsonSchema => {
    const derived = derive(schema, name);
    return schemas[name] === derived ? refTo(name) : derived;
  };
  const name = (schema: StandardSchema, offered: readonly string[]): string => {
    let given = names.get(schema);
    if (given === undefined) {
      given = uniqueName(offered, (candidate) => taken.has(candidate) || candidate in schemas);
      names.set(schema, given);
      taken.add(given);
    }
    return given;
  };
  const model = (schema: StandardSchema, offered: readonly string[]): JsonSchema => {
    const given = name(schema, offered);
    if (!(given in schemas)) schemas[given] = derive(schema, given);
    return refTo(given);
  };
  const own = (which: keyof typeof OWN_SCHEMAS): JsonSchema => {
    // A ValidationProblem is a Problem with `errors`: it refers to it.
    if (which === 'ValidationProblem') own('Problem');
    schemas[which] ??= structuredClone(OWN_SCHEMAS[which]);
    return refTo(which);
  };
  // Hoisted definitions of the schema, if any, go under `<Variant>.Item`, apart from the variant itself.
  const variants = new Map<(derived: JsonSchema) => JsonSchema, Map<StandardSchema, string>>();
  const variant: PartBook['variant'] = (schema, offered, transform) => {
    const given = variants.get(transform) ?? new Map<StandardSchema, string>();
    variants.set(transform, given);
    let named = given.get(schema);
    if (named === undefined) {
      named = uniqueName(offered, (candidate) => taken.has(candidate) || candidate in schemas);
      given.set(schema, named);
      taken.add(named);
      schemas[named] = transform(derive(schema, `${named}.Item`));
    }
    return refTo(named);
  };
  return { derive, embed, name, model, own, variant };
}

/** Standard JSON Schema first (zod 4, arktype 2), then the converter; else a permissive schema. */
function toJson(schema: StandardSchema, fallback: OpenApiOptions['toJsonSchema']): JsonSchema {
  const standard = jsonSchemaOf(schema, 'draft-2020-12');
  if (standard !== undefined) return standard;
  try {
    const converted = fallback?.(schema);
    if (isRecord(converted)) return converted;
  } catch {
    // A type JSON Schema cannot express (a Date, a transform): give up politely.
  }
  return { description: `No JSON Schema could be derived from this ${schema['~standard'].vendor} schema; the server still validates it.` };
}

/**
 * Internal references (`#`, `#/$defs/...`) would resolve against the OpenAPI document, not the
 * schema: such a schema becomes a component `Name`, each of its definitions a component `Name.Def`,
 * and every reference is rewritten to point at them (tools follow a plain component `$ref` best).
 */
function hoist(converted: JsonSchema, name: string, schemas: Record<string, JsonSchema>): JsonSchema {
  const { $schema: _dialect, $id: _id, $defs, definitions, ...schema } = converted;
  const defs = { ...(isRecord(definitions) ? definitions : {}), ...(isRecord($defs) ? $defs : {}) };
  const defName = (token: string) => `${name}.${token.replace(/~1/g, '/').replace(/~0/g, '~').replace(/[^\w.-]/g, '_')}`;
  let hasRefs = false;
  // A JSON round trip also copies the schema, so that no two operations share (and mutate) one object.
  const copy = (value: unknown) =>
    JSON.parse(JSON.stringify(value), (key, inner: unknown) => {
      if (key !== '$ref' || typeof inner !== 'string' || !inner.startsWith('#')) return inner;
      hasRefs = true;
      // The rest must start with `/`, so that [^/]+ never gives back characters for (.*) to read again.
      const def = /^#\/(?:\$defs|definitions)\/([^/]+)((?:\/.*)?)$/.exec(inner);
      return def === null ? `${COMPONENTS}${name}${inner.slice(1)}` : `${COMPONENTS}${defName(def[1]!)}${def[2]}`;
    }) as JsonSchema;
  for (const [token, definition] of Object.entries(defs)) schemas[defName(token)] = copy(definition);
  const rewritten = copy(schema);
  if (hasRefs) schemas[name] = rewritten;
  return rewritten;
}

function securitySchemeOf(challenge: string): Record<string, JsonSchema> {
  const scheme = /^[^\s,]+/.exec(challenge)?.[0] ?? 'Bearer';
  const lower = scheme.toLowerCase();
  const description = `401 answers carry WWW-Authenticate: ${challenge}`;
  if (lower === 'bearer' || lower === 'basic') return { [`${lower}Auth`]: { type: 'http', scheme: lower, description } };
  const key = `${scheme[0]!.toLowerCase()}${scheme.slice(1).replace(/[^A-Za-z0-9]/g, '')}Auth`;
  return { [key]: { type: 'apiKey', in: 'header', name: 'Authorization', description: `${description}. Credentials as the API's authenticate function reads them; pass securitySchemes to describe them exactly.` } };
}

function uniqueId(base: string, used: Set<string>): string {
  let id = base;
  for (let count = 2; used.has(id); count++) id = `${base}${count}`;
  used.add(id);
  return id;
}

/** A route's template below the API's basePath: `/api` + `/api/users` → `/users`. */
const relativePath = (template: string, basePath: string): string => (basePath === '/' ? template : template.slice(basePath.length) || '/');
const toOpenApiPath = (template: string): string => template.replace(/:([A-Za-z_$][\w$]*)/g, '{$1}');
const propertiesOf = (schema: JsonSchema): Record<string, unknown> | undefined => (isRecord(schema.properties) ? schema.properties : undefined);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
