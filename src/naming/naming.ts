/**
 * The naming linter: a path segment names a resource, never an action, and
 * says which data it holds. It runs over route paths when the API is defined, so a `/getUsers`
 * is caught before the first request rather than in review.
 */

import { ACTION_VERBS, NOUN_PHRASES, VAGUE_WORDS, type ResourceMethod } from './words.js';
import { withoutTrailingSlashes } from '../core/request.js';

/**
 * The rule a finding breaks: `verb` for a segment that names an action (`/createOrder`),
 * `vague` for one that does not say which data it holds (`/data1`).
 *
 * @example
 * const rule: NamingRule = 'verb';
 */
export type NamingRule = 'verb' | 'vague';

/**
 * One offending path segment, with a one-sentence `message` and a concrete `suggestion`.
 *
 * @example
 * const finding: NamingFinding = {
 *   rule: 'verb',
 *   path: '/createOrder',
 *   segment: 'createOrder',
 *   message: '"createOrder" in /createOrder names an action; paths name resources',
 *   suggestion: 'POST /orders',
 * };
 */
export interface NamingFinding {
  rule: NamingRule;
  /** The path as it was given. */
  path: string;
  segment: string;
  message: string;
  /** For `verb`, the method and path a resource-style API would use; for `vague`, what to rename. */
  suggestion: string;
}

/**
 * Options of the linter.
 *
 * @example
 * const options: NamingOptions = { allow: ['doRefund', '/legacy/getUsers'] };
 */
export interface NamingOptions {
  /**
   * Names to accept as they are. An entry starting with "/" accepts that whole path (exact match,
   * query string and trailing slash ignored); any other entry accepts a segment wherever it
   * appears, compared case-insensitively.
   */
  allow?: readonly string[] | undefined;
}

/**
 * What {@link checkNaming} does with findings: throw, log, or skip the check.
 *
 * @example
 * const mode: NamingMode = 'warn';
 */
export type NamingMode = 'error' | 'warn' | 'off';

const NAMING_MODES: readonly NamingMode[] = ['error', 'warn', 'off'];

const METHOD_OF_VERB: ReadonlyMap<string, ResourceMethod> = new Map(
  (Object.keys(ACTION_VERBS) as ResourceMethod[]).flatMap((method) =>
    ACTION_VERBS[method].map((verb) => [verb, method] as const),
  ),
);

const NOUN_PHRASE_WORDS: readonly (readonly string[])[] = NOUN_PHRASES.map((phrase) => phrase.split('-'));

// Splitting on anything that is not a letter or digit covers kebab, snake and dotted names at
// once; the word pattern then separates camelCase humps, acronyms (`HTTPResponse` -> `HTTP`,
// `Response`) and digit runs (`data1` -> `data`, `1`).
const SEPARATORS = /[^\p{L}\p{N}]+/u;
const WORD = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|[^\p{Lu}\p{Ll}\p{N}]+/gu;
const DIGITS = /^\p{N}+$/u;

function splitWords(segment: string): string[] {
  return segment
    .split(SEPARATORS)
    .flatMap((chunk) => chunk.match(WORD) ?? [])
    .map((word) => word.toLowerCase());
}

