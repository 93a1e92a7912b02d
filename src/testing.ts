/**
 * restcanon/testing: run handlers and whole APIs without HTTP, in unit tests.
 */
import type { ApiRequest, ApiResponse, HeaderRecord, Logger, QueryRecord } from './core/contract.js';
import { SILENT_LOGGER } from './core/request-id.js';
import { RequestContext } from './core/context.js';
import type { AnyContext, Context, Endpoint, State } from './core/endpoint.js';
import type { PageRequest, SortField } from './conventions/lists/lists.js';
import { checkOptions } from './core/options.js';
import type { Api, ApiOptions } from './core/api.js';
import { createApi } from './preset.js';

/**
 * The parts of a {@link createTestContext} context: a handler's input, and what the pipeline hands a
 * collection's handlers besides it: the `item` it loaded (a merge patch's update, an owner's check),
 * and a list's `page`, `sort` and `filter`.
 *
 * @example
 * const parts: TestContextParts<{ id: number }, {}, {}, { name: string }, { id: number }, never, never, {}> = { params: { id: 1 }, body: { name: 'Ada' }, item: { id: 1, name: 'Ad' } };
 */
export interface TestContextParts<Params, Query, Headers, Body, Caller, Paged, Sort extends string, Filter> {
  params?: Params;
  query?: Query;
  headers?: Headers;
  body?: Body;
  principal?: Caller;
  request?: ApiRequest;
  item?: unknown;
  /** What the API's extensions would have set on `ctx.state`. */
  state?: State;
  /** The request's id (`ctx.id`); `'test'` when left out. */
  id?: string;
  /** `ctx.log`; one that writes nothing when left out. */
  log?: Logger;
  page?: Paged;
  sort?: SortField<Sort>[];
  filter?: Filter;
}

/**
 * A context for calling a handler directly: every part you leave out is empty (`sort` is `[]`,
 * `filter` is `{}`, `page` and `item` are undefined). A collection's handlers read `ctx.item`,
 * `ctx.page`, `ctx.sort` and `ctx.filter` too: give them here as the pipeline would. What the
 * handler sets with `ctx.set`, `ctx.append`, `ctx.cookie` and `ctx.outcome` is in `ctx.reply`;
 * `ctx.cookies` reads the `cookie` of `headers` (or of `request.headers`, given a request).
 *
 * @example
 * const ctx = createTestContext({ params: { id: 7 }, principal: { id: 1 } });
 * expect(await readUser(ctx)).toEqual({ id: 7, name: 'Ada' });
 * const page = { limit: 3, size: 2, offset: 0, after: undefined, before: undefined, key: 'id' };
 * expect(await listOrders(createTestContext({ params: { userId: 1 }, page }))).toHaveLength(3);
 */
export function createTestContext<
  Params = Record<string, string>,
  Query = Record<string, string | string[]>,
  Headers = HeaderRecord,
  Body = unknown,
  Caller = unknown,
  // Without a page, `never`: the context fits a list's handler that has none (`page: undefined`) and any other (`page?: PageRequest`).
  Paged extends PageRequest | undefined = never,
  Sort extends string = never,
  Filter = {},
>(parts: TestContextParts<Params, Query, Headers, Body, Caller, Paged, Sort, Filter> = {}): Context<Params, Query, Headers, Body, Caller> & { page: Paged; sort: SortField<Sort>[]; filter: Filter } {
  checkOptions('createTestContext()', parts, PARTS);
  checkPage(parts.page);
  checkSort(parts.sort);
  const headers = (parts.headers ?? {}) as HeaderRecord;
  // Without a request of its own, the context's headers are the request's: `ctx.cookies` reads its Cookie header.
  const ctx = new RequestContext(parts.params ?? {}, (parts.query ?? {}) as QueryRecord, headers, parts.request ?? { method: 'GET', url: '/', headers }, undefined, parts.id ?? 'test', parts.log ?? SILENT_LOGGER);
  ctx.body = parts.body;
  ctx.principal = parts.principal;
  ctx.item = parts.item;
  if (parts.state !== undefined) ctx.state = parts.state;
  // A list's parts, as the lists convention sets them on a list's context.
  Object.assign(ctx, { page: parts.page, sort: parts.sort ?? [], filter: parts.filter ?? {} });
  return ctx as unknown as Context<Params, Query, Headers, Body, Caller> & { page: Paged; sort: SortField<Sort>[]; filter: Filter };
}

