/**
 * restcanon/client: a typed client of an API, from the API's own type and nothing else. It uses only
 * the Fetch API (or an API's `handle`, in memory); of the core it loads only `buildPath`, so a path is
 * filled in as the server fills its own.
 */
import type { Api } from '../core/api.js';
import type { ApiRequest, ApiResponse } from '../core/contract.js';
import { buildPath } from '../core/path.js';
import { answerBody, isJson, isRaw, isText, once, type BodyAs, type RawBody, type ReadAs } from './bodies.js';
import { retryDelay, sleep, type RetryPolicy } from './retry.js';
import type { ClientMethod, Failure, PagedPaths, Problem, QueryInput, Route, RouteOf, RouteTable, Success, TableShape } from './routes.js';

export type { BodyAs, RawBody, ReadAs } from './bodies.js';
export type { RetryPolicy } from './retry.js';
export type { ClientMethod, Failure, LooseRoute, MergePatch, PagedPaths, Problem, QueryInput, Route, RouteOf, RouteTable, SortParam, Success, TableShape } from './routes.js';

/**
 * Options of the Fetch API a client passes on, for every call (the client's) or for one (the call's,
 * which win); and `timeout`, the longest a call may take in milliseconds, its retries included. An
 * aborted call rejects with the signal's reason (a timeout's is a `TimeoutError`) and sends nothing
 * more; in memory it rejects as soon, though `api.handle` runs on.
 *
 * @example
 * await client.get('/health', { signal: AbortSignal.timeout(2000), credentials: 'include' });
 */
export interface FetchOptions {
  signal?: AbortSignal;
  timeout?: number;
  credentials?: RequestCredentials;
  cache?: RequestCache;
  keepalive?: boolean;
  mode?: RequestMode;
}

/**
 * A request as a client sends it, which an `onRequest` hook may change or replace: the method, the
 * full URL (the path, in memory), the headers by lower-case name and the body (JSON as text, or a
 * {@link RawBody} as the call gave it).
 *
 * @example
 * const request: ClientRequest = { method: 'GET', url: 'https://shop.example/api/users/1', headers: { accept: 'application/json' } };
 */
export interface ClientRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | RawBody;
}

/** One hook, or several run in order. */
type Hooks<F> = F | readonly F[];

/**
 * Options of {@link createClient}: `baseUrl` (with the API's `basePath`) to call over HTTP, or `api`
 * to call `api.handle` in memory; exactly one of them.
 *
 * @example
 * const options: ClientOptions = { baseUrl: 'https://shop.example/api', headers: { authorization: 'Bearer abc' }, etags: true, timeout: 10_000 };
 */
export interface ClientOptions extends FetchOptions {
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
  /** Before each attempt is sent: changes the request, or returns the one to send instead. */
  onRequest?: Hooks<(request: ClientRequest) => void | ClientRequest | Promise<void | ClientRequest>>;
  /** After each attempt's answer is read, any status: the answer and the request that was sent. */
  onResponse?: Hooks<(answer: Success | Failure, request: ClientRequest) => void | Promise<void>>;
  /** When an attempt gets no answer (the network, an abort, a timeout): the error and the request. */
  onError?: Hooks<(error: unknown, request: ClientRequest) => void | Promise<void>>;
  /** Tries calls again that are safe to repeat (see {@link RetryPolicy}); off by default. */
  retry?: RetryPolicy | boolean;
}

/** What a call may say of how it is sent: the Fetch options, and an `Idempotency-Key` the retries of the call share. */
export interface CallOptions extends FetchOptions {
  /** `true`: the call carries `Idempotency-Key: "<a random UUID>"`, the same on each of its retries, so that it may be retried. */
  idempotencyKey?: boolean;
  /** How a success's body is read (204 and 304 aside); by its `Content-Type` when not given. */
  as?: ReadAs;
}

