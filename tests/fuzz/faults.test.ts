/**
 * Faults, in handlers and on the wire, through `api.handle` and over real HTTP on the node adapter:
 * handlers that throw or reject with anything, late or never; results that cannot be serialized; a
 * timeout that frees the request; clients that abort mid-body or mid-response (raw sockets); an
 * `onError` that fails itself. None may crash the server, leave it unable to answer, or leak the secret.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toNodeListener } from '../../src/adapters/node.js';
import { createApi, endpoint, HttpError, InternalServerError, type Api, type ApiOptions, type ErrorInfo } from '../../src/index.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { answerOf, comparable, expectWellFormed, type Answer } from './invariants.js';
import { runSeed } from './settings.js';

const SECRET = 'fault-secret-0c1d';
/** Milliseconds before a request is answered 503; long enough for every quick fault to finish first. */
const TIMEOUT = 150;
/** Settles after `milliseconds` with what `settle` returns or throws. */
function later<T>(milliseconds: number, settle: () => T): Promise<Awaited<T>> {
  return new Promise((resolve, reject) => {
    setTimeout(() => {
      try {
        resolve(settle() as Awaited<T>);
      } catch (error) {
        reject(error);
      }
    }, milliseconds);
  });
}

/** Handlers that go wrong, by name. Each one's secret must stay on the server. */
const FAULTS: Readonly<Record<string, () => unknown>> = {
  'throws a string': () => {
    throw `${SECRET} as a string`;
  },
  'throws a number': () => {
    throw 42;
  },
  'throws null': () => {
    throw null;
  },
  'throws undefined': () => {
    throw undefined;
  },
  'throws a symbol': () => {
    throw Symbol(SECRET);
  },
  'throws a plain object': () => {
    throw { message: SECRET, status: 200, toString: () => SECRET };
  },
  'throws an object that claims status 400': () => {
    throw Object.assign(new Error(SECRET), { status: 400, statusCode: 400, expose: true });
  },
  'throws an AggregateError': () => {
    throw new AggregateError([new Error(SECRET)], SECRET);
  },
  'throws a masked HttpError with a detail': () => {
    throw new InternalServerError(SECRET, { headers: { 'x-debug': 'kept off' } });
  },
  'throws a 503 HttpError with a detail': () => {
    throw new HttpError(503, { detail: SECRET, cause: new Error(SECRET) });
  },
  'rejects at once': () => Promise.reject(new Error(SECRET)),
  'rejects late with a string': () => later(20, () => Promise.reject(`${SECRET} late`)),
  'returns an Error': () => new Error(SECRET),
  'returns a BigInt': () => ({ total: 10n, note: SECRET }),
  'returns a cycle': () => {
    const loop: Record<string, unknown> = { note: SECRET };
    loop.self = loop;
    return loop;
  },
  'returns an object whose toJSON throws': () => ({ toJSON: () => { throw new Error(SECRET); } }),
  'returns an object whose getter throws': () => ({ get total() { throw new Error(SECRET); } }),
  'never settles': () => new Promise(() => {}),
  'resolves after the timeout': () => later(TIMEOUT * 2, () => ({ note: SECRET })),
  'rejects after the timeout': () => later(TIMEOUT * 2, () => Promise.reject(new Error(SECRET))),
};

/** What each fault answers: a masked 500, or the 503 of the timeout. */
const EXPECTED_STATUS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.keys(FAULTS).map((name) => [name, /never|after the timeout|503/.test(name) ? 503 : 500]),
);

/** A big answer, for a client that goes away while reading it. */
const HUGE = { data: 'x'.repeat(8 * 1024 * 1024) };

interface FaultApi {
  api: Api;
  errors: Array<{ error: unknown; info: ErrorInfo }>;
}

function createFaultApi(options: Partial<ApiOptions> = {}): FaultApi {
  const errors: FaultApi['errors'] = [];
  const api = createApi({
    timeout: TIMEOUT,
    endpoints: [
      endpoint('GET', '/faults/:kind', { handle: (ctx) => (FAULTS[ctx.params.kind] ?? (() => undefined))() }),
      endpoint('GET', '/downloads', { handle: () => HUGE }),
      endpoint('POST', '/uploads', { operation: 'create', handle: (ctx) => ({ id: 1, size: JSON.stringify(ctx.body ?? null).length }) }),
      endpoint('GET', '/health', { handle: () => ({ status: 'ok' }) }),
    ],
    onError: (error, info) => errors.push({ error, info }),
    ...options,
  });
  return { api, errors };
}

