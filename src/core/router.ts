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
  /** For a route without params: its one match, frozen, returned by every find. */
  staticMatch: RouteMatch<T> | undefined;
}

/** `find` for paths without `%`, generated from the tree. */
type Matcher<T> = (path: string) => RouteMatch<T> | undefined;

interface Node<T> {
  /** Static children as parallel arrays (the generated matcher compares them in place in the path). */
  staticKeys: string[];
  staticNodes: Node<T>[];
  param: Node<T> | undefined;
  route: MutableRoute<T> | undefined;
}

const EMPTY_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const SLASH = 47;
/**
 * The largest matcher generated, in characters of source (room for a few dozen REST routes). V8
 * optimizes it once, off the main thread, in time that grows with its size; a table that needs more
 * is served by the walk.
 */
const MAX_MATCHER_SOURCE = 16_000;

function newNode<T>(): Node<T> {
  return { staticKeys: [], staticNodes: [], param: undefined, route: undefined };
}

/**
 * A router from path to route, then from method to handler. It walks a segment tree where a static
 * segment beats a param, backtracking when the static branch dead-ends (`/users/me` and
 * `/users/:id/orders` can live side by side). A static segment matches the same characters as sent,
 * never a percent-encoded spelling of them (`/%75sers` is not `/users`), so that a host that matches
 * a prefix on the path as sent (Express, a hook that reads `request.url`) never sees a request
 * outside the prefix that the router then serves inside it. A param matches any segment but an empty one, `.` and `..` (also
 * percent-encoded), and its value is percent-decoded once.
 *
 * @example
 * const router = createRouter<string>();
 * router.add('GET', '/users/:id', 'readUser');
 * router.find('/users/7'); // { route: { handlers: { GET: 'readUser' }, ... }, params: { id: '7' } }
 */
