import { BODY_METHODS } from './http.js';
import { FORM_TYPE, type BodyRules } from './body.js';
import { readsBody, type Endpoint } from './endpoint.js';
import type { AnswerHook, BodyWriter, ByteHook, Compiled, FinishHook, SettleHook, Step } from './exchange.js';
import { joinPaths } from './path.js';
import { createNegotiator, type Serializer } from '../formats/formats.js';
import { isByteType, producedFormats } from './produces.js';
import { parseMediaType } from './media-type.js';
import { OUTCOMES, type Outcome, type OutcomeRow } from './outcomes.js';
import { PHASES, type Convention, type EndpointParts, type Phase } from './seam.js';
import type { Settings } from './settings.js';
import { singleValuesAsArrays } from './query-arrays.js';
import { isStandardSchema, jsonSchemaOf, type StandardSchema } from './standard-schema.js';
import {
  authenticateCaller,
  authorization,
  callHandler,
  checkBodyHeaders,
  guarded,
  keepLoaded,
  loading,
  negotiateFormat,
  readRequestBody,
  refuseBody,
  rejectInvalidInput,
  requireBody,
  validation,
} from './steps.js';

/**
 * Building an endpoint, once, when its API is built: its body rules, its steps in their one order
 * with what each convention adds at its phases, the outcomes they reach, and its serializer.
 */

/**
 * Prepares an endpoint served at a template, with the conventions of its API.
 *
 * @example
 * const compiled = compile(readUser, '/api/users/:id', settings, conventions);
 */
export function compile(endpoint: Endpoint, template: string, settings: Settings, conventions: readonly Convention[]): Compiled {
  const where = `${endpoint.method} ${template}`;
  const declared = endpoint.conventions ?? {};
  const known = new Set(conventions.map((convention) => convention.name));
  for (const name of Object.keys(declared)) {
    if (!known.has(name)) {
      throw new TypeError(`${endpoint.method} ${endpoint.path}: it uses the "${name}" convention, which this API does not have; add its module, as createApi({ use: [${name}] }) (restcanon/engine exports those createApi from restcanon has built in)`);
    }
  }
  const parts: EndpointParts[] = [];
  for (const convention of conventions) {
    if (convention.endpoint === undefined) continue;
    let added: unknown;
    try {
      added = convention.endpoint(endpoint, Object.hasOwn(declared, convention.name) ? declared[convention.name] : undefined, { template, settings, where });
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      // A convention's own checks name the endpoint already; anything else is said to be the module's.
      throw error instanceof TypeError && message.includes(where) ? error : new TypeError(`${where}: the module "${convention.name}" failed: ${message}`, { cause: error });
    }
    if (added !== undefined) parts.push(checkedParts(added, `${where}: the module "${convention.name}"`));
  }
  const bodyRules = bodyRulesOf(endpoint, settings, parts, where);
  const { steps, outcomes } = stepsOf(endpoint, template, bodyRules, settings, parts);
  const produced = endpoint.produces === undefined ? undefined : producedFormats(endpoint.produces, settings.formats);
  const itemTemplate = endpoint.itemPath === undefined ? undefined : joinPaths(template.slice(0, template.length - endpoint.path.length) || '/', endpoint.itemPath);
  return {
    endpoint,
    template,
    itemTemplate,
    bodyRules,
    steps,
    outcomes,
    item: (OUTCOMES[endpoint.operation] as OutcomeRow).item === true,
    choices: new Set([endpoint.operation, ...(endpoint.outcomes ?? [])]),
    statuses: new Set([...outcomes.map((outcome) => settings.policy.decide(outcome)), ...parts.flatMap((part) => part.statuses ?? [])]),
    undeclared: new Set(),
    produced,
    writers: produced === undefined ? undefined : writersOf(produced, parts, where),
    bytes: produced === undefined ? undefined : byteHooks(parts.flatMap((part) => (part.bytes === undefined ? [] : [part.bytes]))),
    negotiator: produced === undefined ? undefined : createNegotiator(produced),
    stringify: compileStringify(endpoint, settings),
    answer: chain(parts.flatMap((part) => (part.answer === undefined ? [] : [part.answer]))),
    project: pipe(parts.flatMap((part) => (part.project === undefined ? [] : [part.project]))),
    finish: each(parts.flatMap((part) => (part.finish === undefined ? [] : [part.finish]))),
    settle: settleAll(parts.flatMap((part) => (part.settle === undefined ? [] : [part.settle]))),
  };
}

