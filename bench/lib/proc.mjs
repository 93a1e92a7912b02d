/**
 * CPU time of another process, from /proc/<pid>/stat (Linux): what a server spent, wherever the load
 * generator's limit is.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of utime/stime (`getconf CLK_TCK`, 100 on Linux almost everywhere). */
export const CLOCK_TICKS = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(answer.stdout?.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
})();

/** Whether /proc/<pid>/stat can be read here. */
export const HAS_PROC_STAT = (() => {
  try {
    readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    return true;
  } catch {
    return false;
  }
})();

/**
 * User plus system CPU time of a process (all its threads, GC included), in microseconds.
 *
 * @param {number} pid
 * @returns {number} NaN when /proc is not available
 */
export function processCpuMicros(pid) {
  if (!HAS_PROC_STAT) return Number.NaN;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / CLOCK_TICKS;
}
