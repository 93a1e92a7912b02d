import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSync, type Diagnostics } from 'recheck';
import ts from 'typescript';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint } from '../../src/index.js';
import { parseMediaType } from '../../src/core/media-type.js';
import { expectProblem } from '../helpers/problem.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_FILE = /\.[cm]?[jt]sx?$/;

/** A regular expression written in the source, or a `RegExp` built from a pattern only known at run time. */
interface FoundRegExp {
  where: string;
  /** The file and the name of the function it is in, which stay put when lines move. */
  site: string;
  source: string;
  flags: string;
  computed: boolean;
}

/**
 * The places that build a `RegExp` from a pattern the application supplies, which no scan of
 * restcanon can check, each with the reason it is the application's pattern. A new computed
 * `RegExp` fails the scan until it is written as a literal or listed here.
 */
const APPLICATION_PATTERNS: Readonly<Record<string, string>> = {
  'src/core/projection.ts toRegExp': "a response schema's `patternProperties`, written by the application as its schema library's regexes are",
};

/**
 * Every regular expression literal, and every `RegExp(...)` / `new RegExp(...)`, in one source text,
 * found by the TypeScript parser: a regex added anywhere in src/ is checked without touching this test.
 */
function findRegExps(text: string, fileName = 'inline.ts'): FoundRegExp[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: FoundRegExp[] = [];
  const where = (node: ts.Node) => `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
  const site = (node: ts.Node) => `${fileName} ${enclosingName(node) ?? '(top level)'}`;
  const visit = (node: ts.Node): void => {
    if (ts.isRegularExpressionLiteral(node)) {
      const close = node.text.lastIndexOf('/');
      found.push({ where: where(node), site: site(node), source: node.text.slice(1, close), flags: node.text.slice(close + 1), computed: false });
    } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
      const [pattern, flags] = node.arguments ?? [];
      const literal = (argument: ts.Expression | undefined) =>
        argument !== undefined && (ts.isStringLiteral(argument) || ts.isNoSubstitutionTemplateLiteral(argument)) ? argument.text : undefined;
      // A literal first argument is found on its own above; anything else cannot be read statically.
      if (pattern === undefined || !ts.isRegularExpressionLiteral(pattern)) {
        const source = literal(pattern);
        const flagText = flags === undefined ? '' : literal(flags);
        found.push({ where: where(node), site: site(node), source: source ?? node.getText(file), flags: flagText ?? '', computed: source === undefined || flagText === undefined });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The name of the innermost named function, method or variable around a node. */
function enclosingName(node: ts.Node): string | undefined {
  for (let current = node.parent; current !== undefined; current = current.parent) {
    if ((ts.isFunctionDeclaration(current) || ts.isMethodDeclaration(current) || ts.isVariableDeclaration(current)) && current.name !== undefined && ts.isIdentifier(current.name)) {
      return current.name.text;
    }
  }
  return undefined;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const FOUND = sourceFiles(join(ROOT, 'src')).flatMap((path) => findRegExps(readFileSync(path, 'utf8'), relative(ROOT, path).split(sep).join('/')));
const CHECKED = FOUND.filter((found) => !(found.computed && Object.hasOwn(APPLICATION_PATTERNS, found.site)));

/**
 * recheck's checker compiled to JavaScript, run in this process: it spawns no native binary (which
 * a platform may lack) and no Java, and downloads nothing.
 */
function recheck(source: string, flags: string, timeout: number): Diagnostics {
  vi.stubEnv('RECHECK_SYNC_BACKEND', 'pure');
  try {
    return checkSync(source, flags, { timeout });
  } finally {
    vi.unstubAllEnvs();
  }
}

/** A verdict; a check that ran out of time is given more time once before it counts as undecided. */
function verdict(source: string, flags: string): Diagnostics {
  const first = recheck(source, flags, 5_000);
  if (first.status !== 'unknown' || first.error.kind !== 'timeout') return first;
  return recheck(source, flags, 20_000);
}

function describeVerdict(diagnostics: Diagnostics): string {
  if (diagnostics.status === 'vulnerable') return `vulnerable (${diagnostics.complexity.summary}), attack: ${diagnostics.attack.pattern}`;
  if (diagnostics.status === 'unknown') return `undecided (${diagnostics.error.kind})`;
  return 'safe';
}

describe('findRegExps', () => {
  it('finds literals and RegExp constructions, and flags patterns built at run time', () => {
    const text = 'const a = /x+/g;\nconst b = new RegExp("y+", "u");\nconst c = RegExp(`z`);\nfunction d(name) { return new RegExp(name); }\nconst e = "/not/";';
    expect(findRegExps(text)).toEqual([
      { where: 'inline.ts:1', site: 'inline.ts a', source: 'x+', flags: 'g', computed: false },
      { where: 'inline.ts:2', site: 'inline.ts b', source: 'y+', flags: 'u', computed: false },
      { where: 'inline.ts:3', site: 'inline.ts c', source: 'z', flags: '', computed: false },
      { where: 'inline.ts:4', site: 'inline.ts d', source: 'new RegExp(name)', flags: '', computed: true },
    ]);
  });

  it('finds the regular expressions of src/', () => {
    expect(CHECKED.length).toBeGreaterThan(0);
  });

  it('every place listed as building an application pattern still does', () => {
    const computedSites = new Set(FOUND.filter((found) => found.computed).map((found) => found.site));
    expect(Object.keys(APPLICATION_PATTERNS).filter((site) => !computedSites.has(site))).toEqual([]);
  });
});

describe('every regular expression in src/ runs in linear time (recheck)', () => {
  it.each(CHECKED.map((found) => [`${found.where} /${found.source}/${found.flags}`, found] as const))('%s', (_, found) => {
    expect(found.computed, `${found.where} builds a RegExp from a value known only at run time; write the pattern as a literal so that it can be checked, or list an application's pattern in APPLICATION_PATTERNS`).toBe(false);
    const diagnostics = verdict(found.source, found.flags);
    expect(diagnostics.status, `${found.where} /${found.source}/${found.flags} is ${describeVerdict(diagnostics)}`).toBe('safe');
  }, 30_000);
});

describe('a Content-Type with a long run of spaces inside', () => {
  // Regression: trimming with /^[ \t]+|[ \t]+$/g read this value in quadratic time.
  const ATTACK = 'a' + ' '.repeat(16_000) + 'x';

  it('is no media type, nor is a parameter with spaces inside', () => {
    expect(parseMediaType(ATTACK)).toBeUndefined();
    const spaces = ' '.repeat(16_000);
    expect(parseMediaType(`application/json;${spaces}charset=utf-8${spaces}x`)).toBeUndefined();
    expect(parseMediaType(`application/json;${spaces}charset=utf-8${spaces}`)?.parameters.get('charset')).toBe('utf-8');
  });

  it('is answered with a 415 problem on a POST endpoint', async () => {
    const api = createApi({ endpoints: [endpoint('POST', '/notes', { body: z.object({ text: z.string() }), handle: (ctx) => ctx.body })] });
    const response = await api.handle({ method: 'POST', url: '/notes', headers: { 'content-type': ATTACK }, body: '{"text":"hello"}' });
    expectProblem(response, {
      status: 415,
      code: 'RC_UNSUPPORTED_MEDIA_TYPE',
      detail: 'The Content-Type is malformed',
      headers: { 'accept-post': 'application/json' },
      exact: true,
    });
  });
});
