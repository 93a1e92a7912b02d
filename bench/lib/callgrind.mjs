/**
 * Reading callgrind dumps of a Node process: totals, and instructions by function with V8's
 * generated code named. Callgrind knows Node's own symbols (builtins, C++) but sees JavaScript
 * compiled at run time as bare addresses; a process started with `--perf-basic-prof` writes
 * `/tmp/perf-<pid>.map`, whose lines (`<start> <size> <name>`, hexadecimal) name those addresses.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The instruction total of one dump. @param {string} file @returns {number} */
export function dumpTotal(file) {
  const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (totals === null) throw new Error(`${file}: no totals in the callgrind dump`);
  return Number(totals[1]);
}

/**
 * The perf map's code ranges, in the order V8 wrote them: code that V8 moved or replaced shows up
 * again later, so the last range that holds an address names it.
 *
 * @param {string} file @returns {{ start: number, end: number, name: string }[]}
 */
function readPerfMap(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      const from = Number.parseInt(start, 16);
      return { start: from, end: from + Number.parseInt(size, 16), name: name.join(' ') };
    });
}

/**
 * A function's name without what changes from build to build or run to run: the tier V8 ran it in
 * (`*` optimized, `^` baseline, `~` interpreted), the line and column, the hash of a bundler's
 * chunk, and the folder.
 *
 * @param {string} name @returns {string}
 */
function stableName(name) {
  return name
    .replace(/^JS:[*~^+]?/, '')
    .replace(/(?:file:\/\/)?\/\S*\/([^/\s]+?)(?:-[A-Z0-9]{8})?\.(m?js|cjs):\d+:\d+$/, '($1.$2)')
    .replace(/^(\S*) node:(\S+):\d+:\d+$/, '$1 (node:$2)')
    .trim();
}

/**
 * Instructions spent in each function itself (not in what it calls), per request, from one dump.
 * Generated code is named from the perf map; a name that occurs in several tiers or copies adds up.
 *
 * @param {string} dump a callgrind dump of one thread
 * @param {string} perfMap the process's `/tmp/perf-<pid>.map`
 * @param {number} requests what the dump's instructions are divided by
 * @returns {Map<string, number>}
 */
export function selfByFunction(dump, perfMap, requests) {
  const ranges = readPerfMap(perfMap);
  const nameAt = (address) => {
    for (let index = ranges.length - 1; index >= 0; index--) {
      const range = ranges[index];
      if (address >= range.start && address < range.end) return stableName(range.name);
    }
    return '(generated code without a name)';
  };
  const report = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', '--auto=no', '--show-percs=no', dump], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const total = dumpTotal(dump);
  const byName = new Map();
  for (const line of report.split('\n')) {
    const match = /^\s*([\d,]+)\s+(\S.*)$/.exec(line);
    // The report also lists `main` and the event loop with the whole count: they are not a cost of their own.
    if (match === null || Number(match[1].replaceAll(',', '')) >= total * 0.95) continue;
    const generated = /^\?\?\?:0x([0-9a-f]+)(?:'\d+)? \[\?\?\?\]$/.exec(match[2]);
    const name = generated !== null ? nameAt(Number.parseInt(generated[1], 16)) : nativeName(match[2]);
    byName.set(name, (byName.get(name) ?? 0) + Number(match[1].replaceAll(',', '')) / requests);
  }
  return byName;
}

/**
 * A symbol of Node's binary or a library without its file, object, compiler clone suffix, recursion
 * mark, parameters and return type: `???:void v8::internal::String::WriteToFlat<unsigned char>(...) [/usr/bin/node]`
 * becomes `v8::internal::String::WriteToFlat<unsigned char>`.
 *
 * @param {string} entry @returns {string}
 */
function nativeName(entry) {
  const name = entry
    .replace(/ \[[^\]]*\]$/, '')
    .replace(/ \[clone [^\]]*\]$/, '')
    .replace(/'\d+$/, '')
    .replace(/^[^:]*:(?!:)/, '')
    .replaceAll('(anonymous namespace)', '{anonymous}');
  return name.includes('::') ? withoutReturnType(withoutParameters(name)) : name;
}

/** `void v8::f<unsigned char>` → `v8::f<unsigned char>`: what follows the last space outside `<>`. @param {string} name */
function withoutReturnType(name) {
  let depth = 0;
  let start = 0;
  for (let index = 0; index < name.length; index++) {
    if (name[index] === '<') depth++;
    else if (name[index] === '>') depth--;
    else if (name[index] === ' ' && depth === 0) start = index + 1;
  }
  return name.slice(start);
}

/** `f(int, g(x)) const` → `f`. @param {string} name */
function withoutParameters(name) {
  const text = name.replace(/ const$/, '');
  if (!text.endsWith(')')) return text;
  let depth = 0;
  for (let index = text.length - 1; index >= 0; index--) {
    if (text[index] === ')') depth++;
    else if (text[index] === '(' && --depth === 0) return text.slice(0, index);
  }
  return text;
}
