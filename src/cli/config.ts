/**
 * The project's settings for both commands: which rules run and how severe each is, what fails a
 * run, the names the naming check lets through, and the probe's limits. Read from
 * `restcanon.config.json`, `restcanon.config.yaml` or `restcanon.config.yml` in the working directory,
 * or from the file `--config` names; every key is checked, so a misspelt rule fails the run rather
 * than silently doing nothing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './errors.js';
import { loadYaml } from './peers.js';
import { ruleOf, RULES, SEVERITIES, type Command, type Rule, type RuleId, type Severity } from './rules.js';

/**
 * The probe's limits and inputs; each has a command-line option of the same name.
 *
 * @example
 * const settings: ProbeSettings = { ...DEFAULT_PROBE_SETTINGS, rate: 5 };
 */
export interface ProbeSettings {
  /** Requests per second, at most. */
  rate: number;
  /** Milliseconds one exchange may take. */
  timeout: number;
  /** Requests in the whole run, at most. */
  maxRequests: number;
  /** The size of the body sent to provoke a 413, in bytes. */
  hugeBody: number;
  /** Values of path parameters, by name, used before any the probe finds. */
  params: Record<string, string>;
  /** Whether the probe may create (and then delete) an item to check 201 and Location. */
  writes: boolean;
}

/**
 * The probe's defaults: gentle enough for a shared staging server.
 *
 * @example
 * DEFAULT_PROBE_SETTINGS.rate; // 10
 */
export const DEFAULT_PROBE_SETTINGS: Readonly<ProbeSettings> = Object.freeze({
  rate: 10,
  timeout: 5000,
  maxRequests: 300,
  hugeBody: 2 * 1024 * 1024,
  params: {},
  writes: true,
});

/**
 * The settings of a project.
 *
 * @example
 * const config: CliConfig = { rules: { 'naming-vague': 'off' }, failOn: 'error', naming: { allow: [] }, probe: {} };
 */
export interface CliConfig {
  /** A severity per rule, or `off`; a rule not listed keeps its default. */
  rules: Partial<Record<RuleId, Severity | 'off'>>;
  /** The least severity that makes the command exit with 1. */
  failOn: Severity;
  naming: { allow: string[] };
  probe: Partial<ProbeSettings>;
}

/**
 * The settings when there is no config file.
 *
 * @example
 * defaultConfig().failOn; // 'error'
 */
export function defaultConfig(): CliConfig {
  return { rules: {}, failOn: 'error', naming: { allow: [] }, probe: {} };
}

/**
 * The names looked for in the working directory, in this order.
 *
 * @example
 * CONFIG_FILES[0]; // 'restcanon.config.json'
 */
export const CONFIG_FILES = ['restcanon.config.json', 'restcanon.config.yaml', 'restcanon.config.yml'] as const;

const LEVELS = [...SEVERITIES, 'off'] as const;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(value: Record<string, unknown>, allowed: readonly string[], where: string, file: string): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new CliError(`${file}: unknown key "${key}" in ${where}; the keys are ${allowed.join(', ')}`);
  }
}

function positiveNumber(value: unknown, key: string, file: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new CliError(`${file}: probe.${key} must be a positive number; got ${JSON.stringify(value)}`);
  return value;
}

/**
 * Checks a parsed config file and gives the settings it makes; throws a {@link CliError} naming the
 * first mistake.
 *
 * @example
 * parseConfig({ rules: { 'naming-vague': 'off' } }, 'restcanon.config.json').rules['naming-vague']; // 'off'
 */
