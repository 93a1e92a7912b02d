/**
 * The API of the hidden-item benchmark, and its two kinds of process:
 *
 *   node bench/security/hidden-item-worker.mjs memory <0|1>   # one in-memory round, one JSON line
 *   node bench/security/hidden-item-worker.mjs serve          # the node adapter on 127.0.0.1, prints { port, pid }
 *
 * The API: a `projects` collection of 1,000 items in a Map, an `owner` rule, every caller
 * authenticated as user 1, and `createStatusPolicy({ forbidden: 404 })`. Projects 1000-1999 exist;
 * user 1 owns the even ids, user 2 the odd ones. Every id timed has four digits, so that both kinds
 * of request have the same length and go through the same id schema. In memory it is timed twice:
 * with the default options, and with `timeout: false`, without the per-request deadline timer, which
 * both kinds of request pay alike and which only adds to the noise around the difference looked for.
 *
 * Env: BENCH_HIDDEN_CONTROL=1 for an A/A run (see CONTROL). Of `memory`: BENCH_MEASURE_MS
 * (default 40), the time of one mitata measurement; BENCH_SLICES (default 6), the measurements per
 * case, taking turns with the other case.
 */
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { measure } from 'mitata';
import { idSchema } from '../lib/app.mjs';
import { importRestcanon } from '../lib/dist.mjs';

export const PROJECT_COUNT = 1000;
const FIRST_ID = 1000;
/** How many different ids each kind of request goes through, in turn (a power of two). */
const IDS_PER_KIND = 64;

/**
 * With BENCH_HIDDEN_CONTROL=1 the "foreign" case asks for even ids above the store instead, so that
 * two kinds of missing id are timed against each other: an A/A run, which shows the method's zero.
 */
export const CONTROL = process.env.BENCH_HIDDEN_CONTROL === '1';
/** Odd ids of the store: they exist, and belong to user 2 (in a control run, even ids that do not exist). */
export const FOREIGN_IDS = Array.from({ length: IDS_PER_KIND }, (_, index) => FIRST_ID + (CONTROL ? PROJECT_COUNT : 1) + 2 * ((index * 7) % (PROJECT_COUNT / 2)));
/** Ids above the store: nothing has them. */
export const MISSING_IDS = Array.from({ length: IDS_PER_KIND }, (_, index) => FIRST_ID + PROJECT_COUNT + 1 + 2 * ((index * 7) % (PROJECT_COUNT / 2)));
/** An id user 1 owns, for the gate: it must answer 200, or the store is not what the benchmark says. */
export const OWN_ID = FIRST_ID + 2;

/** The four cases timed, each a kind of request on an id of one kind. */
export const CASES = [
  { name: 'GET foreign', method: 'GET', ids: FOREIGN_IDS },
  { name: 'GET missing', method: 'GET', ids: MISSING_IDS },
  { name: 'DELETE foreign', method: 'DELETE', ids: FOREIGN_IDS },
  { name: 'DELETE missing', method: 'DELETE', ids: MISSING_IDS },
];

/** The `createApi` options timed in memory, besides the API's own; over loopback only the first. */
export const CONFIGS = [
  { name: 'default options', options: {} },
  { name: 'timeout: false', options: { timeout: false } },
];

/**
 * The projects API, on a fresh store of its own.
 *
 * @param {any} restcanon the module `dist/index.js`
 * @param {{ hide?: boolean, options?: object }} [settings] `hide: false` leaves the default policy (someone
 *   else's item is a 403), for the gate; `options` go to `createApi`
 * @returns {{ api: any, projects: Map<number, { id: number, ownerId: number, name: string }> }}
 */
export function createProjectsApi(restcanon, { hide = true, options = {} } = {}) {
  const projects = new Map();
  for (let id = FIRST_ID; id < FIRST_ID + PROJECT_COUNT; id++) projects.set(id, { id, ownerId: id % 2 === 0 ? 1 : 2, name: `Project ${id}` });
  const collection = restcanon.collection('projects', {
    id: idSchema,
    owner: (project, principal) => project.ownerId === principal.id,
    read: (ctx) => projects.get(ctx.params.id),
    remove: (ctx) => projects.delete(ctx.params.id),
  });
  const api = restcanon.createApi({
    ...options,
    resources: [collection],
    authenticate: () => ({ id: 1 }),
    ...(hide ? { policy: restcanon.createStatusPolicy({ forbidden: 404 }) } : {}),
  });
  return { api, projects };
}

