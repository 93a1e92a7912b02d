/**
 * Word lists behind the naming linter: path segments name resources, not
 * actions, and say which data they hold. The linter in `naming.ts` only reads these tables,
 * so tuning what it reports is an edit here, not a change of logic.
 *
 * Words are compared against whole words of a segment after it is split across case styles
 * (`getUsers` -> `get`, `users`), never against letter prefixes, so `settings` is not `set`.
 */

import type { Method } from '../core/http.js';

/** The methods a resource-style API uses instead of a verb in the path. */
export type ResourceMethod = Extract<Method, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'>;

/**
 * Verbs that mark a path segment as an action when they are its first word, grouped by the
 * method that expresses the same intent on a resource URL. The method becomes the linter's
 * suggestion: `/createOrder` -> `POST /orders`.
 *
 * To extend, add the lower-case word to the group of the method that should replace it.
 * Leave out words that are everyday nouns in API paths (`search`, `post`, `store`, `check`,
 * `download`): a bare `/search` is a resource, and the linter cannot tell the uses apart.
 *
 * @example
 * ACTION_VERBS.DELETE.includes('remove'); // true
 */
export const ACTION_VERBS: Readonly<Record<ResourceMethod, readonly string[]>> = {
  GET: ['get', 'fetch', 'find', 'retrieve', 'load', 'read', 'list', 'obtain'],
  POST: [
    'create',
    'add',
    'make',
    'insert',
    'do',
    'run',
    'execute',
    'perform',
    'submit',
    'send',
    'process',
    'generate',
    'calculate',
    'compute',
  ],
  PATCH: ['update', 'edit', 'modify', 'patch', 'change'],
  PUT: ['set', 'put', 'replace', 'save'],
  DELETE: ['delete', 'remove', 'destroy', 'erase'],
};

/**
 * Compound nouns whose first word is also a verb in {@link ACTION_VERBS}. A segment that
 * starts with one of them names a thing (`/load-balancers`, `/add-ons`) and is not reported.
 * The last word also matches its plural with a trailing "s".
 *
 * To extend, add the phrase in kebab-case and singular. For a name specific to one API,
 * prefer the linter's `allow` option over this list.
 *
 * @example
 * NOUN_PHRASES.includes('load-balancer'); // true
 */
export const NOUN_PHRASES: readonly string[] = [
  'add-on',
  'change-log',
  'change-request',
  'change-set',
  'do-not-disturb',
  'list-price',
  'load-balancer',
  'process-definition',
  'process-instance',
  'read-receipt',
];

/**
 * Names that say nothing about the data behind them. A segment made only of these words and
 * digits (`/data1`, `/tmp`, `/misc-info`) is reported; one that adds a real noun
 * (`/user-data`, `/metadata`) is not.
 *
 * To extend, add the lower-case word. Leave out collection nouns that are vague only in the
 * abstract (`items`, `objects`, `entries`): they are the usual names of real collections.
 *
 * @example
 * VAGUE_WORDS.has('data'); // true
 */
export const VAGUE_WORDS: ReadonlySet<string> = new Set([
  'data',
  'info',
  'information',
  'stuff',
  'thing',
  'things',
  'obj',
  'object',
  'tmp',
  'temp',
  'misc',
  'foo',
  'bar',
  'baz',
  'qux',
  'value',
  'values',
  'val',
  'res',
]);
