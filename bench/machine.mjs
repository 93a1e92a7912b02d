/**
 * The machine a benchmark ran on, and CPU pinning, shared by every benchmark under bench/.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

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

/**
 * One line describing the machine, for the top of every results table. It counts every CPU of the
 * machine (`os.cpus()`), not the ones this process may run on: a benchmark that re-ran itself pinned
 * to one CPU describes the same machine as the process that started it.
 */
export function describeMachine() {
  return `${cpuModel()}, ${cpus().length} CPUs, Node ${process.version}, ${CAN_PIN ? 'taskset available' : 'no taskset: workers not pinned'}`;
}

/**
 * Runs the calling benchmark again, pinned to one CPU, and exits with its status: for a process that
 * must stay off the CPU its servers are pinned to (the HTTP load generator goes to CPU 1, the servers
 * to CPU 0). Returns at once, doing nothing, without `taskset` or when already pinned.
 *
 * @example
 * rerunPinned(1, import.meta.url); // the rest of the module runs on CPU 1
 *
 * @param {number} cpu
 * @param {string} moduleUrl the benchmark's `import.meta.url`
 */
export function rerunPinned(cpu, moduleUrl) {
  if (!CAN_PIN || process.env.BENCH_PINNED_CPU === String(cpu)) return;
  const child = spawnSync('taskset', ['-c', String(cpu), process.execPath, ...process.execArgv, fileURLToPath(moduleUrl), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_PINNED_CPU: String(cpu) },
  });
  process.exit(child.status ?? 1);
}
