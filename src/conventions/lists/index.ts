import type { AnyContext } from '../../core/endpoint.js';
import type { InputIssue } from '../../core/errors.js';
import type { AnswerHook, Exchange, Step } from '../../core/exchange.js';
import { settled } from '../../core/exchange.js';
import { publicPath } from '../../core/answers.js';
import { headerSafeUrl } from '../../core/path.js';
import { splitUrl } from '../../core/request.js';
import type { Convention, EndpointParts, PhaseStep } from '../../core/seam.js';
import { addIssues } from '../../core/validation.js';
import { checkListFields, linkHeader, pageOf, readList, type ListContext, type ListRequest, type ListRules } from './lists.js';

/**
 * Lists as a convention: a list's page, sort and filter read from the query among validation (their
 * issues join the one 400), handed to the handler as `ctx.page`, `ctx.sort` and `ctx.filter`, and a
 * paged list answered as a page with the links around it, in its body and in `Link`.
 */

/**
 * The `lists` convention: what `page`, `sort` and `filter` of a collection ask for.
 *
 * @example
 * const createApi = apiWith([lists]);
 */
export const lists: Convention = {
  name: 'lists',
  rank: 20,
  endpoint(endpoint, declared, { where }): EndpointParts | undefined {
    if (declared === undefined) return undefined;
    const rules = declared as ListRules;
    // A list's items are its response's: a sort or cursor key the item schema hides would tell it.
    if (endpoint.response?.array === true) checkListFields(rules, endpoint.response.schema, where);
    const steps: PhaseStep[] = [{ phase: 'input', run: reading(rules) }];
    if (rules.page === undefined) return { steps };
    // A paged list that found nothing is an empty page, in the one shape every page has.
    steps.push({ phase: 'result', run: pageOfNothing });
    return { steps, answer: paged(endpoint.path) };
  },
};

/** Reads what a request asks of a list; a query schema then validates only the other parameters. */
function reading(rules: ListRules): Step {
  const keep = (exchange: Exchange, { list, issues }: { list: ListRequest; issues: InputIssue[] }): void => {
    if (issues.length > 0) exchange.issues = addIssues(exchange.issues, { issues });
    const ctx = exchange.ctx as AnyContext & Partial<ListContext>;
    (exchange.notes ??= {}).lists = list;
    if (list.page !== undefined) ctx.page = list.page;
    ctx.sort = list.sort;
    ctx.filter = list.filter;
    if (rules.openQuery) ctx.query = list.rest;
  };
  return (exchange) => settled(readList(rules, exchange.ctx.query), exchange, keep);
}

function pageOfNothing(exchange: Exchange): undefined {
  if (exchange.result === undefined || exchange.result === null) exchange.result = [];
  return undefined;
}

/**
 * The page of a paged list, from what its handler returned (an array, or `{ items }`), with the
 * links of the pages around it in the body and in `Link`, each as the client reaches the list.
 */
function paged(path: string): AnswerHook {
  return (exchange, headers, result) => {
    const items = Array.isArray(result) ? result : (result as { items?: unknown } | null | undefined)?.items;
    if (!Array.isArray(items)) throw new TypeError(`The list of ${path} pages its items: return an array of at most ctx.page.limit of them`);
    const list = exchange.notes?.lists as ListRequest | undefined;
    if (list === undefined) return result;
    const { ctx } = exchange;
    const { path: requested, search } = splitUrl(ctx.request.url);
    const page = pageOf(list, items, headerSafeUrl(publicPath(ctx.request, requested)), search);
    const link = linkHeader(page, headers.link);
    if (link !== undefined) headers.link = link;
    return page;
  };
}