// Route templates mark params as `:id`, `{id}` or `*`; their names are the user's variables,
// not resource names, so they are never linted.
function isParam(segment: string): boolean {
  return /^[:{*]/.test(segment);
}

function withoutQuery(path: string): string {
  return path.replace(/[?#][\s\S]*$/, '');
}

function comparablePath(path: string): string {
  const bare = withoutQuery(path);
  return bare.length > 1 ? withoutTrailingSlashes(bare) : bare;
}

function startsWithPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  return phrase.every((part, index) => {
    const word = words[index];
    return index === phrase.length - 1 ? word === part || word === `${part}s` : word === part;
  });
}

function actionMethod(words: readonly string[]): ResourceMethod | undefined {
  const first = words[0];
  if (first === undefined) return undefined;
  const method = METHOD_OF_VERB.get(first);
  if (method === undefined || NOUN_PHRASE_WORDS.some((phrase) => startsWithPhrase(words, phrase))) return undefined;
  return method;
}

function isVague(words: readonly string[]): boolean {
  const named = words.filter((word) => !DIGITS.test(word));
  return named.length > 0 && named.every((word) => VAGUE_WORDS.has(word));
}

// Deliberately naive: the suggestion shows the shape of a resource path, and a wrong plural of
// an irregular noun is easier to fix by hand than a wrong guess from a dictionary.
function pluralise(name: string): string {
  if (name.endsWith('s') || !/\p{Ll}$/u.test(name)) return name;
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(x|z|ch|sh)$/.test(name)) return `${name}es`;
  return `${name}s`;
}

// Digit runs stay attached to the word before them (`v2`, not `v-2`), as the user wrote them.
function resourceName(words: readonly string[]): string {
  const parts: string[] = [];
  for (const word of words) {
    const last = parts.length - 1;
    if (DIGITS.test(word) && last >= 0) parts[last] += word;
    else parts.push(word);
  }
  return pluralise(parts.join('-'));
}

// Every action segment of the path is rewritten, not only the reported one, so the suggestion
// is itself a path the linter accepts.
function resourcePath(segments: readonly string[]): string {
  const rewritten = segments.flatMap((segment) => {
    if (isParam(segment)) return [segment];
    const words = splitWords(segment);
    if (actionMethod(words) === undefined) return [segment];
    const rest = words.slice(1);
    return rest.length === 0 ? [] : [resourceName(rest)];
  });
  return `/${rewritten.join('/')}`;
}

/**
 * Lints one route path and returns a finding per offending segment; an empty array means the
 * path follows the conventions. A segment that is both an action and vague is reported as an
 * action only.
 *
 * @example
 * lintPath('/users/:id/doRefund');
 * // [{ rule: 'verb', segment: 'doRefund', suggestion: 'POST /users/:id/refunds', ... }]
 */
export function lintPath(path: string, options: NamingOptions = {}): NamingFinding[] {
  const allow = options.allow ?? [];
  const target = comparablePath(path);
  if (allow.some((entry) => entry.startsWith('/') && comparablePath(entry) === target)) return [];
  const allowedSegments = new Set(allow.filter((entry) => !entry.startsWith('/')).map((entry) => entry.toLowerCase()));

  const segments = withoutQuery(path)
    .split('/')
    .filter((segment) => segment !== '');
  const findings: NamingFinding[] = [];
  const reported = new Set<string>();
  for (const segment of segments) {
    if (isParam(segment) || allowedSegments.has(segment.toLowerCase()) || reported.has(segment)) continue;
    const words = splitWords(segment);
    const method = actionMethod(words);
    if (method !== undefined) {
      findings.push({
        rule: 'verb',
        path,
        segment,
        message: `"${segment}" in ${path} names an action; paths name resources`,
        suggestion: `${method} ${resourcePath(segments)}`,
      });
    } else if (isVague(words)) {
      findings.push({
        rule: 'vague',
        path,
        segment,
        message: `"${segment}" in ${path} is a vague name; paths say which data they hold`,
        suggestion: `rename "${segment}" to a noun that says what it holds, such as /orders`,
      });
    } else {
      continue;
    }
    reported.add(segment);
  }
  return findings;
}

/**
 * Lints every path, in order. A path listed twice (one template serving several methods) is
 * linted once.
 *
 * @example
 * lintPaths(['/orders', '/getUsers', '/data1']).map((finding) => finding.segment);
 * // ['getUsers', 'data1']
 */
export function lintPaths(paths: Iterable<string>, options: NamingOptions = {}): NamingFinding[] {
  return [...new Set(paths)].flatMap((path) => lintPath(path, options));
}

const CONVENTION_ERROR = Symbol.for('restcanon.ConventionError');

function describeFindings(findings: readonly NamingFinding[]): string {
  const count = findings.length === 1 ? '1 path segment breaks' : `${findings.length} path segments break`;
  const lines = findings.map((finding) => `  - ${finding.message}. Suggestion: ${finding.suggestion}`);
  const example = findings[0];
  const allowHint =
    example === undefined ? 'namingAllow' : `namingAllow: "${example.segment}" for the segment, "${example.path}" for the whole path`;
  return [
    `restcanon: ${count} the naming conventions:`,
    ...lines,
    `Rename them, or pass naming: 'warn' (log instead of throwing) or naming: 'off' to createApi, or add names to ${allowHint}.`,
  ].join('\n');
}

/**
 * Thrown when the API is defined with paths that break the naming conventions. Its message lists
 * every finding with its suggestion and says how to silence the check; `findings` holds them
 * as data. Recognise it with {@link isConventionError}, which also works across copies of the
 * library.
 *
 * @example
 * try {
 *   checkNaming(['/getUsers'], 'error');
 * } catch (error) {
 *   if (isConventionError(error)) console.log(error.findings[0]?.suggestion); // 'GET /users'
 * }
 */
export class ConventionError extends Error {
  override readonly name = 'ConventionError';
  declare readonly findings: readonly NamingFinding[];

  constructor(findings: readonly NamingFinding[]) {
    super(describeFindings(findings));
    this.findings = Object.freeze([...findings]);
    // A brand rather than `instanceof`: the ESM and CJS builds each have their own class.
    Object.defineProperty(this, CONVENTION_ERROR, { value: true });
  }
}

/**
 * Whether a value is a {@link ConventionError}, from this copy of restcanon or any other.
 *
 * @example
 * isConventionError(new ConventionError(lintPath('/getUsers'))); // true
 */
export function isConventionError(value: unknown): value is ConventionError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CONVENTION_ERROR] === true;
}

/**
 * Lints the paths and acts on the mode: `error` throws a {@link ConventionError} if anything is
 * found, `warn` passes the same message once to `warn` (default `console.warn`), `off` skips the
 * check. Returns the findings (always `[]` for `off`).
 *
 * @example
 * checkNaming(['/orders', '/getUsers'], 'warn', { warn: (message) => logger.warn(message) });
 */
export function checkNaming(
  paths: Iterable<string>,
  mode: NamingMode,
  options: NamingOptions & { warn?: ((message: string) => void) | undefined } = {},
): NamingFinding[] {
  if (!NAMING_MODES.includes(mode)) {
    throw new TypeError(`naming must be 'error', 'warn' or 'off'; got ${JSON.stringify(mode)}.`);
  }
  if (mode === 'off') return [];
  const findings = lintPaths(paths, options);
  if (findings.length === 0) return findings;
  if (mode === 'error') throw new ConventionError(findings);
  const warn = options.warn ?? ((message: string) => console.warn(message));
  warn(describeFindings(findings));
  return findings;
}
