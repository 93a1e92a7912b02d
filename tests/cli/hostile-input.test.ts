/**
 * Text the CLI reads from a source it does not control, built from the attack strings recheck printed
 * against the CLI's old regular expressions, each repeated 50,000 times: an error body a probed server
 * writes, and a path template of a document. Each is read, and yields what it holds. That the reading
 * takes linear time is tests/security/redos.test.ts's to prove; these tests hold the findings.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel, isItemPath, segmentsOf } from '../../src/cli/lint/model.js';
import { replaceParams } from '../../src/cli/path-params.js';
import { leaksIn } from '../../src/cli/probe/leaks.js';
import { createApiMap } from '../../src/cli/probe/targets.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { runCli } from './run.js';

const TIMES = 50_000;

/** The characters of an error body the leak detectors read, as docs/cli.md says. */
const READ = 65_536;

/** recheck's attack string on each old leak pattern, and one on a V8 frame's name. */
const ATTACKS = {
  "'   at k(c' + ') in m' × 50,000 (a .NET frame whose file never ends in :line)": '   at k(c' + ') in m'.repeat(TIMES) + '\n',
  "'at ' × 50,000 (V8 frames without a file)": 'at '.repeat(TIMES),
  "'p' + 'p/tm' × 50,000 + 's' (a path below /tmp that never ends in a source file)": 'p' + 'p/tm'.repeat(TIMES) + 's',
  "'A+' × 50,000 + '0:0@/' (a URL scheme that never ends)": 'A+'.repeat(TIMES) + '0:0@/',
};

/** A database's connection error, as a careless server writes it. */
const PLANTED = '\nError: connect ECONNREFUSED postgres://app:s3cret@db.internal:5432/items\n    at Client.connect (/app/node_modules/pg/lib/client.js:57:17)';
const PLANTED_LEAKS = [
  { name: 'a stack trace', match: 'at Client.connect (/app/node_modules/pg/lib/client.js:57:17)' },
  { name: 'a file path of the server', match: '/app/node_modules/pg/lib/client.js' },
  { name: 'credentials in a connection string', match: 'postgres://app:s3cret@db.internal:5432/items' },
];

describe('the leak detectors on an error body built from an attack string', () => {
  it.each(Object.entries(ATTACKS))('%s: no leak', (_, attack) => {
    expect(leaksIn(attack)).toEqual([]);
  });

  it.each(Object.entries(ATTACKS))('%s, cut to end with a leak at the last characters read: that leak', (_, attack) => {
    expect(leaksIn(attack.slice(0, READ - PLANTED.length) + PLANTED)).toEqual(PLANTED_LEAKS);
  });

  it(`reads the first ${READ} characters of a body: a leak after them is not found`, () => {
    expect(leaksIn(' '.repeat(READ - PLANTED.length) + PLANTED)).toEqual(PLANTED_LEAKS);
    expect(leaksIn(' '.repeat(READ) + PLANTED)).toEqual([]);
  });
});

describe("restcanon probe on a server whose every answer is a 500 holding '   at k(c' + ') in m' × 50,000", () => {
  let server: MountedServer;
  beforeAll(async () => {
    const body = PLANTED + '\n' + Object.values(ATTACKS)[0];
    server = await listen(http.createServer((_, response) => response.writeHead(500, { 'content-type': 'text/plain' }).end(body)));
  });
  afterAll(() => server.close());

  it('reports the leaks the body holds, and no other', async () => {
    const run = await runCli(['probe', server.baseUrl, '--rate', '1000', '--timeout', '3000', '--max-requests', '20', '--format', 'json']);
    const report = JSON.parse(run.stdout) as { findings: { rule: string; message: string }[] };
    const leaks = report.findings.filter((finding) => finding.rule === 'no-leak').map((finding) => finding.message);
    expect(leaks).toEqual(PLANTED_LEAKS.map((leak) => `The 500 answer holds ${leak.name} ("${leak.match}"): an error tells the client what to change, and keeps the server's insides in its log`));
  });
});

describe("a path template with '{' × 50,000 and no '}'", () => {
  const open = '{'.repeat(TIMES);

  it('has no parameter: its segments are text, and it names a collection', () => {
    expect(segmentsOf(`/notes/${open}`)).toEqual([
      { text: 'notes', param: false },
      { text: open, param: false },
    ]);
    expect(isItemPath(`/notes/${open}`)).toBe(false);
    expect(isItemPath(`/notes/${open}}`)).toBe(true);
  });

  it('is filled as written by the probe; closed by a `}`, it is one parameter, named by what the braces hold', () => {
    const model = buildModel({ openapi: '3.1.0', info: { title: 'notes', version: '1' }, paths: {} }, (value) => value);
    const api = createApiMap(model, { [open.slice(1)]: '7' });
    expect(api.fill(`/notes/${open}`)).toBe(`/notes/${open}`);
    expect(api.fill(`/notes/${open}}`)).toBe('/notes/7');
    expect(api.missing(`/notes/${open}}/{id}`)).toEqual(['id']);
    expect(replaceParams(`/notes/${open}`, 'restcanon-probe-unknown')).toBe(`/notes/${open}`);
    expect(replaceParams(`/notes/${open}/{id}`, 'restcanon-probe-unknown')).toBe('/notes/restcanon-probe-unknown');
  });
});
