/**
 * What restcanon lint does with input it cannot lint, and with the ways a project tunes it: each bad
 * document is refused with a sentence that names the place (file, line, pointer) and exit code 2; a
 * reference is followed into other files but never over the network; a recursive schema is fine.
 */
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listen } from '../adapters/conformance.js';
import { runCli } from './run.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'restcanon-lint-input-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(scratch, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return name;
}

const lint = (...args: string[]) => runCli(['lint', ...args], scratch);

/** A small document that follows the conventions, in YAML, with one path to vary. */
const GOOD = `openapi: 3.0.3
info: { title: notes, version: "1" }
paths:
  /notes/{id}:
    get:
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
      responses:
        "200": { description: the note }
        "400": { $ref: "#/components/responses/Problem" }
        "404": { $ref: "#/components/responses/Problem" }
        "500": { $ref: "#/components/responses/Problem" }
components:
  responses:
    Problem:
      description: a problem
      content:
        application/problem+json:
          schema: { $ref: "#/components/schemas/Problem" }
  schemas:
    Problem:
      type: object
      properties: { title: { type: string }, cause: { $ref: "#/components/schemas/Problem" } }
`;

describe('restcanon lint: documents it refuses, with exit code 2', () => {
  it.each([
    ['a missing file', 'missing.yaml', undefined, 'restcanon: missing.yaml: no such file\n'],
    ['a YAML syntax error, with its line and column', 'broken.yaml', 'openapi: 3.1.0\npaths:\n  /a: [1, 2\n', /^restcanon: broken\.yaml:4:1: not valid JSON or YAML: /],
    ['JSON with a key twice', 'twice.json', '{"openapi":"3.1.0","paths":{},"paths":{}}', /^restcanon: twice\.json:1:\d+: not valid JSON or YAML: Map keys must be unique/],
    ['a list, not a document', 'list.yaml', '- a\n- b\n', 'restcanon: list.yaml: not an OpenAPI document: the top level is not an object\n'],
    ['OpenAPI 2.0', 'swagger.json', '{"swagger":"2.0","paths":{}}', 'restcanon: swagger.json: an OpenAPI 2.0 (Swagger) document; restcanon reads OpenAPI 3.0 and 3.1: convert it first (for example with swagger2openapi)\n'],
    ['an unknown version', 'four.yaml', 'openapi: 4.0.0\npaths: {}\n', 'restcanon: four.yaml: not an OpenAPI 3.0 or 3.1 document: "openapi" is "4.0.0", not a version such as "3.1.0"\n'],
    [
      'responses that are not an object, and a path without "/"',
      'shape.yaml',
      'openapi: 3.0.3\ninfo: { title: x, version: "1" }\npaths:\n  notes:\n    get:\n      responses: nothing\n',
      'restcanon: shape.yaml: not a valid OpenAPI 3.0.3 document:\n  /paths/notes (line 4): a path must start with "/"\n  /paths/notes/get/responses (line 6): must be an object of responses\n',
    ],
    [
      'references that lead back to themselves',
      'cycle.yaml',
      'openapi: 3.1.0\npaths:\n  /a:\n    get:\n      responses:\n        "200": { $ref: "#/components/responses/A" }\ncomponents:\n  responses:\n    A: { $ref: "#/components/responses/B" }\n    B: { $ref: "#/components/responses/A" }\n',
      /^restcanon: cycle\.yaml:6:9 \(\/paths\/~1a\/get\/responses\/200\): the \$ref "#\/components\/responses\/A" cannot be followed: the references lead back to themselves: .*#\/components\/responses\/A -> .*#\/components\/responses\/A\n$/,
    ],
    ['a reference to nothing', 'dangling.yaml', 'openapi: 3.1.0\npaths:\n  /a:\n    get:\n      responses:\n        "200": { $ref: "#/components/responses/Gone" }\n', /^restcanon: dangling\.yaml:6:9 \(\/paths\/~1a\/get\/responses\/200\): the \$ref "#\/components\/responses\/Gone" cannot be followed: Missing \$ref pointer/],
    ['a reference to a file that is not there', 'away.yaml', 'openapi: 3.1.0\npaths:\n  /a:\n    get:\n      responses:\n        "200": { $ref: "responses.yaml#/Ok" }\n', /^restcanon: away\.yaml: a \$ref cannot be followed: .*responses\.yaml/],
  ])('%s', async (_case, name, text, expected) => {
    if (text !== undefined) write(name, text);
    const result = await lint(name);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    if (typeof expected === 'string') expect(result.stderr).toBe(expected);
    else expect(result.stderr).toMatch(expected);
  });

  it('a reference over HTTP is not followed, and no request is sent', async () => {
    const requests: string[] = [];
    const server = await listen(http.createServer((req, res) => void (requests.push(String(req.url)), res.end('{}'))));
    try {
      write('remote.yaml', `openapi: 3.1.0\npaths:\n  /a:\n    get:\n      responses:\n        "200": { $ref: "${server.baseUrl}/responses.yaml#/Ok" }\n`);
      const result = await lint('remote.yaml');
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/a \$ref cannot be followed: .*References over HTTP are not followed/);
      expect(requests).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe('restcanon lint: references and URLs', () => {
  it('follows a reference into another file, and reports at the line of the reference', async () => {
    write('split/responses.yaml', 'NotFound:\n  description: no such note\n  content:\n    application/json:\n      schema: { $ref: "#/Error" }\nError:\n  type: object\n');
    write('split/api.yaml', GOOD.replace('"404": { $ref: "#/components/responses/Problem" }', '"404": { $ref: "responses.yaml#/NotFound" }'));
    const result = await lint('split/api.yaml', '--format', 'json');
    const { findings } = JSON.parse(result.stdout) as { findings: { rule: string; line: number; pointer: string; message: string }[] };
    expect(findings).toEqual([
      {
        rule: 'problem-body',
        severity: 'warn',
        message: 'GET /notes/{id} documents 404 as application/json: errors are problem bodies, application/problem+json (RFC 9457: type, title, status, detail)',
        pointer: '/paths/~1notes~1{id}/get/responses/404',
        line: 11,
        column: 9,
      },
    ]);
    expect(readFileSync(path.join(scratch, 'split/api.yaml'), 'utf8').split('\n')[10]).toMatch(/"404": \{ \$ref: "responses\.yaml#\/NotFound" \}/);
    expect(result.code).toBe(0);
  });

  it('lints a recursive schema (a schema that contains itself) without complaint', async () => {
    const result = await lint(write('good.yaml', GOOD));
    expect(result).toEqual({ code: 0, stdout: `good.yaml\n  OpenAPI 3.0.3: 1 path, 1 operation\n\nNo findings.\n`, stderr: '' });
  });

  it('refuses a YAML merge key (<<: *errors) with its line, saying readers disagree on it (was: a response key is a status)', async () => {
    const merged = GOOD.replace(
      '        "400": { $ref: "#/components/responses/Problem" }\n        "404": { $ref: "#/components/responses/Problem" }\n        "500": { $ref: "#/components/responses/Problem" }\n',
      '        <<: *errors\n',
    ).replace('paths:\n', 'x-errors: &errors\n  "400": { $ref: "#/components/responses/Problem" }\npaths:\n');
    expect(merged.split('\n')[11]).toBe('        <<: *errors');
    const result = await lint(write('merged.yaml', merged));
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'restcanon: merged.yaml:12:9: a YAML merge key (<<), which YAML 1.2 does not have: Spectral merges the members in, swagger-parser reads a member named "<<"; write the members out\n',
    });
  });

  it('reads a document from a URL, and refuses a redirect, which it does not follow', async () => {
    const requests: string[] = [];
    const server = await listen(
      http.createServer((req, res) => {
        requests.push(String(req.url));
        if (req.url === '/moved') return void res.writeHead(301, { location: 'http://127.0.0.2:9/openapi.yaml' }).end();
        if (req.url === '/page') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>hello');
        res.writeHead(200, { 'content-type': 'application/yaml' }).end(GOOD);
      }),
    );
    try {
      expect((await lint(`${server.baseUrl}/openapi.yaml`)).code).toBe(0);
      expect(await lint(`${server.baseUrl}/moved`)).toEqual({ code: 2, stdout: '', stderr: `restcanon: ${server.baseUrl}/moved answered 301, a redirect to http://127.0.0.2:9/openapi.yaml; restcanon follows no redirect: give that URL itself\n` });
      expect(await lint(`${server.baseUrl}/page`)).toEqual({ code: 2, stdout: '', stderr: `restcanon: ${server.baseUrl}/page: not an OpenAPI document: the top level is not an object\n` });
      expect(requests).toEqual(['/openapi.yaml', '/moved', '/page']);
    } finally {
      await server.close();
    }
  });
});

describe('restcanon lint: a project’s settings', () => {
  const sloppy = GOOD.replace('/notes/{id}', '/getNotes/{id}').replace('"400": { $ref: "#/components/responses/Problem" }', '"400": { description: bad }');

  it('exit code 1 for an error, 0 for warnings, and --fail-on warn makes warnings fail', async () => {
    write('settings/verb.yaml', sloppy);
    expect((await lint('settings/verb.yaml')).code).toBe(1);
    write('settings/warn.yaml', GOOD.replace('"400": { $ref: "#/components/responses/Problem" }', '"400": { description: bad }'));
    expect((await lint('settings/warn.yaml')).code).toBe(0);
    expect((await lint('settings/warn.yaml', '--fail-on', 'warn')).code).toBe(1);
  });

  it('a config file turns rules off and changes severities', async () => {
    write('project/verb.yaml', sloppy);
    write('project/restcanon.config.yaml', 'rules:\n  naming-verb: warn\n  problem-body: "off"\n');
    const result = await runCli(['lint', 'verb.yaml', '--format', 'json'], path.join(scratch, 'project'));
    const report = JSON.parse(result.stdout) as { findings: { rule: string; severity: string }[]; rules: { rule: string }[] };
    expect(report.findings.map((finding) => `${finding.rule} ${finding.severity}`)).toEqual(['naming-verb warn']);
    expect(report.rules.map((rule) => rule.rule)).not.toContain('problem-body');
    expect(result.code).toBe(0);
  });

  it('naming.allow lets a name through, as createApi’s namingAllow does', async () => {
    write('allowed/verb.yaml', sloppy);
    write('allowed/restcanon.config.json', JSON.stringify({ naming: { allow: ['getNotes'] }, rules: { 'problem-body': 'off' } }));
    const result = await runCli(['lint', 'verb.yaml'], path.join(scratch, 'allowed'));
    expect(result.stdout).toMatch(/No findings\./);
  });

  it.each([
    ['restcanon.config.json', '{"rules":{"naming-verbs":"off"}}', /^restcanon: restcanon\.config\.json: no rule is called "naming-verbs"; the rules are naming-verb, naming-vague, /],
    ['restcanon.config.json', '{"rules":{"naming-verb":"loud"}}', 'restcanon: restcanon.config.json: rule "naming-verb" is set to "loud"; use error, warn, info, off\n'],
    ['restcanon.config.yaml', 'rulez: {}\n', 'restcanon: restcanon.config.yaml: unknown key "rulez" in the config; the keys are rules, failOn, naming, probe\n'],
    ['restcanon.config.json', '{"probe":{"rate":-1}}', 'restcanon: restcanon.config.json: probe.rate must be a positive number; got -1\n'],
    ['restcanon.config.json', '{ rules', /^restcanon: restcanon\.config\.json: not valid JSON: /],
  ])('a config file with a mistake is refused: %s %s', async (name, text, expected) => {
    const folder = `config-${Math.random().toString(36).slice(2)}`;
    write(`${folder}/${name}`, text);
    write(`${folder}/good.yaml`, GOOD);
    const result = await runCli(['lint', 'good.yaml'], path.join(scratch, folder));
    expect(result.code).toBe(2);
    if (typeof expected === 'string') expect(result.stderr).toBe(expected);
    else expect(result.stderr).toMatch(expected);
  });
});
