/**
 * The names the OpenAPI document gives things, from an operation and its path template: operation
 * ids (`listUserOrders`), summaries ("List orders of a user") and the names of component schemas
 * (`Order`, `OrderBody`). A name never depends on anything but the operation and the path, so it
 * stays the same from one build of the document to the next.
 */
import { parseTemplate } from '../core/path.js';

/** A run of static segments, and whether a param follows it: `/users/:userId/orders` has `users` (followed) and `orders`. */
interface Run {
  words: string[];
  followed: boolean;
}

/**
 * The runs of a template, first to last: `/admin/users/:id` is one run, `admin users`, followed by a
 * param. Words split at every other character than a letter or a digit (`openapi`, `json`), or for
 * `prose` only at `-` and `_` (`openapi.json`).
 */
function runsOf(template: string, prose = false): Run[] {
  const runs: Run[] = [];
  let words: string[] = [];
  for (const segment of parseTemplate(template)) {
    if (segment.kind === 'static') words.push(...segment.value.split(prose ? /[-_]+/ : /[^A-Za-z0-9]+/).filter(Boolean));
    else if (words.length > 0) {
      runs.push({ words, followed: true });
      words = [];
    }
  }
  if (words.length > 0) runs.push({ words, followed: false });
  return runs;
}

/** The words of a run, its last one singular where `single` holds. */
function wordsOf(run: Run, single: boolean): string[] {
  return single ? [...run.words.slice(0, -1), singular(run.words.at(-1)!)] : run.words;
}

/** The capitalized words of a path: a run before a param is singular, and the last run too unless `keepLast`. */
function nameWords(template: string, keepLast: boolean): string[] {
  return runsOf(template).flatMap((run) => wordsOf(run, run.followed || !keepLast).map(capitalize));
}

/**
 * The operation id of an operation: the operation, then the path's names; a run of segments before
 * a param, or the last one (except for list), is singular.
 *
 * @example
 * operationName('list', '/users/:userId/orders'); // 'listUserOrders'
 * operationName('read', '/users/:id'); // 'readUser'
 */
export function operationName(operation: string, template: string): string {
  return operation + (nameWords(template, operation === 'list').join('') || 'Root');
}

/**
 * The operation id of the OPTIONS answer of a path: a collection's path keeps its plural.
 *
 * @example
 * optionsName('/users'); // 'optionsUsers'
 * optionsName('/users/:id'); // 'optionsUser'
 */
export function optionsName(template: string): string {
  return `options${nameWords(template, true).join('') || 'Root'}`;
}

/**
 * What a path names, in words: an item is singular with its article, a list is plural, and each
 * parent item follows with "of".
 *
 * @example
 * nounPhrase('list', '/users/:userId/orders'); // 'orders of a user'
 * nounPhrase('create', '/users/:userId/orders'); // 'an order of a user'
 * nounPhrase('read', '/health'); // 'health'
 */
export function nounPhrase(operation: string, template: string): string {
  const [subject, ...parents] = runsOf(template, true).reverse();
  if (subject === undefined) return template === '/' ? 'the root' : 'an item';
  const one = (run: Run) => withArticle(wordsOf(run, true).join(' '));
  // Creating or submitting to a plural path makes one of its items; any other path without a param is one thing.
  const plural = !subject.followed && singular(subject.words.at(-1)!) !== subject.words.at(-1);
  const own = subject.followed || (plural && (operation === 'create' || operation === 'submit')) ? one(subject) : subject.words.join(' ');
  return [own, ...parents.map((run) => `of ${one(run)}`)].join(' ');
}

/**
 * The summary of an operation without one of its own: the operation and what its path names.
 *
 * @example
 * summaryOf('list', '/users/:userId/orders'); // 'List orders of a user'
 * summaryOf('read', '/users/:id'); // 'Read a user'
 */
export function summaryOf(operation: string, template: string): string {
  return `${capitalize(operation)} ${nounPhrase(operation, template)}`;
}

/**
 * The names a component schema may take, best first: the singular noun of the path (`Order`), then
 * with its parents (`UserOrder`), then with its operation and role (`UserOrderReadResponse`). An
 * `item` (an entry of a list) is the noun; a body adds `Body` (`Patch` for update); a `response` of
 * list (an envelope) adds `List`, of submit `Result`.
 *
 * @example
 * modelNames('read', '/users/:userId/orders/:id', 'response'); // ['Order', 'UserOrder', 'UserOrderReadResponse']
 * modelNames('update', '/users/:id', 'body'); // ['UserPatch', 'UserUpdateBody']
 */
export function modelNames(operation: string, template: string, role: 'item' | 'body' | 'response'): string[] {
  const last = runsOf(template).at(-1);
  const noun = last === undefined ? 'Root' : wordsOf(last, true).map(capitalize).join('');
  const full = nameWords(template, false).join('') || 'Root';
  const suffix = role === 'body' ? (operation === 'update' ? 'Patch' : 'Body') : role === 'item' ? '' : operation === 'list' ? 'List' : operation === 'submit' ? 'Result' : '';
  return [...new Set([noun + suffix, full + suffix, full + capitalize(operation) + capitalize(role)])];
}

/**
 * A name not used yet: the first free one of the names given, else the last with a number.
 *
 * @example
 * uniqueName(['User'], (name) => name === 'User'); // 'User2'
 */
export function uniqueName(names: readonly string[], isTaken: (name: string) => boolean): string {
  const free = names.find((name) => !isTaken(name));
  if (free !== undefined) return free;
  const base = names.at(-1)!;
  let count = 2;
  while (isTaken(`${base}${count}`)) count++;
  return `${base}${count}`;
}

/** `users` → `user`, `categories` → `category`, `boxes` → `box`; `status` stays. */
function singular(word: string): string {
  if (/ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|x|ch|sh)es$/i.test(word)) return word.slice(0, -2);
  if (/[^siu]s$/i.test(word)) return word.slice(0, -1);
  return word;
}

/** "a user", "an order": `an` before a vowel sound, as far as the spelling tells. */
function withArticle(phrase: string): string {
  return `${/^(?:[aeio]|u(?!s[aeiu]|n[iu]|t[iu]|r[ail]|u))/i.test(phrase) ? 'an' : 'a'} ${phrase}`;
}

/**
 * The word with its first letter in upper case.
 *
 * @example
 * capitalize('user'); // 'User'
 */
export function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
