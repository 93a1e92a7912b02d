/**
 * OpenAPI 3.1 from the definitions the pipeline runs: paths from the templates, schemas from the
 * Standard Schemas (through Standard JSON Schema), and every response from the outcomes each route
 * can reach, with the status the policy gives it and the meaning the outcome table states.
 */
import type { Endpoint } from '../core/endpoint.js';
import { BODY_METHODS, isEmptyBodyStatus, statusText, type Method } from '../core/http.js';
import { parseTemplate } from '../core/path.js';
import type { Api, RouteInfo } from '../core/api.js';
import { ERROR_BY_STATUS, MEANINGS } from '../core/outcomes.js';
import { createRouter } from '../core/router.js';
import { isStandardSchema, jsonSchemaOf, type StandardSchema } from '../core/standard-schema.js';

/**
 * A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1), or any other OpenAPI object, as plain data.
 *
 * @example
 * const schema: JsonSchema = { type: 'object', properties: { name: { type: 'string' } } };
 */
export type JsonSchema = Record<string, unknown>;

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
  summary?: string;
  tags?: string[];
  parameters?: JsonSchema[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
  /** `[]` on a public endpoint of an API where other routes need a caller. */
  security?: Record<string, string[]>[];
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
  servers?: { url: string; description?: string }[];
  /** Each path item also says which methods it allows: any other answers 405 with that `Allow`. */
  paths: Record<string, Partial<Record<Lowercase<Method>, OpenApiOperation>> & { description: string; 'x-allow': string }>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes?: Record<string, JsonSchema> };
  security?: Record<string, string[]>[];
}

/** What a 415 names the accepted media types in (RFC 5789, Linked Data Platform); PUT has none. */
const ACCEPT_HEADERS: Readonly<Record<string, string>> = { POST: 'Accept-Post', PATCH: 'Accept-Patch' };
/** Header parameters OpenAPI describes elsewhere (content negotiation and security) and ignores here. */
const RESERVED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

const PROBLEM: JsonSchema = {
  type: 'object',
  description: 'An RFC 9457 problem details object.',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string', format: 'uri-reference', description: "The problem type; 'about:blank' when the status says it all." },
    title: { type: 'string', description: 'The reason phrase of the status.' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    code: { type: 'string', pattern: '^RC_', description: 'A stable error code, such as RC_NOT_FOUND.' },
    detail: { type: 'string', description: 'An explanation for the client; never on a masked 5xx.' },
    instance: { type: 'string', format: 'uri-reference', description: 'On every 5xx: a urn:uuid that identifies the failure in the server log.' },
  },
};
const ISSUE = { type: 'object', required: ['in', 'pointer', 'detail'], properties: { in: { enum: ['path', 'query', 'header', 'body'] }, pointer: { type: 'string' }, detail: { type: 'string' } } };
const VALIDATION_PROBLEM: JsonSchema = { allOf: [{ $ref: '#/components/schemas/Problem' }, { properties: { errors: { type: 'array', items: ISSUE, description: 'Every invalid input.' } } }] };

/**
 * Builds the OpenAPI 3.1 document of an API: every route with its path, query and header parameters
 * and request body (JSON Schemas from the Standard Schemas), its success statuses and every error it
 * can answer, each decided by `api.policy`, and security from `authenticate` and `challenge`. It never
 * throws for a schema it cannot convert: that schema is `{}` with a note.
 *
 * @example
 * const document = createOpenApiDocument(api, { info: { title: 'Shop', version: '1.0.0' } });
 * document.paths['/users/{id}']!.delete!.responses; // { '200': ..., '204': ..., '401': ..., '403': ..., '404': ... }
 */