const PARTS = ['params', 'query', 'headers', 'body', 'principal', 'request', 'item', 'state', 'id', 'log', 'page', 'sort', 'filter'];

const PAGE_SHAPE = '{ limit, size, offset, after, before, key }';

/** A page as the pipeline gives it, so that a handler tested with it meets what it will be given. */
function checkPage(page: unknown): void {
  if (page === undefined) return;
  if (typeof page !== 'object' || page === null) throw new TypeError(`createTestContext(): "page" must be an object ${PAGE_SHAPE}, as a paged list's handler receives it`);
  for (const [name, type] of [['limit', 'number'], ['size', 'number'], ['offset', 'number'], ['key', 'string']] as const) {
    if (typeof (page as Record<string, unknown>)[name] !== type) throw new TypeError(`createTestContext(): "page" needs "${name}", a ${type}, as a paged list's handler receives it: ${PAGE_SHAPE}`);
  }
}

function checkSort(sort: unknown): void {
  if (sort === undefined) return;
  const valid = Array.isArray(sort) && sort.every((field: { field?: unknown; direction?: unknown } | null) => typeof field?.field === 'string' && (field.direction === 'asc' || field.direction === 'desc'));
  if (!valid) throw new TypeError(`createTestContext(): "sort" must be an array of { field, direction: 'asc' | 'desc' }, such as [{ field: 'name', direction: 'desc' }] for ?sort=-name`);
}

/** A request for {@link TestClient}: an object body is sent as JSON text with its `Content-Type`. */
export interface TestRequestInit {
  headers?: HeaderRecord;
  body?: unknown;
}

/**
 * Calls an API as a client would, without HTTP. Object bodies are sent as JSON text, as on the wire.
 *
 * @example
 * const client = createTestClient(api);
 * const response = await client.post('/users', { body: { name: 'Ada' } });
 * response.status; // 201
 */
export interface TestClient {
  request(method: string, url: string, init?: TestRequestInit): Promise<ApiResponse>;
  get(url: string, init?: TestRequestInit): Promise<ApiResponse>;
  head(url: string, init?: TestRequestInit): Promise<ApiResponse>;
  options(url: string, init?: TestRequestInit): Promise<ApiResponse>;
  post(url: string, init?: TestRequestInit): Promise<ApiResponse>;
  put(url: string, init?: TestRequestInit): Promise<ApiResponse>;
  patch(url: string, init?: TestRequestInit): Promise<ApiResponse>;
  delete(url: string, init?: TestRequestInit): Promise<ApiResponse>;
}

/**
 * Creates a {@link TestClient} for an API.
 *
 * @example
 * const client = createTestClient(api);
 * expect((await client.get('/users/404')).status).toBe(404);
 */
export function createTestClient(api: Api): TestClient {
  const request = (method: string, url: string, init: TestRequestInit = {}): Promise<ApiResponse> => {
    // `client.post('/users', { name: 'Ada' })` would otherwise send no body without a word.
    checkOptions(`the test client's ${method} ${url}`, init, ['headers', 'body']);
    const headers: HeaderRecord = { ...init.headers };
    const apiRequest: ApiRequest = { method, url, headers };
    if (init.body !== undefined) {
      if (typeof init.body === 'string' || init.body instanceof Uint8Array) {
        apiRequest.body = init.body;
      } else {
        apiRequest.body = JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
    }
    return api.handle(apiRequest);
  };
  return {
    request,
    get: (url, init) => request('GET', url, init),
    head: (url, init) => request('HEAD', url, init),
    options: (url, init) => request('OPTIONS', url, init),
    post: (url, init) => request('POST', url, init),
    put: (url, init) => request('PUT', url, init),
    patch: (url, init) => request('PATCH', url, init),
    delete: (url, init) => request('DELETE', url, init),
  };
}

/**
 * Runs one endpoint through the whole pipeline (routing, validation, policy, errors) without HTTP.
 *
 * @example
 * const response = await callEndpoint(readUser, { method: 'GET', url: '/users/7' });
 */
export function callEndpoint(endpoint: Endpoint, request: ApiRequest, options: Omit<ApiOptions, 'endpoints' | 'resources'> = {}): Promise<ApiResponse> {
  return createApi({ naming: 'off', ...options, endpoints: [endpoint] }).handle(request);
}

export type { AnyContext };
