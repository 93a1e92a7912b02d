/**
 * A Redis server of the test's own: Debian's `redis-server` on a free loopback port, keeping nothing
 * on disk (`--save ''`, `--appendonly no`). `stop()` and `start()` take it down and bring it back on
 * the same port mid-test, as a failed and restarted server; `close()` ends it for good.
 *
 * Without `redis-server` on the PATH, `findRedisServer()` gives undefined and the Redis tests skip,
 * printing REDIS_SKIPPED.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { delimiter, join } from 'node:path';

export const REDIS_SKIPPED = 'Redis tests skipped: redis-server is not installed; install it with `apt-get install -y redis-server` (Debian) to run tests/store/redis.test.ts and the Redis properties';

/** The redis-server binary on the PATH, if any. */
export function findRedisServer(): string | undefined {
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(folder, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

export interface RedisServer {
  readonly port: number;
  /** Ends the server as a failure would, and resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port, and resolves once it answers PING. */
  start(): Promise<void>;
  /** Ends it for good. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once a server on `port` answers PING with PONG, or rejects after `ms`. */
async function answers(port: number, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const pong = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      let reply = '';
      socket.setTimeout(500, () => socket.destroy());
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (chunk) => {
        reply += chunk.toString('latin1');
        if (reply.includes('\r\n')) socket.end();
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve(reply.startsWith('+PONG')));
    });
    if (pong) return;
    if (Date.now() > until) throw new Error(`redis-server on port ${port} did not answer PING within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts a Redis server on a free loopback port and resolves once it answers.
 *
 * @example
 * const redis = await startRedisServer(binary);
 * const client = new Redis({ port: redis.port, host: '127.0.0.1' });
 * afterAll(() => redis.close());
 */
export async function startRedisServer(binary: string): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const ending = () => child?.kill('SIGKILL');
  process.once('exit', ending);

  async function start(): Promise<void> {
    if (child !== undefined) return;
    const started = spawn(binary, ['--save', '', '--appendonly', 'no', '--port', String(port), '--bind', '127.0.0.1'], { stdio: 'ignore' });
    child = started;
    started.once('exit', () => {
      if (child === started) child = undefined;
    });
    await answers(port);
  }

  async function stop(): Promise<void> {
    const running = child;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    port,
    start,
    stop,
    async close() {
      await stop();
      process.removeListener('exit', ending);
    },
  };
}
