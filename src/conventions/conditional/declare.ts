import type { Promisable } from 'type-fest' with { 'resolution-mode': 'import' };
import { checkOptions } from '../../core/options.js';
import type { Validators } from './conditions.js';

/**
 * What an endpoint or a collection declares for conditional requests, and its checks: the options a
 * definition takes, read once at definition time.
 */

/**
 * The `conditional` option of an endpoint: how to load its item, and its validators.
 *
 * @example
 * const conditional: ConditionalOption<AnyContext, Doc> = { load: (ctx) => docs.get(ctx.params.id), etag: (doc) => doc.rev };
 */
export interface ConditionalOption<Ctx, Item> {
  load: (ctx: Ctx) => Promisable<Item | undefined | null>;
  etag?: (item: Item) => string;
  lastModified?: (item: Item) => Date;
  /** A PUT, PATCH or DELETE without `If-Match` (or `If-Unmodified-Since`) answers 428. */
  requireIfMatch?: boolean;
}

/**
 * What an endpoint asks of the `conditional` convention: the validators of its item, and whether a
 * change must carry a precondition.
 *
 * @example
 * const declared: ConditionalDeclaration = { etag: (item) => item.version, requireIfMatch: true };
 */
export interface ConditionalDeclaration extends Validators {
  /** A change needs `If-Match` (or `If-Unmodified-Since`): 428 without one. */
  readonly requireIfMatch: boolean;
}

const CONDITIONAL_OPTIONS = ['load', 'etag', 'lastModified', 'requireIfMatch'];

/**
 * The `conditional` option, checked: a loader, and at least one validator to compare.
 *
 * @example
 * checkConditional({ load: (ctx) => store.get(ctx.params.id), etag: (item) => item.version }, 'endpoint(GET /items/:id)');
 */
export function checkConditional(conditional: ConditionalOption<any, any> | undefined, where: string): ConditionalOption<any, any> | undefined {
  if (conditional === undefined) return undefined;
  if (typeof conditional !== 'object' || conditional === null) throw new TypeError(`${where}: "conditional" must be { load, etag } (or lastModified)`);
  checkOptions(`the "conditional" of ${where}`, conditional, CONDITIONAL_OPTIONS);
  if (typeof conditional.load !== 'function') throw new TypeError(`${where}: the "load" of "conditional" must be a function (ctx) => the item the URL names`);
  checkValidators(conditional, `the "conditional" of ${where}`);
  if (conditional.etag === undefined && conditional.lastModified === undefined) throw new TypeError(`${where}: "conditional" needs "etag" or "lastModified": the validators its preconditions compare`);
  return conditional;
}

/**
 * Throws unless `etag` and `lastModified` are functions where given, one of them is, and
 * `requireIfMatch` has something to compare.
 *
 * @example
 * checkValidators({ etag: (item) => item.version }, 'collection("articles")');
 */
export function checkValidators(options: { etag?: unknown; lastModified?: unknown; requireIfMatch?: unknown }, where: string): void {
  for (const name of ['etag', 'lastModified'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') throw new TypeError(`${where}: "${name}" must be a function of the item`);
  }
  if (options.requireIfMatch !== undefined && typeof options.requireIfMatch !== 'boolean') throw new TypeError(`${where}: "requireIfMatch" must be true or false`);
  if (options.etag === undefined && options.lastModified === undefined && options.requireIfMatch === true) {
    throw new TypeError(`${where}: "requireIfMatch" needs "etag" (or "lastModified") to compare the request's precondition with`);
  }
}
