#!/usr/bin/env node
/**
 * Long fuzz runs: the properties of tests/fuzz with a random seed, for a time instead of a fixed
 * number of runs. Prints the seed first, then the requests each target tried and, for a failure,
 * the command that replays it.
 *
 *   npm run fuzz                                  # 60 s over every target, a random seed
 *   npm run fuzz -- --duration 600 --adapter fastify
 *   npm run fuzz -- --adapter node --seed 123 --path "41:2:0"   # replay a failure
 *
 * Targets: handle (api.handle in memory), node, express5, express4, fastify, fetch; or all.
 * It runs vitest on tests/fuzz with FUZZ_* variables, which tests/fuzz/settings.ts reads.
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const TARGETS = ['handle', 'node', 'express5', 'express4', 'fastify', 'fetch'];
const USAGE = `usage: node scripts/fuzz.mjs [--duration <seconds>] [--adapter <${TARGETS.join('|')}|all>] [--seed <n>] [--path <path>]`;

function fail(message) {
  console.error(`fuzz: ${message}\n${USAGE}`);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      duration: { type: 'string', default: '60' },
      adapter: { type: 'string', default: 'all' },
      seed: { type: 'string' },
      path: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  fail(error.message);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}

const duration = Number(options.duration);
if (!Number.isFinite(duration) || duration <= 0) fail(`--duration must be a number of seconds above 0, got "${options.duration}"`);
const targets = options.adapter === 'all' ? TARGETS : options.adapter.split(',');
for (const target of targets) if (!TARGETS.includes(target)) fail(`unknown adapter "${target}"`);
const seed = options.seed === undefined ? randomInt(2 ** 31 - 1) : Number(options.seed);
if (!Number.isSafeInteger(seed)) fail(`--seed must be an integer, got "${options.seed}"`);
if (options.path !== undefined && targets.length !== 1) fail('--path replays one counterexample: give one --adapter with it');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitest = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
const reportDirectory = mkdtempSync(path.join(tmpdir(), 'restcanon-fuzz-'));
const reportFile = path.join(reportDirectory, 'report.jsonl');

console.log(`fuzz: seed ${seed}, ${duration} s over ${targets.join(', ')}`);
const env = {
  ...process.env,
  FUZZ_SEED: String(seed),
  FUZZ_DURATION: String(duration),
  FUZZ_TARGET: targets.join(','),
  FUZZ_REPORT: reportFile,
};
if (options.path !== undefined) env.FUZZ_PATH = options.path;

const child = spawn(process.execPath, [vitest, 'run', 'tests/fuzz'], { cwd: root, env, stdio: 'inherit' });
const exitCode = await new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal === null ? 1 : 128))));

const lines = existsSync(reportFile) ? readFileSync(reportFile, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
rmSync(reportDirectory, { recursive: true, force: true });

console.log(`\nfuzz: seed ${seed}`);
console.log(['target'.padEnd(10), 'requests'.padStart(10), 'runs'.padStart(8), '  result'].join(''));
for (const target of targets) {
  const line = lines.find((entry) => entry.target === target);
  const result = line === undefined ? 'no report (see the vitest output)' : line.failed ? 'FAILED' : 'ok';
  console.log([target.padEnd(10), String(line?.requests ?? '-').padStart(10), String(line?.runs ?? '-').padStart(8), `  ${result}`].join(''));
}
for (const line of lines.filter((entry) => entry.failed)) {
  const replay = `node scripts/fuzz.mjs --adapter ${line.target} --seed ${line.seed}${line.counterexamplePath ? ` --path "${line.counterexamplePath}"` : ''}`;
  console.log(`\n${line.target} failed with seed ${line.seed}. Replay: ${replay}\n${line.message ?? ''}`);
}
process.exit(exitCode === 0 && lines.every((entry) => !entry.failed) ? 0 : exitCode || 1);