/** Errors that escaped to the process while these tests ran: there must never be one. */
const escaped: unknown[] = [];
const onEscaped = (error: unknown): void => {
  escaped.push(error);
};
beforeAll(() => {
  process.on('uncaughtException', onEscaped);
  process.on('unhandledRejection', onEscaped);
});
afterAll(() => {
  process.off('uncaughtException', onEscaped);
  process.off('unhandledRejection', onEscaped);
});

function expectMasked(answer: Answer, status: number): void {
  expect(answer.status).toBe(status);
  expectWellFormed('GET', answer);
  expect(answer.text + JSON.stringify(answer.headers)).not.toContain(SECRET);
}

describe('faults through api.handle', () => {
  const { api, errors } = createFaultApi();
  beforeEach(() => {
    errors.length = 0;
  });

  it.each(Object.keys(FAULTS))('a handler that %s is answered by the policy, without the secret', async (name) => {
    const answer = answerOf(await api.handle({ method: 'GET', url: `/faults/${encodeURIComponent(name)}` }));
    expectMasked(answer, EXPECTED_STATUS[name]!);
    if (answer.status === 500) {
      // onError saw the original, under the id the client got.
      expect(errors).toHaveLength(1);
      expect(JSON.parse(answer.text).instance).toBe(errors[0]!.info.requestId);
    }
  });

  it('the timeout frees the request: a handler that never settles is 503 after about `timeout` ms', async () => {
    const started = performance.now();
    const answer = answerOf(await api.handle({ method: 'GET', url: '/faults/never%20settles' }));
    expect(performance.now() - started).toBeLessThan(TIMEOUT * 10);
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({ status: 503, code: 'RC_TIMEOUT' });
  });

  it('a late result or rejection after the 503 is dropped, without an unhandled rejection', async () => {
    for (const name of ['resolves after the timeout', 'rejects after the timeout']) {
      expect((await api.handle({ method: 'GET', url: `/faults/${encodeURIComponent(name)}` })).status).toBe(503);
    }
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT * 3));
    expect(escaped).toEqual([]);
  });

  it('a request that finishes in time leaves no timer behind', async () => {
    const slow = createFaultApi({ timeout: 60_000 }).api;
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    await Promise.all(Array.from({ length: 50 }, () => slow.handle({ method: 'GET', url: '/health' })));
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it('throwing, rejecting or returning anything never makes api.handle reject, and never leaks', async () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
      values: [fc.constant(SECRET), fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined)],
    });
    const how = fc.constantFrom('throw', 'reject', 'reject late', 'return');
    let current: { how: string; value: unknown } = { how: 'return', value: undefined };
    const hostile = createApi({
      endpoints: [
        endpoint('GET', '/specimens', {
          handle: () => {
            const { value } = current;
            if (current.how === 'throw') throw value;
            if (current.how === 'reject') return Promise.reject(value);
            if (current.how === 'reject late') return later(1, () => Promise.reject(value));
            return value;
          },
        }),
      ],
      onError: () => {},
    });
    await fc.assert(
      fc.asyncProperty(how, anything, async (mode, value) => {
        current = { how: mode, value };
        const answer = answerOf(await hostile.handle({ method: 'GET', url: '/specimens' }));
        expectWellFormed('GET', answer);
        // A returned value is the client's answer, secret or not; a thrown one never is.
        if (mode !== 'return') expectMasked(answer, 500);
      }),
      { seed: runSeed(), numRuns: 300 },
    );
  });

  it('onError that throws changes nothing for the client', async () => {
    const failing = createFaultApi({
      onError: () => {
        throw new Error(`logger down: ${SECRET}`);
      },
    }).api;
    expectMasked(answerOf(await failing.handle({ method: 'GET', url: '/faults/throws%20a%20string' })), 500);
    const throwsNothing = createFaultApi({
      onError: () => {
        throw undefined;
      },
    }).api;
    expectMasked(answerOf(await throwsNothing.handle({ method: 'GET', url: '/faults/returns%20a%20cycle' })), 500);
  });

  // Regression: `report` ignored a promise that onError returns, so an async onError whose logger
  // failed was an unhandled rejection, which ends a Node process. It runs
  // in a child process on the build (dist/), so that the crash it shows cannot take this worker down.
  it('an async onError that rejects does not end the process (onError: async () => { throw ... })', () => {
    const script = [
      `import { createApi, endpoint } from ${JSON.stringify(pathToFileURL(path.resolve('dist/index.js')).href)};`,
      `const api = createApi({ endpoints: [endpoint('GET', '/x', { handle: () => { throw new Error('boom'); } })], onError: async () => { throw new Error('logger down'); } });`,
      `const response = await api.handle({ method: 'GET', url: '/x' });`,
      `await new Promise((resolve) => setTimeout(resolve, 20));`,
      `console.log(response.status);`,
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect({ status: child.status, stdout: child.stdout.trim() }).toEqual({ status: 0, stdout: '500' });
  });

  // Regression: `fail` read the thrown value unguarded, so a thrown value that throws when read made
  // api.handle reject, and Express and Fastify then rendered the reading's error, secret included,
  // in their default error pages.
  it('a thrown Proxy that throws on every read is a masked 500, not a rejection', async () => {
    const proxy = new Proxy({}, {
      get: () => {
        throw new Error(SECRET);
      },
      getPrototypeOf: () => {
        throw new Error(SECRET);
      },
    });
    const reported: unknown[] = [];
    const trapped = createApi({ endpoints: [endpoint('GET', '/traps', { handle: () => { throw proxy; } })], onError: (error) => reported.push(error) });
    expectMasked(answerOf(await trapped.handle({ method: 'GET', url: '/traps' })), 500);
    // Compared by identity: reading the proxy would throw.
    expect(reported.length === 1 && reported[0] === proxy).toBe(true);
  });

  // Regression: `isHttpError` trusted the public Symbol.for brand alone, so a thrown object that
  // carried it was answered with whatever status it claimed, even a 2xx.
  it('a thrown object that forges the HttpError brand with status 200 is a masked 500, not a 200 problem', async () => {
    const forged = { [Symbol.for('restcanon.HttpError')]: true, status: 200, expose: true, detail: SECRET, title: 'OK', type: 'about:blank', code: 'RC_OK', headers: { 'x-leak': SECRET } };
    const reported: unknown[] = [];
    const trapped = createApi({ endpoints: [endpoint('GET', '/forgeries', { handle: () => { throw forged; } })], onError: (error) => reported.push(error) });
    expectMasked(answerOf(await trapped.handle({ method: 'GET', url: '/forgeries' })), 500);
    // Reported as what it is: a value that claims to be an HttpError and cannot be answered.
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(TypeError);
    expect((reported[0] as TypeError).message).toMatch(/status is not a whole number from 400 to 599/);
    expect((reported[0] as TypeError).cause).toBe(forged);
  });
});

