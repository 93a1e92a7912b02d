/**
 * A document seen as the rules need it: its operations, each with its path, method, parameters, the
 * security it needs, its request body and its responses, references followed, and the keys of every
 * part, so that a finding names the place in the document as written.
 */
import { paramIn } from '../path-params.js';
import type { Deref } from './refs.js';

/**
 * The operations of a path item, in the order OpenAPI lists them.
 *
 * @example
 * OPERATION_METHODS.includes('patch'); // true
 */
export const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, unknown>;

/**
 * One documented response of an operation.
 *
 * @example
 * const notFound: ResponseView = { code: '404', keys: ['paths', '/users/{id}', 'get', 'responses', '404'], response: { description: 'no such user' } };
 */
export interface ResponseView {
  /** As the document writes it: '404', '4XX' or 'default'. */
  code: string;
  keys: string[];
  /** The response, references followed. */
  response: Json;
}

/**
 * One operation: a method on a path.
 *
 * @example
 * model.operations.filter((operation) => operation.method === 'DELETE');
 */
export interface OperationView {
  path: string;
  /** In upper case: GET, POST, ... */
  method: string;
  keys: string[];
  operation: Json;
  /** The path item's and the operation's parameters, references followed. */
  parameters: Json[];
  /** `required`: a caller must authenticate; `optional`: a requirement lists `{}`; `none`: no requirement. */
  security: 'required' | 'optional' | 'none';
  requestBody: Json | undefined;
  responses: ResponseView[];
}

/**
 * The document, its operations and the function that follows references.
 *
 * @example
 * const model = buildModel(document, deref);
 * model.paths; // ['/users', '/users/{id}']
 */
export interface ApiModel {
  root: Json;
  paths: string[];
  operations: OperationView[];
  deref: Deref;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function securityOf(requirements: unknown): OperationView['security'] {
  if (!Array.isArray(requirements) || requirements.length === 0) return 'none';
  return requirements.some((requirement) => isObject(requirement) && Object.keys(requirement).length === 0) ? 'optional' : 'required';
}

/**
 * Builds the model of a document whose structure has been checked.
 *
 * @example
 * const model = buildModel({ openapi: '3.1.0', paths: {} }, (value) => value);
 */
export function buildModel(root: Json, deref: Deref): ApiModel {
  const paths = isObject(root.paths) ? root.paths : {};
  const operations: OperationView[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters.map(deref).filter(isObject) : [];
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const own = Array.isArray(operation.parameters) ? operation.parameters.map(deref).filter(isObject) : [];
      // An operation's parameter replaces the path item's of the same name and location.
      const parameters = [...shared.filter((parameter) => !own.some((mine) => mine.name === parameter.name && mine.in === parameter.in)), ...own];
      const keys = ['paths', path, method];
      const responses: ResponseView[] = isObject(operation.responses)
        ? Object.entries(operation.responses).flatMap(([code, raw]) => {
            const response = deref(raw);
            return isObject(response) ? [{ code, keys: [...keys, 'responses', code], response }] : [];
          })
        : [];
      const body = operation.requestBody === undefined ? undefined : deref(operation.requestBody);
      operations.push({
        path,
        method: method.toUpperCase(),
        keys,
        operation,
        parameters,
        security: securityOf(operation.security ?? root.security),
        requestBody: isObject(body) ? body : undefined,
        responses,
      });
    }
  }
  return { root, paths: Object.keys(paths), operations, deref };
}

/**
 * The segments of a path template; a parameter segment is one that holds a `{name}`.
 *
 * @example
 * segmentsOf('/users/{id}/orders'); // [{ text: 'users', param: false }, { text: '{id}', param: true }, { text: 'orders', param: false }]
 */
export function segmentsOf(path: string): { text: string; param: boolean }[] {
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .map((text) => ({ text, param: paramIn(text) !== undefined }));
}

/**
 * Whether a path names an item: its last segment is a parameter.
 *
 * @example
 * isItemPath('/users/{id}'); // true
 */
export function isItemPath(path: string): boolean {
  return segmentsOf(path).at(-1)?.param === true;
}

/**
 * The response documented for a status: its own code first, then its range (`4XX`).
 *
 * @example
 * responseFor(operation, 404)?.code; // '404' or '4XX'
 */
export function responseFor(operation: OperationView, status: number): ResponseView | undefined {
  const exact = operation.responses.find((entry) => entry.code === String(status));
  return exact ?? operation.responses.find((entry) => entry.code.toUpperCase() === `${String(status)[0]}XX`);
}

/**
 * The header a response declares, by name in any case.
 *
 * @example
 * headerOf(created.response, 'location'); // { description: 'The URL of the new item.', schema: { type: 'string' } }
 */
export function headerOf(response: Json, name: string, deref: Deref): Json | undefined {
  if (!isObject(response.headers)) return undefined;
  const entry = Object.entries(response.headers).find(([key]) => key.toLowerCase() === name.toLowerCase());
  const header = entry === undefined ? undefined : deref(entry[1]);
  return isObject(header) ? header : entry === undefined ? undefined : {};
}

/**
 * The media types a response documents, in lower case.
 *
 * @example
 * mediaTypesOf({ content: { 'application/problem+json': {} } }); // ['application/problem+json']
 */
export function mediaTypesOf(response: Json): string[] {
  return isObject(response.content) ? Object.keys(response.content).map((type) => type.toLowerCase()) : [];
}