/** What a convention gives for an endpoint, checked: steps at known phases that are functions, and hooks that are functions. */
function checkedParts(given: unknown, what: string): EndpointParts {
  if (typeof given !== 'object' || given === null) throw new TypeError(`${what} gave ${given === null ? 'null' : typeof given} for it; give { steps, answer, project, settle, finish, readers, writers, bytes, statuses } or undefined`);
  const { steps, answer, project, settle, finish, readers, writers, bytes, statuses } = given as EndpointParts;
  if (steps !== undefined && !Array.isArray(steps)) throw new TypeError(`${what} gave "steps" that are not an array`);
  for (const step of steps ?? []) {
    if (typeof step !== 'object' || step === null || typeof step.run !== 'function') throw new TypeError(`${what} gave a step without a "run" function`);
    if (!PHASES.includes(step.phase)) throw new TypeError(`${what} adds a step at "${String(step.phase)}", which is no phase; use one of ${PHASES.join(', ')}`);
    if (step.outcomes !== undefined && (!Array.isArray(step.outcomes) || (step.outcomes as unknown[]).some((outcome) => typeof outcome !== 'string' || !Object.hasOwn(OUTCOMES, outcome)))) {
      throw new TypeError(`${what} gives a step "outcomes" that are not outcomes of the outcome table, such as ['forbidden']`);
    }
  }
  if (readers !== undefined && (typeof readers !== 'object' || readers === null || Object.entries(readers).some(([type, reader]) => typeof reader !== 'function' || type !== type.toLowerCase() || !type.includes('/')))) {
    throw new TypeError(`${what} gave "readers" that are not steps by lower-case media type, such as { 'multipart/form-data': readParts }`);
  }
  if (writers !== undefined && (typeof writers !== 'object' || writers === null || Object.entries(writers).some(([type, writer]) => typeof writer !== 'function' || type !== type.toLowerCase() || !type.includes('/')))) {
    throw new TypeError(`${what} gave "writers" that are not functions by lower-case media type, such as { 'text/event-stream': writeEvents }`);
  }
  if (statuses !== undefined && (!Array.isArray(statuses) || statuses.some((status) => !Number.isInteger(status) || status < 200 || status > 599))) {
    throw new TypeError(`${what} gave "statuses" that are not an array of HTTP statuses, such as [416]`);
  }
  for (const [name, hook] of [['answer', answer], ['project', project], ['settle', settle], ['finish', finish], ['bytes', bytes]] as const) {
    if (hook !== undefined && typeof hook !== 'function') throw new TypeError(`${what} gave ${name === 'answer' ? 'an' : 'a'} "${name}" that is not a function`);
  }
  return given as EndpointParts;
}

/** The limits and media types of the body an endpoint reads; undefined when it reads none. */
function bodyRulesOf(endpoint: Endpoint, settings: Settings, parts: readonly EndpointParts[], where: string): BodyRules | undefined {
  if (!BODY_METHODS.has(endpoint.method) || !readsBody(endpoint)) return undefined;
  const consumes = new Set(endpoint.consumes.map((type) => type.toLowerCase()));
  const ranges = [...consumes].filter((type) => type.endsWith('/*')).map((type) => (type === '*/*' ? '' : type.slice(0, -1)));
  const headerName = endpoint.method === 'POST' ? 'accept-post' : endpoint.method === 'PATCH' ? 'accept-patch' : undefined;
  const reading = endpoint.body === 'bytes' || endpoint.body === 'stream' ? endpoint.body : 'parse';
  const admits = (type: string): boolean => consumes.has(type) || ranges.some((prefix) => type.startsWith(prefix));
  const readers = new Map<string, Step>();
  for (const part of parts) for (const [type, reader] of Object.entries(part.readers ?? {})) if (admits(type)) readers.set(type, reader);
  if (reading === 'parse') {
    for (const [type, module] of Object.entries(MODULE_TYPES)) {
      if (!readers.has(type) && (type === FORM_TYPE ? admits(type) : consumes.has(type))) {
        throw new TypeError(`${where}: it consumes ${type}, which the API reads only with a module; add ${module.name} from ${module.from} to createApi({ use: [...] }), or take the bytes as they come with body: 'stream'`);
      }
    }
  }
  return {
    limit: endpoint.bodyLimit ?? settings.bodyLimit,
    maxDepth: settings.maxDepth,
    consumes,
    ranges,
    acceptHeader: headerName === undefined ? undefined : { name: headerName, value: [...consumes].join(', ') },
    reading,
    readers: readers.size === 0 ? undefined : readers,
  };
}

/**
 * The media types the engine does not read itself, with the module that reads each. A form within a
 * range (`*\/*`, `application/*`) needs its module too: without it the form would reach the handler
 * as its text where an API with it gives a record, and a handler written for one would misread the other.
 */
