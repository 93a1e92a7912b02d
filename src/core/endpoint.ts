import type { Promisable } from 'type-fest' with { 'resolution-mode': 'import' };
import type { ApiRequest, HeaderRecord, Logger, QueryRecord, ResponseHeaders } from './contract.js';
import type { CookieOptions } from './cookies.js';
import type { Method } from './http.js';
import type { ErrorOutcome, SuccessOutcome } from './outcomes.js';
import type { Operation } from './policy.js';
import type { StandardSchema } from './standard-schema.js';
import type { PartSchema } from './validation.js';
import type { UploadedFile } from './uploads.js';

/**
 * Declare your principal type once, and every handler's `ctx.principal` is typed with it.
 *
 * @example
 * declare module 'restcanon' {
 *   interface Register { principal: { id: number; role: 'user' | 'admin' } }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface Register {}

/**
 * The principal type declared through {@link Register}, or `unknown`.
 *
 * @example
 * function isAdmin(principal: Principal) { ... }
 */
export type Principal = Register extends { principal: infer P } ? P : unknown;

/**
 * The per-request values that extensions put on `ctx.state` (a database handle, a tenant), typed
 * through {@link Register}, or a record of unknown values.
 *
 * @example
 * declare module 'restcanon' {
 *   interface Register { state: { tenant: string } }
 * }
 */
export type State = Register extends { state: infer S } ? S : Record<string, unknown>;

/**
 * The host's own objects for a request (`ctx.host`), typed through {@link Register} by the adapter
 * an app serves with, or `unknown`.
 *
 * @example
 * declare module 'restcanon' {
 *   interface Register { host: ExpressHost }
 * }
 */
export type Host = Register extends { host: infer H } ? H : unknown;

/**
 * What `authenticate` gives: the caller (an object, typed by {@link Register}), or `undefined`,
 * `null` or `false` for an anonymous request.
 *
 * @example
 * const authenticate = async (request: ApiRequest): Promise<Authenticated> => db.tokens.findUnique({ where: { token: tokenOf(request) } });
 */
export type Authenticated = (Principal & object) | undefined | null | false;

/**
 * What a handler receives: validated and typed input, the caller, and the request.
 *
 * @example
 * const handle = (ctx: Context<{ id: number }>) => db.users.get(ctx.params.id);
 */
