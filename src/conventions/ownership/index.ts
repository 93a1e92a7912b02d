import type { AnyContext, Principal } from '../../core/endpoint.js';
import { FORBIDDEN_ITEM, ForbiddenError, withoutStack } from '../../core/errors.js';
import type { Exchange, Step } from '../../core/exchange.js';
import { reportAside } from '../../core/report.js';
import type { Convention, EndpointParts, PhaseStep } from '../../core/seam.js';

/**
 * Ownership as a convention: an item the URL names that is someone else's is a 403 before anything
 * else is checked of it; a list keeps to the caller's items by the owner's scope on its filter, and
 * drops any other item its handler still returns.
 */

/** Whether a caller owns an item, by a collection's `owner` rule. */
type OwnerRule = (item: any, principal: Principal) => boolean;

/**
 * What an operation asks of the `ownership` convention: the owner rule it checks, and for a list the
 * filter values that keep a caller to their own items.
 *
 * @example
 * const declared: OwnershipDeclaration = { rule: (order, principal) => order.userId === principal.id, scope: undefined };
 */
export interface OwnershipDeclaration {
  readonly rule: OwnerRule | undefined;
  readonly scope: ((principal: Principal) => Record<string, unknown>) | undefined;
}

/**
 * The `ownership` convention: what `owner` of a collection asks for.
 *
 * @example
 * const createApi = apiWith([ownership]);
 */
export const ownership: Convention = {
  name: 'ownership',
  rank: 30,
  endpoint(endpoint, declared, { where }): EndpointParts | undefined {
    if (declared === undefined) return undefined;
    const { rule, scope } = declared as OwnershipDeclaration;
    const steps: PhaseStep[] = [];
    if (endpoint.operation === 'list') {
      // A filter that asks for someone else's items is a 403.
      const filters = (endpoint.conventions?.lists as { filter?: unknown } | undefined)?.filter !== undefined;
      if (scope !== undefined) steps.push({ phase: 'access', run: scoping(scope), outcomes: filters ? ['forbidden'] : [] });
      if (rule !== undefined) steps.push({ phase: 'result', run: listFilter(rule) });
    } else if (rule !== undefined) {
      if (endpoint.current === undefined) throw new TypeError(`${where}: its owner is checked on the item the URL names, which it does not load`);
      steps.push({ phase: 'item', run: ownedItem(rule), outcomes: ['forbidden'] });
    }
    return { steps };
  },
};

/** The loaded item is the caller's, or the request is a 403 (a 404 where the policy conceals it). */
function ownedItem(rule: OwnerRule): Step {
  return (exchange) => {
    const { principal } = exchange.ctx;
    if (principal === undefined || rule(exchange.item, principal as Principal) !== true) throw FORBIDDEN_ITEM;
    return undefined;
  };
}

/**
 * The owner's scope on top of the filter, so that the handler asks its store for the caller's items
 * only. A filter that asks for someone else's is a 403; with no caller (a public list) the list is
 * empty and the handler is not asked.
 */
function scoping(scope: NonNullable<OwnershipDeclaration['scope']>): Step {
  return (exchange) => {
    const ctx = exchange.ctx as AnyContext & { filter?: Record<string, unknown> };
    const filter = ctx.filter ?? {};
    ctx.filter = filter;
    if (ctx.principal === undefined) {
      exchange.result = [];
      exchange.done = true;
      return undefined;
    }
    const values: unknown = scope(ctx.principal);
    if (typeof values !== 'object' || values === null) throw new TypeError('The "scope" of an owner must return the filter values of the caller\'s items, such as { userId: principal.id }');
    for (const [name, value] of Object.entries(values)) {
      if (name in filter && !Object.is(filter[name], value)) throw OTHERS_ITEMS;
      filter[name] = value;
    }
    return undefined;
  };
}

const OTHERS_ITEMS = /* @__PURE__ */ withoutStack(() => new ForbiddenError('This list holds only your own items'));

/**
 * The safety net under a list handler that forgot to scope its query: other people's items are
 * dropped, from an array or from the `items` of an envelope (`{ items, total }`). A list of any other
 * shape cannot be checked, so it is never sent: a masked 500, reported.
 */
function listFilter(rule: OwnerRule): Step {
  return (exchange: Exchange) => {
    const { result } = exchange;
    if (result === undefined || result === null) return undefined;
    const items = Array.isArray(result) ? result : (result as { items?: unknown }).items;
    if (!Array.isArray(items)) {
      throw new TypeError('A list of a collection with "owner" must return an array, or an envelope whose "items" is an array, so that other callers\' items can be dropped');
    }
    const { principal } = exchange.ctx;
    const visible = items.filter((item) => principal !== undefined && rule(item, principal as Principal) === true);
    if (visible.length !== items.length) {
      reportAside(exchange, new ForbiddenError(`A list handler returned ${items.length - visible.length} item(s) the caller may not see; they were dropped`));
    }
    exchange.result = items === result ? visible : { ...(result as object), items: visible };
    return undefined;
  };
}