const MODULE_TYPES: Readonly<Record<string, { name: string; from: string }>> = {
  'multipart/form-data': { name: 'multipart()', from: 'restcanon/multipart' },
  [FORM_TYPE]: { name: 'forms', from: 'restcanon/engine' },
};

/** The steps of one endpoint, and every outcome they can reach. */
interface ChosenSteps {
  steps: Step[];
  /** Each success and error the endpoint can answer, in the order of the outcome table. */
  outcomes: Outcome[];
}

/**
 * The steps of one endpoint, in order, chosen once from what it declares, what the API sets and
 * what its conventions add at their phases, each with the outcomes it can end the request with. The
 * caller is known before anything of the request is parsed beyond its path: an anonymous caller of a
 * protected endpoint costs no work on `Accept`, `Content-Type` or the body.
 */
function stepsOf(endpoint: Endpoint, template: string, bodyRules: BodyRules | undefined, settings: Settings, parts: readonly EndpointParts[]): ChosenSteps {
  const steps: Step[] = [];
  const reached = new Set<Outcome>();
  const take = (step: Step, ...outcomes: (Outcome | false)[]): void => {
    steps.push(step);
    for (const outcome of outcomes) if (outcome !== false) reached.add(outcome);
  };
  const phase = (name: Phase): void => {
    for (const part of parts) {
      for (const added of part.steps ?? []) if (added.phase === name) take(added.run, ...(added.outcomes ?? []));
    }
  };
  const bodySchema = isStandardSchema(endpoint.body) ? endpoint.body : undefined;
  // Routing decodes path params before any step: a malformed percent-escape is a 400.
  if (template.includes(':')) reached.add('badRequest');
  phase('request');
  if (settings.authenticate !== undefined) take(authenticateCaller, 'badRequest', !endpoint.public && 'unauthorized');
  phase('caller');
  take(negotiateFormat, settings.policy.unacceptable === 'reject' && 'notAcceptable');
  if (bodyRules !== undefined) {
    take(checkBodyHeaders, 'unsupportedMediaType', 'payloadTooLarge');
    take(readRequestBody, 'badRequest', 'payloadTooLarge');
  } else if (BODY_METHODS.has(endpoint.method) && endpoint.body !== 'ignored') take(refuseBody, 'badRequest');
  const validating = steps.length;
  if (endpoint.params !== undefined) take(validation('params', endpoint.params, 'path'));
  // A convention's own parameters (a list's page, sort and filter) are taken out before a query schema sees the rest.
  phase('input');
  if (endpoint.query !== undefined) {
    const arrays = singleValuesAsArrays(endpoint.query);
    if (arrays !== undefined) take(arrays);
    take(validation('query', endpoint.query, 'query'));
  }
  if (endpoint.headers !== undefined) take(validation('headers', endpoint.headers, 'header'));
  if (bodySchema !== undefined) {
    take(requireBody, 'badRequest');
    take(validation('body', bodySchema, 'body'));
  }
  if (steps.length > validating) take(rejectInvalidInput, 'badRequest');
  // The API's rule covers protected requests: a public endpoint answers every caller alike, signed in or not.
  if (settings.authorize !== undefined && !endpoint.public) take(authorization(settings.authorize), 'forbidden');
  for (const rule of endpoint.authorize) take(authorization(rule), 'forbidden');
  // Guards load parents and check them: a missing one is a 404, someone else's a 403.
  for (const guard of endpoint.guards) take(guarded(guard), 'forbidden', 'notFound');
  phase('access');
  const current = endpoint.current;
  if (current !== undefined) {
    // A missing item is a 404 before anything a convention checks of it.
    take(loading(current), 'notFound');
    phase('item');
  }
  phase('handler');
  // An item named by its URL may be missing: a result of nothing is a 404.
  const row: OutcomeRow = OUTCOMES[endpoint.operation];
  take(current?.isHandler === true ? keepLoaded : callHandler, endpoint.operation, row.mayBeEmpty === true && 'empty', row.item === true && template.includes(':') && 'notFound', 'internalError');
  // What the handler declares: the successes it may choose, the errors it throws.
  for (const outcome of endpoint.outcomes ?? []) reached.add(outcome);
  for (const outcome of Object.keys(endpoint.errors ?? {}) as Outcome[]) reached.add(outcome);
  phase('result');
  if (settings.timeout !== undefined) reached.add('timeout');
  return { steps, outcomes: (Object.keys(OUTCOMES) as Outcome[]).filter((outcome) => reached.has(outcome)) };
}

/** The media types of `produces` the engine does not write itself, with the module that writes each. */
const MODULE_WRITERS: Readonly<Record<string, { name: string; from: string }>> = { 'text/event-stream': { name: 'events', from: 'restcanon/engine' } };

