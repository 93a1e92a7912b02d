/**
 * A real Postgres server for tests: Debian's `postgresql` started in a temporary data directory on a
 * free loopback port, without durability, and removed after. `initdb` refuses to run as root, so as
 * root the server runs as the `postgres` user.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = '/usr/lib/postgresql';

/** The folder of the newest Postgres binaries installed, or undefined. */
function binaries(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  const found = versions.map((version) => join(ROOT, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
  return found;
}

/** Why the Postgres tests are skipped here, or undefined when they can run. */
export const POSTGRES_MISSING = binaries() === undefined ? 'Debian\'s postgresql is not installed (apt-get install postgresql)' : undefined;

/** A server that runs: its connection URL, and how to stop it. */
export interface PostgresServer {
  readonly url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts a Postgres server of its own; `stop` shuts it down at once and removes its files.
 *
 * @example
 * const postgres = await startPostgres();
 * const db = await openDatabase({ url: postgres.url });
 * await postgres.stop();
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = binaries();
  if (bin === undefined) throw new Error(POSTGRES_MISSING);
  const dir = mkdtempSync(join(tmpdir(), 'restcanon-pg-'));
  const root = process.getuid?.() === 0;
  if (root) chownSync(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  const as = (command: string, args: string[]) => (root ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args]) : run(join(bin, command), args));
  const data = join(dir, 'data');
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  await as('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
