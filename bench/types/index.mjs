/**
 * Types benchmark: what the same generated API and a client calling every endpoint cost the
 * TypeScript checker, on restcanon and on the stacks with a typed client a user would pick instead
 * (Hono RPC, ts-rest, Elysia + Eden). See generate.mjs for the API and each stack's code.
 *
 * 1. The projects are written under bench/types/.generated/ (git-ignored; TypeScript's implicit
 *    globs skip folders whose name starts with a dot, so the repository's tsconfig.json does not
 *    include them, and vitest only collects tests/**). restcanon's declarations are read from the
 *    run's copy of dist/ (lib/dist.mjs), copied beside the projects so that their imports
 *    (type-fest) resolve; the client is measured when that build has `client.d.ts`, and the results
 *    say when it has not.
 * 2. Gate: each stack's smallest project, with gate.ts (mistakes under `@ts-expect-error`: the
 *    narrowed body of a success is the item, a 404 has none, a wrong create body is refused, a nested
 *    item carries its parent's id), must check without a single diagnostic, which proves that its
 *    types are not `any`. A gate that fails stops the run.
 * 3. Rounds: `tsc --noEmit --extendedDiagnostics -p <project>` per stack and size, one process each,
 *    pinned to CPU 0 with taskset where it exists, in the order of the table and reversed in the
 *    next round. Instantiations and types are deterministic (a run that disagrees is reported);
 *    check time and memory are the median of the rounds.
 * 4. Diagnostics: any error stops the run (exit 1, nothing written), except for a peer at the
 *    largest size, 800 endpoints, whose errors are a finding the results report, diagnostics and all.
 *
 * 5. A peer that breaks is bisected, in steps of one resource, between the largest size that checked
 *    and the first that failed (BENCH_TYPES_BISECT=0 skips it).
 *
 * Env: BENCH_ROUNDS (default 3), BENCH_TYPES_STACKS (a comma list of generate.mjs stacks; restcanon is
 * always added), BENCH_TYPES_SIZES (a comma list of endpoint counts, multiples of 5), both of which
 * leave bench/results/ alone, and BENCH_TYPES_TIMEOUT_SECONDS (per tsc run, default 1800).
 *
 *   npm run bench -- types
 *   node bench/types/index.mjs
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { snapshotDist } from '../lib/dist.mjs';
import { envList, envNumber } from '../lib/env.mjs';
import { createReport, isOtherBuild } from '../lib/report.mjs';
import { fixed, median, thousands, times } from '../lib/stats.mjs';
import { CAN_PIN, pinnedNode } from '../machine.mjs';
import { describeVersion, packageJson } from '../peers/versions.mjs';
import { STACKS, writeProject } from './generate.mjs';

const GENERATED = fileURLToPath(new URL('./.generated/', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/lib/tsc.js');
const DEFAULT_SIZES = [25, 100, 200, 800];
const LARGEST = 800;

const rounds = envNumber('BENCH_ROUNDS', 3);
const timeoutSeconds = envNumber('BENCH_TYPES_TIMEOUT_SECONDS', 1800);
const stackFilter = envList('BENCH_TYPES_STACKS');
const sizes = envList('BENCH_TYPES_SIZES')?.map(Number) ?? DEFAULT_SIZES;
for (const name of stackFilter ?? []) {
  if (!STACKS.includes(name)) {
    console.error(`BENCH_TYPES_STACKS: no stack "${name}"; the stacks are: ${STACKS.join(', ')}`);
    process.exit(2);
  }
}
for (const size of sizes) {
  if (!Number.isInteger(size / 5) || size <= 0) {
    console.error(`BENCH_TYPES_SIZES: ${size} is not a positive multiple of 5`);
    process.exit(2);
  }
}
const stacks = stackFilter === undefined ? STACKS : STACKS.filter((stack) => stack === 'restcanon' || stackFilter.includes(stack));

const dist = snapshotDist();
const withClient = existsSync(join(dist, 'client.d.ts'));
const report = createReport('types', {
  RESTCANON_DIST: isOtherBuild(),
  BENCH_TYPES_STACKS: stackFilter !== undefined,
  BENCH_TYPES_SIZES: envList('BENCH_TYPES_SIZES') !== undefined,
});

const LABELS = {
  schemas: 'zod schemas and tables only (in every project)',
  restcanon: withClient ? 'restcanon + restcanon/client' : 'restcanon (server only: no restcanon/client in this build)',
  hono: 'Hono + @hono/zod-validator + hc',
  'ts-rest': 'ts-rest contract + @ts-rest/express + initClient',
  elysia: 'Elysia (zod) + Eden treaty',
};

/** A peer's errors at the largest size are a finding; anything else stops the run. */
const mayBreak = (stack, endpoints) => stack !== 'restcanon' && stack !== 'schemas' && endpoints >= LARGEST;

