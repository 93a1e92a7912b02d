/**
 * The command line: `restcanon lint <document>`, `restcanon probe <base-url>`, `restcanon rules`, each
 * with its options, parsed by node's own `util.parseArgs`, strictly: an unknown option is a mistake
 * to report, not to ignore.
 */
import { parseArgs } from 'node:util';
import { CliError } from './errors.js';
import { SEVERITIES, type Severity } from './rules.js';

/**
 * The formats a report can be written in.
 *
 * @example
 * FORMATS.includes('sarif'); // true
 */
export const FORMATS = ['text', 'json', 'sarif', 'html'] as const;

/**
 * A report's format.
 *
 * @example
 * const format: Format = 'sarif';
 */
export type Format = (typeof FORMATS)[number];

/**
 * What the command line asks for.
 *
 * @example
 * parseCommandLine(['lint', 'openapi.yaml', '--format', 'json']).command; // 'lint'
 */
export type CommandLine =
  | { command: 'help'; topic?: string }
  | { command: 'version' }
  | { command: 'rules'; format: 'text' | 'json' }
  | ({ command: 'lint'; document: string; timeout?: number } & Shared)
  | ({
      command: 'probe';
      baseUrl: string;
      openapi?: string;
      auth?: string;
      auth2?: string;
      rate?: number;
      timeout?: number;
      maxRequests?: number;
      hugeBody?: number;
      params: Record<string, string>;
      writes?: boolean;
      progress: boolean;
    } & Shared);

interface Shared {
  format?: Format;
  output?: string;
  config?: string;
  failOn?: Severity;
}

/**
 * The help of the CLI, or of one command.
 *
 * @example
 * usage('lint').startsWith('restcanon lint'); // true
 */
export function usage(topic?: string): string {
  const lint = [
    'restcanon lint <document> [options]',
    '  Checks an OpenAPI 3.0 or 3.1 document (JSON or YAML, a file or a URL) against the conventions.',
    '  --format <format>          text, json, sarif or html: the report\'s format (default: text, or the --output file\'s extension)',
    '  --output <file>            write the report to a file',
    '  --config <file>            the settings (default: restcanon.config.json, .yaml or .yml here)',
    '  --fail-on error|warn|info  the least severity that exits with 1 (default: error)',
    '  --timeout <ms>             for a URL: milliseconds to wait for the document (default 10000)',
  ];
  const probe = [
    'restcanon probe <base-url> [options]',
    '  Sends a bounded set of requests to one server and checks what it answers against the conventions.',
    '  --openapi <file|url>       the API\'s document (default: <base-url>/openapi.json, if it serves one)',
    '  --auth <credentials>       the first user: an Authorization value ("Bearer abc") or a header ("X-Api-Key: abc")',
    '  --auth2 <credentials>      a second user, whose requests for the first user\'s items must fail',
    '  --param <name=value>       a path parameter\'s value (repeatable), used before any the probe finds',
    '  --rate <n>                 requests per second, at most (default 10)',
    '  --timeout <ms>             milliseconds one exchange may take (default 5000)',
    '  --max-requests <n>         requests in the whole run, at most (default 300)',
    '  --huge-body <bytes>        the body sent to provoke 413 (default 2097152)',
    '  --no-writes                create nothing, so skip the check of 201 and Location',
    '  --no-progress              no progress bar on standard error',
    '  --format text|json|sarif|html, --output <file>, --config <file>, --fail-on error|warn|info: as for lint',
  ];
  const rules = ['restcanon rules [--format text|json]', '  Lists the rules: id, what lint and probe check, the convention each comes from.'];
  if (topic === 'lint') return lint.join('\n');
  if (topic === 'probe') return probe.join('\n');
  if (topic === 'rules') return rules.join('\n');
  return [
    'restcanon: check an API against the conventions of resource-oriented HTTP interfaces.',
    '',
    ...lint,
    '',
    ...probe,
    '',
    ...rules,
    '',
    'Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 input that cannot be used.',
  ].join('\n');
}

function number(value: string | undefined, option: string, integer = true): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || (integer && !Number.isInteger(parsed))) {
    throw new CliError(`--${option} takes a positive ${integer ? 'whole ' : ''}number; got "${value}"`);
  }
  return parsed;
}

function format(value: string | undefined, allowed: readonly string[]): Format | undefined {
  if (value === undefined) return undefined;
  if (!allowed.includes(value)) throw new CliError(`--format is one of ${allowed.join(', ')}; got "${value}"`);
  return value as Format;
}

function severity(value: string | undefined): Severity | undefined {
  if (value === undefined) return undefined;
  if (!(SEVERITIES as readonly string[]).includes(value)) throw new CliError(`--fail-on is one of ${SEVERITIES.join(', ')}; got "${value}"`);
  return value as Severity;
}

