import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeadlines, type Timed } from '../../src/core/deadlines.js';

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