/** The request of a call, from its route: `params` when the path has any, `query` when its schema needs one, `body` when the route takes one. */
export type CallRequest<R, Headers = Record<string, string>> = [R] extends [Route<infer Params, infer Query, infer Body>]
  ? ({} extends Params ? { params?: Params } : { params: Params }) &
      ({} extends Query ? { query?: Query } : { query: Query }) & { headers?: Headers } & CallOptions & ([Body] extends [never] ? { body?: never } : unknown extends Body ? { body?: Body } : { body: Body | RawBody })
  : never;

/**
 * The request argument of a call: required when the request has a required part.
 *
 * @example
 * function read(...request: CallArgs<RouteOf<RouteTable<typeof api>, 'GET', '/users/:id'>>) { return client.get('/users/:id', ...request); }
 */
export type CallArgs<R, Headers = Record<string, string>> = {} extends CallRequest<R, Headers> ? [request?: CallRequest<R, Headers>] : [request: CallRequest<R, Headers>];

/** The answer of a call: one member per status the route can answer, each error with its problem `code`. */
export type Answer<R> = R extends Route<unknown, unknown, unknown, infer A> ? A : never;

/** A success read another way: its body as `as` reads it, 204 and 304 aside (a 304's the kept body, with `etags`). */
type ReadWith<A, As extends ReadAs> = A extends Success<infer Status>
  ? Status extends 204 ? A : Success<Status, Status extends 304 ? BodyAs[As] | undefined : BodyAs[As]>
  : A;

/** Headers with no `If-None-Match`: a GET that sends none gets a 304 only from a client that keeps ETags. */
type Unconditional = Record<string, string> & { 'if-none-match'?: never; 'If-None-Match'?: never };

/** A GET's answer without its 304 member, for a client that keeps no ETags (`etags` false or absent). */
type NotModifiedIf<Answer, Etags> = [Etags] extends [false] ? Exclude<Answer, { status: 304 }> : Answer;

/*
 * A call's types name the client's API through `this` (`Of`, inferred from the client it is called on)
 * rather than through the table itself: a type that held the table would be walked whole at every
 * call, all of its routes, to put the call's path in.
 */
interface Call<Table extends TableShape, Method extends ClientMethod> {
  <Path extends keyof Table[Method] & string, Of, As extends ReadAs>(
    this: Client<Of>,
    path: Path,
    request: CallRequest<RouteAt<RouteTable<Of>, Method, Path>> & { as: As },
  ): Promise<ReadWith<Answer<RouteAt<RouteTable<Of>, Method, Path>>, As>>;
  <Path extends keyof Table[Method] & string, Of>(this: Client<Of>, path: Path, ...request: CallArgs<RouteAt<RouteTable<Of>, Method, Path>>): Promise<Answer<RouteAt<RouteTable<Of>, Method, Path>>>;
}

/** A GET: with no `If-None-Match` of its own, a 304 only from a client that keeps ETags; with one, a 304 from any client. */
interface Get<Table extends TableShape> {
  <Path extends keyof Table['GET'] & string, Of, Etags extends boolean, As extends ReadAs>(
    this: Client<Of, Etags>,
    path: Path,
    request: CallRequest<RouteAt<RouteTable<Of>, 'GET', Path>, Unconditional> & { as: As },
  ): Promise<ReadWith<NotModifiedIf<Answer<RouteAt<RouteTable<Of>, 'GET', Path>>, Etags>, As>>;
  <Path extends keyof Table['GET'] & string, Of, As extends ReadAs>(
    this: Client<Of>,
    path: Path,
    request: CallRequest<RouteAt<RouteTable<Of>, 'GET', Path>> & { as: As },
  ): Promise<ReadWith<Answer<RouteAt<RouteTable<Of>, 'GET', Path>>, As>>;
  <Path extends keyof Table['GET'] & string, Of, Etags extends boolean>(
    this: Client<Of, Etags>,
    path: Path,
    ...request: CallArgs<RouteAt<RouteTable<Of>, 'GET', Path>, Unconditional>
  ): Promise<NotModifiedIf<Answer<RouteAt<RouteTable<Of>, 'GET', Path>>, Etags>>;
  <Path extends keyof Table['GET'] & string, Of>(this: Client<Of>, path: Path, ...request: CallArgs<RouteAt<RouteTable<Of>, 'GET', Path>>): Promise<Answer<RouteAt<RouteTable<Of>, 'GET', Path>>>;
}

