/**
 * The machine a benchmark ran on, and CPU pinning, shared by every benchmark under bench/.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** @returns {string} the CPU model from /proc/cpuinfo, or 'unknown' off Linux */
function cpuModel() {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('model name'));
    return line === undefined ? 'unknown' : line.slice(line.indexOf(':') + 1).trim();
  } catch {
    return 'unknown';
  }
}

/** True when `taskset` exists and may pin to CPU 0. */
export const CAN_PIN = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;

/**
 * Spawn arguments that run `node <args>` pinned to one CPU when `taskset` exists.
 *
 * @example
 * const [command, args] = pinnedNode(['bench/router/worker.mjs', 'restcanon']);
 * spawnSync(command, args);
 *
 * @param {string[]} nodeArgs
 * @param {number} [cpu]
 * @returns {[string, string[]]}
 */
export function pinnedNode(nodeArgs, cpu = 0) {
  return CAN_PIN ? ['taskset', ['-c', String(cpu), process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
}

/** One line describing the machine, for the top of every results table. */
export function describeMachine() {
  return `${cpuModel()}, nproc ${availableParallelism()}, Node ${process.version}, ${CAN_PIN ? 'taskset available' : 'no taskset: workers not pinned'}`;
}
