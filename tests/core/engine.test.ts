/**
 * `restcanon/engine`: createApi and createEndpointHandler with no convention but those in `use`. An
 * API refuses, when it is built, an endpoint that asks for a convention it lacks; with the
 * convention it answers as the package's createApi does; a convention of one's own adds steps at the
 * engine's phases, an answer hook and a wrapper of the API's answer.
 */
import fastJson from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi as createFullApi, endpoint, HttpError, type ApiRequest, type ApiResponse, type Endpoint } from '../../src/index.js';
import {
  CONVENTIONS,
  PHASES,
  conditional,
  cors,
  createApi,
  createEndpointHandler,
  defineEndpoint,
  events,
  forms,
  lists,
  mergePatch,
  ownership,
  projection,
  ranges,
  type Convention,
  type Exchange,
  type Phase,
  type Responder,
} from '../../src/engine.js';
import { Store, authenticate, bearer, createResources } from '../fixture/api.js';
import { expectProblem } from '../helpers/problem.js';

const Id = z.coerce.number().int().positive();
const NewBook = z.object({ title: z.string().min(1) });

interface Book {
  id: number;
  title: string;
}

/** A books collection without response schemas over a store of its own: it needs no convention. */
function plainBooks() {
  const store = new Map<number, Book>([[1, { id: 1, title: 'Dune' }]]);
  let next = 2;
  const books = collection('books', {
    id: Id,
    body: NewBook,
    patch: NewBook.partial(),
    list: () => [...store.values()],
    read: (ctx) => store.get(ctx.params.id),
    create: (ctx) => {
      const book = { id: next++, ...ctx.body };
      store.set(book.id, book);
      return book;
    },
    update: (ctx) => {
      const book = store.get(ctx.params.id);
      if (book === undefined) return undefined;
      const changed = { ...book, title: ctx.body.title ?? book.title };
      store.set(book.id, changed);
      return changed;
    },
    remove: (ctx) => {
      const book = store.get(ctx.params.id);
      store.delete(ctx.params.id);
      return book;
    },
  });
  return { books, store };
}

const json = { 'content-type': 'application/json' };