// The projects --------------------------------------------------------------------------------

rmSync(GENERATED, { recursive: true, force: true });
const declarations = join(GENERATED, 'restcanon-dist');
mkdirSync(declarations, { recursive: true });
for (const file of readdirSync(dist)) if (file.endsWith('.d.ts')) cpSync(join(dist, file), join(declarations, file));
const projectOptions = { restcanonDist: declarations, withClient };
const folderOf = (stack, endpoints) => join(GENERATED, `${stack}-${endpoints}`);

/**
 * @typedef {{ code: string, text: string }} Diagnostic
 * @typedef {object} Run
 * @property {number} [instantiations]
 * @property {number} [types]
 * @property {number} [memoryKiB]
 * @property {number} [checkSeconds]
 * @property {Diagnostic[]} diagnostics
 * @property {string | undefined} crash why tsc gave no figures (a signal, a timeout, no statistics)
 * @property {string} output
 */

/** Runs tsc on one project. @param {string} folder @returns {Run} */
function check(folder) {
  const [command, args] = pinnedNode([TSC, '--noEmit', '--extendedDiagnostics', '-p', folder]);
  const child = spawnSync(command, args, { cwd: GENERATED, encoding: 'utf8', timeout: timeoutSeconds * 1000, maxBuffer: 256 * 1024 * 1024 });
  const output = `${child.stdout ?? ''}${child.stderr ?? ''}`;
  const figure = (name) => {
    const match = new RegExp(`^${name}:\\s+([\\d.]+)`, 'm').exec(output);
    return match === null ? undefined : Number(match[1]);
  };
  const diagnostics = [...output.matchAll(/^(.*?error (TS\d+): .*)$/gm)].map((match) => ({ code: match[2], text: match[1] }));
  const checkSeconds = figure('Check time');
  let crash;
  if (child.error?.code === 'ETIMEDOUT') crash = `no result within ${timeoutSeconds} s`;
  else if (child.signal !== null) crash = `tsc ended by ${child.signal}`;
  else if (checkSeconds === undefined) crash = `tsc exited ${child.status} without its statistics${/heap out of memory/i.test(output) ? ' (JavaScript heap out of memory)' : ''}`;
  return { instantiations: figure('Instantiations'), types: figure('Types'), memoryKiB: figure('Memory used'), checkSeconds, diagnostics, crash, output };
}

/** @param {Diagnostic[]} diagnostics @returns {string} `TS2589 ×1, TS2339 ×12` */
function codes(diagnostics) {
  const counts = new Map();
  for (const { code } of diagnostics) counts.set(code, (counts.get(code) ?? 0) + 1);
  return [...counts].map(([code, count]) => `${code} ×${count}`).join(', ');
}

/** Prints what tsc said and exits 1: the run writes nothing. @param {string} what @param {Run} run */
function stop(what, run) {
  console.error(`\nFAILED: ${what}: ${run.crash ?? codes(run.diagnostics)}`);
  console.error(run.diagnostics.length > 0 ? run.diagnostics.slice(0, 20).map((diagnostic) => `  ${diagnostic.text}`).join('\n') : run.output.slice(-3000));
  console.error('\nNothing written to bench/results/.');
  process.exit(1);
}

if (!CAN_PIN) console.log('WARNING: no taskset: tsc is not pinned.');
console.log(`restcanon/client: ${withClient ? 'found (client.d.ts in the build): measured' : 'not in this build (no client.d.ts): restcanon is measured without a client'}`);

