/**
 * `restcanon probe`: checks what one server answers against the conventions. It reaches the server
 * first (a server that does not answer, or sends the probe elsewhere, ends the run with a sentence),
 * reads the API's document (given, or served at /openapi.json), finds real ids by listing collections,
 * runs the checks in order within the request budget, deletes what it created, and holds every answer
 * of the run to the rules all answers follow. Every request goes to the base URL's origin.
 */
import { withoutTrailingSlashes } from '../../core/request.js';
import { DEFAULT_PROBE_SETTINGS, severityOf, type CliConfig, type ProbeSettings } from '../config.js';
import { CliError } from '../errors.js';
import type { Finding, Report, RuleSummary } from '../findings.js';
import { buildModel, type ApiModel } from '../lint/model.js';
import { resolveRefs } from '../lint/refs.js';
import { parseSource, parseText, type ParsedSource } from '../lint/source.js';
import { checkStructure, checkVersion } from '../lint/structure.js';
import { rulesOf, type RuleId } from '../rules.js';
import { BudgetSpent, createProbeClient, type ProbeClient } from './client.js';
import { credentialHeaders, invalidCredentials, outcomeOf, type Caller, type ProbeContext, type Results } from './context.js';
import { mediaTypeOf, textOf } from './http.js';
import type { Clock } from './limiter.js';
import { createApiMap, discoverValues } from './targets.js';
import { checkAnswers } from './checks/answers.js';
import { checkBodies } from './checks/bodies.js';
import { checkConditionalGet } from './checks/conditional.js';
import { checkCreate } from './checks/create.js';
import { checkForbidden, checkUnauthorized } from './checks/credentials.js';
import { checkHeadOptions, checkMethodNotAllowed } from './checks/methods.js';
import { checkNotFound } from './checks/not-found.js';

/**
 * What `restcanon probe` is asked to do: the command line's options.
 *
 * @example
 * const request: ProbeRequest = { baseUrl: 'http://localhost:3000', auth: 'Bearer alice-token', params: {} };
 */
export interface ProbeRequest extends Partial<Omit<ProbeSettings, 'params'>> {
  baseUrl: string;
  openapi?: string;
  auth?: string;
  auth2?: string;
  params: Record<string, string>;
}

/**
 * How the run is watched, and the clock it paces by.
 *
 * @example
 * const hooks: ProbeHooks = { cwd: process.cwd(), progress: createProgress(process.stderr) };
 */
export interface ProbeHooks {
  cwd?: string;
  progress?: { update(done: number, total: number, label: string): void; done(): void };
  clock?: Clock;
}

/** The checks, in the order they run, each with the rules it reports on. */
const CHECKS: readonly { rules: readonly RuleId[]; run(context: ProbeContext): Promise<void> }[] = [
  { rules: ['not-found'], run: checkNotFound },
  { rules: ['method-not-allowed'], run: checkMethodNotAllowed },
  { rules: ['unauthorized'], run: checkUnauthorized },
  { rules: ['forbidden'], run: checkForbidden },
  { rules: ['bad-request', 'unsupported-media-type', 'payload-too-large'], run: checkBodies },
  { rules: ['head-options'], run: checkHeadOptions },
  { rules: ['conditional-get'], run: checkConditionalGet },
  { rules: ['create-location'], run: checkCreate },
];

function settingsOf(request: ProbeRequest, config: CliConfig): ProbeSettings {
  const pick = <K extends keyof ProbeSettings>(key: K): ProbeSettings[K] => (request[key as keyof ProbeRequest] as ProbeSettings[K] | undefined) ?? config.probe[key] ?? DEFAULT_PROBE_SETTINGS[key];
  return {
    rate: pick('rate'),
    timeout: pick('timeout'),
    maxRequests: pick('maxRequests'),
    hugeBody: pick('hugeBody'),
    writes: pick('writes'),
    params: { ...DEFAULT_PROBE_SETTINGS.params, ...config.probe.params, ...request.params },
  };
}

function baseUrlOf(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`"${text}" is not a URL; give the API's base URL, such as http://localhost:3000`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // `localhost:3000` parses as the scheme `localhost:`: what was left out is the scheme.
    if (!text.includes('://')) throw new CliError(`${text} has no http:// or https://; give http://${text}`);
    throw new CliError(`${text}: the probe speaks http and https, not ${url.protocol}`);
  }
  if (url.search !== '' || url.hash !== '') throw new CliError(`${text}: give the base URL without a query or fragment`);
  return url;
}