describe('faults over HTTP on the node adapter', () => {
  const fault = createFaultApi();
  let server: MountedServer;
  let port: number;

  beforeAll(async () => {
    server = await listen(http.createServer(toNodeListener(fault.api)));
    port = Number(new URL(server.baseUrl).port);
  });
  afterAll(() => server.close());
  beforeEach(() => {
    fault.errors.length = 0;
  });

  async function stillServes(): Promise<void> {
    const response = await fetch(`${server.baseUrl}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(escaped).toEqual([]);
  }

  it.each(Object.keys(FAULTS))('a handler that %s: the same answer as api.handle, and the server goes on', async (name) => {
    const url = `/faults/${encodeURIComponent(name)}`;
    const response = await fetch(server.baseUrl + url);
    const answer = { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
    expectMasked(answer, EXPECTED_STATUS[name]!);
    const expected = answerOf(await createFaultApi().api.handle({ method: 'GET', url, headers: { accept: '*/*' } }));
    expect(comparable(answer)).toEqual(comparable(expected));
    await stillServes();
  });

  it('many requests that never settle are each answered 503, on reused connections, and the server goes on', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    try {
      const statuses = await Promise.all(Array.from({ length: 24 }, () => statusOf(agent, '/faults/never%20settles')));
      expect(statuses).toEqual(Array.from({ length: 24 }, () => 503));
      // The same sockets serve the next requests: the timed-out ones left nothing half-written.
      expect(await Promise.all(Array.from({ length: 8 }, () => statusOf(agent, '/health')))).toEqual(Array.from({ length: 8 }, () => 200));
    } finally {
      agent.destroy();
    }
    await stillServes();
  });

  function statusOf(agent: http.Agent, path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, agent }, (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        })
        .on('error', reject);
    });
  }

  /** Opens a raw socket, writes `chunks`, then destroys it once `cutAfter` says so. Resolves when closed. */
  function abortingClient(chunks: ReadonlyArray<string | Uint8Array>, cutAfter: { ms?: number; bytesRead?: number }): Promise<string> {
    return new Promise((resolve) => {
      let received = '';
      const socket = net.connect(port, '127.0.0.1', () => {
        for (const chunk of chunks) socket.write(chunk);
        if (cutAfter.ms !== undefined) setTimeout(() => socket.destroy(), cutAfter.ms);
      });
      socket.on('data', (data: Buffer) => {
        received += data.toString('latin1');
        if (cutAfter.bytesRead !== undefined && received.length >= cutAfter.bytesRead) socket.destroy();
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve(received));
    });
  }

  const postHead = (framing: string) => `POST /uploads HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

  it('a client that aborts mid-body (Content-Length) leaves the server answering', async () => {
    await abortingClient([postHead('Content-Length: 1000'), '{"name":"'.padEnd(100, 'x')], { ms: 20 });
    await stillServes();
    expect(fault.errors).toEqual([]);
  });

  it('a client that aborts mid-body (chunked) leaves the server answering', async () => {
    await abortingClient([postHead('Transfer-Encoding: chunked'), '64\r\n{"name":"'], { ms: 20 });
    await stillServes();
    expect(fault.errors).toEqual([]);
  });

  it('a client that aborts right after the head leaves the server answering', async () => {
    await abortingClient([postHead('Content-Length: 10')], { ms: 5 });
    await stillServes();
  });

  it('a client that aborts mid-response (8 MiB answer, cut after 64 KiB) leaves the server answering', async () => {
    const received = await abortingClient(['GET /downloads HTTP/1.1\r\nHost: test\r\n\r\n'], { bytesRead: 64 * 1024 });
    expect(received).toMatch(/^HTTP\/1\.1 200/);
    await stillServes();
  });

  it('a client that goes away while its handler still runs leaves the server answering', async () => {
    await abortingClient(['GET /faults/resolves%20after%20the%20timeout HTTP/1.1\r\nHost: test\r\n\r\n'], { ms: 10 });
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT * 3));
    await stillServes();
  });

  it('a request head over Node’s 16 KiB limit is Node’s 431, and the server goes on', async () => {
    const received = await abortingClient([`GET /faults/${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: test\r\n\r\n`], { ms: 500 });
    expect(received).toMatch(/^HTTP\/1\.1 431/);
    await stillServes();
  });

  it('a client cut anywhere in its request or in the answer never breaks the server', async () => {
    const body = JSON.stringify({ note: 'x'.repeat(2000) });
    const requests = [
      `${postHead(`Content-Length: ${body.length}`)}${body}`,
      `${postHead('Transfer-Encoding: chunked')}${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      'GET /downloads HTTP/1.1\r\nHost: test\r\n\r\n',
      'GET /faults/rejects%20late%20with%20a%20string HTTP/1.1\r\nHost: test\r\n\r\nGET /health HTTP/1.1\r\nHost: test\r\n\r\n',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...requests), fc.double({ min: 0, max: 1, noNaN: true }), fc.option(fc.integer({ min: 1, max: 256 * 1024 }), { nil: undefined }), async (request, cut, readBeforeCut) => {
        const sent = request.slice(0, Math.floor(request.length * cut));
        const received = await abortingClient([sent], readBeforeCut === undefined ? { ms: 5 } : { ms: 50, bytesRead: readBeforeCut });
        expect(received).not.toContain(SECRET);
        await stillServes();
      }),
      { seed: runSeed(), numRuns: 40 },
    );
  });
});
