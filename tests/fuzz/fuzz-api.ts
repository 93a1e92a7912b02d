/**
 * The API the fuzz properties send requests to: the conformance fixture (users, nested orders, bearer
 * tokens, a handler that fails with a secret), with every handler instrumented, plus endpoints and
 * tokens that plant secrets in faults of validators, `authenticate` and handlers.
 *
 * The instrumentation records each handler call and checks the input the handler got against the
 * schemas, independently of the pipeline: a handler that sees unvalidated input, or a caller without
 * the right, is a violation the properties report.
 */
import { z } from 'zod';
import { endpoint, HttpError, InternalServerError, type Api, type ApiRequest, type StandardSchema } from '../../src/index.js';
import { authenticate as fixtureAuthenticate, fixtureApi, SECRET, type Caller, type HandlerCall, type Store } from '../fixture/api.js';

export type { HandlerCall } from '../fixture/api.js';

/** Secrets planted in every fault the fuzz API can raise; none may reach a response. */
export const SECRETS = {
  handler: SECRET,
  thrownValue: 'fuzz-secret-thrown-value-51c2',
  validator: 'fuzz-secret-validator-93ad',
  authenticate: 'fuzz-secret-authenticate-e07b',
} as const;
export const ALL_SECRETS: readonly string[] = Object.values(SECRETS);

/** The fixture's schemas, restated here so that the checks do not trust the pipeline's copy. */
export const Id = z.coerce.number().int().positive();
export const NewUser = z.object({ name: z.string().min(1), email: z.email() });
export const UserPatch = NewUser.partial();
export const NewOrder = z.object({ item: z.string().min(1), quantity: z.number().int().positive() });

/** The body schema of each endpoint that takes one, by `METHOD template`. */
export const BODY_SCHEMAS: Readonly<Record<string, z.ZodType | 'audit'>> = {
  'POST /users': NewUser,
  'PUT /users/:id': NewUser,
  'PATCH /users/:id': UserPatch,
  'POST /users/:userId/orders': NewOrder,
  'POST /audits': 'audit',
};

/** Path params that must be positive integers by the time a handler sees them. */
export const NUMERIC_PARAMS: ReadonlySet<string> = new Set(['id', 'userId']);

/** Endpoints anyone may call. */
export const PUBLIC_ENDPOINTS: ReadonlySet<string> = new Set(['GET /health', 'GET /incidents/:kind']);

/**
 * How `GET /incidents/:kind` fails: every way a handler can go wrong besides throwing an `Error`.
 * Each answers a masked 500 (the HttpError 503, a masked 503).
 */
export const INCIDENTS: Readonly<Record<string, () => unknown>> = {
  string: () => {
    throw `${SECRETS.thrownValue} as a string`;
  },
  null: () => {
    throw null;
  },
  undefined: () => {
    throw undefined;
  },
  object: () => {
    throw { message: SECRETS.thrownValue, toString: () => SECRETS.thrownValue };
  },
  'http-500': () => {
    throw new InternalServerError(SECRETS.thrownValue);
  },
  'http-503': () => {
    throw new HttpError(503, { detail: SECRETS.thrownValue });
  },
  returned: () => new Error(SECRETS.thrownValue),
  rejected: () => Promise.reject(new Error(SECRETS.thrownValue)),
  'rejected-late': () => new Promise((_resolve, reject) => setTimeout(() => reject(new TypeError(SECRETS.thrownValue)), 2)),
  bigint: () => ({ total: 10n, note: SECRETS.thrownValue }),
  cycle: () => {
    const loop: Record<string, unknown> = { note: SECRETS.thrownValue };
    loop.self = loop;
    return loop;
  },
  'to-json-throws': () => ({
    toJSON: () => {
      throw new Error(SECRETS.thrownValue);
    },
  }),
  'symbol-thrown': () => {
    throw Symbol(SECRETS.thrownValue);
  },
};

/**
 * A Standard Schema whose `validate` fails with the secret: it throws for an object with an
 * `explode` key, rejects for one with `later`, and otherwise reports issues whose messages hold the
 * secret (the core must never send a library's message).
 */
function secretSchema(part: string): StandardSchema<unknown, Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'fuzz',
      validate(value: unknown) {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return { issues: [{ message: `${part}: ${SECRETS.validator} got ${String(value)}` }] };
        if (Object.hasOwn(value, 'explode')) throw new Error(`${part} validator crashed: ${SECRETS.validator}`);
        if (Object.hasOwn(value, 'later')) return Promise.reject(new Error(`${part} validator rejected: ${SECRETS.validator}`));
        // An issue's path is sent (as a JSON Pointer into the client's own input); its message never is.
        if (Object.hasOwn(value, 'invalid')) return { issues: [{ message: SECRETS.validator, path: ['invalid'] }] };
        return { value: value as Record<string, unknown> };
      },
    },
  };
}

