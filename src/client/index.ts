/**
 * restcanon/client: a typed client of an API, from the API's own type and nothing else. It uses only
 * the Fetch API (or an API's `handle`, in memory); of the core it loads only `buildPath`, so a path is
 * filled in as the server fills its own.
 */
import type { Api } from '../core/api.js';
import type { ApiRequest, ApiResponse } from '../core/contract.js';
import { buildPath } from '../core/path.js';
import type { ClientMethod, Failure, PagedPaths, Problem, QueryInput, Route, RouteOf, RouteTable, Success, TableShape } from './routes.js';

export type { ClientMethod, Failure, LooseRoute, MergePatch, PagedPaths, Problem, QueryInput, Route, RouteOf, RouteTable, Success, TableShape } from './routes.js';

/**
 * Options of {@link createClient}: `baseUrl` (with the API's `basePath`) to call over HTTP, or `api`
 * to call `api.handle` in memory; exactly one of them.
 *
 * @example
 * const options: ClientOptions = { baseUrl: 'https://shop.example/api', headers: { authorization: 'Bearer abc' }, etags: true };
 */
export interface ClientOptions {
  /** The URL of the API, its `basePath` included: `https://shop.example/api`. */
  baseUrl?: string;
  /** An API to call in memory, through `api.handle`, with no HTTP. */
  api?: Pick<Api, 'handle' | 'basePath'>;
  /** The Fetch function to use; `globalThis.fetch` by default. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Headers of every request; a call's own headers win. */
  headers?: Record<string, string>;
  /**
   * Keeps the `ETag` and body of each success by URL and by the headers of the call (its credentials,
   * whatever header carries them, and its `Accept`): a GET then sends `If-None-Match` (a 304 answers
   * the kept body), and PUT, PATCH and DELETE send `If-Match` unless the call gives one. The 1000
   * copies used last are kept.
   */
  etags?: boolean;
}

/** The request of a call, from its route: `params` when the path has any, `query` when its schema needs one, `body` when the route takes one. */
export type CallRequest<R> = [R] extends [Route<infer Params, infer Query, infer Body>]
  ? ({} extends Params ? { params?: Params } : { params: Params }) &
      ({} extends Query ? { query?: Query } : { query: Query }) & { headers?: Record<string, string> } & ([Body] extends [never] ? { body?: never } : unknown extends Body ? { body?: Body } : { body: Body })
  : never;

/** The request argument of a call: required when the request has a required part. */
type CallArgs<R> = {} extends CallRequest<R> ? [request?: CallRequest<R>] : [request: CallRequest<R>];

/** The answer of a call: one member per status the route can answer, each error with its problem `code`. */
export type Answer<R> = R extends Route<unknown, unknown, unknown, infer A> ? A : never;

/*
 * A call's types name the client's API through `this` (`Of`, inferred from the client it is called on)
 * rather than through the table itself: a type that held the table would be walked whole at every
 * call, all of its routes, to put the call's path in.
 */
type Call<Table extends TableShape, Method extends ClientMethod> = <Path extends keyof Table[Method] & string, Of>(
  this: Client<Of>,
  path: Path,
  ...request: CallArgs<RouteAt<RouteTable<Of>, Method, Path>>
) => Promise<Answer<RouteAt<RouteTable<Of>, Method, Path>>>;

type RouteAt<Table extends TableShape, Method extends ClientMethod, Path> = Path extends keyof Table[Method] ? RouteOf<Table, Method, Path> : never;

/** The body of a route's 200 answer: a page, for a paged list. */
type PageAt<R> = Extract<Answer<R>, { status: 200 }> extends { body: infer Page } ? Page : never;

/**
 * A client of an API: one function per method, each taking a path template of the API and the call's
 * `params`, `query`, `body` and `headers`, and answering a union narrowed by `ok` and `status`.
 *
 * @example
 * const answer = await client.get('/users/:id', { params: { id: 1 } });
 * if (answer.status === 200) console.log(answer.body.name);
 */
export interface Client<A = Api> {
  get: Call<RouteTable<A>, 'GET'>;
  post: Call<RouteTable<A>, 'POST'>;
  put: Call<RouteTable<A>, 'PUT'>;
  patch: Call<RouteTable<A>, 'PATCH'>;
  delete: Call<RouteTable<A>, 'DELETE'>;
  /**
   * The pages of a paged list, one by one, following each page's `next` until there is none. An
   * error answer throws a {@link ClientError}.
   *
   * @example
   * for await (const page of client.pages('/users/:userId/orders', { params: { userId: 1 }, query: { limit: 10 } })) console.log(page.items);
   */
  pages<Path extends PagedPaths<RouteTable<A>> & string, Of>(
    this: Client<Of>,
    path: Path,
    ...request: CallArgs<RouteAt<RouteTable<Of>, 'GET', Path>>
  ): AsyncIterableIterator<PageAt<RouteAt<RouteTable<Of>, 'GET', Path>>>;
}