// The gate: the types are real. Then the same project with skipLibCheck off, for what the
// packages' own declarations say (every measured project skips them, as most projects do).
/** @type {Map<string, Map<string, number>>} stack -> package -> errors in its declarations */
const libErrors = new Map();
/** Whether ts-rest's declarations name zod 3 types that zod 4 lacks. */
let tsRestNamesZod3 = false;
const smallest = Math.min(...sizes);
for (const stack of stacks.filter((name) => name !== 'schemas')) {
  const folder = join(GENERATED, `gate-${stack}`);
  writeProject(stack, smallest, folder, { ...projectOptions, gate: true });
  const run = check(folder);
  if (run.crash !== undefined || run.diagnostics.length > 0) stop(`the gate of ${stack} (gate.ts: its types must catch every mistake under @ts-expect-error, and nothing else may fail)`, run);
  writeProject(stack, smallest, folder, { ...projectOptions, skipLibCheck: false });
  const counts = new Map();
  for (const { text } of check(folder).diagnostics) {
    if (stack === 'ts-rest' && /@ts-rest\/core\/.*has no exported member named 'AnyZodObject'/.test(text)) tsRestNamesZod3 = true;
    const where = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(text.split('(')[0])?.[1] ?? (text.startsWith('restcanon-dist/') ? 'restcanon' : 'the project');
    counts.set(where, (counts.get(where) ?? 0) + 1);
  }
  libErrors.set(stack, counts);
  rmSync(folder, { recursive: true, force: true });
}
report.aside(`Gate passed: ${stacks.filter((name) => name !== 'schemas').join(', ')} catch every mistake of gate.ts (wrong type of a narrowed body, an item read off a 404, a wrong create body, a nested item's parent id), so their types are not \`any\`.`);

/** @type {{ stack: string, endpoints: number }[]} */
const cases = [];
for (const stack of stacks) {
  for (const endpoints of sizes) {
    const files = writeProject(stack, endpoints, folderOf(stack, endpoints), projectOptions);
    if (files.includes('client.ts')) {
      const calls = readFileSync(join(folderOf(stack, endpoints), 'client.ts'), 'utf8').match(/const r = await /g)?.length ?? 0;
      if (calls !== endpoints) throw new Error(`${stack} ${endpoints}: the client calls ${calls} endpoints`);
    }
    cases.push({ stack, endpoints });
  }
}

// The rounds ----------------------------------------------------------------------------------

/** @type {Map<string, Run[]>} */
const runs = new Map();
const keyOf = ({ stack, endpoints }) => `${stack} ${endpoints}`;
const started = Date.now();
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? cases : [...cases].reverse();
  for (const item of order) {
    const key = keyOf(item);
    const previous = runs.get(key) ?? [];
    if (previous.some((run) => run.crash !== undefined)) continue; // it crashed once: it will again
    const run = check(folderOf(item.stack, item.endpoints));
    if ((run.crash !== undefined || run.diagnostics.length > 0) && !mayBreak(item.stack, item.endpoints)) stop(`${LABELS[item.stack]} at ${item.endpoints} endpoints`, run);
    runs.set(key, [...previous, run]);
    const figures = run.crash ?? `${thousands(run.instantiations)} instantiations, check ${fixed(run.checkSeconds, 2)} s${run.diagnostics.length > 0 ? `, errors: ${codes(run.diagnostics)}` : ''}`;
    console.log(`round ${round + 1}/${rounds}: ${item.stack} ${item.endpoints}: ${figures} (${Math.round((Date.now() - started) / 1000)} s)`);
  }
}