/**
 * The fixture's `authenticate`, plus tokens whose checks fail with the secret: `explode` throws an
 * Error, `reject` rejects with a string, `throw-401` throws an UnauthorizedError-like HttpError.
 */
export function fuzzAuthenticate(request: ApiRequest): Caller | undefined | Promise<Caller | undefined> {
  const header = request.headers?.authorization;
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (value === 'Bearer explode') throw new Error(`token store down: ${SECRETS.authenticate}`);
  if (value === 'Bearer reject') return Promise.reject(`token store rejected: ${SECRETS.authenticate}`);
  if (value === 'Bearer teapot') throw new HttpError(500, { detail: SECRETS.authenticate });
  return fixtureAuthenticate(request);
}

/** A fuzz API with its store, the handler calls and violations it saw, and the errors onError saw. */
export interface FuzzFixture {
  api: Api;
  store: Store;
  calls: HandlerCall[];
  violations: string[];
  errors: unknown[];
  /** Resets the store and forgets calls, violations and errors: each request starts from the same state. */
  reset(): void;
}

/**
 * Builds the fuzz API over a fresh store, optionally below a `basePath`.
 *
 * @example
 * const { api, calls } = createFuzzFixture({ basePath: '/v1' });
 */
export function createFuzzFixture(options: { basePath?: string } = {}): FuzzFixture {
  const calls: HandlerCall[] = [];
  const violations: string[] = [];
  const audits = [
    endpoint('POST', '/audits', { body: secretSchema('body'), handle: (ctx) => ({ received: Object.keys(ctx.body).length }) }),
    endpoint('GET', '/audits', { query: secretSchema('query'), handle: () => [] }),
  ];
  const incidents = endpoint('GET', '/incidents/:kind', {
    public: true,
    handle: (ctx) => (INCIDENTS[ctx.params.kind] ?? (() => ({ kind: 'none' })))(),
  });
  // The fixture's orders serialize through their compiled item schema, as in the conformance suite: fuzzed requests reach those serializers too.
  const { api, store, errors } = fixtureApi({
    ...options,
    endpoints: [...audits, incidents],
    authenticate: fuzzAuthenticate,
    onCall: (call) => {
      calls.push(call);
      for (const problem of checkCall(call)) violations.push(`${call.endpoint}: ${problem}`);
    },
  });
  return {
    api,
    store,
    calls,
    violations,
    errors,
    reset() {
      store.reset();
      calls.length = 0;
      violations.length = 0;
      errors.length = 0;
    },
  };
}

/** What is wrong with the input a handler got: unparsed params, an invalid body, a caller without the right. */
function checkCall(call: HandlerCall): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(call.params)) {
    if (NUMERIC_PARAMS.has(name) && !(typeof value === 'number' && Number.isSafeInteger(value) && value > 0)) problems.push(`param ${name} is ${JSON.stringify(value)}, not a positive integer`);
  }
  const schema = BODY_SCHEMAS[call.endpoint];
  if (schema === 'audit') {
    if (typeof call.body !== 'object' || call.body === null || Array.isArray(call.body) || Object.hasOwn(call.body, 'explode')) problems.push('the audit body passed a schema that fails on it');
  } else if (schema !== undefined) {
    const parsed = schema.safeParse(call.body);
    if (!parsed.success) problems.push(`the body does not match its schema: ${JSON.stringify(call.body)}`);
    // zod strips unknown keys: the handler must get the schema's output, not the raw input.
    else if (JSON.stringify(parsed.data) !== JSON.stringify(call.body)) problems.push(`the body is not the schema's output: ${JSON.stringify(call.body)}`);
  }
  if (!PUBLIC_ENDPOINTS.has(call.endpoint)) {
    const caller = call.principal as Caller | undefined;
    if (caller === undefined || !['alice', 'bob', 'admin'].includes(caller.name)) problems.push(`a protected handler ran for ${JSON.stringify(caller)}`);
    else if (call.endpoint.includes('/orders') && !caller.admin && caller.userId !== call.params.userId) problems.push(`${caller.name} reached the orders of user ${String(call.params.userId)}`);
  }
  if (typeof call.query !== 'object' || call.query === null || !inheritsNothing(call.query)) problems.push('the query is not a record that inherits nothing');
  return problems;
}

/** No prototype, or an empty one that has none: nothing for a key such as `toString` to fall back on. */
function inheritsNothing(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as object | null;
  return prototype === null || (Reflect.ownKeys(prototype).length === 0 && Object.getPrototypeOf(prototype) === null);
}