export interface Context<Params = Record<string, string>, Query = QueryRecord, Headers = HeaderRecord, Body = unknown, Caller = Principal> {
  params: Params;
  query: Query;
  headers: Headers;
  body: Body;
  /**
   * The files of a `multipart/form-data` body, in the order they came, as `restcanon/multipart`
   * reads them; undefined for any other body.
   */
  files: AsyncIterable<UploadedFile> | undefined;
  principal: Caller;
  request: ApiRequest;
  /** What the API's extensions set for this request (see `extension()`), typed through {@link Register}. */
  state: State;
  /** The host's own objects for this request, as its adapter gives them; undefined in memory (`api.handle`). */
  host: Host | undefined;
  /** The client's address as the host reads it, after its trust-proxy rule; undefined in memory. */
  ip: string | undefined;
  /** The request's id: the host's, or a trusted incoming header's (`requestId.from`), or one of its own; every problem carries it as `instance`. */
  id: string;
  /** The host's logger for this request, else `createApi`'s `logger`, else one that writes nothing. */
  log: Logger;
  /**
   * The item the URL names, when it was loaded before the handler ran (for an owner rule, a
   * precondition or a merge patch): what `read` gave. Undefined otherwise.
   */
  item: unknown;
  /**
   * Sets a header of the success answer (`Link`, `Cache-Control`, `ETag`, `X-Total-Count`, ...).
   * Not sent with an error; `Content-Type`, `Content-Encoding`, `Content-Length` and the connection's headers are
   * restcanon's; a name or value that could split the answer throws.
   *
   * @example
   * ctx.set('X-Total-Count', String(total));
   */
  set(name: string, value: string): void;
  /**
   * Adds a value to a header of the success answer: `Set-Cookie` goes out as one line per value;
   * any other header gets the value after a comma (`Link`, `Vary`, `Cache-Control`: RFC 9110
   * section 5.3). The headers `set` refuses, `append` refuses too.
   *
   * @example
   * ctx.append('Link', '</users/7/orders>; rel="orders"');
   */
  append(name: string, value: string): void;
  /**
   * Sends a cookie with the success answer: one more `Set-Cookie` line, `Path=/; HttpOnly; Secure;
   * SameSite=Lax` unless the options say otherwise. A name that is no token or a value outside
   * RFC 6265's cookie-octets (a `;`, a space, CR or LF) throws: encode other text first.
   *
   * @example
   * ctx.cookie('session', token, { maxAge: 3600 });
   */
  cookie(name: string, value: string, options?: CookieOptions): void;
  /**
   * The cookies of the request's `Cookie` header by name, parsed when first read and frozen: a
   * name sent twice keeps its first value, a percent-encoded value is decoded.
   */
  readonly cookies: Readonly<Record<string, string>>;
  /**
   * Answers with another success outcome than the operation's, one the endpoint declares in
   * `outcomes` (`accepted` for work that goes on, `empty` for nothing to send); the policy gives its
   * status. Any other throws: errors are thrown, never chosen.
   *
   * @example
   * ctx.outcome('accepted'); // 202
   */
  outcome(outcome: ChosenOutcome): void;
  /** What `set`, `append`, `cookie` and `outcome` recorded; undefined until one is called. */
  readonly reply: Reply | undefined;
  /**
   * The media type `Accept` chose for a success answer: one of the endpoint's `produces` where it
   * has them, else the type of one of the API's formats.
   */
  readonly responseType: string;
  /**
   * Aborted when the client goes away before its answer is complete, or when the request's deadline
   * passes before the answer starts: give it to what the handler waits on (`fetch`, a database
   * query, a stream it reads). Made the first time it is read.
   *
   * @example
   * const upstream = await fetch(url, { signal: ctx.signal });
   */
  readonly signal: AbortSignal;
  /**
   * Makes the answer a download: `Content-Disposition: attachment`, with the file name the client
   * should offer (RFC 6266; a name beyond ASCII also as `filename*`, RFC 8187). The name is cut to
   * its last path segment and cleaned of what could split a header; it is never used as a path.
   *
   * @example
   * ctx.attachment('report 2024.csv'); // Content-Disposition: attachment; filename="report 2024.csv"
   */
  attachment(filename?: string): void;
  /**
   * The `Last-Event-ID` a reconnecting `EventSource` sends: the id of the last event it received,
   * so that a stream of server-sent events goes on after it. Undefined without one, or for one that
   * is empty, longer than 1024 characters or no UTF-8.
   *
   * @example
   * const after = ctx.lastEventId === undefined ? 0 : Number(ctx.lastEventId);
   */
  readonly lastEventId: string | undefined;
}

/** What a handler set for its answer with `ctx.set`, `ctx.append`, `ctx.cookie` and `ctx.outcome`. */
export interface Reply {
  headers: ResponseHeaders;
  outcome: ChosenOutcome | undefined;
}

/** A success outcome a handler may choose with `ctx.outcome`: any but `options`. */
export type ChosenOutcome = Exclude<SuccessOutcome, 'options'>;

/**
 * An error an endpoint declares it answers, for its documentation: what it means here, or that and
 * a schema of the members it adds to the problem body.
 *
 * @example
 * const taken: DeclaredError = { description: 'An account with this email exists' };
 */
export type DeclaredError = string | { readonly description?: string; readonly schema?: StandardSchema };

/** The domain errors an endpoint answers, by outcome. */
export type DeclaredErrors = { readonly [K in ErrorOutcome]?: DeclaredError };

/** A context before its types are known; what guards and the pipeline pass around. */
export type AnyContext = Context<any, any, any, any, any>;

/** Decides whether the caller may go on; `false` answers 403. */
export type Authorize<Ctx = AnyContext> = (ctx: Ctx) => Promisable<boolean>;

/**
 * A step that runs after validation and authorization and before the handler. It may throw an
 * `HttpError` (a missing parent is 404, someone else's item 403). Resources use guards for parents
 * and ownership.
 */
export type Guard = (ctx: AnyContext) => Promisable<void>;

/**
 * The body option of an endpoint or a collection: a schema, `'unvalidated'` to take any JSON
 * unchecked (the handler then sees `unknown`), `'bytes'` to take the body as bytes whatever its
 * type (a `Uint8Array`), `'stream'` to hand it to the handler unread (an async iterable of
 * `Uint8Array`, still within the endpoint's `bodyLimit`), or `'ignored'` to let a body arrive and
 * never read it (the handler sees none, and the API documents none). Without any, an endpoint takes
 * no body.
 *
 * @example
 * const body: BodyOption = 'unvalidated';
 */
