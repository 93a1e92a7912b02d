/**
 * restcanon/redis: the store of several instances, on one Redis primary through an ioredis client
 * (a `Redis` or a `Cluster`) the application makes and owns. Every operation is one command or one
 * Lua script, so one round trip, and atomic: Redis runs a script to its end before any other
 * command. A script is sent by its SHA1 (EVALSHA) and, when the server does not have it yet
 * (NOSCRIPT: a new server, a restart, SCRIPT FLUSH), once in full (EVAL), which also keeps it there.
 */
import { createHash } from 'node:crypto';
import { checkCost, checkDuration, checkText } from './checks.js';
import { StoreUnavailableError, withTimeout, type Hit, type Store } from './store.js';

/** Milliseconds a Redis operation may take before it rejects, when `timeout` is not given. */
const DEFAULT_REDIS_TIMEOUT = 500;
/** What every key starts with, when `prefix` is not given. */
const DEFAULT_REDIS_PREFIX = 'restcanon:';

/**
 * The commands the store sends, as an ioredis client (5.x or 6.x, `Redis` or `Cluster`) has them:
 * the store's types name no type of ioredis, so that restcanon/redis loads and type-checks without it.
 */
export interface RedisClient {
  evalsha(sha1: string, numkeys: number, ...args: string[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...args: string[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, millisecondsToken: 'PX', milliseconds: number): Promise<unknown>;
  del(key: string): Promise<number>;
}

/** The options of {@link redisStore}. */
export interface RedisStoreOptions {
  /** A connected (or connecting) ioredis client; the application closes it. */
  readonly client: RedisClient;
  /** What every key starts with, so that the store's keys stay apart from others. Default `restcanon:`. */
  readonly prefix?: string;
  /** Milliseconds an operation may take before it rejects with a StoreUnavailableError. Default 500. */
  readonly timeout?: number;
}

/** One Lua script, sent by its SHA1 once the server has it. */
interface Script {
  readonly lua: string;
  readonly sha: string;
}

function script(lua: string): Script {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/** SET NX PX, else GET: the held value, or nil when this call set it. */
const SET_IF_ABSENT = script(`if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1])`);

/**
 * The window's time to live read before the count, so that only a key that had none (new, or left
 * without an expiry) gets the window; INCRBY fails on a value that is not a count and changes nothing.
 */
const HIT = script(`local ttl = redis.call('PTTL', KEYS[1])
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`);

/** What a reader gives back for a reply of the wrong shape. */
const UNREADABLE: unique symbol = Symbol('unreadable');
const OPTIONS = new Set(['client', 'prefix', 'timeout']);
const COMMANDS = ['evalsha', 'eval', 'get', 'set', 'del'] as const;

function checkOptions(options: RedisStoreOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('redisStore takes { client, prefix?, timeout? }, with client an ioredis client');
  for (const name of Object.keys(options)) {
    if (!OPTIONS.has(name)) throw new TypeError(`redisStore has no option "${name}"; its options are client, prefix and timeout`);
  }
  const client = options.client as unknown as Record<string, unknown> | undefined;
  const missing = COMMANDS.filter((command) => typeof client?.[command] !== 'function');
  if (missing.length > 0) {
    throw new TypeError(`redisStore's client must be an ioredis client (new Redis() or new Cluster() from ioredis); it has no ${missing.join(', ')}`);
  }
  if (options.prefix !== undefined && typeof options.prefix !== 'string') throw new TypeError(`redisStore's prefix must be a string; it is ${typeof options.prefix}`);
  const { timeout } = options;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout > 0)) {
    throw new RangeError(`redisStore's timeout must be a number of milliseconds above 0; it is ${String(timeout)}`);
  }
}

function unavailable(error: unknown): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`the Redis store failed: ${reason}`, { cause: error });
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * The store of several instances, on Redis through an ioredis client. Keys go under `prefix`; an
 * operation that fails or takes longer than `timeout` rejects with a StoreUnavailableError (whether
 * a write that timed out took place is then unknown: it may still reach Redis).
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { redisStore } from 'restcanon/redis';
 *
 * const store = redisStore({ client: new Redis(process.env.REDIS_URL), prefix: 'orders-api:', timeout: 200 });
 * const { count } = await store.hit('rate:203.0.113.9', 60_000);
 */
export function redisStore(options: RedisStoreOptions): Store {
  checkOptions(options);
  const { client } = options;
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  const timeout = options.timeout ?? DEFAULT_REDIS_TIMEOUT;

  async function run(code: Script, key: string, ...args: string[]): Promise<unknown> {
    try {
      return await client.evalsha(code.sha, 1, prefix + key, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(code.lua, 1, prefix + key, ...args);
    }
  }

  /** `operation` within the timeout, its failures as StoreUnavailableErrors, its reply checked by `read`. */
  async function call<Reply>(operation: () => Promise<unknown>, read: (reply: unknown) => Reply | typeof UNREADABLE): Promise<Reply> {
    let reply: unknown;
    try {
      reply = await withTimeout(operation(), timeout);
    } catch (error) {
      throw unavailable(error);
    }
    const value = read(reply);
    if (value === UNREADABLE) throw new StoreUnavailableError('the Redis store answered something a store cannot');
    return value;
  }

  const optionalText = (reply: unknown) => (reply === null ? undefined : typeof reply === 'string' ? reply : UNREADABLE);

  return {
    async setIfAbsent(key, value, ttlMs) {
      checkText('key', key);
      checkText('value', value);
      checkDuration('ttlMs', ttlMs);
      return call(() => run(SET_IF_ABSENT, key, value, String(ttlMs)), optionalText);
    },
    async get(key) {
      checkText('key', key);
      return call(() => client.get(prefix + key), optionalText);
    },
    async set(key, value, ttlMs) {
      checkText('key', key);
      checkText('value', value);
      checkDuration('ttlMs', ttlMs);
      await call(() => client.set(prefix + key, value, 'PX', ttlMs), (reply) => (reply === 'OK' ? undefined : UNREADABLE));
    },
    async delete(key) {
      checkText('key', key);
      await call(() => client.del(prefix + key), (reply) => (isCount(reply) ? undefined : UNREADABLE));
    },
    async hit(key, windowMs, cost = 1): Promise<Hit> {
      checkText('key', key);
      checkDuration('windowMs', windowMs);
      checkCost(cost);
      return call(
        () => run(HIT, key, String(windowMs), String(cost)),
        (reply) => (Array.isArray(reply) && reply.length === 2 && isCount(reply[0]) && isCount(reply[1]) ? { count: reply[0], resetMs: reply[1] } : UNREADABLE),
      );
    },
  };
}
