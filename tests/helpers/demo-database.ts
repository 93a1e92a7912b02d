/**
 * The demo's database in tests: one PGlite per test file (or the Postgres server DATABASE_URL
 * names), emptied and filled again where a test needs the demo's first data; a database that is
 * down, whose every statement fails; one whose first write waits until a test lets it go; and a
 * store that is down.
 */
import type { Store } from '../../src/store/store.js';
import { openDemoDatabase, resetDemoData } from '../../examples/demo-api.mjs';

/** Opening PGlite starts Postgres inside the process: hooks that do it get this long. */
export const OPEN_TIMEOUT = 120_000;

/** A database whose every statement fails, as one that is down does. */
export function downDatabase(): Awaited<ReturnType<typeof openDemoDatabase>> {
  const down = () => Promise.reject(new Error('the database is down'));
  return { kind: 'down', query: down, exec: down, close: async () => {} } as never;
}

/** The demo's database, but its first write (an insert, update or delete) waits for `release()`; `reached` resolves when it arrives. */
export function heldDatabase(db: Awaited<ReturnType<typeof openDemoDatabase>>): { db: typeof db; reached: Promise<void>; release(): void } {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const query = async (text: string, params?: unknown[]) => {
    // A write of its own, or in a CTE (a create that announces the order it writes).
    if (!held && /^\s*(?:with \w+ as \(\s*)?(insert|update|delete)\b/i.test(text)) {
      held = true;
      arrive();
      await gate;
    }
    return db.query(text, params);
  };
  return { db: { ...db, query } as typeof db, reached, release };
}

/** A store whose every call fails, as a Redis that is down does. */
export function downStore(): Store {
  const down = () => Promise.reject(new Error('the store is down'));
  return { setIfAbsent: down, get: down, set: down, delete: down, hit: down };
}

export { openDemoDatabase, resetDemoData };