export function createOpenApiDocument(api: Api, options: OpenApiOptions): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = structuredClone({ Problem: PROBLEM, ValidationProblem: VALIDATION_PROBLEM });
  const book = schemaBook(schemas, options.toJsonSchema);
  // Security is described when some route needs a caller: a 401 is among its outcomes.
  const authenticates = api.routes.some((route) => route.outcomes.includes('unauthorized'));
  const schemes = authenticates ? (options.securitySchemes ?? securitySchemeOf(api.challenge)) : undefined;
  const router = createRouter<RouteInfo>();
  for (const route of api.routes) router.add(route.method, route.path, route);
  const usedIds = new Set<string>();
  const notAllowed = api.policy.decide('methodNotAllowed');
  const paths: OpenApiDocument['paths'] = {};
  for (const { allow, handlers, template } of router.list()) {
    const item: OpenApiDocument['paths'][string] = {
      description: `Allow: ${allow}. Any other method answers ${notAllowed} ${statusText(notAllowed)} with this Allow header.`,
      'x-allow': allow,
    };
    for (const route of Object.values(handlers) as RouteInfo[]) {
      const { method, path, endpoint } = route;
      // Built in the order a reader scans: who, what is sent, then what comes back.
      const operation = { operationId: uniqueId(operationName(endpoint), usedIds) } as OpenApiOperation;
      const name = capitalize(operation.operationId);
      if (endpoint.summary !== undefined) operation.summary = endpoint.summary;
      const tag = parseTemplate(endpoint.path).find((segment) => segment.kind === 'static');
      if (tag !== undefined) operation.tags = [tag.value];
      const parameters = [
        ...pathParameters(path, endpoint.params, book, name),
        ...partParameters(endpoint.query, 'query', book, `${name}Query`),
        ...partParameters(endpoint.headers, 'header', book, `${name}Headers`),
      ];
      if (parameters.length > 0) operation.parameters = parameters;
      // An endpoint without a body schema takes no body; one that opts out of validation takes any.
      if (BODY_METHODS.has(method) && endpoint.body !== undefined) {
        const schema = endpoint.body === 'unvalidated' ? {} : book.embed(endpoint.body, `${name}Body`);
        operation.requestBody = { required: endpoint.body !== 'unvalidated', content: Object.fromEntries(endpoint.consumes.map((type) => [type, { schema }])) };
      }
      operation.responses = responsesOf(api, route, responseSchema(endpoint, book, `${name}Response`));
      if (schemes !== undefined && endpoint.public) operation.security = [];
      item[method.toLowerCase() as Lowercase<Method>] = operation;
    }
    paths[toOpenApiPath(template)] = item;
  }
  const document: OpenApiDocument = { openapi: '3.1.0', info: { ...options.info }, paths, components: { schemas } };
  if (options.servers !== undefined) document.servers = options.servers.map((server) => ({ ...server }));
  if (schemes !== undefined) {
    document.components.securitySchemes = { ...schemes };
    document.security = Object.keys(schemes).map((scheme) => ({ [scheme]: [] }));
  }
  return document;
}

/** The schema of a success body, when the endpoint declares one: a list's is an array of its items. */
function responseSchema(endpoint: Endpoint, book: SchemaBook, name: string): JsonSchema | undefined {
  const { response } = endpoint;
  if (response === undefined) return undefined;
  const schema = book.embed(response.schema, name);
  return response.array ? { type: 'array', items: schema } : schema;
}

