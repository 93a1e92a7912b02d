/**
 * The time a request may take: every running request of an API holds a deadline, and one that is
 * still running when it falls due is answered for.
 */

/** Something that runs until a deadline: the runtime's requests, which carry their own. */
export interface Timed {
  /** When it falls due, on the clock of `performance.now()`; set by {@link Deadlines.add}. */
  dueAt: number;
}

/** The deadlines of one API's running requests. */
export interface Deadlines<Entry extends Timed> {
  /** Starts the entry's time. */
  add(entry: Entry): void;
  /** The entry finished in time. */
  delete(entry: Entry): void;
}

/**
 * Deadlines of one length. The order they are set in is the order they fall due in, so one timer,
 * set for the oldest, serves them all, and a request costs a set entry rather than a timer, a
 * promise and closures of its own. The clock is monotonic: a change of the system time neither
 * holds a request past its deadline nor times every request out at once.
 *
 * @example
 * const deadlines = createDeadlines(30_000, (request) => answerTimedOut(request));
 * deadlines.add(request); // ...and deadlines.delete(request) once it is answered
 */
export function createDeadlines<Entry extends Timed>(milliseconds: number, expire: (entry: Entry) => void): Deadlines<Entry> {
  const pending = new Set<Entry>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  function sweep(): void {
    timer = undefined;
    const now = performance.now();
    const due: Entry[] = [];
    for (const entry of pending) {
      if (entry.dueAt > now) {
        arm(entry.dueAt - now);
        break;
      }
      pending.delete(entry);
      due.push(entry);
    }
    // Answered after the next timer is set, so that whatever an answer starts finds the set consistent.
    for (const entry of due) {
      try {
        expire(entry);
      } catch {
        // One request that fails to time out must not keep the others from it, nor throw in a timer.
      }
    }
  }
  function arm(delay: number): void {
    timer = setTimeout(sweep, delay);
    // The timer alone must not keep a process alive: a script that made one request exits when it is done.
    (timer as { unref?: () => void }).unref?.();
  }
  return {
    add(entry) {
      entry.dueAt = performance.now() + milliseconds;
      pending.add(entry);
      if (timer === undefined) arm(milliseconds);
    },
    delete(entry) {
      pending.delete(entry);
    },
  };
}
