/**
 * One table of rules behind both commands, restcanon's own checks and the manual: the naming rules
 * say what createApi's naming check says, the statuses come from the outcome table, and docs/cli.md
 * lists every rule as the table has it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OUTCOMES } from '../../src/core/outcomes.js';
import { collection, createApi, endpoint, isConventionError } from '../../src/index.js';
import { lintPaths } from '../../src/engine.js';
import { buildModel } from '../../src/cli/lint/model.js';
import { lintModel } from '../../src/cli/lint/run.js';
import { ALL_RULES, rulesOf } from '../../src/cli/rules.js';

const PATHS = ['/getUsers', '/users/{id}/doRefund', '/data1', '/misc-info', '/load-balancers', '/orders/{id}'];

function namingFindingsOfLint(paths: readonly string[]): string[] {
  const document = { openapi: '3.1.0', paths: Object.fromEntries(paths.map((path) => [path, {}])) };
  return lintModel(buildModel(document, (value) => value), { rules: {}, naming: { allow: [] } })
    .findings.filter((finding) => finding.rule.startsWith('naming-'))
    .map((finding) => finding.message);
}

describe('the rules', () => {
  it('method-shape: PUT and DELETE on the one sub-resource of an item pass; on a sub-collection, or a name that takes POST, they do not', () => {
    const operations = { put: { responses: {} }, delete: { responses: {} } };
    const document = { openapi: '3.1.0', paths: { '/users/{id}/avatar': operations, '/users/{id}/orders': { ...operations, post: { responses: {} } }, '/users/avatar': operations } };
    const found = lintModel(buildModel(document, (value) => value), { rules: {}, naming: { allow: [] } }).findings.filter((finding) => finding.rule === 'method-shape');
    expect(found.map((finding) => finding.pointer)).toEqual(['/paths/~1users~1{id}~1orders/put', '/paths/~1users~1{id}~1orders/delete', '/paths/~1users~1avatar/put', '/paths/~1users~1avatar/delete']);
  });

  it('naming: lint reports what createApi’s naming check reports, with the same suggestion', () => {
    const fromLibrary = lintPaths(PATHS).map((finding) => `${finding.message}. Suggestion: ${finding.suggestion}`);
    expect(namingFindingsOfLint(PATHS)).toEqual(fromLibrary);
    expect(fromLibrary).toHaveLength(4);
    const endpoints = PATHS.map((path) => endpoint('GET', path.replace(/\{(\w+)\}/g, ':$1'), { handle: () => 'ok' }));
    let thrown: unknown;
    try {
      createApi({ endpoints });
    } catch (error) {
      thrown = error;
    }
    expect(isConventionError(thrown)).toBe(true);
    expect((thrown as { findings: { segment: string }[] }).findings.map((finding) => finding.segment)).toEqual(['getUsers', 'doRefund', 'data1', 'misc-info']);
  });

  it('an API built on restcanon, with an owner for its items, passes every lint rule', async () => {
    const notes = collection('notes', {
      body: 'unvalidated',
      patch: 'unvalidated',
      owner: (note: { owner: number }, principal) => note.owner === (principal as { id: number }).id,
      list: () => [],
      read: () => ({ id: 1, owner: 1 }),
      create: () => ({ id: 1 }),
      update: () => ({ id: 1 }),
      remove: () => true,
    });
    const { openApi } = await import('../../src/openapi/index.js');
    const api = createApi({ resources: [notes], authenticate: () => ({ id: 1 }), openapi: openApi({ info: { title: 'notes', version: '1' } }), onError: () => {} });
    const document = (await api.handle({ method: 'GET', url: '/openapi.json', headers: { authorization: 'Bearer x' } })).body as Record<string, unknown>;
    expect(lintModel(buildModel(document, (value) => value), { rules: {}, naming: { allow: [] } }).findings).toEqual([]);
    // Without an owner, any caller may read any note: the document shows it, as a 403 it cannot answer.
    const open = createApi({ resources: [collection('notes', { read: () => ({ id: 1 }) })], authenticate: () => ({ id: 1 }), openapi: openApi({ info: { title: 'notes', version: '1' } }), onError: () => {} });
    const openDocument = (await open.handle({ method: 'GET', url: '/openapi.json' })).body as Record<string, unknown>;
    const found = lintModel(buildModel(openDocument, (value) => value), { rules: {}, naming: { allow: [] } }).findings;
    expect(found.map((finding) => `${finding.rule} ${finding.pointer}`)).toEqual(['forbidden /paths/~1notes~1{id}/get/responses', 'forbidden /paths/~1notes~1{id}/head/responses']);
  });

  it('takes its statuses from the outcome table', () => {
    const text = JSON.stringify(ALL_RULES);
    for (const outcome of ['create', 'badRequest', 'unauthorized', 'forbidden', 'notFound', 'methodNotAllowed', 'unsupportedMediaType', 'payloadTooLarge', 'notModified'] as const) {
      expect(text).toContain(String(OUTCOMES[outcome].status));
    }
    expect(ALL_RULES.find((rule) => rule.id === 'create-location')!.title).toBe(`A POST that creates answers ${OUTCOMES.create.status} with Location`);
  });

  it('each rule is checked by lint, probe or both, with a default severity for each', () => {
    for (const rule of ALL_RULES) {
      expect(rule.lint !== undefined || rule.probe !== undefined, rule.id).toBe(true);
      expect(rule.lint === undefined || ['error', 'warn', 'info'].includes(rule.severity.lint!), rule.id).toBe(true);
      expect(rule.probe === undefined || ['error', 'warn', 'info'].includes(rule.severity.probe!), rule.id).toBe(true);
    }
    expect(rulesOf('lint').length + rulesOf('probe').length).toBeGreaterThan(ALL_RULES.length);
  });

  it('docs/cli.md lists every rule as the table has it', () => {
    const text = readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'cli.md'), 'utf8');
    const table = text.slice(text.indexOf('| id | lint checks |'));
    const rows = [...table.matchAll(/^\| `([a-z-]+)` \| (.*?) \| (.*?) \| (\w+|—) \| (\w+|—) \| (.*?) \|$/gm)].map((match) => match.slice(1));
    expect(rows).toEqual(ALL_RULES.map((rule) => [rule.id, rule.lint ?? '—', rule.probe ?? '—', rule.severity.lint ?? '—', rule.severity.probe ?? '—', rule.convention]));
  });
});