describe('restcanon/engine createApi without conventions', () => {
  it('serves a collection without response schemas: create, list, read, update, remove', async () => {
    const { books } = plainBooks();
    const api = createApi({ resources: [books] });
    const created = await api.handle({ method: 'POST', url: '/books', headers: json, body: '{"title":"Emma"}' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/books/2');
    expect(created.body).toEqual({ id: 2, title: 'Emma' });
    expect((await api.handle({ method: 'GET', url: '/books' })).body).toEqual([
      { id: 1, title: 'Dune' },
      { id: 2, title: 'Emma' },
    ]);
    expect((await api.handle({ method: 'GET', url: '/books/2' })).body).toEqual({ id: 2, title: 'Emma' });
    const updated = await api.handle({ method: 'PATCH', url: '/books/2', headers: json, body: '{"title":"Persuasion"}' });
    expect([updated.status, updated.body]).toEqual([200, { id: 2, title: 'Persuasion' }]);
    const removed = await api.handle({ method: 'DELETE', url: '/books/2' });
    expect([removed.status, removed.body]).toEqual([200, { id: 2, title: 'Persuasion' }]);
    expectProblem(await api.handle({ method: 'GET', url: '/books/2' }), { status: 404, code: 'RC_NOT_FOUND' });
    expectProblem(await api.handle({ method: 'POST', url: '/books', headers: json, body: '{"title":""}' }), { status: 400, code: 'RC_INVALID_INPUT' });
  });

  it('an API without a module answers with no convention’s headers', async () => {
    const { books } = plainBooks();
    const api = createApi({ resources: [books], use: [] });
    const response = await api.handle({ method: 'GET', url: '/books/1', headers: { origin: 'https://app.example' } });
    expect(response.status).toBe(200);
    expect(Object.keys(response.headers)).toEqual(['content-type']);
  });
});

/** What each definition asks of a convention, and that convention. */
const NEEDS: ReadonlyArray<readonly [string, () => { resources?: unknown[]; endpoints?: Endpoint[] }, Convention]> = [
  ['a collection’s page', () => ({ resources: [collection('books', { id: Id, page: { by: 'offset' }, list: () => [] })] }), lists],
  ['a collection’s sort', () => ({ resources: [collection('books', { id: Id, sort: ['title'], list: () => [] })] }), lists],
  ['a collection’s filter', () => ({ resources: [collection('books', { id: Id, filter: { title: z.string() }, list: () => [] })] }), lists],
  ['a collection’s etag', () => ({ resources: [collection('books', { id: Id, etag: () => '"1"', read: () => ({ id: 1 }) })] }), conditional],
  ['a collection’s lastModified', () => ({ resources: [collection('books', { id: Id, lastModified: () => new Date(0), read: () => ({ id: 1 }) })] }), conditional],
  [
    'an endpoint’s conditional',
    () => ({ endpoints: [endpoint('GET', '/books/:id', { conditional: { load: () => ({ id: 1 }), etag: () => '"1"' }, handle: (ctx) => ctx.item })] }),
    conditional,
  ],
  ['a collection’s owner', () => ({ resources: [collection('books', { id: Id, owner: () => true, read: () => ({ id: 1 }) })] }), ownership],
  ['an update’s merge', () => ({ resources: [collection('books', { id: Id, body: NewBook, read: () => ({ id: 1, title: 'Dune' }), update: { merge: true, handle: (ctx) => ctx.body } })] }), mergePatch],
  ['an endpoint’s response schema', () => ({ endpoints: [endpoint('GET', '/books', { response: z.object({ id: z.number() }), handle: () => ({ id: 1 }) })] }), projection],
  ['a collection’s item schema', () => ({ resources: [collection('books', { id: Id, item: z.object({ id: z.number() }), read: () => ({ id: 1 }) })] }), projection],
];

describe('an endpoint that asks for a convention the API lacks', () => {
  it.each(NEEDS)('%s is refused when the API is built, naming the convention and use', (_name, definitions, needed) => {
    const build = () => createApi(definitions() as never);
    expect(build).toThrow(TypeError);
    expect(build).toThrow(`it uses the "${needed.name}" convention, which this API does not have; add its module, as createApi({ use: [${needed.name}] }) (restcanon/engine exports those createApi from restcanon has built in)`);
    expect(() => createApi({ ...definitions(), use: [needed] } as never)).not.toThrow();
  });

  it('refuses it from createEndpointHandler too', () => {
    const readBook = endpoint('GET', '/books/:id', { conditional: { load: () => ({ id: 1 }), etag: () => '"1"' }, handle: (ctx) => ctx.item });
    expect(() => createEndpointHandler(readBook)).toThrow('it uses the "conditional" convention, which this API does not have');
  });

  it('the cors option without the cors convention names the convention and use; with it, the option is taken', () => {
    expect(() => createApi({ cors: { origins: ['https://app.example'] } } as never)).toThrow('"cors" is an option of the "cors" convention, which this API does not have; add it, as createApi({ use: [cors] })');
    expect(() => createApi({ cors: { origins: ['https://app.example'] }, use: [cors] } as never)).not.toThrow();
  });

  it('CONVENTIONS holds each convention of the package, in their order within a phase', () => {
    expect(CONVENTIONS.map((convention) => convention.name)).toEqual(['cors', 'lists', 'ownership', 'conditional', 'mergePatch', 'projection', 'ranges', 'events', 'forms']);
    expect(CONVENTIONS).toEqual([cors, lists, ownership, conditional, mergePatch, projection, ranges, events, forms]);
  });
});

describe('with the conventions in use, it answers as the package’s createApi', () => {
  /** The fixture's users, orders and notes over a fresh store, with every convention they need. */
  function both() {
    const options = (store: Store) => {
      const { users, notes } = createResources(store);
      return { resources: [users, notes], authenticate, serializerCompiler: fastJson, onError: () => {} };
    };
    const full = createFullApi(options(new Store()));
    const lean = createApi({ ...options(new Store()), use: [lists, ownership, conditional, mergePatch, projection] });
    return { full, lean };
  }

  /** The answer of both APIs to one request: asserted equal, returned for the checks particular to it. */
  async function same(apis: ReturnType<typeof both>, request: ApiRequest): Promise<ApiResponse> {
    // One request id for both (as a host gives one): their problems are then alike to the byte.
    const [full, lean] = [await apis.full.handle({ ...structuredClone(request), id: 'req-1' }), await apis.lean.handle({ ...structuredClone(request), id: 'req-1' })];
    expect(lean.status).toBe(full.status);
    expect(lean.headers).toEqual(full.headers);
    expect(lean.body).toEqual(full.body);
    expect(lean.payload).toEqual(full.payload);
    return lean;
  }

  it('a page of a list, with its Link', async () => {
    const apis = both();
    const page = await same(apis, { method: 'GET', url: '/notes?limit=1&sort=title', headers: bearer('alice') });
    expect(page.status).toBe(200);
    expect(page.headers.link).toContain('rel="next"');
    expect((page.body as { items: unknown[] }).items).toHaveLength(1);
  });

  it('a 304 to If-None-Match, and the ETag it carries', async () => {
    const apis = both();
    const read = await same(apis, { method: 'GET', url: '/notes/1', headers: bearer('alice') });
    const etag = read.headers.etag!;
    expect(etag).toBeDefined();
    const notModified = await same(apis, { method: 'GET', url: '/notes/1', headers: { ...bearer('alice'), 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(etag);
  });

  it('a 403 to someone else’s item', async () => {
    const apis = both();
    expectProblem(await same(apis, { method: 'GET', url: '/notes/2', headers: bearer('alice') }), { status: 403, code: 'RC_FORBIDDEN' });
  });

  it('a merge patch', async () => {
    const apis = both();
    const etag = (await same(apis, { method: 'GET', url: '/notes/1', headers: bearer('alice') })).headers.etag!;
    const patched = await same(apis, {
      method: 'PATCH',
      url: '/notes/1',
      headers: { ...bearer('alice'), 'content-type': 'application/merge-patch+json', 'if-match': etag },
      body: '{"title":"shopping","status":null}',
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: 1, title: 'shopping', status: 'draft', text: 'milk, eggs' });
  });

  it('a field the item schema hides is not sent', async () => {
    const apis = both();
    const note = await same(apis, { method: 'GET', url: '/notes/1', headers: bearer('alice') });
    expect(note.body).not.toHaveProperty('reviewerNote');
    expect(String(note.payload)).not.toContain('reviewerNote');
    const orders = await same(apis, { method: 'GET', url: '/users/1/orders', headers: bearer('alice') });
    expect(String(orders.payload)).not.toContain('warehouseNote');
  });

  it('use in any order runs the conventions’ steps in the order of CONVENTIONS: someone else’s item is a 403, never a 304 or a 400', async () => {
    const lean = createApi({ ...optionsOfNotes(), use: [lists, conditional, mergePatch, ownership, projection] });
    const etag = (await lean.handle({ method: 'GET', url: '/notes/2', headers: bearer('bob') })).headers.etag!;
    expectProblem(await lean.handle({ method: 'GET', url: '/notes/2', headers: { ...bearer('alice'), 'if-none-match': etag } }), { status: 403 });
    const patch = await lean.handle({
      method: 'PATCH',
      url: '/notes/2',
      headers: { ...bearer('alice'), 'content-type': 'application/merge-patch+json', 'if-match': etag },
      body: '{"title":5}',
    });
    expectProblem(patch, { status: 403 });
  });
});

function optionsOfNotes() {
  const { notes } = createResources(new Store());
  return { resources: [notes], authenticate, onError: () => {} };
}

/** A convention that records each phase it runs at, and each of the engine's steps the endpoint gives it to see. */
function tracing(events: string[], phases: readonly Phase[] = PHASES): Convention {
  return {
    name: 'trace',
    endpoint: () => ({
      steps: phases.map((phase) => ({
        phase,
        run: () => {
          events.push(phase);
          return undefined;
        },
      })),
      answer: (_exchange, headers, body) => {
        events.push('answer');
        headers['x-traced'] = 'yes';
        return body;
      },
    }),
  };
}

describe('a convention of your own', () => {
  /** An endpoint whose engine steps record themselves; `loads` gives it an item the URL names, loaded before the handler. */
  function tracedApi(events: string[], loads: boolean, use: Convention[] = [tracing(events)]) {
    const readBook = endpoint('GET', '/books/:id', {
      params: z.object({ id: z.string().transform((id) => (events.push('params'), Number(id))) }),
      query: z.record(z.string(), z.string()).superRefine(() => void events.push('query')),
      authorize: () => (events.push('authorize'), true),
      handle: async (ctx) => {
        events.push('handle');
        return { id: ctx.params.id };
      },
    });
    const loaded = defineEndpoint({ ...readBook, current: { load: (ctx) => (events.push('load'), { id: ctx.params.id }), isHandler: false, answersItem: false } });
    return createApi({
      authenticate: () => (events.push('authenticate'), { id: 1 }),
      endpoints: [loads ? loaded : readBook],
      use,
    });
  }

  it('runs a step at each phase among the engine’s own, in their order', async () => {
    const events: string[] = [];
    const response = await tracedApi(events, true).handle({ method: 'GET', url: '/books/7' });
    expect(response.status).toBe(200);
    expect(response.headers['x-traced']).toBe('yes');
    expect(events).toEqual(['request', 'authenticate', 'caller', 'params', 'input', 'query', 'authorize', 'access', 'load', 'item', 'handler', 'handle', 'result', 'answer']);
  });

  it('runs no item step on an endpoint that loads no item', async () => {
    const events: string[] = [];
    await tracedApi(events, false).handle({ method: 'GET', url: '/books/7' });
    expect(events).toEqual(['request', 'authenticate', 'caller', 'params', 'input', 'query', 'authorize', 'access', 'handler', 'handle', 'result', 'answer']);
  });

  it('a caller step runs once the caller is known and before the body is read: its 429 comes before a malformed body’s 400', async () => {
    const seen: unknown[] = [];
    const slowDown: Convention = {
      name: 'slowDown',
      endpoint: () => ({
        steps: [
          {
            phase: 'caller',
            outcomes: ['tooManyRequests'],
            run: (exchange: Exchange) => {
              seen.push(exchange.ctx.principal);
              throw new HttpError(429);
            },
          },
        ],
      }),
    };
    const api = createApi({
      authenticate: () => ({ id: 1 }),
      endpoints: [endpoint('POST', '/books', { body: z.object({ title: z.string() }), handle: () => ({ id: 1 }) })],
      use: [slowDown],
    });
    const answer = await api.handle({ method: 'POST', url: '/books', headers: { 'content-type': 'application/json' }, body: '{"title":' });
    expect(answer.status).toBe(429);
    expect(seen).toEqual([{ id: 1 }]);
    expect(api.routes[0]!.outcomes).toContain('tooManyRequests');
  });

  it('a finish hook sees every answer of its endpoint, a success, a handler’s 404 and a timeout’s 503; one that throws is reported and the answer goes out', async () => {
    const errors: unknown[] = [];
    const statuses: number[] = [];
    const stamp: Convention = {
      name: 'stamp',
      endpoint: (definition) => ({
        finish: (_exchange, response) => {
          statuses.push(response.status);
          response.headers['x-stamp'] = 'yes';
          if (definition.path === '/broken') throw new Error('the stamp broke');
        },
      }),
    };
    const api = createApi({
      timeout: 20,
      onError: (error) => errors.push(error),
      use: [stamp],
      endpoints: [
        endpoint('GET', '/books/:id', { handle: (ctx) => (ctx.params.id === '1' ? { id: 1 } : undefined) }),
        endpoint('GET', '/slow', { handle: () => new Promise(() => {}) }),
        endpoint('GET', '/broken', { handle: () => ({ ok: true }) }),
      ],
    });
    expect((await api.handle({ method: 'GET', url: '/books/1' })).headers['x-stamp']).toBe('yes');
    expect((await api.handle({ method: 'GET', url: '/books/2' })).headers['x-stamp']).toBe('yes');
    expect((await api.handle({ method: 'GET', url: '/slow' })).headers['x-stamp']).toBe('yes');
    const broken = await api.handle({ method: 'GET', url: '/broken' });
    expect(broken.status).toBe(200);
    expect(statuses).toEqual([200, 404, 503, 200]);
    expect(String(errors.at(-1))).toContain('the stamp broke');
  });

  it('an input step runs before the query schema: it takes its own parameter out, and its issues join the same 400', async () => {
    const readBooks = endpoint('GET', '/books', {
      query: z.strictObject({ limit: z.coerce.number().int().positive().optional() }),
      handle: (ctx) => ({ limit: ctx.query.limit ?? null }),
    });
    const fields: Convention = {
      name: 'fields',
      endpoint: () => ({
        steps: [
          {
            phase: 'input',
            outcomes: ['badRequest'],
            run: (exchange: Exchange) => {
              const { fields: asked, ...rest } = exchange.ctx.query as Record<string, string>;
              exchange.ctx.query = rest;
              if (asked !== undefined && !/^[a-z,]+$/.test(asked)) {
                const issue = { in: 'query' as const, pointer: '#/fields', detail: 'must list field names, separated by commas' };
                exchange.issues = { issues: [...(exchange.issues?.issues ?? []), issue], omitted: exchange.issues?.omitted ?? 0 };
              }
              return undefined;
            },
          },
        ],
      }),
    };
    const api = createApi({ endpoints: [readBooks], use: [fields] });
    // Without the step, the strict query schema would refuse `fields`.
    expect((await api.handle({ method: 'GET', url: '/books?fields=title&limit=2' })).body).toEqual({ limit: 2 });
    const problem = expectProblem(await api.handle({ method: 'GET', url: '/books?fields=T!&limit=zero' }), { status: 400, code: 'RC_INVALID_INPUT' });
    expect(problem.errors).toEqual([
      { in: 'query', pointer: '#/fields', detail: 'must list field names, separated by commas' },
      expect.objectContaining({ in: 'query', pointer: '#/limit' }),
    ]);
    expect(api.routes[0]!.outcomes).toContain('badRequest');
  });

  it('its answer hook adds a header to a success only', async () => {
    const events: string[] = [];
    const api = tracedApi(events, false);
    expect((await api.handle({ method: 'GET', url: '/books/7' })).headers['x-traced']).toBe('yes');
    const failed = await api.handle({ method: 'GET', url: '/books/7?x=1&x=2' });
    expect(failed.status).toBe(400);
    expect(failed.headers['x-traced']).toBeUndefined();
  });

  it('its settle hook sees every answer of the walk, a failure and a step\'s own too, and the answer waits for its promise', async () => {
    const seen: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const settling: Convention = {
      name: 'settling',
      endpoint: () => ({
        steps: [{ phase: 'access', run: (exchange) => (exchange.headers['x-answer'] === 'own' ? ((exchange.response = { status: 202, headers: {}, body: undefined, payload: undefined }), (exchange.done = true), undefined) : undefined) }],
        settle: (exchange, response) => {
          seen.push(`${exchange.compiled.template} ${response.status}`);
          return exchange.headers['x-hold'] === 'yes' ? released : undefined;
        },
      }),
    };
    const api = createApi({
      endpoints: [endpoint('GET', '/books/:id', { params: z.object({ id: Id }), handle: (ctx) => (ctx.params.id === 9 ? Promise.reject(new Error('down')) : { id: ctx.params.id }) })],
      use: [settling],
      onError: () => {},
    });
    expect((await api.handle({ method: 'GET', url: '/books/1' })).status).toBe(200);
    expect((await api.handle({ method: 'GET', url: '/books/x' })).status).toBe(400);
    expect((await api.handle({ method: 'GET', url: '/books/9' })).status).toBe(500);
    expect((await api.handle({ method: 'GET', url: '/books/1', headers: { 'x-answer': 'own' } })).status).toBe(202);
    expect((await api.handle({ method: 'GET', url: '/nowhere' })).status).toBe(404);
    expect(seen).toEqual(['/books/:id 200', '/books/:id 400', '/books/:id 500', '/books/:id 202']);
    let answered = false;
    const held = api.handle({ method: 'GET', url: '/books/2', headers: { 'x-hold': 'yes' } }).then((response) => ((answered = true), response));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answered).toBe(false);
    release();
    expect((await held).status).toBe(200);
  });

  it('a settle hook that throws or rejects is reported, and the answer goes out as it is', async () => {
    const reported: unknown[] = [];
    const failing = (mode: 'throw' | 'reject'): Convention => ({
      name: `failing-${mode}`,
      endpoint: () => ({ settle: () => (mode === 'throw' ? ((): never => { throw new Error('settle threw'); })() : Promise.reject(new Error('settle rejected'))) }),
    });
    const api = createApi({ endpoints: [endpoint('GET', '/books', { handle: () => [] })], use: [failing('throw'), failing('reject')], onError: (error) => void reported.push(error) });
    const response = await api.handle({ method: 'GET', url: '/books' });
    expect(response.status).toBe(200);
    expect(reported).toHaveLength(1);
    expect((reported[0] as AggregateError).errors.map(String)).toEqual(['Error: settle threw', 'Error: settle rejected']);
    expect(() => createApi({ endpoints: [endpoint('GET', '/books', { handle: () => [] })], use: [{ name: 'odd', endpoint: () => ({ settle: 'later' as never }) }] })).toThrow('GET /books: the module "odd" gave a "settle" that is not a function');
  });

  it('a step at an unknown phase is refused when the API is built', () => {
    const late: Convention = { name: 'late', endpoint: () => ({ steps: [{ phase: 'afterwards' as Phase, run: () => undefined }] }) };
    expect(() => createApi({ endpoints: [endpoint('GET', '/books', { handle: () => [] })], use: [late] })).toThrow(
      'GET /books: the module "late" adds a step at "afterwards", which is no phase; use one of request, caller, input, access, item, handler, result',
    );
  });

  it('reads what an endpoint declares for it by its name, and nothing where it declares nothing', async () => {
    const seen: unknown[] = [];
    const stamp: Convention = {
      name: 'stamp',
      endpoint: (_endpoint, declared) => {
        seen.push(declared);
        if (declared === undefined) return undefined;
        return { answer: (_exchange, headers, body) => ((headers['x-stamp'] = String((declared as { value: string }).value)), body) };
      },
    };
    const stamped = defineEndpoint({ ...endpoint('GET', '/books', { handle: () => [] }), conventions: { stamp: { value: 'v1' } } });
    const api = createApi({ endpoints: [stamped, endpoint('GET', '/authors', { handle: () => [] })], use: [stamp] });
    expect(seen).toEqual([{ value: 'v1' }, undefined]);
    expect((await api.handle({ method: 'GET', url: '/books' })).headers['x-stamp']).toBe('v1');
    expect((await api.handle({ method: 'GET', url: '/authors' })).headers['x-stamp']).toBeUndefined();
    expect(() => createFullApi({ endpoints: [stamped] })).toThrow('it uses the "stamp" convention, which this API does not have');
  });

  it('endpoint() and a collection operation declare for it through "conventions"; a built-in convention is asked for through its own option', async () => {
    const stamp: Convention = {
      name: 'stamp',
      endpoint: (_endpoint, declared) => declared === undefined ? undefined : { answer: (_exchange, headers, body) => ((headers['x-stamp'] = String(declared)), body) },
    };
    const books = collection('books', { list: { handle: () => [], conventions: { stamp: 'list' } }, read: (ctx) => ({ id: ctx.params.id }) });
    const health = endpoint('GET', '/health', { handle: () => 'ok', conventions: { stamp: 'health' } });
    const api = createFullApi({ resources: [books], endpoints: [health], use: [stamp] });
    expect((await api.handle({ method: 'GET', url: '/books' })).headers['x-stamp']).toBe('list');
    expect((await api.handle({ method: 'GET', url: '/books/1' })).headers['x-stamp']).toBeUndefined();
    expect((await api.handle({ method: 'GET', url: '/health' })).headers['x-stamp']).toBe('health');
    expect(() => createFullApi({ endpoints: [health] })).toThrow('GET /health: it uses the "stamp" convention, which this API does not have; add its module, as createApi({ use: [stamp] })');
    expect(() => endpoint('GET', '/health', { handle: () => 'ok', conventions: { conditional: {} } })).toThrow('endpoint(GET /health): "conventions" cannot declare "conditional": ask for it through "conditional"');
    expect(() => collection('books', { list: { handle: () => [], conventions: { lists: {} } } })).toThrow('the "list" of collection("books"): "conventions" cannot declare "lists": ask for it through "page", "sort" or "filter"');
    expect(() => endpoint('GET', '/health', { handle: () => 'ok', conventions: ['stamp'] as never })).toThrow('endpoint(GET /health): "conventions" must be an object of what it asks of each module of the API, by its name');
  });

  it('its api() wraps every answer, sync or async, 404 included, and reads an option of createApi it names', async () => {
    const served: Convention = {
      name: 'served',
      options: ['servedBy'],
      api: (options, build) => {
        const by = options.servedBy;
        if (by === undefined) return undefined;
        if (typeof by !== 'string') throw new TypeError('createApi: "servedBy" names the instance, such as "api-1"');
        return (respond: Responder): Responder =>
          (request, passUnmatched, lowerCaseHeaders) => {
            const answer = respond(request, passUnmatched, lowerCaseHeaders);
            const stamp = (response: ApiResponse | undefined) => {
              if (response !== undefined) response.headers['x-served-by'] = `${by} ${build.templateOf(request.url) ?? '-'}`;
              return response;
            };
            return answer instanceof Promise ? answer.then(stamp) : stamp(answer);
          };
      },
    };
    const books = [
      endpoint('GET', '/books', { handle: () => [] }),
      endpoint('GET', '/books/:id', { handle: async (ctx) => ({ id: ctx.params.id }) }),
    ];
    const api = createApi({ endpoints: books, use: [served], servedBy: 'api-1' } as never);
    expect((await api.handle({ method: 'GET', url: '/books' })).headers['x-served-by']).toBe('api-1 /books');
    expect((await api.handle({ method: 'GET', url: '/books/3' })).headers['x-served-by']).toBe('api-1 /books/:id');
    expect((await api.handle({ method: 'GET', url: '/nowhere' })).headers['x-served-by']).toBe('api-1 -');
    expect((await createApi({ endpoints: books, use: [served] }).handle({ method: 'GET', url: '/books' })).headers['x-served-by']).toBeUndefined();
    expect(() => createApi({ endpoints: books, use: [served], servedBy: 1 } as never)).toThrow('"servedBy" names the instance');
    expect(() => createApi({ endpoints: books, servedBy: 'api-1' } as never)).toThrow('`servedBy` is not an option of createApi()');
  });

  it('an api() that gives something other than a wrapper is refused when the API is built', () => {
    const broken: Convention = { name: 'broken', api: () => 'wrap' as never };
    expect(() => createApi({ use: [broken] })).toThrow('createApi: the module "broken" gave something that is not a wrapper of the API\'s answer');
  });

  it('a module whose endpoint() throws fails createApi with the endpoint and the module named', () => {
    const failing: Convention = {
      name: 'failing',
      endpoint: () => {
        throw new Error('no table for this endpoint');
      },
    };
    expect(() => createApi({ endpoints: [endpoint('GET', '/books', { handle: () => [] })], use: [failing] })).toThrow(/GET \/books.*failing.*no table for this endpoint/);
  });

  it('a module whose endpoint() gives no parts, or a step that is no function, is refused when the API is built', () => {
    const books = [endpoint('GET', '/books', { handle: () => [] })];
    expect(() => createApi({ endpoints: books, use: [{ name: 'number', endpoint: () => 5 as never }] })).toThrow(TypeError);
    expect(() => createApi({ endpoints: books, use: [{ name: 'text', endpoint: () => ({ steps: [{ phase: 'handler', run: 'run' as never }] }) }] })).toThrow(TypeError);
  });

  it('a wrapper that throws on a request is answered as a masked 500, never thrown out of respond', () => {
    const throwing: Convention = {
      name: 'throwing',
      api: () => () => () => {
        throw new Error('wrapper bug');
      },
    };
    const api = createApi({ endpoints: [endpoint('GET', '/books', { handle: () => [] })], use: [throwing], onError: () => {} });
    expect(() => api.respond({ method: 'GET', url: '/books' })).not.toThrow();
  });
});

describe('restcanon/engine createEndpointHandler', () => {
  const notes = new Map([[1, { id: 1, text: 'milk', version: 3 }]]);
  const readNote = endpoint('GET', '/notes/:id', {
    params: z.object({ id: Id }),
    conditional: { load: (ctx) => notes.get(ctx.params.id), etag: (note) => `"v${note.version}"` },
    handle: (ctx) => ctx.item,
  });

  it('with use: [conditional] answers 200 with the ETag, 304 to If-None-Match and 404 for a missing item', async () => {
    const handler = createEndpointHandler(readNote, { use: [conditional] });
    const read = await handler({ method: 'GET', url: '/notes/1' }, { id: '1' });
    expect([read.status, read.headers.etag, read.body]).toEqual([200, '"v3"', { id: 1, text: 'milk', version: 3 }]);
    const notModified = await handler({ method: 'GET', url: '/notes/1', headers: { 'If-None-Match': '"v3"' } }, { id: '1' });
    expect([notModified.status, notModified.headers.etag, notModified.body]).toEqual([304, '"v3"', undefined]);
    expectProblem(await handler({ method: 'GET', url: '/notes/9' }, { id: '9' }), { status: 404, code: 'RC_NOT_FOUND' });
  });

  it('answers as the package’s createEndpointHandler does', async () => {
    const { createEndpointHandler: createFullHandler } = await import('../../src/index.js');
    const lean = createEndpointHandler(readNote, { use: [conditional] });
    const full = createFullHandler(readNote);
    for (const headers of [{}, { 'if-none-match': '"v3"' }, { 'if-none-match': '"v2"' }]) {
      const [a, b] = [await lean({ method: 'GET', url: '/notes/1', headers }, { id: '1' }), await full({ method: 'GET', url: '/notes/1', headers }, { id: '1' })];
      expect([a.status, a.headers, a.payload]).toEqual([b.status, b.headers, b.payload]);
    }
  });

  it('refuses use that is no array, as createApi does', () => {
    expect(() => createEndpointHandler(readNote, { use: conditional as never })).toThrow('"use" must be an array of modules');
  });
});