export function parseConfig(value: unknown, file: string): CliConfig {
  const config = defaultConfig();
  if (value === null || value === undefined) return config;
  if (!isObject(value)) throw new CliError(`${file}: a config file holds an object, with the keys rules, failOn, naming and probe`);
  checkKeys(value, ['rules', 'failOn', 'naming', 'probe'], 'the config', file);
  if (value.rules !== undefined) {
    if (!isObject(value.rules)) throw new CliError(`${file}: "rules" maps rule ids to ${LEVELS.join(', ')}`);
    for (const [id, level] of Object.entries(value.rules)) {
      if (ruleOf(id) === undefined) throw new CliError(`${file}: no rule is called "${id}"; the rules are ${RULES.map((rule) => rule.id).join(', ')}`);
      if (!(LEVELS as readonly unknown[]).includes(level)) throw new CliError(`${file}: rule "${id}" is set to ${JSON.stringify(level)}; use ${LEVELS.join(', ')}`);
      config.rules[id as RuleId] = level as Severity | 'off';
    }
  }
  if (value.failOn !== undefined) {
    if (!(SEVERITIES as readonly unknown[]).includes(value.failOn)) throw new CliError(`${file}: "failOn" is one of ${SEVERITIES.join(', ')}; got ${JSON.stringify(value.failOn)}`);
    config.failOn = value.failOn as Severity;
  }
  if (value.naming !== undefined) {
    if (!isObject(value.naming)) throw new CliError(`${file}: "naming" holds { "allow": [names] }`);
    checkKeys(value.naming, ['allow'], 'naming', file);
    const allow = value.naming.allow ?? [];
    if (!Array.isArray(allow) || !allow.every((name) => typeof name === 'string')) throw new CliError(`${file}: naming.allow is a list of names: segments, or whole paths starting with "/"`);
    config.naming.allow = allow as string[];
  }
  if (value.probe !== undefined) {
    if (!isObject(value.probe)) throw new CliError(`${file}: "probe" holds the probe's settings: ${Object.keys(DEFAULT_PROBE_SETTINGS).join(', ')}`);
    checkKeys(value.probe, Object.keys(DEFAULT_PROBE_SETTINGS), 'probe', file);
    for (const key of ['rate', 'timeout', 'maxRequests', 'hugeBody'] as const) {
      if (value.probe[key] !== undefined) config.probe[key] = positiveNumber(value.probe[key], key, file);
    }
    if (value.probe.writes !== undefined) {
      if (typeof value.probe.writes !== 'boolean') throw new CliError(`${file}: probe.writes is true or false`);
      config.probe.writes = value.probe.writes;
    }
    if (value.probe.params !== undefined) {
      if (!isObject(value.probe.params)) throw new CliError(`${file}: probe.params maps path parameter names to values`);
      config.probe.params = Object.fromEntries(Object.entries(value.probe.params).map(([name, param]) => [name, String(param)]));
    }
  }
  return config;
}

/**
 * Reads the config file `explicit` names, or the first of {@link CONFIG_FILES} in `cwd`; the defaults
 * when there is none.
 *
 * @example
 * const config = await loadConfig(undefined, process.cwd());
 */
export async function loadConfig(explicit: string | undefined, cwd: string): Promise<CliConfig> {
  const candidates = explicit === undefined ? CONFIG_FILES.map((name) => path.join(cwd, name)) : [path.resolve(cwd, explicit)];
  for (const file of candidates) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      if (explicit !== undefined) throw new CliError(`${explicit}: no such config file`);
      continue;
    }
    const shown = path.relative(cwd, file) || file;
    if (file.endsWith('.json')) {
      try {
        return parseConfig(JSON.parse(text), shown);
      } catch (error) {
        if (error instanceof SyntaxError) throw new CliError(`${shown}: not valid JSON: ${error.message}`);
        throw error;
      }
    }
    const yaml = await loadYaml();
    const document = yaml.parseDocument(text);
    if (document.errors[0] !== undefined) throw new CliError(`${shown}: not valid YAML: ${document.errors[0].message.split('\n')[0]}`);
    return parseConfig(document.toJS(), shown);
  }
  return defaultConfig();
}

/**
 * The severity of a rule in a command under a config, or `off`.
 *
 * @example
 * severityOf(ruleOf('no-leak')!, 'probe', defaultConfig()); // 'error'
 */
export function severityOf(rule: Rule, command: Command, config: CliConfig): Severity | 'off' {
  return config.rules[rule.id] ?? rule.severity[command] ?? 'off';
}
