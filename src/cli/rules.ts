/**
 * The rules of the conventions that a document or a server can show, as data: one row per rule, read by
 * `restcanon lint`, `restcanon probe`, the Spectral ruleset and the reports alike, so that they never
 * disagree on a rule's id, its convention or its statuses. The statuses come from the outcome table
 * that restcanon's own engine answers by.
 */
import { OUTCOMES } from '../core/outcomes.js';

/**
 * How much a finding matters: `error` fails the run (exit code 1), `warn` and `info` are reported only.
 *
 * @example
 * const severity: Severity = 'warn';
 */
export type Severity = 'error' | 'warn' | 'info';

/**
 * Which command checks a rule: `lint` reads a document, `probe` sends requests to a server.
 *
 * @example
 * const command: Command = 'probe';
 */
export type Command = 'lint' | 'probe';

/** A row of the rule table as it is written. */
interface RuleRow {
  readonly id: string;
  /** One line: what the rule asks for. */
  readonly title: string;
  /** Where the convention is written: a section of the conventions, or the RFC behind it. */
  readonly convention: string;
  /** What `restcanon lint` checks, if it checks this rule. */
  readonly lint?: string;
  /** What `restcanon probe` checks, if it checks this rule. */
  readonly probe?: string;
  readonly severity: Readonly<Partial<Record<Command, Severity>>>;
}

/**
 * One rule: what it checks, the convention it comes from, and its default severity per command.
 *
 * @example
 * const rule: Rule | undefined = ruleOf('naming-verb');
 */
export interface Rule extends RuleRow {
  readonly id: RuleId;
}

const status = (outcome: keyof typeof OUTCOMES): number => OUTCOMES[outcome].status;

/**
 * Every rule, in the order reports list them.
 *
 * @example
 * RULES.find((rule) => rule.id === 'not-found')?.probe; // 'an unknown id answers 404 with a problem body ...'
 */
