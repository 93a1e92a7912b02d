/**
 * The probe's progress bar, on standard error, redrawn in place; only on a terminal, so that a log or
 * a pipe gets the report alone.
 */

/**
 * One line of the bar: `[########------------] 12/40 GET /users/1`.
 *
 * @example
 * progressLine(1, 4, 'GET /users', 8); // '[##------]  1/4  GET /users'
 */
export function progressLine(done: number, total: number, label: string, width = 24): string {
  const share = total === 0 ? 1 : Math.min(1, done / total);
  const filled = Math.round(share * width);
  const count = `${String(done).padStart(String(total).length)}/${total}`;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count}  ${label}`;
}

/**
 * A progress bar over a stream: `update` redraws it, `done` clears it. On a stream that is not a
 * terminal it writes nothing.
 *
 * @example
 * const bar = createProgress(process.stderr);
 * bar.update(3, 40, 'GET /users/1');
 * bar.done();
 */
export function createProgress(stream: { isTTY?: boolean; columns?: number; write(text: string): unknown }): { update(done: number, total: number, label: string): void; done(): void } {
  if (stream.isTTY !== true) return { update: () => {}, done: () => {} };
  const columns = Math.max(40, stream.columns ?? 80);
  let drawn = false;
  return {
    update(done, total, label) {
      const line = progressLine(done, total, label).slice(0, columns - 1);
      stream.write(`\r\u001b[2K${line}`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\r\u001b[2K');
      drawn = false;
    },
  };
}