/** The line of the generated source a diagnostic points at, trimmed, for the findings. */
const sourceOf = (text) => {
  const match = /^(.+?)\((\d+),\d+\)/.exec(text);
  if (match === null) return undefined;
  try {
    return readFileSync(join(GENERATED, match[1]), 'utf8').split('\n')[Number(match[2]) - 1]?.trim().slice(0, 120);
  } catch {
    return undefined;
  }
};
/** Where a run's TS2589 errors point: `; TS2589 at \`const client = ...\``. @param {Run} run */
const deepAt = (run) => {
  const lines = [...new Set(run.diagnostics.filter((diagnostic) => diagnostic.code === 'TS2589').map((diagnostic) => sourceOf(diagnostic.text)))].filter(Boolean);
  return lines.length === 0 ? '' : `; TS2589 at ${lines.map((line) => `\`${line}\``).join(' and ')}`;
};
// Where a peer breaks: bisection between the largest size that checked and the one that failed, in
// steps of one resource (5 endpoints), one tsc run each (errors are deterministic).

/** @type {Map<string, { passes: number, fails: number, run: Run, at: string }>} stack -> the sizes either side of the break */
const breaks = new Map();
if (process.env.BENCH_TYPES_BISECT !== '0') {
  for (const stack of stacks) {
    const failed = sizes.find((endpoints) => {
      const done = runs.get(keyOf({ stack, endpoints })) ?? [];
      return done.some((run) => run.crash !== undefined || run.diagnostics.length > 0);
    });
    if (failed === undefined) continue;
    let passes = Math.max(0, ...sizes.filter((endpoints) => endpoints < failed));
    let fails = failed;
    let failing = runs.get(keyOf({ stack, endpoints: failed }))[0];
    let at = deepAt(failing);
    const folder = join(GENERATED, `bisect-${stack}`);
    while (fails - passes > 5) {
      const middle = Math.round((passes + fails) / 10) * 5;
      writeProject(stack, middle, folder, projectOptions);
      const run = check(folder);
      const broke = run.crash !== undefined || run.diagnostics.length > 0;
      console.log(`bisect ${stack}: ${middle} endpoints ${broke ? `fail (${run.crash ?? codes(run.diagnostics)})` : 'check'}`);
      if (broke) {
        fails = middle;
        failing = run;
        at = deepAt(run);
      } else {
        passes = middle;
      }
    }
    rmSync(folder, { recursive: true, force: true });
    breaks.set(stack, { passes, fails, run: failing, at });
  }
}

// The results ---------------------------------------------------------------------------------

/**
 * @typedef {object} Row
 * @property {string} stack
 * @property {number} endpoints
 * @property {number | undefined} instantiations
 * @property {number | undefined} types
 * @property {number | undefined} checkSeconds the median
 * @property {number[]} checks every round's
 * @property {number | undefined} memoryMB
 * @property {Diagnostic[]} diagnostics
 * @property {string | undefined} crash
 * @property {boolean} steady whether every round counted the same instantiations and types
 */

/** @type {Row[]} */
const rows = cases.map((item) => {
  const done = runs.get(keyOf(item)) ?? [];
  const measured = done.filter((run) => run.crash === undefined);
  const checks = measured.map((run) => run.checkSeconds);
  return {
    ...item,
    instantiations: measured[0]?.instantiations,
    types: measured[0]?.types,
    checkSeconds: checks.length === 0 ? undefined : median(checks),
    checks,
    memoryMB: measured.length === 0 ? undefined : median(measured.map((run) => run.memoryKiB)) / 1024,
    diagnostics: done[0]?.diagnostics ?? [],
    crash: done.find((run) => run.crash !== undefined)?.crash,
    steady: measured.every((run) => run.instantiations === measured[0].instantiations && run.types === measured[0].types),
  };
});
const rowOf = (stack, endpoints) => rows.find((row) => row.stack === stack && row.endpoints === endpoints);
const count = (value) => (value === undefined ? '—' : thousands(value));

report.log(
  `Node ${process.version}; ${['typescript', 'zod', 'hono', '@hono/zod-validator', '@ts-rest/core', '@ts-rest/express', 'express', '@types/express', 'elysia', '@elysiajs/eden', '@sinclair/typebox', '@types/node']
    .map(describeVersion)
    .join(', ')}; restcanon ${JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version} (this repository's build${withClient ? ', with restcanon/client' : ''}).`,
);
report.log();
if (!withClient) {
  report.log(
    '- restcanon/client is not in this build (no `dist/client.d.ts`): the restcanon rows are the server alone (`collection()` and `createApi`), with no client calls; every other stack includes its client. Rebuild with the client and run again to measure it.',
  );
  report.log();
}
report.log(
  `- Elysia: the declarations of ${describeVersion('elysia')} import \`bun\` (\`Serve\`, \`Server\`), whose types come from the optional peer @types/bun (${packageJson('@types/bun') === undefined ? 'not installed' : `installed: ${describeVersion('@types/bun')}`}); under \`skipLibCheck\` the unresolved import is no error, and Elysia's \`universal/server.d.ts\` falls back to its own \`Serve\` and \`Server\` types when bun's are missing. Only the types are checked here: nothing runs (elysia's cookie dependency declares Node >=22).`,
);
report.log(
  '- Elysia + Eden: Eden merges the params of sibling path segments (`/tasks/:id` beside `/tasks/:taskId/users` makes every call on `tasks(...)` ask for both `id` and `taskId`), so in the Elysia project a resource with children names its item id after itself (`/tasks/:taskId`): the same URLs, another param name.',
);
report.log(
  `- Every project checks with \`skipLibCheck: true\`, as most projects do. With it off, the ${smallest}-endpoint projects report errors inside the packages' own declarations: ${[...libErrors]
    .map(([stack, counts]) => `${stack}: ${counts.size === 0 ? 'none' : [...counts].map(([where, n]) => `${n} in ${where}`).join(', ')}`)
    .join('; ')}.${tsRestNamesZod3 ? " ts-rest's declarations still name zod 3 types (such as `AnyZodObject`) that zod 4 does not export; those resolve to error types, silently under skipLibCheck. The gate shows that what the client uses (params, request bodies, bodies by status) is typed all the same." : ''}`,
);
report.log();
report.log('#### Instantiations, check time, types and memory');
report.log();
report.log(
  `\`tsc --noEmit --extendedDiagnostics\` of the whole project (schemas, tables, server, client), TypeScript ${describeVersion('typescript').split(' ')[1]}; check time: the median of ${rounds} run${rounds === 1 ? '' : 's'}, one process each${CAN_PIN ? ', pinned to CPU 0' : ''}; memory: tsc's "Memory used". Instantiations and types are deterministic.`,
);
report.log();
report.log('| stack | endpoints | instantiations | check time (s) | check time, runs min-max | types | memory (MB) | tsc errors |');
report.log('|---|---:|---:|---:|---:|---:|---:|---|');
for (const row of rows) {
  const spread = row.checks.length === 0 ? '—' : `${fixed(Math.min(...row.checks), 2)}-${fixed(Math.max(...row.checks), 2)}`;
  const errors = row.crash ?? (row.diagnostics.length === 0 ? 'none' : `**${codes(row.diagnostics)}**`);
  report.log(
    `| ${LABELS[row.stack]} | ${row.endpoints} | ${count(row.instantiations)}${row.steady ? '' : ' (varied)'} | ${row.checkSeconds === undefined ? '—' : fixed(row.checkSeconds, 2)} | ${spread} | ${count(row.types)} | ${row.memoryMB === undefined ? '—' : fixed(row.memoryMB, 0)} | ${errors} |`,
  );
}

