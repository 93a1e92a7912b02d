import { BODY_METHODS } from '../core/http.js';
import { checkProduces } from '../core/produces.js';
import { checkEvents } from '../conventions/events/declare.js';
import { ERROR_OUTCOMES, SUCCESS_OUTCOMES } from '../core/outcomes.js';
import { checkOptions } from '../core/options.js';
import { checkSchema, isStandardSchema } from '../core/standard-schema.js';
import type { DeclaredErrors, Endpoint } from '../core/endpoint.js';

/**
 * Throws unless a body option is undefined, a Standard Schema, `'unvalidated'` or `'ignored'`, or
 * (where `bytes` says an endpoint may take them: not a collection's operation, whose body is an item)
 * `'bytes'` or `'stream'`.
 *
 * @example
 * checkBodyOption('unvalidated', 'endpoint(POST /imports): "body"');
 */
export function checkBodyOption(value: unknown, what: string, bytes = false): void {
  if (bytes && (value === 'bytes' || value === 'stream')) return;
  if (value !== undefined && value !== 'unvalidated' && value !== 'ignored' && !isStandardSchema(value)) {
    const asBytes = bytes ? ", 'bytes' or 'stream' to take its bytes," : '';
    throw new TypeError(`${what} must be a Standard Schema, such as a zod schema, 'unvalidated' to take any body unchecked${asBytes || ','} or 'ignored' to take a body and never read it`);
  }
}

/**
 * The mistake of an `authorize` on a public endpoint or operation, which would run for nobody.
 *
 * @example
 * throw publicRule('endpoint(GET /news)', 'a public endpoint');
 */
export function publicRule(where: string, what: string): TypeError {
  return new TypeError(`${where}: ${what} runs no authorize rule, so that every caller, signed in or not, gets the same answer; drop "public" to check callers, or check the request in the handler`);
}

/**
 * Freezes a complete endpoint description. Resources build theirs with it; most code wants {@link endpoint}.
 *
 * @example
 * defineEndpoint({ ...existing, path: '/v2' + existing.path });
 */
export function defineEndpoint(definition: Endpoint): Endpoint {
  return freezeEndpoint(definition, `defineEndpoint(${definition?.method} ${definition?.path})`);
}

/**
 * {@link defineEndpoint} for a declaration of another name: its messages name `where`, what the
 * user called (`endpoint(GET /me)`, `the "remove" of collection("comments")`).
 *
 * @example
 * freezeEndpoint(definition, 'endpoint(GET /me)');
 */
export function freezeEndpoint(definition: Endpoint, where: string): Endpoint {
  checkOptions(where, definition, DEFINITION_KEYS);
  if (definition.public && definition.authorize?.length > 0) throw publicRule(where, 'a public endpoint');
  checkBodyOption(definition.body, `${where}: "body"`, true);
  // Only these methods' bodies are read: elsewhere a schema would answer every request 400, and `ctx.body` is always undefined.
  if (definition.body !== undefined && !BODY_METHODS.has(definition.method)) {
    throw new TypeError(`${where}: "body" is for POST, PUT and PATCH; the body of a ${definition.method} is never read (a schema would answer every request 400), so drop "body"`);
  }
  if (definition.location !== undefined && definition.operation !== 'create' && !definition.outcomes?.includes('create')) {
    throw new TypeError(`${where}: "location" names what a create made, and this endpoint answers ${definition.operation}; declare operation: 'create', or outcomes: ['create'] to choose it with ctx.outcome`);
  }
  checkProduces(definition.produces, where);
  checkEvents(definition.events, definition.produces, where);
  checkSchema(definition.query, `${where}: "query"`);
  checkSchema(definition.headers, `${where}: "headers"`);
  checkSchema(definition.response?.schema, `${where}: "response"`);
  checkOutcomes(definition, where);
  checkDeclaredErrors(definition.errors, where);
  checkConventions(definition.conventions, where);
  checkBodyLimit(definition, where);
  // A declared response is cut down to what it declares: the projection convention does that, on every endpoint that has one.
  const conventions = definition.response === undefined ? definition.conventions : { ...definition.conventions, projection: true };
  return Object.freeze({ ...definition, conventions: conventions === undefined ? undefined : Object.freeze(conventions) });
}

const CHOSEN: readonly string[] = SUCCESS_OUTCOMES.filter((outcome) => outcome !== 'options');