export type BodyOption = StandardSchema | 'unvalidated' | 'bytes' | 'stream' | 'ignored';

/**
 * What a successful answer of an endpoint carries: a value of `schema`, or with `array` (a collection's
 * list) an array of them.
 *
 * @example
 * const listed: ResponseSchema = { schema: UserSchema, array: true };
 */
export interface ResponseSchema {
  readonly schema: StandardSchema;
  readonly array: boolean;
  /** A paged list: the array is the `items` of a {@link Page}. */
  readonly page?: boolean | undefined;
}

/**
 * An endpoint: a method and a path template, with its schemas, access rules and handler. The same
 * template with another method is another endpoint.
 *
 * @example
 * endpoint('GET', '/health', { public: true, handle: () => ({ ok: true }) });
 */
export interface Endpoint<Facts = unknown> {
  /**
   * What `endpoint()` knew of it, for the types of `restcanon/client` only: never set at run time.
   * `unknown` for an endpoint built by other means.
   */
  readonly '~facts'?: Facts;
  readonly method: Method;
  readonly path: string;
  readonly operation: Operation;
  readonly params: PartSchema | undefined;
  readonly query: StandardSchema | undefined;
  readonly headers: StandardSchema | undefined;
  /** The body's schema; `'unvalidated'` takes any body; `'ignored'` lets one arrive unread; undefined takes none. */
  readonly body: BodyOption | undefined;
  readonly consumes: readonly string[];
  /** The media types of the success bodies it sends besides the API's formats, negotiated against `Accept`; undefined for the API's formats. */
  readonly produces?: readonly string[] | undefined;
  /** How its server-sent events go out (`text/event-stream` in `produces`); undefined for the defaults. */
  readonly events?: EventsOptions | undefined;
  /** The largest body it reads, in bytes, where it differs from the API's `bodyLimit`. */
  readonly bodyLimit?: number | undefined;
  readonly public: boolean;
  readonly authorize: readonly Authorize[];
  readonly guards: readonly Guard[];
  readonly location: ((result: unknown, ctx: AnyContext) => string | undefined) | undefined;
  /** For `create` without `location`: the template of the new item's URL, filled with the params and the result's `id`. */
  readonly itemPath: string | undefined;
  /** For `create` without `location`: the new item's id, where the result's `id` is not it (a collection's `idOf`). */
  readonly locationId?: ((result: unknown, ctx: AnyContext) => unknown) | undefined;
  readonly summary: string | undefined;
  /** The body of a successful answer, if declared. */
  readonly response?: ResponseSchema | undefined;
  /** Success outcomes the handler may choose with `ctx.outcome`, besides its operation's. */
  readonly outcomes?: readonly ChosenOutcome[] | undefined;
  /** The domain errors the handler throws, by outcome. */
  readonly errors?: DeclaredErrors | undefined;
  /** The item the URL names, loaded before the handler (for the conventions that check or change it). */
  readonly current?: CurrentItem | undefined;
  /**
   * What the endpoint asks of each convention it uses, by the convention's name (`lists`,
   * `conditional`, `ownership`, ...): its API must have each of them.
   */
  readonly conventions?: Readonly<Record<string, unknown>> | undefined;
  readonly handle: (ctx: AnyContext) => unknown;
}

/**
 * How an endpoint loads the item its URL names before the handler runs: `load` gives it (nothing is
 * a 404), as `ctx.item`, for the conventions that check or change it (an owner, a precondition, a
 * merge patch).
 */
export interface CurrentItem {
  readonly load: (ctx: AnyContext) => unknown;
  /** The loader is the handler (a collection's read): the loaded item is the result. */
  readonly isHandler: boolean;
  /** A change answers the item as changed (a collection's), whose validators its answer carries; an endpoint's may answer anything. */
  readonly answersItem: boolean;
}

/**
 * Whether an endpoint reads the body a request sends: it has a body option other than `'ignored'`.
 *
 * @example
 * readsBody({ body: 'ignored' }); // false
 */
export function readsBody(endpoint: Pick<Endpoint, 'body'>): boolean {
  return endpoint.body !== undefined && endpoint.body !== 'ignored';
}

/**
 * An endpoint's `events`: options of the server-sent events it sends.
 *
 * @example
 * const events: EventsOptions = { keepAlive: 30_000 };
 */
export interface EventsOptions {
  /** Milliseconds of silence after which a comment goes out, so that proxies keep the connection; 15 000 when left out, 0 for none. */
  readonly keepAlive?: number | undefined;
}
