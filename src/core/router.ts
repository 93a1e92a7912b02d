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
}

interface Node<T> {
  statics: Map<string, Node<T>> | undefined;
  param: Node<T> | undefined;
  route: MutableRoute<T> | undefined;
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const SLASH = 47;

function newNode<T>(): Node<T> {
  return { statics: undefined, param: undefined, route: undefined };
}

/**
 * A router from path to route, then from method to handler. Fully static paths are one map lookup;
 * the others walk a segment tree where a static segment beats a param, backtracking when the static
 * branch dead-ends (`/users/me` and `/users/:id/orders` can live side by side).
 *
 * @example
 * const router = createRouter<string>();
 * router.add('GET', '/users/:id', 'readUser');
 * router.find('/users/7'); // { route: { handlers: { GET: 'readUser' }, ... }, params: { id: '7' } }
 */
export class Router<T> {
  private readonly root: Node<T> = newNode();
  private readonly staticRoutes = new Map<string, MutableRoute<T>>();
  private readonly routes: MutableRoute<T>[] = [];

  /** Adds a handler for a method and template. The same method and template twice throws. */
  add(method: string, template: string, handler: T): void {
    const segments = parseTemplate(template);
    let node = this.root;
    for (const segment of segments) {
      if (segment.kind === 'param') {
        node = node.param ??= newNode();
      } else {
        node.statics ??= new Map();
        let child = node.statics.get(segment.value);
        if (child === undefined) node.statics.set(segment.value, (child = newNode()));
        node = child;
      }
    }
    const paramNames = segments.flatMap((segment) => (segment.kind === 'param' ? [segment.name] : []));
    let route = node.route;
    if (route === undefined) {
      route = { template, paramNames, handlers: Object.create(null) as Partial<Record<string, T>>, allow: '' };
      node.route = route;
      this.routes.push(route);
      if (paramNames.length === 0) {
        const path = '/' + segments.map((segment) => (segment as { value: string }).value).join('/');
        this.staticRoutes.set(path, route);
        if (path !== '/') this.staticRoutes.set(path + '/', route);
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
    const fixed = this.staticRoutes.get(path);
    if (fixed !== undefined) return { route: fixed, params: EMPTY_PARAMS };
    if (path.charCodeAt(0) !== SLASH) return undefined;
    const values: string[] = [];
    const route = walk(this.root, path, 1, values, path.includes('%'));
    if (route === undefined) return undefined;
    const params: Record<string, string> = {};
    for (let index = 0; index < values.length; index++) params[route.paramNames[index]!] = values[index]!;
    return { route, params };
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

function walk<T>(node: Node<T>, path: string, start: number, values: string[], escaped: boolean): MutableRoute<T> | undefined {
  if (start >= path.length) return node.route;
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const raw = path.slice(start, end);
  const segment = escaped && raw.includes('%') ? decodeSegment(raw) : raw;
  const child = node.statics?.get(segment);
  if (child !== undefined) {
    const found = walk(child, path, end + 1, values, escaped);
    if (found !== undefined) return found;
  }
  if (node.param !== undefined && segment !== '') {
    values.push(segment);
    const found = walk(node.param, path, end + 1, values, escaped);
    if (found !== undefined) return found;
    values.pop();
  }
  return undefined;
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