export const RULES = [
  {
    id: 'naming-verb',
    title: 'Path segments name resources, not actions',
    convention: 'Resources, naming rule 1',
    lint: 'no path segment starts with a verb such as get, create or delete (the naming check of createApi)',
    severity: { lint: 'error' },
  },
  {
    id: 'naming-vague',
    title: 'Path segments say which data they hold',
    convention: 'Resources, naming rule 2',
    lint: 'no path segment is a vague name such as data1, info or misc (the naming check of createApi)',
    severity: { lint: 'warn' },
  },
  {
    id: 'path-shape',
    title: 'Paths are collections and items: /<collection>/<id>/<sub-collection>/<id>',
    convention: 'Resources: collection, item, nested item',
    lint: 'every path parameter follows a collection name: no path starts with a parameter, and no two parameters follow each other',
    severity: { lint: 'warn' },
  },
  {
    id: 'method-shape',
    title: 'POST goes to a collection; PUT, PATCH and DELETE go to an item',
    convention: 'Endpoints, methods',
    lint: 'PUT, PATCH and DELETE address a path that ends in a parameter (an item), or in a name right after one that takes no POST (the one sub-resource of an item, such as /users/{id}/avatar); POST one that ends in a name (a collection)',
    severity: { lint: 'warn' },
  },
  {
    id: 'success-status',
    title: 'Each method answers its success status',
    convention: 'Endpoints, methods; Errors, status codes',
    lint: `every operation documents a success: GET ${status('read')}, POST ${status('create')} or ${status('submit')}, PUT and PATCH ${status('replace')} or ${status('empty')}, DELETE ${status('remove')} or ${status('empty')}`,
    severity: { lint: 'error' },
  },
  {
    id: 'create-location',
    title: `A POST that creates answers ${status('create')} with Location`,
    convention: 'Errors, status codes (201 Created); RFC 9110 section 15.3.2',
    lint: `a POST to a collection whose items have a path documents ${status('create')}, and every ${status('create')} documents a Location header`,
    probe: `a POST that creates answers ${status('create')} with a Location that reads back the new item; the probe deletes it again`,
    severity: { lint: 'warn', probe: 'error' },
  },
  {
    id: 'bad-request',
    title: `Invalid input answers ${status('badRequest')}`,
    convention: 'Errors, status codes and rule 3',
    lint: `an operation that takes a body or parameters documents ${status('badRequest')}`,
    probe: `malformed JSON answers ${status('badRequest')} with a problem body, never a 5xx`,
    severity: { lint: 'warn', probe: 'error' },
  },
  {
    id: 'unauthorized',
    title: `A caller without credentials gets ${status('unauthorized')} with WWW-Authenticate`,
    convention: 'Authentication, rule 2; RFC 9110 section 15.5.2',
    lint: `an operation that needs credentials documents ${status('unauthorized')} with a WWW-Authenticate header`,
    probe: `a request without credentials, or with credentials the server cannot accept, answers ${status('unauthorized')} with WWW-Authenticate`,
    severity: { lint: 'warn', probe: 'error' },
  },
  {
    id: 'forbidden',
    title: `Another caller's data answers ${status('forbidden')} (or ${status('notFound')}), never ${status('read')}`,
    convention: 'Authentication, rules 1, 3 and 4',
    lint: `an operation that needs credentials and names an item documents ${status('forbidden')}`,
    probe: `an item the first user reads, asked for with the second user's credentials, answers ${status('forbidden')} or ${status('notFound')}`,
    severity: { lint: 'warn', probe: 'error' },
  },
  {
    id: 'not-found',
    title: `An unknown target answers ${status('notFound')}`,
    convention: 'Errors, rule 1',
    lint: `an operation on a path with a parameter documents ${status('notFound')}`,
    probe: `an unknown id, or an unknown path, answers ${status('notFound')} with a problem body: never ${status('read')} (with null or an empty body) nor a 5xx`,
    severity: { lint: 'warn', probe: 'error' },
  },
  {
    id: 'method-not-allowed',
    title: `A method the path does not serve answers ${status('methodNotAllowed')} with Allow`,
    convention: 'RFC 9110 section 15.5.6 (restcanon design: 405 with Allow)',
    lint: `a documented ${status('methodNotAllowed')} declares an Allow header, and so does the success of an OPTIONS operation`,
    probe: `a method the document does not list for a path answers ${status('methodNotAllowed')} with an Allow header that lists the path's methods`,
    severity: { lint: 'warn', probe: 'warn' },
  },
  {
    id: 'unsupported-media-type',
    title: `A body of the wrong Content-Type answers ${status('unsupportedMediaType')}`,
    convention: 'Errors, rule 3; RFC 9110 section 15.5.16',
    probe: `a JSON operation sent text/plain answers ${status('unsupportedMediaType')}, never a success or a 5xx`,
    severity: { probe: 'warn' },
  },
  {
    id: 'payload-too-large',
    title: `A body over the server's limit answers ${status('payloadTooLarge')}`,
    convention: 'Limits; RFC 9110 section 15.5.14',
    probe: `a body larger than the limit (--huge-body) answers ${status('payloadTooLarge')}, never a 5xx`,
    severity: { probe: 'warn' },
  },
  {
    id: 'server-error',
    title: `A client's mistake never answers 5xx; ${status('internalError')} is documented`,
    convention: 'Errors, status codes (500)',
    lint: `every operation documents ${status('internalError')} (or 5XX)`,
    probe: 'no request of the probe, each a client mistake at worst, answers 5xx',
    severity: { lint: 'info', probe: 'error' },
  },
  {
    id: 'problem-body',
    title: 'Errors are problem bodies (RFC 9457)',
    convention: 'Errors, rule 5 (restcanon design: application/problem+json)',
    lint: 'every 4xx and 5xx response documents an application/problem+json body',
    probe: 'every 4xx and 5xx answer is application/problem+json with the status it was sent with',
    severity: { lint: 'warn', probe: 'warn' },
  },
  {
    id: 'success-not-error',
    title: 'No error under a 2xx',
    convention: 'Errors, rule 2',
    lint: 'no 2xx response is described as an error: no problem media type, no error schema, no error wording',
    probe: 'no 2xx answer carries a problem body or an error object',
    severity: { lint: 'error', probe: 'error' },
  },
  {
    id: 'no-leak',
    title: 'Error bodies disclose nothing confidential',
    convention: 'Errors, rule 4',
    probe: 'no answer of 4xx or 5xx holds a stack trace, a file path, or a secret',
    severity: { probe: 'error' },
  },
  {
    id: 'head-options',
    title: 'HEAD and OPTIONS are answered',
    convention: 'RFC 9110 sections 9.3.2 and 9.3.7',
    probe: 'HEAD answers as GET does, without a body; OPTIONS answers 2xx with Allow',
    severity: { probe: 'warn' },
  },
  {
    id: 'conditional-get',
    title: 'An ETag makes a conditional GET answer 304',
    convention: 'RFC 9110 section 13.1.2',
    probe: `a GET with If-None-Match set to the item's ETag answers ${status('notModified')} without a body`,
    severity: { probe: 'warn' },
  },
] as const satisfies readonly RuleRow[];

/**
 * The id of a rule.
 *
 * @example
 * const id: RuleId = 'naming-verb';
 */
export type RuleId = (typeof RULES)[number]['id'];

/**
 * The rule table, each row as a {@link Rule}.
 *
 * @example
 * ALL_RULES.length; // as many as RULES
 */
export const ALL_RULES: readonly Rule[] = RULES;

const BY_ID: ReadonlyMap<string, Rule> = new Map(ALL_RULES.map((rule) => [rule.id, rule]));

/**
 * The rule with this id, or undefined.
 *
 * @example
 * ruleOf('no-leak')?.convention; // 'Errors, rule 4'
 */
export function ruleOf(id: string): Rule | undefined {
  return BY_ID.get(id);
}

/**
 * The rules a command checks, in report order.
 *
 * @example
 * rulesOf('probe').map((rule) => rule.id).includes('no-leak'); // true
 */
export function rulesOf(command: Command): Rule[] {
  return ALL_RULES.filter((rule) => rule[command] !== undefined);
}

/**
 * The severities, strongest first.
 *
 * @example
 * SEVERITIES[0]; // 'error'
 */
export const SEVERITIES: readonly Severity[] = ['error', 'warn', 'info'];

/**
 * Whether `severity` is at least as strong as `threshold`.
 *
 * @example
 * atLeast('warn', 'error'); // false
 */
export function atLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(threshold);
}