type RouteAt<Table extends TableShape, Method extends ClientMethod, Path> = Path extends keyof Table[Method] ? RouteOf<Table, Method, Path> : never;

/**
 * The request a call takes, by API, method and path template: what `client.get(path, request)` accepts.
 *
 * @example
 * const request: RequestOf<typeof api, 'GET', '/users/:id'> = { params: { id: 1 } };
 */
export type RequestOf<A, Method extends ClientMethod, Path extends keyof RouteTable<A>[Method]> = CallRequest<RouteOf<RouteTable<A>, Method, Path>>;

/**
 * The answers a call can get, by API, method and path template: a union narrowed by `ok` and `status`.
 *
 * @example
 * function name(answer: ResponseOf<typeof api, 'GET', '/users/:id'>) { return answer.status === 200 ? answer.body.name : undefined; }
 */
export type ResponseOf<A, Method extends ClientMethod, Path extends keyof RouteTable<A>[Method]> = Answer<RouteOf<RouteTable<A>, Method, Path>>;

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
export interface Client<A = Api, Etags extends boolean = boolean> {
  /** Whether the client keeps ETags, for the types only: never set at run time. */
  readonly '~etags'?: Etags;
  get: Get<RouteTable<A>>;
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
 * Not generic, so that what `instanceof` narrows to keeps its types (a generic class narrows to `any`).
 *
 * @example
 * try { bodyOf(await client.get('/users/:id', { params: { id: 9 } })); } catch (error) { if (error instanceof ClientError && error.problem.code === 'RC_NOT_FOUND') ... }
 */
export class ClientError extends Error {
  declare readonly status: number;
  declare readonly problem: Problem;
  declare readonly headers: Headers;
  constructor(failure: Failure) {
    super(`${failure.status} ${failure.problem?.title ?? ''}: ${failure.problem?.detail ?? failure.problem?.code ?? ''}`);
    this.name = 'ClientError';
    // Declared, not initialized, fields: set once here, with no field definitions emitted before.
    Object.assign(this, { status: failure.status, problem: failure.problem, headers: failure.headers });
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

const OPTIONS = ['baseUrl', 'api', 'fetch', 'headers', 'etags', 'signal', 'timeout', 'credentials', 'cache', 'keepalive', 'mode', 'onRequest', 'onResponse', 'onError', 'retry'];

/** The options of the Fetch API passed on as they are. */
const PASSED = ['credentials', 'cache', 'keepalive', 'mode'] as const;

/** One value or a list of them as a list: the hooks of one kind in order, the lines of a header. */
const each = <F>(hooks: Hooks<F> | undefined): readonly F[] => (hooks === undefined ? [] : ([] as F[]).concat(hooks));



interface Kept {
  etag: string;
  body: unknown;
}

/** The copies a client keeps at most: the least recently used goes first. */
const MAX_KEPT = 1000;

/** Headers that say nothing of which copy a call gets: the body's type and the preconditions, which the client sets itself. */
const UNKEYED = /^(?:content-type|content-length|if-match|if-none-match|if-modified-since|if-unmodified-since)$/;

interface CallParts extends CallOptions {
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
export function createClient<A = Api>(options: ClientOptions & { etags: true }): Client<A, true>;
export function createClient<A = Api>(options: ClientOptions & { etags?: false }): Client<A, false>;
export function createClient<A = Api>(options: ClientOptions): Client<A>;
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

  const retry: RetryPolicy | undefined = options.retry === true ? {} : options.retry || undefined;

  /** Sends one attempt and reads its answer. */
  async function send(request: ClientRequest, parts: CallParts, signal: AbortSignal | undefined): Promise<Success | Failure> {
    let status: number;
    let answerHeaders: Headers;
    let response: Response;
    if (api === undefined) {
      const init: RequestInit = { method: request.method, headers: request.headers };
      // `duplex` is what Fetch asks of a stream body; any other body takes it as well.
      if (request.body !== undefined) Object.assign(init, { body: request.body, duplex: 'half' });
      if (signal !== undefined) init.signal = signal;
      for (const name of PASSED) if ((parts[name] ?? options[name]) !== undefined) (init as Record<string, unknown>)[name] = parts[name] ?? options[name];
      response = await (options.fetch ?? fetch)(request.url, init);
      ({ status } = response);
      answerHeaders = response.headers;
    } else {
      const apiRequest: ApiRequest = { method: request.method, url: request.url, headers: request.headers };
      if (typeof request.body === 'string') apiRequest.body = request.body;
      else if (request.body !== undefined) {
        // The bytes and the type that Fetch would send: a form's multipart encoding with its boundary, a Blob's type.
        const encoded = new Response(request.body as BodyInit);
        apiRequest.body = new Uint8Array(await encoded.arrayBuffer());
        const type = encoded.headers.get('content-type');
        if (type !== null) request.headers['content-type'] ??= type;
      }
      // api.handle cannot be stopped: the call rejects with the reason at once and leaves it to finish; a stream it answers then is closed unread.
      const handled = api.handle(apiRequest);
      if (signal !== undefined) {
        handled.then(
          (late) => void (signal.aborted && late.stream && answerBody(late.stream, undefined).cancel()),
          () => {},
        );
      }
      const answer: ApiResponse = await (signal === undefined
        ? handled
        : Promise.race([handled, new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]));
      ({ status } = answer);
      answerHeaders = new Headers();
      // Line by line: `Set-Cookie` is a list, which `getSetCookie()` gives back one by one.
      for (const name in answer.headers) for (const line of each(answer.headers[name])) answerHeaders.append(name, line);
      response = new Response(answer.stream ? answerBody(answer.stream, signal) : (answer.payload as BodyInit) || null, { headers: answerHeaders });
    }
    const type = answerHeaders.get('content-type') ?? '';
    const as = status < 300 && status !== 204 ? (parts.as ?? (/^text\/event-stream\s*(;|$)/i.test(type) ? 'stream' : isJson(type) || isText(type) ? undefined : 'blob')) : undefined;
    if (as === 'blob') return { ok: true, status, headers: answerHeaders, body: await response.blob() };
    if (as === 'stream') return { ok: true, status, headers: answerHeaders, body: response.body ?? new Blob().stream() };
    const text = await response.text();
    if (as === 'text') return { ok: true, status, headers: answerHeaders, body: text };
    let value: unknown = text === '' ? undefined : text;
    if (value !== undefined && isJson(type)) {
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
    return { ok: true, status, headers: answerHeaders, body: value };
  }

  async function exchange(method: string, url: string, parts: CallParts, path = url): Promise<Success | Failure> {
    const headers: Record<string, string> = {};
    for (const given of [options.headers, parts.headers]) for (const name in given) headers[name.toLowerCase()] = given[name]!;
    let body: string | RawBody | undefined;
    if (isRaw(parts.body)) body = parts.body;
    else if (parts.body !== undefined) {
      // A string under a type of the call's own that is not JSON (text/csv) is sent as it is.
      body = typeof parts.body === 'string' && headers['content-type'] !== undefined && !isJson(headers['content-type']) ? parts.body : JSON.stringify(parts.body);
      headers['content-type'] ??= 'application/json';
    }
    const key = JSON.stringify([path, parts.as, ...Object.entries(headers).filter(([name]) => !UNKEYED.test(name)).sort()]);
    const known = etags ? kept.get(key) : undefined;
    if (known?.body !== undefined && method === 'GET') headers['if-none-match'] ??= known.etag;
    // If-Match compares strongly (RFC 9110): a weak tag would fail every change.
    if (known !== undefined && method !== 'GET' && !known.etag.startsWith('W/')) headers['if-match'] ??= known.etag;
    // One key for the call, the same on each retry: the server then does the call at most once. A Structured Field string.
    if (parts.idempotencyKey) headers['idempotency-key'] ??= `"${crypto.randomUUID()}"`;
    const timeout = parts.timeout ?? options.timeout;
    const signals = [options.signal, parts.signal].filter((one) => one !== undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (timeout !== undefined) {
      // A timer of the call's own, unlike AbortSignal.timeout's, keeps the process alive while an in-memory call waits.
      const timed = new AbortController();
      timer = setTimeout(() => timed.abort(new DOMException('The call timed out', 'TimeoutError')), timeout);
      signals.push(timed.signal);
    }
    const signal = signals.length === 0 ? undefined : AbortSignal.any(signals);
    const started = (retry?.now ?? Date.now)();
    try {
      for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      let request: ClientRequest = { method, url, headers: { ...headers } };
      if (body !== undefined) request.body = body;
      for (const hook of each(options.onRequest)) request = (await hook(request)) ?? request;
      signal?.throwIfAborted();
      // Only a request that is safe to repeat is tried again: a read, a change bound to a version, or one with an idempotency key.
      // A stream body is gone once sent: a call with one is never sent again.
      const repeatable = retry !== undefined && !(request.body instanceof ReadableStream) && (request.method === 'GET' || 'if-match' in request.headers || 'idempotency-key' in request.headers);
      let answer: Success | Failure;
      try {
        answer = await send(request, parts, signal);
      } catch (error) {
        for (const hook of each(options.onError)) await hook(error, request);
        const wait = repeatable && !signal?.aborted ? retryDelay(retry!, attempt, undefined, undefined, started) : undefined;
        if (wait === undefined) throw error;
        await (retry!.sleep ?? sleep)(wait, signal);
        continue;
      }
      if (etags && answer.ok) answer = keep(answer, method, key, known);
      for (const hook of each(options.onResponse)) await hook(answer, request);
      const wait = repeatable ? retryDelay(retry!, attempt, answer.status, answer.headers, started) : undefined;
      if (wait === undefined) return answer;
      await (retry!.sleep ?? sleep)(wait, signal);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Keeps a success's tag (and a GET's body) for later calls; a 304 answers the kept body. */
  function keep(answer: Success, method: string, key: string, known: Kept | undefined): Success {
    if (answer.status === 304 && known?.body !== undefined) {
      kept.delete(key);
      kept.set(key, known);
      return { ...answer, body: known.body };
    }
    const etag = answer.headers.get('etag');
    // A GET keeps its body for a later 304; a change keeps only its new tag, since what it answers need not be the item.
    kept.delete(key);
    if (etag !== null && method !== 'DELETE' && method !== 'POST') {
      kept.set(key, { etag, body: method === 'GET' && !once(answer.body) ? answer.body : undefined });
      if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value!);
    }
    return answer;
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
      answer = await exchange('GET', url?.href ?? next, { ...parts, body: undefined });
    }
  }

  return {
    get: (path: string, parts?: CallParts) => call('GET', path, parts),
    post: (path: string, parts?: CallParts) => call('POST', path, parts),
    put: (path: string, parts?: CallParts) => call('PUT', path, parts),
    patch: (path: string, parts?: CallParts) => call('PATCH', path, parts),
    delete: (path: string, parts?: CallParts) => call('DELETE', path, parts),
    pages: (path, parts) => pages(path, parts as CallParts),
  } as Client<A>;
}
