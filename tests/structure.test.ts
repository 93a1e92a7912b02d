/**
 * The shape of src/: no module imports, through any chain, a module that imports it back (type
 * imports count too: a cycle of types is still two files that cannot be read one after the other);
 * the engine (src/core/) names no convention and no definition; each adapter stays a translation,
 * small enough to read at once; no file outgrows one sitting.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entries } from '../tsup.config.js';

const SRC = join(import.meta.dirname, '..', 'src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

/** Each file of src/ and the files of src/ it imports or re-exports from. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/\bfrom '(\.{1,2}\/[^']+)'/g)].map((match) => relative(SRC, resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts'))));
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** Every file a file reaches through any chain of its imports. */
function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const next = [...(graph.get(from) ?? [])];
  while (next.length > 0) {
    const file = next.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    next.push(...(graph.get(file) ?? []));
  }
  return seen;
}

/** Every cycle, each as the files along it, found by a depth-first walk. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') cycles.push([...path.slice(path.indexOf(target)), target]);
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('the import graph of src/', () => {
  it('reads the imports of every file', () => {
    const graph = importGraph();
    expect(graph.get('core/api.ts')).toContain('core/runtime.ts');
    expect(graph.get('adapters/node.ts')).toContain('core/contract.ts');
  });

  it('finds a cycle when there is one', () => {
    expect(cyclesOf(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]]))).toEqual([['a', 'b', 'c', 'a']]);
  });

  it('has no cycle', () => {
    expect(cyclesOf(importGraph()).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('keeps the request contract free of imports, so that every part of restcanon can use it', () => {
    expect(importGraph().get('core/contract.ts')).toEqual([]);
  });

  it('finds what a file reaches through any chain of imports', () => {
    const reach = reachable(new Map([['a', ['b']], ['b', ['c']], ['c', []], ['d', ['a']]]), 'a');
    expect([...reach].sort()).toEqual(['b', 'c']);
  });

  it('keeps the engine free of conventions and definitions: src/core/ reaches neither, through any chain', () => {
    const graph = importGraph();
    const engine = [...graph.keys()].filter((file) => file.startsWith('core/'));
    expect(engine.length).toBeGreaterThan(20);
    const leaks = engine.flatMap((file) => [...reachable(graph, file)].filter((target) => !target.startsWith('core/') && !target.startsWith('formats/') && !target.startsWith('naming/')).map((target) => `${file} → ${target}`));
    expect(leaks).toEqual([]);
  });

  it('keeps each convention to its own folder: a convention imports the engine, never another convention', () => {
    const graph = importGraph();
    const crossings = [...graph.entries()].flatMap(([file, targets]) => {
      const own = /^conventions\/([^/]+)\//.exec(file)?.[1];
      if (own === undefined) return [];
      return targets.filter((target) => target.startsWith('conventions/') && !target.startsWith(`conventions/${own}/`) && !target.startsWith('conventions/projection/')).map((target) => `${file} → ${target}`);
    });
    expect(crossings).toEqual([]);
  });
});

describe('the size of each file of src/', () => {
  it('keeps every source file to at most 500 lines', () => {
    const long = sourceFiles(SRC)
      .map((file) => [relative(SRC, file), readFileSync(file, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 500);
    expect(long).toEqual([]);
  });
});

/**
 * The most lines an adapter (a public entry in src/adapters/) may have: it translates the framework's
 * request into an ApiRequest and the ApiResponse back. What it would add beyond that (a decision, or
 * code another adapter needs too) belongs in a shared module of src/adapters/ or in src/core/.
 */
const ADAPTER_LINES = 200;

describe('the adapters', () => {
  const adapters = Object.values(entries).filter((entry) => entry.startsWith('src/adapters/'));

  it('are the public entries of src/adapters/', () => {
    expect(adapters.sort()).toEqual(['src/adapters/express.ts', 'src/adapters/fastify.ts', 'src/adapters/fetch.ts', 'src/adapters/hono.ts', 'src/adapters/koa.ts', 'src/adapters/node.ts']);
  });

  it.each(adapters)(`%s has at most ${ADAPTER_LINES} lines: it only translates`, (adapter) => {
    const lines = readFileSync(join(SRC, '..', adapter), 'utf8').split('\n').length - 1;
    expect(lines, `${adapter} has ${lines} lines; move what is not translation into a shared module of src/adapters/ or src/core/`).toBeLessThanOrEqual(ADAPTER_LINES);
  });
});
