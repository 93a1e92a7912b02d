/**
 * Preloaded with `node --import` by the express-zod-api server: every `import` and `require` of
 * `zod` or one of its subpaths in the process loads the devDependency `zod43` (`npm:zod@4.3.6`)
 * instead of the repository's zod.
 *
 * express-zod-api 27 and its @express-zod-api/zod-plugin add methods to zod's schema classes, which
 * zod 4.4 and later refuse: with the repository's zod, `createConfig` throws `TypeError: Cannot
 * redefine property: brand`. Its later releases declare zod `~4.3.4`. The plugin also loads zod
 * through `require` (createRequire), which module hooks do not see on Node 20, hence the second
 * redirect, in CommonJS resolution.
 */
import Module, { register } from 'node:module';

const ZOD = /^zod(\/.*)?$/;
const HOOKS = `
export async function resolve(specifier, context, nextResolve) {
  const match = ${ZOD}.exec(specifier);
  return nextResolve(match === null ? specifier : 'zod43' + (match[1] ?? ''), context);
}`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const match = typeof request === 'string' ? ZOD.exec(request) : null;
  return resolveFilename.call(this, match === null ? request : `zod43${match[1] ?? ''}`, ...rest);
};