/** Doublings between two sizes: 25 → 100 is two. */
const doublings = (from, to) => Math.log2(to / from);
/** @returns {number | undefined} the growth per doubling of `figure` from one row to the next */
const perDoubling = (from, to, figure) => {
  const a = from?.[figure];
  const b = to?.[figure];
  return a === undefined || b === undefined || from.diagnostics.length > 0 || to.diagnostics.length > 0 ? undefined : (b / a) ** (1 / doublings(from.endpoints, to.endpoints));
};
const steps = sizes.slice(1).map((to, index) => [sizes[index], to]);

report.log();
report.log('#### Growth per doubling of the API');
report.log();
report.log(
  'From one size to the next, the ratio of each figure taken to the power 1 / (number of doublings between the sizes): 25 → 100 is two doublings, 100 → 200 one, 200 → 800 two. 2.00x is linear growth; a pair with a tsc error is left out.',
);
report.log();
report.log(`| stack | figure | ${steps.map(([from, to]) => `${from} → ${to}`).join(' | ')} |`);
report.log(`|---|---|${steps.map(() => '---:').join('|')}|`);
for (const stack of stacks) {
  for (const [figure, label] of [
    ['instantiations', 'instantiations'],
    ['checkSeconds', 'check time'],
  ]) {
    const cells = steps.map(([from, to]) => {
      const ratio = perDoubling(rowOf(stack, from), rowOf(stack, to), figure);
      return ratio === undefined ? '—' : times(ratio);
    });
    report.log(`| ${LABELS[stack]} | ${label} | ${cells.join(' | ')} |`);
  }
}

// The goals -----------------------------------------------------------------------------------