function checkOutcomes({ outcomes, method }: Endpoint, where: string): void {
  if (outcomes === undefined) return;
  if (!Array.isArray(outcomes)) throw new TypeError(`${where}: "outcomes" must be an array of success outcomes, such as ['accepted']`);
  for (const outcome of outcomes) {
    if (!CHOSEN.includes(outcome)) throw new TypeError(`${where}: "outcomes" takes success outcomes (${CHOSEN.join(', ')}), got ${JSON.stringify(outcome)}; errors are thrown and declared in "errors"`);
    if (outcome === 'notModified' && method !== 'GET') throw new TypeError(`${where}: only a GET endpoint may answer notModified`);
  }
}

function checkDeclaredErrors(errors: DeclaredErrors | undefined, where: string): void {
  if (errors === undefined) return;
  if (typeof errors !== 'object' || errors === null) throw new TypeError(`${where}: "errors" must be an object of error outcomes, such as { conflict: 'The email is taken' }`);
  for (const [outcome, declared] of Object.entries(errors)) {
    if (!(ERROR_OUTCOMES as readonly string[]).includes(outcome)) throw new TypeError(`${where}: "errors" takes error outcomes (${ERROR_OUTCOMES.join(', ')}), got "${outcome}"`);
    if (typeof declared === 'string') continue;
    if (typeof declared !== 'object' || declared === null) throw new TypeError(`${where}: the declared error "${outcome}" must be a description or { description, schema }`);
    checkOptions(`${where}: the declared error "${outcome}"`, declared, ['description', 'schema']);
    checkSchema(declared.schema, `${where}: the schema of the declared error "${outcome}"`);
  }
}

const DEFINITION_KEYS = [
  'method', 'path', 'operation', 'params', 'query', 'headers', 'body', 'consumes', 'produces', 'events', 'bodyLimit', 'public', 'authorize', 'guards', 'location', 'itemPath', 'locationId', 'summary', 'response', 'outcomes', 'errors',
  'current', 'conventions', 'handle',
];

/** A body limit of its own: a whole number of bytes, on an endpoint that reads a body. */
function checkBodyLimit({ bodyLimit, method, body }: Endpoint, where: string): void {
  if (bodyLimit === undefined) return;
  if (typeof bodyLimit !== 'number' || !Number.isSafeInteger(bodyLimit) || bodyLimit < 0) throw new TypeError(`${where}: "bodyLimit" must be a whole number of bytes, at least 0; got ${String(bodyLimit)}`);
  if (!BODY_METHODS.has(method) || body === undefined || body === 'ignored') throw new TypeError(`${where}: "bodyLimit" limits the body it reads, and it reads none; give "body" a schema or 'unvalidated', or drop "bodyLimit"`);
}

/** restcanon's own conventions, which a definition asks for through options of their own. */
const OWN_OPTION: Readonly<Record<string, string>> = {
  lists: '"page", "sort" or "filter"',
  ownership: '"owner"',
  conditional: '"conditional" (or a collection\'s "etag" and "lastModified")',
  mergePatch: 'update\'s "merge"',
  projection: '"response"',
  cors: 'createApi\'s "cors"',
  ranges: '"produces" (a GET of bytes answers Range)',
  events: '"produces" and "events"',
  forms: '"consumes"',
};

/**
 * What a definition asks of the API's modules (its `conventions` option) joined to what it asks of
 * restcanon's own conventions through their options. Throws unless the option is an object of
 * declarations by name, none of them for a convention that has an option of its own.
 *
 * @example
 * declaredConventions({ deprecation: { sunset: '2027-06-30' } }, undefined, 'endpoint(GET /v1/users)');
 */
export function declaredConventions(declared: unknown, own: Record<string, unknown> | undefined, where: string): Record<string, unknown> | undefined {
  if (declared === undefined) return own;
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    throw new TypeError(`${where}: "conventions" must be an object of what it asks of each module of the API, by its name, such as { deprecation: { sunset: '2027-06-30' } }`);
  }
  for (const name of Object.keys(declared)) {
    if (Object.hasOwn(OWN_OPTION, name)) throw new TypeError(`${where}: "conventions" cannot declare "${name}": ask for it through ${OWN_OPTION[name]}`);
  }
  return { ...own, ...declared };
}

function checkConventions(conventions: unknown, where: string): void {
  if (conventions === undefined) return;
  if (typeof conventions !== 'object' || conventions === null || Array.isArray(conventions)) {
    throw new TypeError(`${where}: "conventions" must be an object of what the endpoint asks of each convention, by its name`);
  }
}