export class Router<T> {
  private readonly root: Node<T> = newNode();
  private readonly routes: MutableRoute<T>[] = [];
  /**
   * Where a walk writes the values it captures, one slot per param depth. `find` runs synchronously
   * and calls no user code, so one array serves every lookup, and a request allocates none.
   */
  private readonly values: string[] = [];
  /** Built by the first `find` after an `add`; false where code generation is not allowed. */
  private matcher: Matcher<T> | false | undefined;

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
      route = { template, paramNames, handlers: Object.create(null) as Partial<Record<string, T>>, allow: '', staticMatch: undefined };
      node.route = route;
      this.routes.push(route);
      if (paramNames.length === 0) route.staticMatch = Object.freeze({ route, params: EMPTY_PARAMS });
      this.matcher = undefined;
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
    if (path.charCodeAt(0) !== SLASH) return undefined;
    if (this.matcher === undefined) this.matcher = compileMatcher(this.root);
    if (this.matcher !== false && !path.includes('%')) return this.matcher(path);
    const values = this.values;
    const route = walk(this.root, path, 1, values, 0);
    if (route === undefined) return undefined;
    if (route.staticMatch !== undefined) return route.staticMatch;
    // A branch that dead-ended may have written slots too, but the path that found the route wrote its own last.
    const params: Record<string, string> = {};
    route.paramNames.forEach((name, index) => (params[name] = values[index]!));
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

/**
 * The tree as one generated function, for paths without `%`. First the paths of static routes (with
 * and without a trailing slash), compared whole with those of the same length. Then each node of
 * the tree is a test per static child and one for its param child, so a static branch that
 * dead-ends falls through to the param, as the walk does. A static segment is compared char by char
 * where it sits in the path; a param is tested for being neither empty nor a dot segment. A captured
 * segment is sliced only once its route is found, into a params literal of one fixed shape per
 * route. Returns false where code generation is not allowed (a strict CSP, some edge runtimes), or
 * for a tree too large to be worth compiling: the walk then serves every path.
 *
 * @example
 * // For /users, /users/:id and /users/:userId/orders (line breaks added):
 * // switch (p.length) { case 6: if (p === "/users") return r[0].staticMatch; break; case 7: ... }
 * // const s0 = 1;
 * // let e0 = p.indexOf("/", s0); if (e0 < 0) e0 = p.length;
 * // if (e0 - s0 === 5 && p.charCodeAt(s0 + 0) === 117 && ... && p.charCodeAt(s0 + 4) === 115) { const s1 = e0 + 1;
 * //   let e1 = p.indexOf("/", s1); if (e1 < 0) e1 = p.length;
 * //   if (e1 > s1 && (p.charCodeAt(s1) !== 46 || ...)) { const s2 = e1 + 1;
 * //     if (s2 >= p.length) return { route: r[1], params: { "id": p.slice(s1, e1) } };
 * //     let e2 = p.indexOf("/", s2); if (e2 < 0) e2 = p.length;
 * //     if (e2 - s2 === 6 && p.charCodeAt(s2 + 0) === 111 && ...) { const s3 = e2 + 1;
 * //       if (s3 >= p.length) return { route: r[2], params: { "userId": p.slice(s1, e1) } }; } } }
 */
function compileMatcher<T>(root: Node<T>): Matcher<T> | false {
  const routes: MutableRoute<T>[] = [];
  /** Tests of whole paths of static routes, by length: a path is compared only with those as long as itself. */
  const statics = new Map<number, string>();
  const emit = (node: Node<T>, depth: number, captured: readonly string[], path: string): string => {
    const start = `s${depth}`;
    const end = `e${depth}`;
    const next = `const s${depth + 1} = ${end} + 1;\n`;
    const keys = node.staticKeys;
    const route = node.route;
    let code = '';
    if (route?.staticMatch !== undefined) {
      const index = routes.push(route) - 1;
      for (const key of path === '' ? ['/'] : [path, `${path}/`]) {
        statics.set(key.length, `${statics.get(key.length) ?? ''}if (p === ${JSON.stringify(key)}) return r[${index}].staticMatch;\n`);
      }
    } else if (route !== undefined) {
      const params = route.paramNames.map((name, index) => `${JSON.stringify(name)}: p.slice(${captured[index]})`);
      code += `if (${start} >= p.length) return { route: r[${routes.push(route) - 1}], params: { ${params.join(', ')} } };\n`;
    }
    if (keys.length === 0 && node.param === undefined) return code;
    code += `let ${end} = p.indexOf("/", ${start}); if (${end} < 0) ${end} = p.length;\n`;
    keys.forEach((key, index) => {
      const chars = Array.from({ length: key.length }, (_, at) => ` && p.charCodeAt(${start} + ${at}) === ${key.charCodeAt(at)}`);
      code += `if (${end} - ${start} === ${key.length}${chars.join('')}) { ${next}${emit(node.staticNodes[index]!, depth + 1, captured, `${path}/${key}`)}}\n`;
    });
    if (node.param !== undefined) {
      // A param is never empty, `.` or `..`: no route is reached through a dot segment, which a URL parser in front would resolve.
      const notDot = `(p.charCodeAt(${start}) !== 46 || ${end} - ${start} > 2 || (${end} - ${start} === 2 && p.charCodeAt(${start} + 1) !== 46))`;
      code += `if (${end} > ${start} && ${notDot}) { ${next}${emit(node.param, depth + 1, [...captured, `${start}, ${end}`], `${path}/:`)}}\n`;
    }
    return code;
  };
  const tree = emit(root, 0, [], '');
  const lengths = [...statics].map(([length, tests]) => `case ${length}:\n${tests}break;\n`).join('');
  if (tree.length + lengths.length > MAX_MATCHER_SOURCE) return false;
  try {
    return new Function('r', `return (p) => {\nswitch (p.length) {\n${lengths}}\nconst s0 = 1;\n${tree}}`)(routes) as Matcher<T>;
  } catch {
    return false;
  }
}

/**
 * Walks the tree a segment at a time, for a path with `%` or where no matcher could be generated. A
 * static segment is compared as it was sent; a param's value is decoded exactly once. Every escape a
 * walk reads is decoded, so that a malformed one is a 400 whichever branch reads it.
 */
function walk<T>(node: Node<T>, path: string, start: number, values: string[], depth: number): MutableRoute<T> | undefined {
  if (start >= path.length) return node.route;
  let end = path.indexOf('/', start);
  if (end === -1) end = path.length;
  const raw = path.slice(start, end);
  const value = raw.includes('%') ? decodeSegment(raw) : raw;
  const index = node.staticKeys.indexOf(raw);
  if (index !== -1) {
    const found = walk(node.staticNodes[index]!, path, end + 1, values, depth);
    if (found !== undefined) return found;
  }
  if (node.param !== undefined && raw !== '' && value !== '.' && value !== '..') {
    values[depth] = value;
    const found = walk(node.param, path, end + 1, values, depth + 1);
    if (found !== undefined) return found;
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
