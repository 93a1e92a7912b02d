import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeadlines, type Timed } from '../../src/core/deadlines.js';

const run = promisify(execFile);

interface Job extends Timed {
  name: string;
}

const job = (name: string): Job => ({ name, dueAt: 0, older: undefined, newer: undefined });

describe('createDeadlines', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('expires the entries still running when their time is up, oldest first, and no others', async () => {
    const expired: string[] = [];
    const deadlines = createDeadlines<Job>(100, (entry) => expired.push(entry.name));
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(job) as [Job, Job, Job, Job];
    deadlines.add(a);
    await vi.advanceTimersByTimeAsync(40);
    deadlines.add(b);
    deadlines.add(c);
    deadlines.add(d);
    deadlines.delete(c); // from the middle of the line
    deadlines.delete(c); // twice: nothing happens
    await vi.advanceTimersByTimeAsync(60);
    expect(expired).toEqual(['a']);
    deadlines.delete(d); // the newest
    await vi.advanceTimersByTimeAsync(40);
    expect(expired).toEqual(['a', 'b']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(expired).toEqual(['a', 'b']);
  });

  it('an expiry that throws keeps neither the others from theirs nor the line from going on', async () => {
    const expired: string[] = [];
    const deadlines = createDeadlines<Job>(10, (entry) => {
      expired.push(entry.name);
      if (entry.name === 'a') throw new Error('failed to answer');
    });
    deadlines.add(job('a'));
    deadlines.add(job('b'));
    await vi.advanceTimersByTimeAsync(10);
    deadlines.add(job('c'));
    await vi.advanceTimersByTimeAsync(10);
    expect(expired).toEqual(['a', 'b', 'c']);
  });
});

// These run the build (dist/) in a Node process of their own, with nothing but the script to keep it
// alive: what a unit test or a script sees, which a worker of this runner, kept alive by the runner,
// would hide.
describe('deadlines of api.handle in a process with nothing else to do', () => {
  const index = JSON.stringify(pathToFileURL(path.resolve('dist/index.js')).href);
  const scratch = mkdtempSync(path.join(tmpdir(), 'restcanon-deadlines-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const hangs = `createApi({ timeout: 100, endpoints: [endpoint('GET', '/hangs', { handle: () => new Promise(() => {}) })] })`;

  it('a plain script that awaits api.handle of a handler that never settles (timeout: 100) prints the 503 and exits', async () => {
    const script = [
      `import { createApi, endpoint } from ${index};`,
      `const response = await ${hangs}.handle({ method: 'GET', url: '/hangs' });`,
      'console.log(response.status, response.body.code);',
    ].join('\n');
    const child = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 10_000 });
    expect(child.stdout.trim()).toBe('503 RC_TIMEOUT');
  });

  it('a node:test test that awaits it gets the 503 too', async () => {
    const file = path.join(scratch, 'hangs.test.mjs');
    writeFileSync(
      file,
      [
        "import assert from 'node:assert/strict';",
        "import { test } from 'node:test';",
        `import { createApi, endpoint } from ${index};`,
        "test('a handler that never settles', async () => {",
        `  const response = await ${hangs}.handle({ method: 'GET', url: '/hangs' });`,
        '  assert.equal(response.status, 503);',
        '});',
      ].join('\n'),
    );
    const child = await run(process.execPath, ['--test', '--test-reporter=tap', file], { timeout: 20_000 });
    expect(child.stdout).toMatch(/^# pass 1$/m);
  });

  it('a script whose request was answered exits at once, however long the deadline it no longer needs', async () => {
    const script = [
      `import { createApi, endpoint } from ${index};`,
      "const api = createApi({ timeout: 60_000, endpoints: [endpoint('GET', '/waits', { handle: async () => ({ ok: true }) })] });",
      "const response = await api.handle({ method: 'GET', url: '/waits' });",
      'console.log(response.status);',
    ].join('\n');
    const started = performance.now();
    const child = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 30_000 });
    expect(child.stdout.trim()).toBe('200');
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