/**
 * An error answer, thrown by {@link bodyOf} and by `client.pages`: its status, headers and problem.
 *
 * @example
 * try { bodyOf(await client.get('/users/:id', { params: { id: 9 } })); } catch (error) { if (error instanceof ClientError && error.status === 404) ... }
 */
export class ClientError<F extends Failure = Failure> extends Error {
  readonly status: F['status'];
  readonly problem: F['problem'];
  readonly headers: Headers;
  constructor(failure: F) {
    super(`${failure.status} ${failure.problem?.title ?? ''}: ${failure.problem?.detail ?? failure.problem?.code ?? ''}`);
    this.name = 'ClientError';
    this.status = failure.status;
    this.problem = failure.problem;
    this.headers = failure.headers;
  }
}

/**
 * The body of a success answer; an error answer throws a {@link ClientError} typed by the route's
 * error members.
 *
 * @example
 * const user = bodyOf(await client.get('/users/:id', { params: { id: 1 } }));
 */
export function bodyOf<A extends Success | Failure>(answer: A): Extract<A, { ok: true }>['body'] {
  if (answer.ok) return answer.body;
  throw new ClientError(answer as Extract<A, { ok: false }>);
}

const OPTIONS = ['baseUrl', 'api', 'fetch', 'headers', 'etags'];

/** A JSON media type: `application/json`, or any `+json` (`application/problem+json`), in any case. */
const isJson = (type: string): boolean => /^[^;]*[/+]json\s*(;|$)/i.test(type);

interface Kept {
  etag: string;
  body: unknown;
}

/** The copies a client keeps at most: the least recently used goes first. */
const MAX_KEPT = 1000;

/** Headers that say nothing of which copy a call gets: the body's type and the preconditions, which the client sets itself. */
const UNKEYED = /^(?:content-type|content-length|if-match|if-none-match|if-modified-since|if-unmodified-since)$/;

