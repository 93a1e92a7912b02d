/**
 * `path-shape` and `method-shape`: paths are collections and items (`/<collection>/{id}`, nested as
 * `/<collection>/{id}/<sub-collection>/{id}`), and each method goes to the shape the conventions give
 * it: POST to a collection, PUT, PATCH and DELETE to an item, or to a single sub-resource of one
 * (`/users/{id}/avatar`, a name after an item's id that nothing is POSTed to).
 */
import { isItemPath, segmentsOf } from '../model.js';
import type { LintRule } from './rule.js';

/**
 * A parameter follows a collection's name, never another parameter, and no path starts with one.
 *
 * @example
 * pathShape.id; // 'path-shape'
 */
export const pathShape: LintRule = {
  id: 'path-shape',
  check(model, report) {
    for (const path of model.paths) {
      const segments = segmentsOf(path);
      if (segments[0]?.param === true) {
        report(['paths', path], `${path} starts with the parameter ${segments[0].text}: an item's id follows the name of its collection, as in /<collection>/${segments[0].text}`);
        continue;
      }
      const index = segments.findIndex((segment, position) => position > 0 && segment.param && segments[position - 1]!.param);
      if (index > 0) {
        const [first, second] = [segments[index - 1]!.text, segments[index]!.text];
        report(['paths', path], `${path} has the parameters ${first} and ${second} one after the other: name the collection between them, as in .../${first}/<collection>/${second}`);
      }
    }
    return model.paths.length;
  },
};

const ITEM_METHODS = new Set(['PUT', 'PATCH', 'DELETE']);

/**
 * A path that names the one sub-resource of an item (`/users/{id}/avatar`): a name right after a
 * parameter, on a path that takes no POST, so it is no collection.
 */
function isSingleton(path: string, posted: ReadonlySet<string>): boolean {
  const segments = segmentsOf(path);
  return segments.length > 1 && segments.at(-1)!.param === false && segments.at(-2)!.param === true && !posted.has(path);
}

/**
 * POST addresses a collection; PUT, PATCH and DELETE an item or the one sub-resource of an item.
 *
 * @example
 * methodShape.id; // 'method-shape'
 */
export const methodShape: LintRule = {
  id: 'method-shape',
  check(model, report) {
    let checked = 0;
    const posted = new Set(model.operations.filter((operation) => operation.method === 'POST').map((operation) => operation.path));
    for (const operation of model.operations) {
      if (operation.path === '/') continue;
      const item = isItemPath(operation.path);
      if (ITEM_METHODS.has(operation.method)) {
        checked += 1;
        if (!item && !isSingleton(operation.path, posted)) {
          report(operation.keys, `${operation.method} ${operation.path} addresses a collection or an action (the path ends in a name): ${operation.method} changes one item, at a path that ends in its id, such as /<collection>/{id}`);
        }
      } else if (operation.method === 'POST') {
        checked += 1;
        if (item) {
          report(operation.keys, `POST ${operation.path} addresses an item (the path ends in its id): POST creates in, or submits to, a collection such as ${operation.path.replace(/\/[^/]*$/, '') || '/'}; change an item with PUT or PATCH`);
        }
      }
    }
    return checked;
  },
};
