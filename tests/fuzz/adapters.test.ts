/**
 * Property-based fuzzing of the whole pipeline: `api.handle` in memory, then every adapter over real
 * HTTP, with generated requests from valid to hostile (tests/fuzz/arbitraries.ts). For every request:
 *
 * - the server never crashes, and every request gets exactly one answer, with a status from the policy table;
 * - a 2xx never holds a problem body, a 4xx or 5xx always does (none for HEAD), with the right `status`;
 * - no secret planted in handlers, validators or `authenticate` appears in any answer;
 * - no request pollutes a prototype: `@fast-check/poisoning` finds no changed global after any request;
 * - a valid request reaches its handler with validated, typed input; an invalid one never does;
 * - `api.handle` answers the same for every form of the body (string, bytes, chunks), and every
 *   adapter answers exactly what `api.handle` answers for the same request on a fresh store, except
 *   where Node or the framework answers before the adapter runs (platform.ts names each case).
 *
 * The seed is fixed in `npm test`; `npm run fuzz` runs the same properties for a time, with a random seed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawBody } from '../../src/index.js';
import { fuzzRequest, type FuzzRequest } from './arbitraries.js';
import { createFuzzFixture, type FuzzFixture } from './fuzz-api.js';
import { answerOf, apiRequestOf, comparable, expectHandlerContract, expectNoSecret, expectUnpolluted, expectWellFormed, type Answer } from './invariants.js';
import { frameworkAnswers, nodeRefuses, platformRewrites, prefixTarget, unprefixTarget } from './platform.js';
import { MOUNTING, serve, type AdapterName, type FuzzServer } from './servers.js';
import { checkTarget, isSelected, poisoningInterval, testTimeout, type Target } from './settings.js';

const ADAPTERS: readonly AdapterName[] = ['node', 'express5', 'express4', 'fastify', 'fetch'];

/** Errors that escaped to the process: there must never be one. */
const escaped: unknown[] = [];
const onEscaped = (error: unknown): void => {
  escaped.push(error);
};
let poisoning: typeof import('@fast-check/poisoning');
/** vitest's own bookkeeping lives on globals that change as tests run. */
const IGNORED_GLOBALS = { ignoredRootRegex: /^__vitest|^__vi_/ };

beforeAll(async () => {
  process.on('uncaughtException', onEscaped);
  process.on('unhandledRejection', onEscaped);
  // Some frameworks change globals once, on their first request (@hono/node-server replaces the
  // global Request and Response with its own). Every adapter serves one request first, so that the
  // globals the poisoning check records, when it is imported, are those the properties start from.
  for (const adapter of ADAPTERS) {
    const warmUp = await serve(adapter, createFuzzFixture().api);
    await warmUp.send({ method: 'GET', target: '/health', headers: {}, body: undefined, framing: 'length', expected: undefined });
    await warmUp.close();
  }
  // Node defines some globals (Blob, ...) as getters that replace themselves on first use: use them all.
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    try {
      void (globalThis as Record<string, unknown>)[name];
    } catch {
      // A global that throws when read is left alone.
    }
  }
  poisoning = await import('@fast-check/poisoning');
});
afterAll(() => {
  process.off('uncaughtException', onEscaped);
  process.off('unhandledRejection', onEscaped);
});

/** `it`, or `it.skip` when `FUZZ_TARGET` leaves the target out. */
function fuzz(target: Target, title: string, body: () => Promise<void>): void {
  (isSelected(target) ? it : it.skip)(title, body, testTimeout());
}

/** The body in every form `api.handle` takes raw: bytes, a string (when it is UTF-8), and 3-byte chunks. */
function bodyForms(body: Uint8Array | undefined): unknown[] {
  if (body === undefined) return [undefined];
  const forms: RawBody[] = [body];
  try {
    forms.push(new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body));
  } catch {
    // Bytes that are not UTF-8 have no string form.
  }
  forms.push({
    async *[Symbol.asyncIterator]() {
      for (let offset = 0; offset < body.byteLength; offset += 3) yield body.subarray(offset, offset + 3);
    },
  });
  return forms;
}

function shown(request: FuzzRequest | undefined): string {
  return request === undefined ? 'none' : fc.stringify(request);
}

let runsSincePoisoningCheck = 0;

/**
 * No built-in prototype gained or lost a key (checked after every request), and no global changed at
 * all (`@fast-check/poisoning`, after every run or every {@link poisoningInterval} runs).
 */
function expectUnpoisoned(): void {
  expectUnpolluted();
  if (++runsSincePoisoningCheck < poisoningInterval()) return;
  runsSincePoisoningCheck = 0;
  poisoning.assertNoPoisoning(IGNORED_GLOBALS);
}

/** The checks every answer passes, whoever gave it. */
function expectSound(request: FuzzRequest, answer: Answer, fixture: FuzzFixture): void {
  expectWellFormed(request.method, answer);
  expectNoSecret(answer);
  expectUnpolluted();
  expectHandlerContract(request, answer.status, fixture);
  expect(escaped).toEqual([]);
}