/** The requests of a case, one per id, built once. */
export const requestsOf = (testCase) => testCase.ids.map((id) => ({ method: testCase.method, url: `/projects/${id}`, headers: {} }));

/**
 * One in-memory round: a warm-up of every case in turn, then BENCH_SLICES mitata measurements per
 * case and configuration, the two cases of one operation taking turns (foreign then missing, then
 * missing then foreign; `flip` 1 starts with missing). A measurement is mitata's median of batches
 * of sequential `await api.handle(request)`, ids rotating; the round's figure for a case
 * is the median of its measurements. Prints `{ [config]: { [case]: nanoseconds per request } }`.
 *
 * @param {number} flip
 */
async function memoryRound(flip) {
  const measureMs = Number(process.env.BENCH_MEASURE_MS ?? 40);
  const slices = Number(process.env.BENCH_SLICES ?? 6);
  const restcanon = await importRestcanon('index.js');
  const timed = CONFIGS.flatMap((config) => {
    const { api, projects } = createProjectsApi(restcanon, { options: config.options });
    return CASES.map((testCase) => {
      const requests = requestsOf(testCase);
      let next = 0;
      return { config: config.name, name: testCase.name, method: testCase.method, api, projects, requests, send: () => api.handle(requests[next++ & (IDS_PER_KIND - 1)]) };
    });
  });

  /** Every timed request must answer 404 before and after timing, and nothing may be removed. */
  async function check(when) {
    for (const { config, name, api, projects, requests } of timed) {
      for (const request of requests) {
        const response = await api.handle(request);
        if (response.status !== 404) throw new Error(`${config}, ${name} ${request.url} answered ${response.status} ${when} timing, not 404`);
      }
      if (projects.size !== PROJECT_COUNT) throw new Error(`${config}: ${PROJECT_COUNT - projects.size} project(s) were removed ${when} timing`);
    }
  }

  await check('before');
  const warmupEnd = performance.now() + 500;
  while (performance.now() < warmupEnd) for (const { send } of timed) for (let index = 0; index < 256; index++) await send();

  // Batches of 256 requests (mitata's default is 4,096), so that a measurement takes about
  // BENCH_MEASURE_MS whatever a request costs, and a batch that another process preempted is one
  // outlier among dozens. No forced GC before a measurement: the requests right after a full GC are
  // not the steady state a server is in, and without --expose-gc mitata's stand-in allocates 1 GiB.
  const options = { min_cpu_time: measureMs * 1e6, batch_samples: 256, gc: false };
  const samples = new Map(timed.map((testCase) => [testCase, []]));
  for (let slice = 0; slice < slices; slice++) {
    for (const config of (slice + flip) % 2 === 0 ? CONFIGS : [...CONFIGS].reverse()) {
      for (const method of ['GET', 'DELETE']) {
        const pair = timed.filter((testCase) => testCase.config === config.name && testCase.method === method);
        for (const testCase of (slice + flip) % 2 === 0 ? pair : [...pair].reverse()) samples.get(testCase).push((await measure(testCase.send, options)).p50);
      }
    }
  }
  await check('after');
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const result = {};
  for (const [{ config, name }, values] of samples) (result[config] ??= {})[name] = median(values);
  console.log(JSON.stringify(result));
}

/** Serves the API with `toNodeListener` on 127.0.0.1 and a free port; SIGTERM closes it. */
async function serve() {
  const { api } = createProjectsApi(await importRestcanon('index.js'));
  const { toNodeListener } = await importRestcanon('node.js');
  const server = createServer(toNodeListener(api));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  // A benchmark that dies without stopping its server must not leave it running.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(0), 1000).unref();
  process.once('SIGTERM', () => {
    // The client's keep-alive connection may hold close() open: exit regardless.
    setTimeout(() => process.exit(0), 500).unref();
    server.close(() => process.exit(0));
  });
  console.log(JSON.stringify({ port: server.address().port, pid: process.pid }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  if (mode === 'memory') await memoryRound(Number(process.argv[3] ?? 0) % 2);
  else if (mode === 'serve') await serve();
  else {
    console.error('usage: node bench/security/hidden-item-worker.mjs memory <0|1> | serve');
    process.exit(2);
  }
}
