/**
 * `path-shape` and `method-shape`: paths are collections and items (`/<collection>/{id}`, nested as
 * `/<collection>/{id}/<sub-collection>/{id}`), and each method goes to the shape the conventions give
 * it: POST to a collection, PUT, PATCH and DELETE to an item.
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
 * POST addresses a collection; PUT, PATCH and DELETE an item.
 *
 * @example
 * methodShape.id; // 'method-shape'
 */
export const methodShape: LintRule = {
  id: 'method-shape',
  check(model, report) {
    let checked = 0;
    for (const operation of model.operations) {
      if (operation.path === '/') continue;
      const item = isItemPath(operation.path);
      if (ITEM_METHODS.has(operation.method)) {
        checked += 1;
        if (!item) {
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