describe('fuzz: api.handle', () => {
  fuzz('handle', 'answers every request by the policy, the same for every form of its body', async () => {
    const fixture = createFuzzFixture();
    let requests = 0;
    const property = fc.asyncProperty(fuzzRequest, async (request) => {
      let first: Answer | undefined;
      for (const body of bodyForms(request.body)) {
        fixture.reset();
        requests++;
        const answer = answerOf(await fixture.api.handle({ ...apiRequestOf(request), body }));
        expectSound(request, answer, fixture);
        if (first === undefined) first = answer;
        else expect(comparable(answer)).toEqual(comparable(first));
      }
      expectUnpoisoned();
    });
    await checkTarget('handle', property, () => requests);
    poisoning.assertNoPoisoning(IGNORED_GLOBALS);
  });
});

/** The prefix every adapter is also served below: mounted there (Express, Fastify) or as the API's basePath. */
const PREFIX = '/v1';

/** One server of an adapter, with the fixture it serves and an identical one for the reference answers. */
interface Side {
  prefix: string;
  served: FuzzFixture;
  reference: FuzzFixture;
  server: FuzzServer;
}

describe.each(ADAPTERS)('fuzz: %s over HTTP', (adapter) => {
  const sides: Side[] = [];
  /** The request in flight, which a time limit may leave running: the servers close after it. */
  let inflight: Promise<unknown> = Promise.resolve();
  let previous: FuzzRequest | undefined;

  beforeAll(async () => {
    if (!isSelected(adapter)) return;
    for (const prefix of ['', PREFIX]) {
      const basePath = MOUNTING[adapter] === 'basePath' && prefix !== '' ? { basePath: prefix } : {};
      const served = createFuzzFixture(basePath);
      sides.push({ prefix, served, reference: createFuzzFixture(basePath), server: await serve(adapter, served.api, prefix) });
    }
  });
  afterAll(async () => {
    await inflight.catch(() => {});
    for (const side of sides) await side.server.close();
  });

  async function exchange(generated: FuzzRequest, belowPrefix: boolean): Promise<void> {
    const prefixed = belowPrefix ? prefixTarget(generated.target, PREFIX) : undefined;
    const { prefix, served, reference, server } = sides[prefixed === undefined ? 0 : 1]!;
    const request = prefixed === undefined ? generated : { ...generated, target: prefixed };
    served.reset();
    reference.reset();
    server.seen.length = 0;
    let answer: Answer;
    try {
      answer = await server.send(request);
    } catch (error) {
      // A connection the previous request left broken shows up here: name that request too.
      throw new Error(`${String(error)}; the request before was ${shown(previous)}`, { cause: error });
    } finally {
      previous = request;
    }
    // Let anything the server still does for this request (a second answer, say) happen now.
    await new Promise((resolve) => setImmediate(resolve));

    const refusal = nodeRefuses(request);
    if (refusal !== undefined) {
      // Not comparable: Node's parser answered a bare 400 and no listener ran (see platform.ts).
      expect({ status: answer.status, seen: server.seen, calls: served.calls.length }).toEqual({ status: 400, seen: [], calls: 0 });
      return;
    }
    expect(server.seen.map((entry) => entry.writeHeads), 'one request, one answer').toEqual([1]);
    expectNoSecret(answer);
    expectUnpoisoned();
    expect(escaped).toEqual([]);

    const framework = frameworkAnswers(adapter, request, prefix);
    if (framework !== undefined) {
      // Not comparable: the framework answered in its own format before the adapter ran (see platform.ts).
      expect({ status: answer.status, calls: served.calls.length }).toEqual({ status: framework.status, calls: 0 });
      return;
    }
    // Compared with the API's answer to the request as the adapter got it (see platform.ts). A
    // mounted API gets the target below its mount point, and the mount point as `baseUrl`.
    const received = platformRewrites(adapter, request) ?? request;
    const relative = { ...received, target: unprefixTarget(received.target, prefix) };
    expectSound(relative, answer, served);
    const mounted = prefix !== '' && MOUNTING[adapter] === 'mount';
    const expected = answerOf(await reference.api.handle(mounted ? { ...apiRequestOf(relative), baseUrl: prefix } : apiRequestOf(received)));
    expect(comparable(answer)).toEqual(comparable(expected));
  }

  fuzz(adapter, 'answers every request exactly as api.handle does, by the policy, without leaks', async () => {
    let requests = 0;
    const property = fc.asyncProperty(fuzzRequest, fc.boolean(), (request, belowPrefix) => {
      requests++;
      const running = exchange(request, belowPrefix);
      inflight = running;
      return running;
    });
    await checkTarget(adapter, property, () => requests);
    // Every server still answers after everything it was sent.
    for (const side of sides) expect((await fetch(`${side.server.baseUrl}${side.prefix}/health`)).status).toBe(200);
    poisoning.assertNoPoisoning(IGNORED_GLOBALS);
  });
});