function createResults(): Results & { summary: Map<RuleId, { checked: number; notRun: string[]; findings: Omit<Finding, 'severity'>[] }> } {
  const summary = new Map<RuleId, { checked: number; notRun: string[]; findings: Omit<Finding, 'severity'>[] }>();
  const of = (rule: RuleId) => {
    let entry = summary.get(rule);
    if (entry === undefined) summary.set(rule, (entry = { checked: 0, notRun: [], findings: [] }));
    return entry;
  };
  return {
    summary,
    check: (rule, count = 1) => void (of(rule).checked += count),
    fail: (rule, finding) => void of(rule).findings.push({ rule, ...finding }),
    skip: (rule, reason) => void (of(rule).notRun.includes(reason) || of(rule).notRun.push(reason)),
  };
}

/** Reaches the server once; a server that cannot be reached, or that sends the probe to another host, ends the run. */
async function reach(client: ProbeClient, base: URL, timeout: number): Promise<void> {
  const entry = await client.send({ method: 'GET', url: base.href, headers: { accept: 'application/json' } });
  if (entry.error !== undefined) {
    const hint = entry.error.kind === 'timeout' ? ` Is it the API, and is it up? Allow it longer with --timeout (now ${timeout} ms).` : entry.error.kind === 'refused' ? ' Is the server running?' : '';
    throw new CliError(`${entry.error.message}.${hint}`);
  }
  const location = entry.answer?.headers.location;
  if (entry.answer !== undefined && entry.answer.status >= 300 && entry.answer.status < 400 && location !== undefined) {
    const target = new URL(location, base);
    if (!client.isOwn(target.href)) {
      throw new CliError(`${base.href} answered ${entry.answer.status}, a redirect to ${target.href}, another host; the probe sends requests to one host only and follows no redirect. If the API lives there, probe that URL.`);
    }
  }
}

async function modelOf(source: ParsedSource): Promise<ApiModel> {
  checkVersion(source);
  const deref = await resolveRefs(source);
  checkStructure(source, deref);
  return buildModel(source.value as Record<string, unknown>, deref);
}

/** The document: the file or same-origin URL given, or the one the server serves at /openapi.json. */
async function documentOf(request: ProbeRequest, client: ProbeClient, notes: string[], cwd: string): Promise<ApiModel | undefined> {
  const given = request.openapi;
  if (given !== undefined && !/^https?:\/\//i.test(given)) {
    const model = await modelOf(await parseSource(given, { timeoutMs: 10_000, cwd }));
    notes.push(`Document: ${given} (${model.operations.length} operations).`);
    return model;
  }
  if (given !== undefined && !client.isOwn(given)) {
    throw new CliError(`--openapi ${given} is on another host than ${client.origin}; the probe sends requests to one host only: download the document and give its file`);
  }
  const url = given ?? client.urlOf('/openapi.json');
  const entry = await client.send({ method: 'GET', url, headers: { accept: 'application/json, application/yaml;q=0.9' } });
  if (entry.answer === undefined || entry.answer.status !== 200) {
    if (given !== undefined) throw new CliError(`--openapi ${given} ${outcomeOf(entry)}, not 200 with a document`);
    notes.push(`No document: ${url} ${outcomeOf(entry)}. Only the checks that need none ran; pass --openapi <file|url> for the others.`);
    return undefined;
  }
  try {
    const model = await modelOf(await parseText(textOf(entry.answer), url, url));
    notes.push(`Document: ${url} (${model.operations.length} operations).`);
    return model;
  } catch (error) {
    if (given !== undefined || !(error instanceof CliError)) throw error;
    notes.push(`No document: ${url} answered 200, but not with an OpenAPI document the probe can use (${error.message.split('\n')[0]}). Pass --openapi <file|url>.`);
    return undefined;
  }
}

/** The document's server path (`/api` of `servers: [{ url: '/api' }]`) below the base URL, unless the base URL already ends with it. */
function applyServerPath(client: ProbeClient, model: ApiModel | undefined, notes: string[]): void {
  const servers = model?.root.servers;
  const first = Array.isArray(servers) ? (servers[0] as { url?: unknown } | undefined)?.url : undefined;
  if (typeof first !== 'string' || first.includes('{')) return;
  const serverPath = withoutTrailingSlashes(new URL(first, 'http://server.invalid').pathname);
  if (serverPath === '' || client.basePath.endsWith(serverPath)) return;
  client.basePath = `${client.basePath}${serverPath}`;
  notes.push(`Paths are below ${serverPath}, the document's server path.`);
}

