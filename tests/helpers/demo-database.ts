/**
 * The demo's database in tests: one PGlite per test file (or the Postgres server DATABASE_URL
 * names), emptied and filled again where a test needs the demo's first data, and a database that is
 * down, whose every statement fails.
 */
import { openDemoDatabase, resetDemoData } from '../../examples/demo-api.mjs';

/** Opening PGlite starts Postgres inside the process: hooks that do it get this long. */
export const OPEN_TIMEOUT = 120_000;

/** A database whose every statement fails, as one that is down does. */
export function downDatabase(): Awaited<ReturnType<typeof openDemoDatabase>> {
  const down = () => Promise.reject(new Error('the database is down'));
  return { kind: 'down', query: down, exec: down, close: async () => {} } as never;
}

export { openDemoDatabase, resetDemoData };
