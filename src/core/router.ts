import { BadRequestError } from './errors.js';
import { ERROR_CODES } from './error-codes.js';
import { METHODS } from './http.js';
import { parseTemplate } from './path.js';

/**
 * One path template and what each method does on it.
 *
 * @example
 * route.handlers.GET; route.allow; // 'GET, HEAD, OPTIONS'
 */
export interface Route<T> {
  readonly template: string;
  readonly paramNames: readonly string[];
  readonly handlers: Readonly<Partial<Record<string, T>>>;
  /** The `Allow` header value: the methods declared, HEAD with GET, and OPTIONS. */
  readonly allow: string;
}

/** A found route and its params, each percent-decoded exactly once. */
export interface RouteMatch<T> {
  route: Route<T>;
  params: Record<string, string>;
}

interface MutableRoute<T> {
  template: string;
  paramNames: string[];
  handlers: Partial<Record<string, T>>;
  allow: string;
  buildParams: (values: readonly string[]) => Record<string, string>;
  /** For a route without params: its one match, frozen, returned by every find. */
  staticMatch: RouteMatch<T> | undefined;
}

interface Node<T> {
  /** Static children as parallel arrays: matched in place in the path, without copying a segment. */
  staticKeys: string[];
  staticNodes: Node<T>[];
  param: Node<T> | undefined;
  route: MutableRoute<T> | undefined;
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const SLASH = 47;

function newNode<T>(): Node<T> {
  return { staticKeys: [], staticNodes: [], param: undefined, route: undefined };
}

/**
 * A router from path to route, then from method to handler. It walks a segment tree where a static
 * segment beats a param, backtracking when the static branch dead-ends (`/users/me` and
 * `/users/:id/orders` can live side by side).
 *
 * @example
 * const router = createRouter<string>();
 * router.add('GET', '/users/:id', 'readUser');
 * router.find('/users/7'); // { route: { handlers: { GET: 'readUser' }, ... }, params: { id: '7' } }
 */
export class Router<T> {
  private readonly root: Node<T> = newNode();
  /** Fully static paths, with and without a trailing slash: one map lookup, no walk. */
  private readonly staticRoutes = new Map<string, MutableRoute<T>>();
  /**
   * The lengths of those paths. A path of another length skips the map: hashing a new path string
   * costs more than the walk, and most requests (`/users/7`) are not for a static route.
   */
  private readonly staticLengths: boolean[] = [];
  private readonly routes: MutableRoute<T>[] = [];
  /**
   * Where a walk writes the values it captures, one slot per param depth. `find` runs synchronously
   * and calls no user code, so one array serves every lookup, and a request allocates none.
   */
  private readonly values: string[] = [];

  /** Adds a handler for a method and template. The same method and template twice throws. */
  add(method: string, template: string, handler: T): void {
    const segments = parseTemplate(template);
    let node = this.root;
    for (const segment of segments) {
      if (segment.kind === 'param') {
        node = node.param ??= newNode();
        continue;
      }
      const index = node.staticKeys.indexOf(segment.value);
      if (index !== -1) {
        node = node.staticNodes[index]!;
      } else {
        const child = newNode<T>();
        node.staticKeys.push(segment.value);
        node.staticNodes.push(child);
        node = child;
      }
    }
    const paramNames = segments.flatMap((segment) => (segment.kind === 'param' ? [segment.name] : []));
    while (this.values.length < paramNames.length) this.values.push('');
    let route = node.route;
    if (route === undefined) {
      route = { template, paramNames, handlers: Object.create(null) as Partial<Record<string, T>>, allow: '', buildParams: paramsBuilder(paramNames), staticMatch: undefined };
      node.route = route;
      this.routes.push(route);
      if (paramNames.length === 0) {
        route.staticMatch = Object.freeze({ route, params: EMPTY_PARAMS });
        const path = '/' + segments.map((segment) => (segment as { value: string }).value).join('/');
        for (const key of path === '/' ? [path] : [path, path + '/']) {
          this.staticRoutes.set(key, route);
          this.staticLengths[key.length] = true;
        }
      }
    } else if (route.paramNames.join('/') !== paramNames.join('/')) {
      throw new TypeError(`Route ${template} names its params differently from ${route.template}; use the same names for the same path`);
    }
    if (route.handlers[method] !== undefined) throw new TypeError(`Route ${method} ${template} is declared twice`);
    route.handlers[method] = handler;
    route.allow = allowHeader(Object.keys(route.handlers));
  }