/** Refuses a server whose every answer so far is a web page: it is not an API, or not at that URL. */
function refuseWebPages(client: ProbeClient): void {
  const answers = client.exchanges.flatMap((entry) => (entry.answer === undefined ? [] : [entry.answer]));
  if (answers.length >= 2 && answers.every((answer) => mediaTypeOf(answer) === 'text/html')) {
    throw new CliError(`${client.origin} answers every request with an HTML page, not an API's answer: is ${client.urlOf('/')} the API's base URL? (Its first answer: ${answers[0]!.status} text/html.)`);
  }
}

/**
 * Probes a server and gives the report; throws a CliError when the server cannot be probed at all.
 *
 * @example
 * const report = await probeServer({ baseUrl: 'http://127.0.0.1:3000', params: {} }, defaultConfig(), {});
 */
export async function probeServer(request: ProbeRequest, config: CliConfig, hooks: ProbeHooks = {}): Promise<Report> {
  const settings = settingsOf(request, config);
  const base = baseUrlOf(request.baseUrl);
  const client = createProbeClient(base, { rate: settings.rate, timeout: settings.timeout, maxRequests: settings.maxRequests, ...(hooks.clock === undefined ? {} : { clock: hooks.clock }) });
  const notes: string[] = [];
  const credentials = {
    ...(request.auth === undefined ? {} : { first: credentialHeaders(request.auth) }),
    ...(request.auth2 === undefined ? {} : { second: credentialHeaders(request.auth2) }),
  };
  const results = createResults();
  const context: ProbeContext = {
    client,
    api: createApiMap(undefined, settings.params),
    settings,
    credentials,
    results,
    created: [],
    send(method, path, options = {}) {
      const as: Caller = options.as ?? 'none';
      const auth = as === 'first' ? credentials.first : as === 'second' ? credentials.second : as === 'invalid' ? invalidCredentials(credentials.first) : undefined;
      return client.send({
        method,
        url: options.url ?? client.urlOf(path),
        headers: { accept: 'application/json, application/problem+json;q=0.9, */*;q=0.1', ...auth, ...options.headers },
        ...(options.body === undefined ? {} : { body: options.body }),
      });
    },
  };
  let estimate = 10;
  client.onExchange = (entry) => hooks.progress?.update(Math.min(client.sent, estimate), estimate, `${entry.request.method} ${new URL(entry.request.url).pathname}`);
  try {
    await reach(client, base, settings.timeout);
    const model = await documentOf(request, client, notes, hooks.cwd ?? process.cwd());
    applyServerPath(client, model, notes);
    context.api = createApiMap(model, settings.params);
    estimate = Math.min(settings.maxRequests, 12 + context.api.operations.length * 3);
    let ran = 0;
    try {
      await discoverValues(context.api, client, credentials.first ?? {}, 10);
      for (const check of CHECKS) {
        const active = check.rules.filter((rule) => severityOf(rulesOf('probe').find((entry) => entry.id === rule)!, 'probe', config) !== 'off');
        if (active.length > 0) await check.run(context);
        ran += 1;
        if (ran === 1) refuseWebPages(client);
      }
    } catch (error) {
      if (!(error instanceof BudgetSpent)) throw error;
      for (const check of CHECKS.slice(ran)) for (const rule of check.rules) results.skip(rule, `${error.message}; raise it with --max-requests`);
      notes.push(`The request budget of ${settings.maxRequests} ran out before every check ran.`);
    }
    for (const url of context.created) {
      const removed = await client.send({ method: 'DELETE', url, headers: { ...credentials.first } }, { cleanup: true });
      if (removed.answer === undefined || removed.answer.status >= 300) notes.push(`Could not delete ${url}, which the probe created (DELETE ${outcomeOf(removed)}): remove it by hand.`);
    }
    checkAnswers(context);
  } finally {
    hooks.progress?.done();
  }
  notes.unshift(`${client.sent} requests to ${client.origin}, at most ${settings.rate} a second.`);
  if (credentials.first === undefined) notes.push('No credentials: pass --auth (and --auth2 for a second user) to check what needs them.');
  return assemble(request.baseUrl, results.summary, config, notes);
}

function assemble(target: string, summary: ReturnType<typeof createResults>['summary'], config: CliConfig, notes: string[]): Report {
  const findings: Finding[] = [];
  const rules: RuleSummary[] = [];
  for (const rule of rulesOf('probe')) {
    const severity = severityOf(rule, 'probe', config);
    if (severity === 'off') continue;
    const entry = summary.get(rule.id) ?? { checked: 0, notRun: [], findings: [] };
    for (const finding of entry.findings) findings.push({ ...finding, severity });
    rules.push({ rule: rule.id, checked: entry.checked, failed: entry.findings.length, notRun: entry.notRun });
  }
  return { command: 'probe', target, findings, rules, notes };
}