function onlyOne(positionals: string[], command: string, what: string): string {
  if (positionals.length === 0) throw new CliError(`restcanon ${command} needs ${what}.\n\n${usage(command)}`);
  if (positionals.length > 1) throw new CliError(`restcanon ${command} takes one ${what.replace(/^(a|an|the) /, '')}; got ${positionals.length}: ${positionals.join(' ')}`);
  return positionals[0]!;
}

function attempt<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new CliError(`${(error as Error).message.replace(/\. To specify a positional argument.*$/s, '')}. See restcanon --help.`);
  }
}

const SHARED = {
  format: { type: 'string' },
  output: { type: 'string', short: 'o' },
  config: { type: 'string', short: 'c' },
  'fail-on': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Parses the arguments after `restcanon`; throws a CliError that says what is wrong.
 *
 * @example
 * parseCommandLine(['probe', 'http://127.0.0.1:3000', '--rate', '5']);
 */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') return { command: 'help', ...(rest[0] === undefined ? {} : { topic: rest[0] }) };
  if (command === '--version' || command === '-v') return { command: 'version' };
  if (command === 'rules') {
    const { values } = attempt(() => parseArgs({ args: rest, options: { format: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true }));
    if (values.help === true) return { command: 'help', topic: 'rules' };
    const chosen = values.format ?? 'text';
    if (chosen !== 'text' && chosen !== 'json') throw new CliError(`--format is one of text, json; got "${chosen}"`);
    return { command: 'rules', format: chosen };
  }
  if (command === 'lint') {
    const { values, positionals } = attempt(() => parseArgs({ args: rest, options: { ...SHARED, timeout: { type: 'string' } }, allowPositionals: true, strict: true }));
    if (values.help === true) return { command: 'help', topic: 'lint' };
    const timeout = number(values.timeout, 'timeout');
    return {
      command: 'lint',
      document: onlyOne(positionals, 'lint', 'a document: the path or URL of an OpenAPI document'),
      ...(timeout === undefined ? {} : { timeout }),
      ...shared(values, ['text', 'json', 'sarif', 'html']),
    };
  }
  if (command === 'probe') {
    const { values, positionals } = attempt(() =>
      parseArgs({
        args: rest,
        allowPositionals: true,
        allowNegative: true,
        strict: true,
        options: {
          ...SHARED,
          openapi: { type: 'string' },
          auth: { type: 'string' },
          auth2: { type: 'string' },
          param: { type: 'string', multiple: true },
          rate: { type: 'string' },
          timeout: { type: 'string' },
          'max-requests': { type: 'string' },
          'huge-body': { type: 'string' },
          writes: { type: 'boolean' },
          progress: { type: 'boolean' },
        },
      }),
    );
    if (values.help === true) return { command: 'help', topic: 'probe' };
    const baseUrl = onlyOne(positionals, 'probe', 'a base URL, such as http://localhost:3000');
    const params: Record<string, string> = {};
    for (const pair of values.param ?? []) {
      const match = /^([^=]+)=(.*)$/s.exec(pair);
      if (match === null) throw new CliError(`--param takes name=value, such as --param userId=1; got "${pair}"`);
      params[match[1]!] = match[2]!;
    }
    const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } => (value === undefined ? {} : ({ [key]: value } as { [P in K]: V }));
    return {
      command: 'probe',
      baseUrl,
      params,
      progress: values.progress ?? true,
      ...optional('openapi', values.openapi),
      ...optional('auth', values.auth),
      ...optional('auth2', values.auth2),
      ...optional('rate', number(values.rate, 'rate', false)),
      ...optional('timeout', number(values.timeout, 'timeout')),
      ...optional('maxRequests', number(values['max-requests'], 'max-requests')),
      ...optional('hugeBody', number(values['huge-body'], 'huge-body')),
      ...optional('writes', values.writes),
      ...shared(values, FORMATS),
    };
  }
  throw new CliError(`restcanon has no command "${command}"; the commands are lint, probe and rules.\n\n${usage()}`);
}

function shared(values: { format?: string | undefined; output?: string | undefined; config?: string | undefined; 'fail-on'?: string | undefined }, formats: readonly string[]): Shared {
  const chosen = format(values.format, formats);
  const failOn = severity(values['fail-on']);
  return {
    ...(chosen === undefined ? {} : { format: chosen }),
    ...(values.output === undefined ? {} : { output: values.output }),
    ...(values.config === undefined ? {} : { config: values.config }),
    ...(failOn === undefined ? {} : { failOn }),
  };
}
