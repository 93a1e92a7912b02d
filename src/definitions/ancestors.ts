import type { AnyContext, Guard, Principal } from '../core/endpoint.js';
import { contextWith } from '../core/context.js';
import { FORBIDDEN_ITEM, MISSING_ITEM } from '../core/errors.js';
import { COLLECTION_OPERATIONS, type CollectionDefinition, type OwnedOperation, type OwnerRule, type OwnerScope } from './collection-definition.js';

/** A collection as its operations and children see it: its definition, what loads its item, and its owner. */
export interface Level {
  name: string;
  param: string;
  definition: CollectionDefinition<any, any, any, any, any, string, any, any, any, any, any, any, any, any>;
  /** What loads an item for the checks of ancestors and owners: the handler of read, or `load`. */
  loader: ((ctx: AnyContext) => unknown) | undefined;
  /** The owner rule and the operations it guards. */
  owner: Owner | undefined;
}

/** An `owner` option read once: the rule, and the operations it guards. */
export interface Owner {
  rule: OwnerRule<any>;
  on: ReadonlySet<OwnedOperation>;
  scope: OwnerScope | undefined;
}

/**
 * An owner option read once: a rule alone guards every operation but create.
 *
 * @example
 * ownerOf((article, principal) => article.authorId === principal.id); // guards list, read, replace, update, remove
 */
export function ownerOf(owner: Level['definition']['owner']): Owner | undefined {
  if (owner === undefined) return undefined;
  const every = COLLECTION_OPERATIONS.filter((operation): operation is OwnedOperation => operation !== 'create');
  if (typeof owner === 'function') return { rule: owner, on: new Set(every), scope: undefined };
  return { rule: owner.rule, on: new Set(owner.on ?? every), scope: owner.scope };
}

/**
 * The owner rule of a level where it guards `operation`.
 *
 * @example
 * const owns = ruleFor(level, 'read'); // undefined unless the owner guards read
 */
export function ruleFor(level: Level, operation: OwnedOperation): OwnerRule<any> | undefined {
  return level.owner !== undefined && level.owner.on.has(operation) ? level.owner.rule : undefined;
}

/**
 * Whether a caller may have an item by an owner rule: never without a caller.
 *
 * @example
 * isOwnedBy((order, principal) => order.userId === principal.id, order, ctx.principal);
 */
export function isOwnedBy(owns: OwnerRule<any>, item: unknown, principal: unknown): boolean {
  return principal !== undefined && owns(item, principal as Principal) === true;
}

/**
 * Loads an item through a collection's `read`: 404 when it is missing, 403 when the collection has
 * an owner rule and the caller is not allowed the item.
 */
async function loadAllowed(read: (ctx: AnyContext) => unknown, owns: OwnerRule<any> | undefined, ctx: AnyContext): Promise<void> {
  const item = await read(ctx);
  if (item === undefined || item === null || item instanceof Error) throw MISSING_ITEM;
  if (owns !== undefined && !isOwnedBy(owns, item, ctx.principal)) throw FORBIDDEN_ITEM;
}

/**
 * Loads every ancestor item, root first, so that nothing below a missing or foreign item runs.
 *
 * @example
 * guards.push(ancestorGuard([usersLevel]));
 */
export function ancestorGuard(ancestors: readonly Level[]): Guard {
  return async (ctx) => {
    for (const ancestor of ancestors) {
      if (ancestor.loader === undefined) continue;
      // An ancestor's owner rule applies to its children when it guards read: whoever may see the item may reach below it.
      await loadAllowed(ancestor.loader, ruleFor(ancestor, 'read'), contextWith(ctx, { params: { ...ctx.params, id: ctx.params[ancestor.param] }, body: undefined }));
    }
  };
}
