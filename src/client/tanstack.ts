/**
 * restcanon/client/tanstack: the options of TanStack Query's queries, infinite queries and mutations
 * for the calls of a typed client, with keys made of the method, the path template, the params and
 * the query, and TanStack's `signal` passed to each call, so that a cancelled query stops its request.
 * It imports nothing of TanStack Query (an optional peer): what it returns is the plain options
 * objects `useQuery`, `queryClient.fetchQuery` and their kind take.
 */
import { bodyOf, type Answer, type CallArgs, type CallRequest, type Client } from './index.js';
import type { ClientMethod, PagedPaths, RouteOf, RouteTable } from './routes.js';

type Route<Of, Method extends ClientMethod, Path> = Path extends keyof RouteTable<Of>[Method] ? RouteOf<RouteTable<Of>, Method, Path> : never;
/** The body of a route's success answers. */
type Data<R> = Answer<R> extends infer A ? (A extends { ok: true; body: infer Body } ? Body : never) : never;

/**
 * The key of a call: `['restcanon', method, path, params, query]`; a query's keys start with
 * `['restcanon', 'GET', path]`, so that `invalidateQueries({ queryKey: ['restcanon', 'GET', '/users'] })`
 * reaches every query of that path.
 *
 * @example
 * const key: CallKey = ['restcanon', 'GET', '/users/:id', { id: 1 }, {}];
 */
export type CallKey = readonly ['restcanon', ClientMethod, string, unknown, unknown];

interface Parts {
  params?: unknown;
  query?: Record<string, unknown>;
  signal?: AbortSignal;
}

const keyOf = (method: ClientMethod, path: string, parts: Parts | undefined): CallKey => ['restcanon', method, path, parts?.params ?? {}, parts?.query ?? {}];

/** What TanStack Query gives a query function: its signal, and an infinite query's page. */
interface QueryContext<PageParam = unknown> {
  signal: AbortSignal;
  pageParam?: PageParam;
}

/**
 * The options of a query of `GET path`: its key, and a function that makes the call with TanStack's
 * signal and gives the success body, or throws a `ClientError`.
 *
 * @example
 * const user = await queryClient.fetchQuery(queryOptions(client, '/users/:id', { params: { id: 1 } }));
 */
export function queryOptions<Of, Path extends keyof RouteTable<Of>['GET'] & string>(
  client: Client<Of>,
  path: Path,
  ...request: CallArgs<Route<Of, 'GET', Path>>
): { queryKey: CallKey; queryFn: (context: QueryContext) => Promise<Data<Route<Of, 'GET', Path>>>} {
  const parts = request[0] as Parts | undefined;
  return {
    queryKey: keyOf('GET', path, parts),
    queryFn: ({ signal }) => (client.get as (path: string, parts: Parts) => Promise<never>)(path, { ...parts, signal }).then(bodyOf),
  };
}

/** The body of a paged list's 200 answer: its page. */
type PageOf<Of, Path> = Data<Route<Of, 'GET', Path>>;

/**
 * The options of an infinite query of a paged list: the first page from the call's query, each
 * next one from the query of the page's `next` link, until a page has none.
 *
 * @example
 * const pages = await queryClient.fetchInfiniteQuery({ ...infiniteQueryOptions(client, '/users/:userId/orders', { params: { userId: 1 } }), pages: 3 });
 */
export function infiniteQueryOptions<Of, Path extends PagedPaths<RouteTable<Of>> & string>(
  client: Client<Of>,
  path: Path,
  ...request: CallArgs<Route<Of, 'GET', Path>>
): {
  queryKey: CallKey;
  queryFn: (context: QueryContext<string | undefined>) => Promise<PageOf<Of, Path>>;
  initialPageParam: string | undefined;
  getNextPageParam: (page: PageOf<Of, Path>) => string | undefined;
} {
  const parts = request[0] as Parts | undefined;
  return {
    queryKey: keyOf('GET', path, parts),
    queryFn: ({ signal, pageParam }) => {
      // The next link names the same list with another query (its cursor or offset): the call takes that query.
      const query: Record<string, string | string[]> = {};
      if (pageParam !== undefined) {
        for (const [name, value] of new URL(pageParam, 'http://link.invalid').searchParams) query[name] = name in query ? [query[name]!].flat().concat(value) : value;
      }
      return (client.get as (path: string, parts: Parts) => Promise<never>)(path, { ...parts, ...(pageParam === undefined ? {} : { query }), signal }).then(bodyOf);
    },
    initialPageParam: undefined,
    getNextPageParam: (page) => (page as { next?: string | null }).next ?? undefined,
  };
}

/**
 * The options of a mutation of `method path`: its key, and a function that takes the call's request
 * (params, query, body, headers) and gives the success body, or throws a `ClientError`.
 *
 * @example
 * const created = await queryClient.getMutationCache().build(queryClient, mutationOptions(client, 'POST', '/users')).execute({ body: { name: 'Ada' } });
 */
export function mutationOptions<Of, Method extends Exclude<ClientMethod, 'GET'>, Path extends keyof RouteTable<Of>[Method] & string>(
  client: Client<Of>,
  method: Method,
  path: Path,
): { mutationKey: readonly ['restcanon', Method, Path]; mutationFn: (request: CallRequest<Route<Of, Method, Path>>) => Promise<Data<Route<Of, Method, Path>>> } {
  const call = client[method.toLowerCase() as 'post'] as unknown as (path: string, parts: unknown) => Promise<never>;
  return { mutationKey: ['restcanon', method, path], mutationFn: (request) => call.call(client, path, request).then(bodyOf) };
}
