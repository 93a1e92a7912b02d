/**
 * The time a request may take: every running request of an API holds a deadline, and one that is
 * still running when it falls due is answered for.
 */

/** A request still running, and what answers it if its time runs out first. */
interface Deadline {
  readonly at: number;
  readonly expire: () => void;
}

/** The deadlines of one API's running requests. */
export interface Deadlines {
  /** `running`, or what `expired` answers if the time runs out first. */
  race<T>(running: Promise<T>, expired: () => T): Promise<T>;
}

/**
 * Deadlines of one length. The order they are set in is the order they fall due in, so one timer,
 * set for the oldest, serves them all, and a request costs a set entry rather than a timer and a
 * `Promise.race` of its own.
 *
 * @example
 * const deadlines = createDeadlines(30_000);
 * const response = await deadlines.race(running, () => timedOutResponse());
 */
export function createDeadlines(milliseconds: number): Deadlines {
  const pending = new Set<Deadline>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  function sweep(): void {
    timer = undefined;
    const now = Date.now();
    for (const deadline of pending) {
      if (deadline.at > now) {
        arm(deadline.at - now);
        return;
      }
      pending.delete(deadline);
      deadline.expire();
    }
  }
  function arm(delay: number): void {
    timer = setTimeout(sweep, delay);
    // The timer alone must not keep a process alive: a script that made one request exits when it is done.
    (timer as { unref?: () => void }).unref?.();
  }
  return {
    race: (running, expired) =>
      new Promise((resolve) => {
        const deadline: Deadline = { at: Date.now() + milliseconds, expire: () => resolve(expired()) };
        pending.add(deadline);
        if (timer === undefined) arm(milliseconds);
        // `running` never rejects: every failure of a request is already its answer.
        void running.then((response) => {
          pending.delete(deadline);
          resolve(response);
        });
      }),
  };
}
