/**
 * The time a request may take: every running request of an API holds a deadline, and one that is
 * still running when it falls due is answered for.
 */

/** Something that runs until a deadline: the runtime's requests, which carry their own place in the line. */
export interface Timed {
  /** When it falls due, on the clock of `performance.now()`; set by {@link Deadlines.add}. */
  dueAt: number;
  /** The entries set before and after it, while it is in the line. */
  older: Timed | undefined;
  newer: Timed | undefined;
}

/** The deadlines of one API's running requests. */
export interface Deadlines<Entry extends Timed> {
  /** Starts the entry's time. */
  add(entry: Entry): void;
  /** The entry finished in time (or was answered already: then nothing happens). */
  delete(entry: Entry): void;
  /**
   * Someone in this process awaits an answer (`api.handle` in a script or a unit test): until as many
   * `release` calls, the timer keeps the process alive, so that the deadline's answer arrives.
   */
  hold(): void;
  release(): void;
}

/**
 * Deadlines of one length. The order they are set in is the order they fall due in, so the entries
 * wait in one line, oldest first, and one timer, set for the oldest, serves them all: a request
 * costs two links in the line rather than a timer, a promise and closures of its own. The clock is
 * monotonic: a change of the system time neither holds a request past its deadline nor times every
 * request out at once.
 *
 * @example
 * const deadlines = createDeadlines(30_000, (request) => answerTimedOut(request));
 * deadlines.add(request); // ...and deadlines.delete(request) once it is answered
 */
export function createDeadlines<Entry extends Timed>(milliseconds: number, expire: (entry: Entry) => void): Deadlines<Entry> {
  let oldest: Timed | undefined;
  let newest: Timed | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let holders = 0;
  function remove(entry: Timed): void {
    if (entry.older === undefined) oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = entry.newer = undefined;
  }
  function sweep(): void {
    timer = undefined;
    const now = performance.now();
    const due: Timed[] = [];
    while (oldest !== undefined && oldest.dueAt <= now) {
      due.push(oldest);
      remove(oldest);
    }
    if (oldest !== undefined) arm(oldest.dueAt - now);
    // Answered after the next timer is set, so that whatever an answer starts finds the line in order.
    for (const entry of due) {
      try {
        expire(entry as Entry);
      } catch {
        // One request that fails to time out must not keep the others from it, nor throw in a timer.
      }
    }
  }
  function arm(delay: number): void {
    timer = setTimeout(sweep, delay);
    // Unless someone awaits an answer, the timer alone must not keep a process alive: a server keeps
    // it alive while it serves, and a script whose requests are answered exits when it is done.
    if (holders === 0) (timer as { unref?: () => void }).unref?.();
  }
  return {
    add(entry) {
      entry.dueAt = performance.now() + milliseconds;
      entry.older = newest;
      if (newest === undefined) oldest = entry;
      else newest.newer = entry;
      newest = entry;
      if (timer === undefined) arm(milliseconds);
    },
    delete(entry) {
      if (entry.older !== undefined || entry.newer !== undefined || oldest === entry) remove(entry);
    },
    hold() {
      if (holders++ === 0) (timer as { ref?: () => void } | undefined)?.ref?.();
    },
    release() {
      if (--holders === 0) (timer as { unref?: () => void } | undefined)?.unref?.();
    },
  };
}