/**
 * The writers of an endpoint's byte types, by the format that stands for each; undefined when no
 * convention writes one. A type only a module writes, without that module, throws.
 */
function writersOf(produced: readonly Serializer[], parts: readonly EndpointParts[], where: string): Map<Serializer, BodyWriter> | undefined {
  const writers = new Map<Serializer, BodyWriter>();
  for (const format of produced) {
    if (!isByteType(format)) continue;
    const essence = parseMediaType(format.type)!.essence;
    const writer = parts.find((part) => part.writers?.[essence] !== undefined)?.writers![essence];
    if (writer !== undefined) writers.set(format, writer);
    const module = MODULE_WRITERS[essence];
    if (writer === undefined && module !== undefined) {
      throw new TypeError(`${where}: it produces ${essence}, which the API writes only with a module; add ${module.name} from ${module.from} to createApi({ use: [...] }) (createApi from restcanon has it)`);
    }
  }
  return writers.size === 0 ? undefined : writers;
}

/** The byte hooks of an endpoint as one, each given the answer the one before it gave; undefined when there are none. */
function byteHooks(hooks: readonly ByteHook[]): ByteHook | undefined {
  if (hooks.length <= 1) return hooks[0];
  return (exchange, response, result, bytes) => hooks.reduce((answer, hook) => hook(exchange, answer, result, bytes), response);
}

/** The answer hooks of an endpoint as one, in the order of its conventions; undefined when there are none. */
function chain(hooks: readonly AnswerHook[]): AnswerHook | undefined {
  if (hooks.length <= 1) return hooks[0];
  return (exchange, headers, body, status) => {
    let shaped = body;
    for (const hook of hooks) shaped = hook(exchange, headers, shaped, status);
    return shaped;
  };
}

/** The finish hooks of an endpoint as one, in the order of its conventions. */
function each(hooks: readonly FinishHook[]): FinishHook | undefined {
  if (hooks.length <= 1) return hooks[0];
  return (exchange, response) => {
    for (const hook of hooks) hook(exchange, response);
  };
}

/**
 * The settle hooks of an endpoint as one: each sees the answer, whatever another throws, and the
 * answer waits for all of them; what they throw or reject with is rejected with, together.
 */
function settleAll(hooks: readonly SettleHook[]): SettleHook | undefined {
  if (hooks.length <= 1) return hooks[0];
  return (exchange, response) => {
    const failures: unknown[] = [];
    const pending: Promise<unknown>[] = [];
    for (const hook of hooks) {
      try {
        const waiting = hook(exchange, response);
        if (waiting !== undefined && waiting !== null) pending.push(Promise.resolve(waiting).then(undefined, (error: unknown) => failures.push(error)));
      } catch (error) {
        failures.push(error);
      }
    }
    if (pending.length === 0 && failures.length === 0) return undefined;
    return Promise.all(pending).then(() => {
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) throw new AggregateError(failures, `${failures.length} settle hooks failed`);
    });
  };
}

function pipe(projections: readonly ((value: unknown) => unknown)[]): ((value: unknown) => unknown) | undefined {
  if (projections.length <= 1) return projections[0];
  return (value) => projections.reduce((shaped, project) => project(shaped), value);
}

/**
 * The endpoint's JSON serializer from its response schema, when the API has a `serializerCompiler`
 * and the schema a JSON Schema. A list's items are written one by one and joined: the compiler gets
 * the item's own schema, where a reference to the root (a recursive item) still means the item.
 */
function compileStringify(endpoint: Endpoint, settings: Settings): Compiled['stringify'] {
  const { response } = endpoint;
  const compiler = settings.serializerCompiler;
  if (response === undefined || compiler === undefined) return undefined;
  const schema = jsonSchemaOf(response.schema, 'draft-07');
  if (schema === undefined) return undefined;
  let item: (value: unknown) => string;
  try {
    item = compiler(schema);
  } catch (error) {
    throw new TypeError(`createApi: serializerCompiler failed for ${endpoint.method} ${endpoint.path}: ${String((error as Error)?.message ?? error)}`, { cause: error });
  }
  // A list's result was checked to be an array by its projection, which always runs first.
  if (!response.array) return item;
  const list = (items: unknown[]): string => `[${items.map((entry) => item(entry)).join(',')}]`;
  if (response.page !== true) return (items) => list(items as unknown[]);
  return (value) => {
    const page = value as { items: unknown[]; next: unknown; prev: unknown };
    return `{"items":${list(page.items)},"next":${JSON.stringify(page.next)},"prev":${JSON.stringify(page.prev)}}`;
  };
}
