/**
 * What the probe knows of the API: the document's operations, and real values for their path
 * parameters, found by listing collections with the first user's credentials (or given with --param).
 * A template becomes a URL only when every parameter has a value, so that no check runs against a
 * made-up item and calls what it sees a finding.
 */
import { withoutTrailingSlashes } from '../../core/request.js';
import type { ApiModel, OperationView } from '../lint/model.js';
import { isItemPath, segmentsOf } from '../lint/model.js';
import { paramIn } from '../path-params.js';
import type { ProbeClient } from './client.js';
import { jsonOf } from './http.js';

/**
 * The API as the probe sees it.
 *
 * @example
 * const api = createApiMap(model, { userId: '1' });
 * api.fill('/users/{userId}/orders'); // '/users/1/orders'
 */
export interface ApiMap {
  model: ApiModel | undefined;
  operations: OperationView[];
  /** Values found, by the template of the collection an item belongs to (`/users` for `{id}` of `/users/{id}`). */
  values: Map<string, string>;
  /** The concrete path, or undefined while a parameter has no value. `last` replaces the last parameter. */
  fill(template: string, last?: string): string | undefined;
  /** The names of the parameters of a template that have no value. */
  missing(template: string): string[];
  /** A value for an item's id that no item has, in the shape its schema asks for. */
  unknownId(template: string): string;
  /** The operation with this method on this template. */
  operation(template: string, method: string): OperationView | undefined;
}

function paramName(segment: string): string {
  return paramIn(segment)?.name ?? segment;
}

/**
 * Builds the map of a document (or of nothing, for a probe without one) and the values given.
 *
 * @example
 * createApiMap(undefined, {}).operations; // []
 */
export function createApiMap(model: ApiModel | undefined, given: Record<string, string>): ApiMap {
  const values = new Map<string, string>();
  const operations = model?.operations ?? [];
  const valueAt = (segments: ReturnType<typeof segmentsOf>, index: number): string | undefined => {
    const name = paramName(segments[index]!.text);
    if (given[name] !== undefined) return given[name];
    const collection = `/${segments.slice(0, index).map((segment) => segment.text).join('/')}`;
    return values.get(collection);
  };
  const map: ApiMap = {
    model,
    operations,
    values,
    fill(template, last) {
      const segments = segmentsOf(template);
      const lastParam = segments.map((segment) => segment.param).lastIndexOf(true);
      const parts: string[] = [];
      for (const [index, segment] of segments.entries()) {
        if (!segment.param) {
          parts.push(segment.text);
          continue;
        }
        const value = index === lastParam && last !== undefined ? last : valueAt(segments, index);
        if (value === undefined) return undefined;
        const param = paramIn(segment.text)!;
        parts.push(`${segment.text.slice(0, param.start)}${encodeURIComponent(value)}${segment.text.slice(param.end)}`);
      }
      return `/${parts.join('/')}${template.endsWith('/') && parts.length > 0 ? '/' : ''}`;
    },
    missing(template) {
      const segments = segmentsOf(template);
      return segments.flatMap((segment, index) => (segment.param && valueAt(segments, index) === undefined ? [paramName(segment.text)] : []));
    },
    unknownId(template) {
      const segments = segmentsOf(template);
      const name = paramName(segments.at(-1)?.text ?? '');
      const parameter = operations
        .filter((operation) => operation.path === template)
        .flatMap((operation) => operation.parameters)
        .find((entry) => entry.name === name && entry.in === 'path');
      const schema = model?.deref(parameter?.schema) as { type?: unknown; format?: unknown; maximum?: unknown } | undefined;
      if (schema?.format === 'uuid') return '00000000-0000-4000-8000-00000000dead';
      if (schema?.type === 'integer' || schema?.type === 'number') return typeof schema.maximum === 'number' && schema.maximum < 999_999_999 ? String(schema.maximum) : '999999999';
      return 'restcanon-probe-unknown';
    },
    operation(template, method) {
      return operations.find((operation) => operation.path === template && operation.method === method);
    },
  };
  return map;
}

/** The items of a list answer: the array itself, or the first array among its members. */
function itemsOf(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) return [];
  return Object.values(body).find((value): value is unknown[] => Array.isArray(value)) ?? [];
}

/**
 * Lists the collections (GET on a path that does not end in a parameter) with the first user's
 * headers, shallowest first, and keeps the id of the first item of each for its item path.
 *
 * @example
 * await discoverValues(api, client, { authorization: 'Bearer alice-token' }, 10);
 */
export async function discoverValues(api: ApiMap, client: ProbeClient, headers: Record<string, string>, maxLists: number): Promise<void> {
  const lists = api.operations.filter((operation) => operation.method === 'GET' && !isItemPath(operation.path)).sort((a, b) => segmentsOf(a.path).length - segmentsOf(b.path).length);
  let listed = 0;
  for (const list of lists) {
    if (listed >= maxLists) break;
    const template = withoutTrailingSlashes(list.path) || '/';
    const itemTemplate = api.operations.map((operation) => operation.path).find((path) => isItemPath(path) && path.startsWith(`${template}/`) && segmentsOf(path).length === segmentsOf(template).length + 1);
    if (itemTemplate === undefined || api.values.has(template)) continue;
    const path = api.fill(template);
    if (path === undefined) continue;
    listed += 1;
    const { answer } = await client.send({ method: 'GET', url: client.urlOf(path), headers: { accept: 'application/json', ...headers } });
    if (answer === undefined || answer.status < 200 || answer.status > 299) continue;
    // The names the document gives this collection's id, wherever a parameter follows it
    // (`/articles/{id}`, `/articles/{slug}/comments`), then `id`.
    const depth = segmentsOf(template).length;
    const names = new Set<string>();
    for (const operation of api.operations) {
      const segments = segmentsOf(operation.path);
      if (operation.path.startsWith(`${template}/`) && segments[depth]?.param === true) names.add(paramName(segments[depth].text));
    }
    names.add('id');
    for (const item of itemsOf(jsonOf(answer))) {
      if (typeof item !== 'object' || item === null) continue;
      const record = item as Record<string, unknown>;
      const value = [...names].map((name) => record[name]).find((candidate) => typeof candidate === 'string' || typeof candidate === 'number');
      if (typeof value === 'string' || typeof value === 'number') {
        api.values.set(template, String(value));
        break;
      }
    }
  }
}