  /**
   * Finds the route for a path (no query string). Returns undefined when no template matches; throws
   * a 400 `BadRequestError` for a malformed percent-escape.
   */
  find(path: string): RouteMatch<T> | undefined {
    if (this.staticLengths[path.length] === true) {
      const fixed = this.staticRoutes.get(path);
      if (fixed !== undefined) return fixed.staticMatch;
    }
    if (path.charCodeAt(0) !== SLASH) return undefined;
    const values = this.values;
    const route = path.includes('%') ? walkEscaped(this.root, path, 1, values, 0) : walk(this.root, path, 1, values, 0);
    if (route === undefined) return undefined;
    // A branch that dead-ended may have written slots too, but the path that found the route wrote its own last.
    return route.staticMatch ?? { route, params: route.buildParams(values) };
  }

  /** Every route, in the order they were first added. */
  list(): readonly Route<T>[] {
    return this.routes;
  }
}

/**
 * Creates an empty {@link Router}.
 *
 * @example
 * const router = createRouter<() => string>();
 */
export function createRouter<T>(): Router<T> {
  return new Router<T>();
}

/** The common case: no escapes, so segments are compared where they sit in the path. */
function walk<T>(node: Node<T>, path: string, start: number, values: string[], depth: number): MutableRoute<T> | undefined {
  if (start >= path.length) return node.route;
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const length = end - start;
  const keys = node.staticKeys;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (key.length === length && path.startsWith(key, start)) {
      const found = walk(node.staticNodes[index]!, path, end + 1, values, depth);
      if (found !== undefined) return found;
      break;
    }
  }
  if (node.param !== undefined && length > 0) {
    values[depth] = path.slice(start, end);
    const found = walk(node.param, path, end + 1, values, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A path with `%`: each segment is decoded exactly once, before it is compared or captured. */
function walkEscaped<T>(node: Node<T>, path: string, start: number, values: string[], depth: number): MutableRoute<T> | undefined {
  if (start >= path.length) return node.route;
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const raw = path.slice(start, end);
  const segment = raw.includes('%') ? decodeSegment(raw) : raw;
  const index = node.staticKeys.indexOf(segment);
  if (index !== -1) {
    const found = walkEscaped(node.staticNodes[index]!, path, end + 1, values, depth);
    if (found !== undefined) return found;
  }
  if (node.param !== undefined && segment !== '') {
    values[depth] = segment;
    const found = walkEscaped(node.param, path, end + 1, values, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A function that builds one route's params object from the captured values. Generated code gives
 * every route's objects one fixed shape, which V8 handles much faster than a loop that assigns
 * property names that differ from route to route (find-my-way does the same). Where code generation
 * is not allowed (a strict CSP, some edge runtimes), the loop is the fallback.
 */
function paramsBuilder(names: readonly string[]): (values: readonly string[]) => Record<string, string> {
  try {
    // Param names are identifiers checked by parseTemplate, so they are safe to write into code.
    return new Function('v', `return { ${names.map((name, index) => `${JSON.stringify(name)}: v[${index}]`).join(', ')} };`) as (values: readonly string[]) => Record<string, string>;
  } catch {
    return (values) => {
      const params: Record<string, string> = {};
      for (let index = 0; index < names.length; index++) params[names[index]!] = values[index]!;
      return params;
    };
  }
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new BadRequestError('The URL holds a malformed percent-escape', { code: ERROR_CODES.MALFORMED_URL });
  }
}

function allowHeader(methods: readonly string[]): string {
  const declared = new Set(methods);
  if (declared.has('GET')) declared.add('HEAD');
  declared.add('OPTIONS');
  const known = METHODS.filter((method) => declared.has(method));
  const others = [...declared].filter((method) => !(METHODS as readonly string[]).includes(method)).sort();
  return [...known, ...others].join(', ');
}