report.log();
report.log('#### Goals');
report.log();
const verdict = (met) => (met ? 'met' : '**missed**');
const ours = (endpoints) => rowOf('restcanon', endpoints);
const eden = rowOf('elysia', 200);
if (!withClient) {
  report.log(
    `- restcanon with its client at most Elysia + Eden at 200 endpoints: not checked, restcanon/client is not in this build. restcanon's server alone: ${count(ours(200)?.instantiations)} instantiations and ${fixed(ours(200)?.checkSeconds, 2)} s of check time, against ${count(eden?.instantiations)} and ${fixed(eden?.checkSeconds, 2)} s for Elysia + Eden with its client.`,
  );
} else if (ours(200) === undefined || eden === undefined || eden.instantiations === undefined) {
  report.log('- restcanon with its client at most Elysia + Eden at 200 endpoints: not checked, this run has no such pair.');
} else {
  const row = ours(200);
  const met = row.instantiations <= eden.instantiations && row.checkSeconds <= eden.checkSeconds;
  report.log(
    `- restcanon with its client at most Elysia + Eden at 200 endpoints: ${verdict(met)}: ${count(row.instantiations)} against ${count(eden.instantiations)} instantiations (${times(row.instantiations / eden.instantiations)}), ${fixed(row.checkSeconds, 2)} s against ${fixed(eden.checkSeconds, 2)} s of check time (${times(row.checkSeconds / eden.checkSeconds)})${eden.diagnostics.length > 0 ? `; Elysia + Eden had errors at 200 (${codes(eden.diagnostics)})` : ''}.`,
  );
}
const growth = steps.map(([from, to]) => ({
  from,
  to,
  instantiations: perDoubling(ours(from), ours(to), 'instantiations'),
  check: perDoubling(ours(from), ours(to), 'checkSeconds'),
}));
const growthMet = growth.every((step) => step.instantiations !== undefined && step.instantiations <= 2 && step.check !== undefined && step.check <= 2);
report.log(
  `- restcanon${withClient ? ' with its client' : ''} grows at most 2x per doubling of the API: ${verdict(growthMet)}: ${growth
    .map((step) => `${step.from} → ${step.to}: ${step.instantiations === undefined ? '—' : times(step.instantiations)} instantiations, ${step.check === undefined ? '—' : times(step.check)} check time`)
    .join('; ')} per doubling.`,
);
const deep = (row) => row.diagnostics.some((diagnostic) => diagnostic.code === 'TS2589');
const ourLargest = Math.max(...sizes);
report.log(
  `- No "Type instantiation is excessively deep" (TS2589) for restcanon${withClient ? ' with its client' : ''} up to ${ourLargest} endpoints: ${verdict(sizes.every((size) => ours(size) !== undefined && !deep(ours(size)) && ours(size).crash === undefined))}${sizes.every((size) => ours(size)?.diagnostics.length === 0) ? ' (no tsc error at any size)' : ''}.`,
);

const broken = rows.filter((row) => row.crash !== undefined || row.diagnostics.length > 0);
if (broken.length > 0) {
  report.log();
  report.log('#### Findings: peers that break at the largest size');
  report.log();
  for (const row of broken) {
    const files = [...new Set(row.diagnostics.map((diagnostic) => /^(?:.*\/)?([^/(]+)\(/.exec(diagnostic.text)?.[1]))].filter(Boolean);
    const threshold = breaks.get(row.stack);
    report.log(
      `- ${LABELS[row.stack]} at ${row.endpoints} endpoints: ${row.crash ?? `${row.diagnostics.length} error${row.diagnostics.length === 1 ? '' : 's'} (${codes(row.diagnostics)}) in ${files.join(', ')}`}.${
        threshold === undefined ? '' : ` By bisection in steps of one resource (5 endpoints), it checks at ${threshold.passes} endpoints and fails from ${threshold.fails} (${threshold.run.crash ?? codes(threshold.run.diagnostics)}${threshold.at}).`
      } Its figures above are those of the broken project: a type that fails to instantiate is not computed further, so they understate what checking it would cost. The first errors, with the line they point at:`,
    );
    report.log();
    report.log('  ```');
    const firsts = [...new Map([...row.diagnostics].sort((a, b) => Number(b.code === 'TS2589') - Number(a.code === 'TS2589')).map((diagnostic) => [diagnostic.code + (sourceOf(diagnostic.text) ?? ''), diagnostic])).values()].slice(0, 4);
    for (const diagnostic of firsts) {
      report.log(`  ${diagnostic.text.slice(0, 240)}${diagnostic.text.length > 240 ? '…' : ''}`);
      const line = sourceOf(diagnostic.text);
      if (line !== undefined) report.log(`      at: ${line}`);
    }
    report.log('  ```');
  }
}

report.finish();
