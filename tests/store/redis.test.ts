/**
 * The Redis store against a real redis-server of the test's own (tests/helpers/redis-server.ts),
 * through ioredis: the shared contract with time that moves for real, then what only it has: its
 * options checked when it is made, its keys under a prefix, a script the server lost, and a server
 * that fails (stopped, paused, or holding a key of another type) as a StoreUnavailableError.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisStore, type RedisClient } from '../../src/store/redis.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { findRedisServer, REDIS_SKIPPED, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { runStoreContract } from './contract.js';

const binary = findRedisServer();
if (binary === undefined) console.log(REDIS_SKIPPED);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.skipIf(binary === undefined)('redisStore', () => {
  let server: RedisServer;
  let client: Redis;
  let prefixes = 0;
  const freshPrefix = () => `test:${++prefixes}:`;

  beforeAll(async () => {
    server = await startRedisServer(binary!);
    client = new Redis({ port: server.port, host: '127.0.0.1' });
    // The failure tests stop the server on purpose: the connection errors ioredis reports are expected.
    client.on('error', () => {});
  }, 20_000);

  afterAll(async () => {
    client?.disconnect();
    await server?.close();
  });

  describe('the store contract', () => {
    runStoreContract(async () => ({ store: redisStore({ client, prefix: freshPrefix() }), advance: sleep }), { slackMs: 20 });
  });

  describe('options', () => {
    it.each([
      [{}, new TypeError("redisStore's client must be an ioredis client (new Redis() or new Cluster() from ioredis); it has no evalsha, eval, get, set, del")],
      [{ client: { get() {}, set() {}, del() {} } }, new TypeError("redisStore's client must be an ioredis client (new Redis() or new Cluster() from ioredis); it has no evalsha, eval")],
      [{ client: 'redis://127.0.0.1' }, new TypeError("redisStore's client must be an ioredis client (new Redis() or new Cluster() from ioredis); it has no evalsha, eval, get, set, del")],
      [{ client: 'CLIENT', timout: 100 }, new TypeError('redisStore has no option "timout"; its options are client, prefix and timeout')],
      [{ client: 'CLIENT', prefix: 1 }, new TypeError("redisStore's prefix must be a string; it is number")],
      [{ client: 'CLIENT', timeout: 0 }, new RangeError("redisStore's timeout must be a number of milliseconds above 0; it is 0")],
      [{ client: 'CLIENT', timeout: Number.POSITIVE_INFINITY }, new RangeError("redisStore's timeout must be a number of milliseconds above 0; it is Infinity")],
    ])('refuses %o when it is made', (options, error) => {
      const given = (options as { client?: unknown }).client === 'CLIENT' ? { ...options, client } : options;
      expect(() => redisStore(given as never)).toThrow(error);
    });

    it.each([undefined, null, 'redis://127.0.0.1'])('refuses %s for options with a sentence naming client', (options) => {
      expect(() => redisStore(options as never)).toThrow(new TypeError('redisStore takes { client, prefix?, timeout? }, with client an ioredis client'));
    });

    it("refuses a timeout of '100' (a string)", () => {
      expect(() => redisStore({ client, timeout: '100' as never })).toThrow(new RangeError("redisStore's timeout must be a number of milliseconds above 0; it is 100"));
    });

    it('takes an ioredis client as its type says, with no cast', () => {
      const typed: RedisClient = client;
      expect(typed).toBe(client);
    });
  });

  describe('keys', () => {
    it('keeps every key under restcanon: unless told otherwise, and under the given prefix when told', async () => {
      await redisStore({ client }).set('plain', 'v', 60_000);
      expect(await client.get('restcanon:plain')).toBe('v');
      await redisStore({ client, prefix: 'orders-api:' }).hit('rate', 60_000, 2);
      expect(await client.get('orders-api:rate')).toBe('2');
      expect(await client.pttl('orders-api:rate')).toBeGreaterThan(59_000);
      expect(await client.get('rate')).toBeNull();
    });

    it('gives a hit key that was left without an expiry the window, rather than counting it for ever', async () => {
      const prefix = freshPrefix();
      await client.set(`${prefix}rate`, '7');
      const hit = await redisStore({ client, prefix }).hit('rate', 60_000);
      expect(hit).toEqual({ count: 8, resetMs: 60_000 });
      expect(await client.pttl(`${prefix}rate`)).toBeGreaterThan(59_000);
    });
  });

  describe('scripts', () => {
    it('sends a script again in full when the server no longer has it (SCRIPT FLUSH)', async () => {
      const store = redisStore({ client, prefix: freshPrefix() });
      expect(await store.setIfAbsent('k', 'first', 60_000)).toBeUndefined();
      await client.script('FLUSH');
      expect(await store.setIfAbsent('k', 'second', 60_000)).toBe('first');
      await client.script('FLUSH');
      expect((await store.hit('rate', 60_000)).count).toBe(1);
      expect((await store.hit('rate', 60_000)).count).toBe(2);
    });
  });

  describe('round trips', () => {
    /** How many calls of each command the server counted since `CONFIG RESETSTAT`. */
    async function calls(): Promise<Record<string, number>> {
      const info = await client.info('commandstats');
      return Object.fromEntries([...info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)].map((match) => [match[1]!, Number(match[2])]));
    }

    it('sends each operation as one command, a script by its SHA1 once the server has it, and never sends a failed one again', async () => {
      const prefix = freshPrefix();
      const store = redisStore({ client, prefix });
      await store.setIfAbsent('warm', 'v', 60_000);
      await store.hit('warm-rate', 60_000);
      await client.hset(`${prefix}hash`, 'field', 'value');
      await client.config('RESETSTAT');
      await store.setIfAbsent('k', 'v', 60_000);
      await store.setIfAbsent('k', 'w', 60_000);
      await store.hit('rate', 60_000);
      await store.get('k');
      await store.set('k', 'x', 60_000);
      await store.delete('k');
      await expect(store.hit('hash', 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(store.setIfAbsent('hash', 'v', 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      // Commands a script runs count too, so only the scripts' own calls are compared.
      const counted = await calls();
      expect({ evalsha: counted.evalsha, eval: counted.eval }).toEqual({ evalsha: 5, eval: undefined });
    });
  });

  describe('a client that answers what no store can', () => {
    /** A client whose every command resolves `reply`: what a store must refuse to pass on. */
    const answering = (reply: unknown): RedisClient => {
      const resolve = async () => reply;
      return { evalsha: resolve, eval: resolve, get: resolve as RedisClient['get'], set: resolve, del: resolve as RedisClient['del'] };
    };

    it.each([
      ['a number for get and setIfAbsent', 42, ['get', 'setIfAbsent']],
      ['an array of one', [1], ['hit']],
      ['an array of three', [1, 2, 3], ['hit']],
      ['an array of strings', ['1', '2'], ['hit']],
      ['a count beyond 2^53', [2 ** 53, 10], ['hit']],
      ['a window that is no integer', [1, 0.5], ['hit']],
      ['an object', { count: 1, resetMs: 10 }, ['hit', 'set', 'delete', 'get']],
      ['a string other than OK', 'QUEUED', ['set', 'delete']],
      ['a count as a string', '1', ['delete']],
    ])('rejects %s with a StoreUnavailableError', async (_name, reply, methods) => {
      const store = redisStore({ client: answering(reply) });
      const calls: Record<string, () => Promise<unknown>> = {
        get: () => store.get('k'),
        setIfAbsent: () => store.setIfAbsent('k', 'v', 1_000),
        set: () => store.set('k', 'v', 1_000),
        delete: () => store.delete('k'),
        hit: () => store.hit('k', 1_000),
      };
      for (const method of methods as string[]) {
        await expect(calls[method]!(), method).rejects.toThrow(new StoreUnavailableError('the Redis store answered something a store cannot'));
      }
    });

    it('passes on what a store can answer: null as undefined, OK, a count of deleted keys, a pair of counts', async () => {
      expect(await redisStore({ client: answering(null) }).get('k')).toBeUndefined();
      expect(await redisStore({ client: answering(null) }).setIfAbsent('k', 'v', 1_000)).toBeUndefined();
      expect(await redisStore({ client: answering('OK') }).set('k', 'v', 1_000)).toBeUndefined();
      expect(await redisStore({ client: answering(0) }).delete('k')).toBeUndefined();
      expect(await redisStore({ client: answering([3, 999]) }).hit('k', 1_000)).toEqual({ count: 3, resetMs: 999 });
    });
  });

  describe('a server that fails', () => {
    it('rejects with a StoreUnavailableError, with the reply as its cause, when a key holds another type (WRONGTYPE)', async () => {
      const prefix = freshPrefix();
      await client.hset(`${prefix}k`, 'field', 'value');
      const store = redisStore({ client, prefix });
      const error = await store.get('k').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/^the Redis store failed: WRONGTYPE/);
      expect((error as Error).cause).toBeInstanceOf(Error);
      await expect(store.setIfAbsent('k', 'v', 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    });

    it('rejects with a StoreUnavailableError once the timeout passes while the server does not answer (CLIENT PAUSE)', async () => {
      const other = new Redis({ port: server.port, host: '127.0.0.1' });
      try {
        const store = redisStore({ client, prefix: freshPrefix(), timeout: 50 });
        await store.set('k', 'v', 60_000);
        await other.call('CLIENT', 'PAUSE', '400', 'ALL');
        const started = Date.now();
        await expect(store.get('k')).rejects.toThrow(new StoreUnavailableError('the store did not answer within 50 ms'));
        await expect(store.hit('rate', 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(350);
        await other.call('CLIENT', 'UNPAUSE');
        expect(await store.get('k')).toBe('v');
      } finally {
        other.disconnect();
      }
    });

    it('gives an operation 500 ms unless told otherwise', async () => {
      const other = new Redis({ port: server.port, host: '127.0.0.1' });
      try {
        const store = redisStore({ client, prefix: freshPrefix() });
        await store.set('k', 'v', 60_000);
        await other.call('CLIENT', 'PAUSE', '700', 'ALL');
        const started = Date.now();
        await expect(store.get('k')).rejects.toThrow(new StoreUnavailableError('the store did not answer within 500 ms'));
        expect(Date.now() - started).toBeGreaterThanOrEqual(490);
        await other.call('CLIENT', 'UNPAUSE');
        expect(await store.get('k')).toBe('v');
      } finally {
        other.disconnect();
      }
    });

    it('rejects every operation with a StoreUnavailableError while Redis is stopped, and works again once it is back', async () => {
      const own = new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: 1 });
      const reported: Error[] = [];
      own.on('error', (error: Error) => reported.push(error));
      try {
        const store = redisStore({ client: own, prefix: freshPrefix(), timeout: 300 });
        expect(await store.setIfAbsent('idem', 'running', 60_000)).toBeUndefined();
        await server.stop();
        const attempts = await Promise.allSettled([store.setIfAbsent('idem', 'x', 60_000), store.get('idem'), store.set('k', 'v', 60_000), store.delete('k'), store.hit('rate', 60_000)]);
        for (const attempt of attempts) {
          expect(attempt.status).toBe('rejected');
          expect((attempt as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
        }
        await server.start();
        // The restarted server kept nothing (no save, no append-only file), scripts included.
        let back: string | undefined | Error = new Error('not yet');
        for (let tries = 0; tries < 100 && back instanceof Error; tries++) {
          back = await store.setIfAbsent('idem', 'after', 60_000).catch((error: Error) => error);
          if (back instanceof Error) await sleep(50);
        }
        expect(back).toBeUndefined();
        expect((await store.hit('rate', 60_000)).count).toBe(1);
        expect(reported.length).toBeGreaterThan(0);
      } finally {
        own.disconnect();
      }
    }, 20_000);
  });
});