interface CallParts {
  params?: Record<string, string | number>;
  query?: QueryInput;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * Creates a client of an API from its type: `createClient<typeof api>({ baseUrl })` over HTTP, or
 * `createClient<typeof api>({ api })` in memory. An unknown option, or both or neither of `baseUrl`
 * and `api`, throws a TypeError.
 *
 * @example
 * const client = createClient<typeof api>({ baseUrl: 'https://shop.example/api' });
 * const created = await client.post('/users', { body: { name: 'Ada', email: 'ada@example.com' } });
 */
export function createClient<A = Api>(options: ClientOptions): Client<A> {
  for (const key of Object.keys(options)) if (!OPTIONS.includes(key)) throw new TypeError(`createClient(): unknown option "${key}"; the options are ${OPTIONS.join(', ')}`);
  const { baseUrl, api, etags } = options;
  if ((baseUrl === undefined) === (api === undefined)) throw new TypeError('createClient() needs exactly one of "baseUrl" (the URL of the API, basePath included) and "api" (to call api.handle in memory)');
  if (baseUrl !== undefined && (typeof baseUrl !== 'string' || /[?#]/.test(baseUrl))) throw new TypeError('createClient(): "baseUrl" is the URL of the API as a string, without a query or fragment');
  const root = baseUrl ?? api!.basePath;
  const base = root.endsWith('/') ? root.slice(0, -1) : root;
  // Kept ETags and bodies by URL and every header of the call: one caller's copy (by Authorization, a
  // cookie or an API key), or one representation (by Accept), never answers another.
  const kept = new Map<string, Kept>();

  async function exchange(method: string, url: string, parts: CallParts, path = url): Promise<Success | Failure> {
    const headers: Record<string, string> = {};
    for (const given of [options.headers, parts.headers]) for (const name in given) headers[name.toLowerCase()] = given[name]!;
    let body: string | undefined;
    if (parts.body !== undefined) {
      // A string under a type of the call's own that is not JSON (text/csv) is sent as it is.
      body = typeof parts.body === 'string' && headers['content-type'] !== undefined && !isJson(headers['content-type']) ? parts.body : JSON.stringify(parts.body);
      headers['content-type'] ??= 'application/json';
    }
    const key = JSON.stringify([path, ...Object.entries(headers).filter(([name]) => !UNKEYED.test(name)).sort()]);
    const known = etags ? kept.get(key) : undefined;
    if (known?.body !== undefined && method === 'GET') headers['if-none-match'] ??= known.etag;
    // If-Match compares strongly (RFC 9110): a weak tag would fail every change.
    if (known !== undefined && method !== 'GET' && !known.etag.startsWith('W/')) headers['if-match'] ??= known.etag;
    let status: number;
    let answerHeaders: Headers;
    let text: string;
    if (api === undefined) {
      const response = await (options.fetch ?? fetch)(url, body === undefined ? { method, headers } : { method, headers, body });
      ({ status } = response);
      answerHeaders = response.headers;
      text = await response.text();
    } else {
      const request: ApiRequest = { method, url, headers };
      if (body !== undefined) request.body = body;
      const response: ApiResponse = await api.handle(request);
      ({ status } = response);
      answerHeaders = new Headers();
      // Line by line: `Set-Cookie` is a list, which `getSetCookie()` gives back one by one.
      for (const [name, value] of Object.entries(response.headers)) for (const line of [value].flat()) answerHeaders.append(name, line);
      text = typeof response.payload === 'string' ? response.payload : new TextDecoder().decode(response.payload);
    }
    let value: unknown = text === '' ? undefined : text;
    if (value !== undefined && isJson(answerHeaders.get('content-type') ?? '')) {
      try {
        value = JSON.parse(text);
      } catch {
        // Malformed JSON stays the text it is.
      }
    }
    if (status >= 400) {
      // An error that is no problem body (a proxy's HTML page, nothing at all) gets one, with the text as its detail.
      const problem = typeof value === 'object' && value !== null ? value : { type: 'about:blank', title: '', status, ...(value === undefined ? {} : { detail: value }) };
      return { ok: false, status, headers: answerHeaders, problem: problem as Problem };
    }
    if (etags) {
      if (status === 304 && known?.body !== undefined) {
        kept.delete(key);
        kept.set(key, known);
        return { ok: true, status, headers: answerHeaders, body: known.body };
      }
      const etag = answerHeaders.get('etag');
      // A GET keeps its body for a later 304; a change keeps only its new tag, since what it answers need not be the item.
      kept.delete(key);
      if (etag !== null && method !== 'DELETE' && method !== 'POST') {
        kept.set(key, { etag, body: method === 'GET' ? value : undefined });
        if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
      }
    }
    return { ok: true, status, headers: answerHeaders, body: value };
  }

  async function call(method: string, path: string, parts: CallParts = {}): Promise<Success | Failure> {
    const params = parts.params ?? {};
    for (const [name, value] of Object.entries(params)) {
      // URLs read `.` and `..` (even percent-encoded) as steps up the path, to another resource.
      if (value === '' || value === '.' || value === '..') throw new TypeError(`${method} ${path}: the param "${name}" is empty, "." or ".."`);
    }
    for (const [, name] of path.matchAll(/:([A-Za-z_$][\w$]*)/g)) {
      if (params[name!] == null) throw new TypeError(`${method} ${path}: the param "${name}" has no value; pass it in params, such as { params: { ${name}: ... } }`);
    }
    // The server's own way of filling a template: the same param names, percent-encoded.
    const url = buildPath(path, params);
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(parts.query ?? {})) for (const one of [value ?? []].flat()) search.append(name, String(one));
    const query = String(search) === '' ? '' : `?${search}`;
    return exchange(method, base + url + query, parts, url + query);
  }

  async function* pages(path: string, parts: CallParts = {}): AsyncGenerator<unknown> {
    let answer = await call('GET', path, parts);
    const followed = new Set<string>();
    for (;;) {
      if (!answer.ok) throw new ClientError(answer);
      yield answer.body;
      const next = (answer.body as { next?: string | null }).next;
      if (typeof next !== 'string') return;
      // `next` is a path the server gave, its basePath included: from the origin of baseUrl over HTTP, as it is in memory.
      // A link to anywhere else is refused: the client's headers (credentials) go only to the API. In memory, a
      // path that a URL would read as another host (`//host`, `/\host`) is refused too, as it is over HTTP.
      const url = api === undefined ? new URL(next, base) : undefined;
      if (url === undefined ? !next.startsWith('/') || new URL(next, 'http://api.invalid').host !== 'api.invalid' : url.origin !== new URL(base).origin) {
        throw new TypeError(`pages(): the next link ${JSON.stringify(next)} leads away from the API; it is not followed`);
      }
      if (followed.has(next)) throw new TypeError(`pages(): the next link ${JSON.stringify(next)} came before; the pages would never end`);
      followed.add(next);
      answer = await exchange('GET', url?.href ?? next, { headers: parts.headers ?? {} });
    }
  }

  return {
    get: (path, parts) => call('GET', path, parts as CallParts),
    post: (path, parts) => call('POST', path, parts as CallParts),
    put: (path, parts) => call('PUT', path, parts as CallParts),
    patch: (path, parts) => call('PATCH', path, parts as CallParts),
    delete: (path, parts) => call('DELETE', path, parts as CallParts),
    pages: (path, parts) => pages(path, parts as CallParts),
  } as Client<A>;
}
