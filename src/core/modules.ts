import type { ApiBuild, Convention, Responder } from './seam.js';

/**
 * The modules of an API, checked once when it is built: restcanon's conventions that come with
 * `createApi`, then those of `use`, each a {@link Convention} of a name of its own.
 */

const NAME = /^[a-z][A-Za-z0-9-]*$/;

/**
 * The modules an API runs with, in order: the built-in ones, then `use`. A value that is no module,
 * or a name given twice, throws.
 *
 * @example
 * modulesOf([cors], [extension({ name: 'audit', observe })]);
 */
export function modulesOf(builtIns: readonly Convention[], use: unknown): readonly Convention[] {
  if (use === undefined) return builtIns;
  if (!Array.isArray(use)) throw new TypeError('createApi: "use" must be an array of modules, such as [extension({ name, ... })]');
  const modules = [...builtIns];
  const names = new Set(builtIns.map((module) => module.name));
  use.forEach((module: unknown, index) => {
    const candidate = module as Partial<Convention> | null;
    if (typeof candidate !== 'object' || candidate === null || typeof candidate.name !== 'string') {
      throw new TypeError(`createApi: use[${index}] is not a module; build one with extension({ name, ... })`);
    }
    if (!NAME.test(candidate.name)) throw new TypeError(`createApi: use[${index}] is named ${JSON.stringify(candidate.name)}; a module's name is a lower-case word such as "audit" or "tenants"`);
    for (const hook of ['api', 'endpoint'] as const) {
      if (candidate[hook] !== undefined && typeof candidate[hook] !== 'function') throw new TypeError(`createApi: the module "${candidate.name}" has a "${hook}" that is not a function`);
    }
    if (names.has(candidate.name)) throw new TypeError(`createApi: the module "${candidate.name}" is given twice; an API runs each module once`);
    names.add(candidate.name);
    modules.push(candidate as Convention);
  });
  return modules;
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