function responsesOf(api: Api, route: RouteInfo, schema: JsonSchema | undefined): Record<string, JsonSchema> {
  const { endpoint } = route;
  const responses: Record<string, JsonSchema> = {};
  const errors = new Map<number, { reasons: string[]; validation: boolean }>();
  const successContent = Object.fromEntries(api.formats.map((format) => [format.type, schema === undefined ? {} : { schema }]));
  for (const outcome of route.outcomes) {
    const status = api.policy.decide(outcome);
    const meaning = MEANINGS[outcome];
    if (status >= 400) {
      const entry = errors.get(status) ?? { reasons: [], validation: false };
      entry.reasons.push(outcome === 'payloadTooLarge' ? `${meaning} (${api.bodyLimit} bytes)` : meaning);
      entry.validation ||= outcome === 'badRequest';
      errors.set(status, entry);
      continue;
    }
    // The operation's own success comes first, so an `empty` that shares its status adds nothing.
    if (responses[status] !== undefined) continue;
    const empty = isEmptyBodyStatus(status) || outcome === 'empty';
    const response: JsonSchema = { description: `${statusText(status)}: ${empty ? MEANINGS.empty : meaning}` };
    if (!empty) response.content = successContent;
    if (outcome === 'create') response.headers = { Location: { description: 'The URL of the new item.', schema: { type: 'string', format: 'uri-reference' } } };
    responses[status] = response;
  }
  const problemTypes = new Set(['application/problem+json', ...api.formats.flatMap((format) => (format.problemType === undefined ? [] : [format.problemType]))]);
  for (const [status, { reasons, validation }] of [...errors].sort(([a], [b]) => a - b)) {
    const schema = { $ref: `#/components/schemas/${validation ? 'ValidationProblem' : 'Problem'}` };
    const response: JsonSchema = { description: `${statusText(status)}: ${reasons.join('; or ')}.`, content: Object.fromEntries([...problemTypes].map((type) => [type, { schema }])) };
    const headers = errorHeaders(status, api.challenge, endpoint.method, endpoint.consumes);
    if (headers !== undefined) response.headers = headers;
    responses[status] = response;
  }
  return responses;
}

/** Headers an error carries while its status is the one the pipeline sets them on (a remapped error has none). */
function errorHeaders(status: number, challenge: string, method: string, consumes: readonly string[]): JsonSchema | undefined {
  const header = (description: string) => ({ description, schema: { type: 'string' } });
  const outcome = ERROR_BY_STATUS.get(status);
  if (outcome === 'unauthorized') return { 'WWW-Authenticate': header(`How to authenticate: ${challenge}`) };
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

/** Converts schemas under a name; `embed` gives a `$ref` to one that had to become a component. */
function schemaBook(schemas: Record<string, JsonSchema>, fallback: OpenApiOptions['toJsonSchema']) {
  const derive = (schema: StandardSchema, name: string): JsonSchema => hoist(toJson(schema, fallback), name, schemas);
  const embed = (schema: StandardSchema, name: string): JsonSchema => {
    const derived = derive(schema, name);
    return schemas[name] === derived ? { $ref: `#/components/schemas/${name}` } : derived;
  };
  return { derive, embed };
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
      return def === null ? `#/components/schemas/${name}${inner.slice(1)}` : `#/components/schemas/${defName(def[1]!)}${def[2]}`;
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

/** `list` + `/users/:userId/orders` → `listUserOrders`; a segment before a param, or the last one (except for list), is singular. */
function operationName(endpoint: Endpoint): string {
  const segments = parseTemplate(endpoint.path);
  const words = segments.flatMap((segment, index) => {
    if (segment.kind === 'param') return [];
    const last = segments.slice(index + 1).every((next) => next.kind === 'param');
    const singularize = segments[index + 1]?.kind === 'param' || (last && endpoint.operation !== 'list');
    const parts = segment.value.split(/[^A-Za-z0-9]+/).filter(Boolean).map(capitalize);
    if (singularize && parts.length > 0) parts.push(singular(parts.pop()!));
    return parts;
  });
  return endpoint.operation + (words.length > 0 ? words.join('') : 'Root');
}

function singular(word: string): string {
  if (/ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/i.test(word)) return word.slice(0, -2);
  if (/[^siu]s$/i.test(word)) return word.slice(0, -1);
  return word;
}

function uniqueId(base: string, used: Set<string>): string {
  let id = base;
  for (let count = 2; used.has(id); count++) id = `${base}${count}`;
  used.add(id);
  return id;
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);
const toOpenApiPath = (template: string): string => template.replace(/:([A-Za-z_$][\w$]*)/g, '{$1}');
const propertiesOf = (schema: JsonSchema): Record<string, unknown> | undefined => (isRecord(schema.properties) ? schema.properties : undefined);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
