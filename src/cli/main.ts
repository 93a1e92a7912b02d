/**
 * The `restcanon` command: parses the command line, runs lint, probe or rules, writes the report in
 * the format asked for, and gives the exit code: 0 clean, 1 findings at or above `--fail-on`, 2 input
 * that cannot be used. Anything else that goes wrong is reported in one sentence with exit code 2,
 * never as a crash.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseCommandLine, usage, type Format } from './args.js';
import { loadConfig, type CliConfig } from './config.js';
import { CliError, isCliError } from './errors.js';
import { exitCodeOf, type Report } from './findings.js';
import { lintDocument } from './lint/lint.js';
import { probeServer } from './probe/probe.js';
import { htmlReport } from './report/html.js';
import { jsonReport } from './report/json.js';
import { createProgress } from './report/progress.js';
import { sarifReport } from './report/sarif.js';
import { textReport } from './report/text.js';
import { ALL_RULES } from './rules.js';

/**
 * Where the command writes, and what it knows of its terminal: the process's own streams by default;
 * tests pass their own.
 *
 * @example
 * const io: CliIo = { stdout: (text) => out.push(text), stderr: (text) => err.push(text), cwd: process.cwd() };
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  /** The stream the progress bar draws on; none by default outside a terminal. */
  progress?: { isTTY?: boolean; columns?: number; write(text: string): unknown };
}

function version(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
    return manifest.name === 'restcanon' && manifest.version !== undefined ? manifest.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function formatOf(format: Format | undefined, output: string | undefined): Format {
  if (format !== undefined) return format;
  const extension = output === undefined ? '' : path.extname(output).toLowerCase();
  if (extension === '.json') return 'json';
  if (extension === '.sarif') return 'sarif';
  if (extension === '.html' || extension === '.htm') return 'html';
  return 'text';
}

function render(report: Report, format: Format, cwd: string): string {
  if (format === 'json') return jsonReport(report);
  if (format === 'sarif') return sarifReport(report, { version: version(), cwd });
  if (format === 'html') return htmlReport(report);
  return textReport(report);
}

function rulesText(): string {
  return `${ALL_RULES.map((rule) => {
    const checks = [rule.lint === undefined ? '' : `  lint:  ${rule.lint}`, rule.probe === undefined ? '' : `  probe: ${rule.probe}`].filter((line) => line !== '');
    return [`${rule.id}: ${rule.title} (${rule.convention})`, ...checks].join('\n');
  }).join('\n\n')}\n`;
}

async function deliver(report: Report, options: { format?: Format; output?: string }, config: CliConfig, io: CliIo): Promise<number> {
  const format = formatOf(options.format, options.output);
  const text = render(report, format, io.cwd);
  if (options.output === undefined) {
    io.stdout(text);
  } else {
    await writeFile(path.resolve(io.cwd, options.output), text).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(`cannot write ${options.output}: ${error.code === 'ENOENT' ? 'no such folder' : error.message}`);
    });
    // The people's summary still goes to the terminal when the report went to a file.
    io.stderr(format === 'text' ? `Wrote ${options.output}\n` : `${textReport(report)}Wrote ${options.output}\n`);
  }
  return exitCodeOf(report, config.failOn);
}

/**
 * Runs the command line and gives the exit code.
 *
 * @example
 * process.exitCode = await run(process.argv.slice(2));
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  try {
    const command = parseCommandLine(argv);
    if (command.command === 'help') {
      io.stdout(`${usage(command.topic)}\n`);
      return 0;
    }
    if (command.command === 'version') {
      io.stdout(`${version()}\n`);
      return 0;
    }
    if (command.command === 'rules') {
      io.stdout(command.format === 'json' ? `${JSON.stringify(ALL_RULES, null, 2)}\n` : rulesText());
      return 0;
    }
    const config = await loadConfig(command.config, io.cwd);
    if (command.failOn !== undefined) config.failOn = command.failOn;
    if (command.command === 'lint') {
      const report = await lintDocument(command.document, config, { cwd: io.cwd, ...(command.timeout === undefined ? {} : { timeoutMs: command.timeout }) });
      return await deliver(report, command, config, io);
    }
    const progress = command.progress ? createProgress(io.progress ?? { write: () => true }) : undefined;
    const report = await probeServer(command, config, { cwd: io.cwd, ...(progress === undefined ? {} : { progress }) });
    return await deliver(report, command, config, io);
  } catch (error) {
    if (isCliError(error)) {
      io.stderr(`restcanon: ${error.message}\n`);
      return error.exitCode;
    }
    io.stderr(`restcanon: unexpected failure: ${(error as Error)?.stack ?? String(error)}\nPlease report it with the command line that caused it.\n`);
    return 2;
  }
}

function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    progress: process.stderr,
  };
}
