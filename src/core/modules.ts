import type { ApiBuild, Convention, Responder } from './seam.js';

/**
 * The modules of an API, checked once when it is built: restcanon's conventions that come with
 * `createApi`, then those of `use`, each a {@link Convention} of a name of its own.
 */

const NAME = /^[a-z][A-Za-z0-9-]*$/;

/**
 * The most modules an API takes: each one that wraps the API's answer (an observer) is one more call
 * deep on every request, and far more of them would overflow the stack of the first request instead
 * of failing here.
 */
const MAX_MODULES = 1000;

/**
 * The modules an API runs with, in order: the built-in ones, then `use`. A value that is no module,
 * a name given twice or one of a built-in's, or more than {@link MAX_MODULES} modules, throws.
 *
 * @example
 * modulesOf([cors], [extension({ name: 'audit', observe })]);
 */
export function modulesOf(builtIns: readonly Convention[], use: unknown): readonly Convention[] {
  if (use === undefined) return builtIns;
  if (!Array.isArray(use)) throw new TypeError('createApi: "use" must be an array of modules, such as [extension({ name, ... })]');
  if (use.length > MAX_MODULES) throw new TypeError(`createApi: "use" holds ${use.length} modules; an API takes at most ${MAX_MODULES}: join the work of several into one`);
  const modules = [...builtIns];
  // Where each name was given: restcanon's own as -1.
  const names = new Map(builtIns.map((module) => [module.name, -1]));
  use.forEach((module: unknown, index) => {
    const candidate = module as Partial<Convention> | null;
    if (typeof candidate !== 'object' || candidate === null || typeof candidate.name !== 'string') {
      throw new TypeError(`createApi: use[${index}] is not a module; build one with extension({ name, ... })`);
    }
    const { name } = candidate;
    if (!NAME.test(name)) throw new TypeError(`createApi: use[${index}] is named ${JSON.stringify(name)}; a module's name is a lower-case word such as "audit" or "tenants"`);
    // An endpoint's declarations are found by the module's name: one that every object has would find the prototype's.
    if (name in Object.prototype) throw new TypeError(`createApi: use[${index}] is named "${name}", a name every JavaScript object has; give it another name`);
    const { options } = candidate;
    if (options !== undefined && (!Array.isArray(options) || options.some((option) => typeof option !== 'string'))) {
      throw new TypeError(`createApi: the module "${name}" has "options" that are not an array of the names of createApi's options it reads, such as ['cors']`);
    }
    const { exposes } = candidate;
    if (exposes !== undefined && (!Array.isArray(exposes) || exposes.some((header) => typeof header !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)))) {
      throw new TypeError(`createApi: the module "${name}" has "exposes" that are not an array of header names, such as ['RateLimit']`);
    }
    if (candidate.rank !== undefined && !Number.isFinite(candidate.rank)) throw new TypeError(`createApi: the module "${name}" has a "rank" that is not a finite number`);
    for (const hook of ['api', 'endpoint'] as const) {
      if (candidate[hook] !== undefined && typeof candidate[hook] !== 'function') throw new TypeError(`createApi: the module "${candidate.name}" has a "${hook}" that is not a function`);
    }
    const given = names.get(name);
    if (given === -1 && builtIns.includes(candidate as Convention)) throw new TypeError(`createApi: use[${index}] is restcanon's own ${name} convention, which this createApi has already; leave it out of "use"`);
    if (given === -1) throw new TypeError(`createApi: use[${index}] is named "${name}", as restcanon's own ${name} convention is; give it another name`);
    if (given !== undefined && modules.includes(candidate as Convention)) throw new TypeError(`createApi: the module "${name}" is given twice; an API runs each module once`);
    if (given !== undefined) throw new TypeError(`createApi: two modules are named "${name}" (use[${given}] and use[${index}]); give each a name of its own`);
    names.set(name, index);
    modules.push(candidate as Convention);
  });
  // Ranked modules first, by rank; the others after them, as given (a stable sort keeps their order).
  return modules.sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity) || 0);
}

/**
 * The names of `createApi`'s options that an API's modules read (`cors`).
 *
 * @example
 * apiOptionsOf([cors]); // ['cors']
 */
export function apiOptionsOf(modules: readonly Convention[]): string[] {
  return modules.flatMap((module) => module.options ?? []);
}

/**
 * The API's answer with what each module wraps around it, the first module innermost: a later one
 * (an observer given in `use`) sees what an earlier one (CORS) added.
 *
 * @example
 * const answer = wrapResponder(respond, modules, options, build);
 */
export function wrapResponder(respond: Responder, modules: readonly Convention[], options: Readonly<Record<string, unknown>>, build: ApiBuild): Responder {
  let answer = respond;
  for (const module of modules) {
    const wrap = module.api?.(options, build);
    if (wrap === undefined) continue;
    if (typeof wrap !== 'function') throw new TypeError(`createApi: the module "${module.name}" gave something that is not a wrapper of the API's answer`);
    answer = wrap(answer);
  }
  return answer;
}

