/**
 * The demo's event stream of orders in memory (`api.handle` on PGlite): what a client that reads
 * slower than orders come gets (the stream ends, and a resume from its Last-Event-ID misses
 * nothing), and the stream limits, which a HEAD or a client that leaves gives back. The demo comes
 * from the built package: run `npm run build` first.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../../src/index.js';
import { createDemoApi } from '../../examples/demo-api.mjs';
import { announced } from '../../examples/order-events.mjs';
import { OPEN_TIMEOUT, openDemoDatabase, resetDemoData } from '../helpers/demo-database.js';

const alice = { authorization: 'Bearer alice-token' };
const decoder = new TextDecoder();

let db: Awaited<ReturnType<typeof openDemoDatabase>>;
beforeAll(async () => {
  db = await openDemoDatabase();
}, OPEN_TIMEOUT);
beforeEach(() => resetDemoData(db));
afterAll(() => db.close());

function demo(streams = { perUser: 3, total: 100 }) {
  return createDemoApi(db, { onError: () => {}, timeout: false, rateLimit: false, streams });
}

const open = (api: ReturnType<typeof demo>, headers: Record<string, string> = {}, method = 'GET') => api.handle({ method, url: '/users/1/orders/events', headers: { ...alice, ...headers } });

/** Every frame of a stream until it ends, comments left out. */
async function framesOf(response: ApiResponse): Promise<string[]> {
  let text = '';
  for await (const chunk of response.stream!) text += decoder.decode(chunk, { stream: true });
  return text.split('\n\n').filter((frame) => frame !== '' && !frame.startsWith(':'));
}

const idsOf = (frames: string[]) => frames.flatMap((frame) => /^id: (\d+)$/m.exec(frame)?.[1] ?? []).map(Number);

describe("the demo's event stream of orders", () => {
  it('a client that reads nothing while 150 orders come gets 100 and the end; from its Last-Event-ID it gets the other 50 first', { timeout: 60_000 }, async () => {
    const api = demo();
    const slow = await open(api);
    expect(slow.status).toBe(200);
    const values = Array.from({ length: 150 }, (_, index) => `(1, 'Clip ${index}', 1)`).join(', ');
    const created = await db.query(`with created as (insert into orders (user_id, item, quantity) values ${values} returning ${'id, user_id as "userId", item, quantity'}) ${announced('created')}`);
    const ids = created.map((row: { id: number }) => row.id);
    const frames = await framesOf(slow);
    expect(frames[0]).toBe('retry: 2000');
    expect(idsOf(frames)).toEqual(ids.slice(0, 100));
    expect(frames[1]).toBe(`event: order\nid: ${ids[0]}\ndata: {"id":${ids[0]},"userId":1,"item":"Clip 0","quantity":1}`);
    const resumed = await open(api, { 'last-event-id': String(ids[99]) });
    const iterator = resumed.stream![Symbol.asyncIterator]();
    let text = '';
    while (idsOf(text.split('\n\n')).length < 50) text += decoder.decode((await iterator.next()).value);
    expect(idsOf(text.split('\n\n'))).toEqual(ids.slice(100));
    await iterator.return!();
  });

  it('a HEAD and a stream whose client left give their place back: a second GET of a user allowed one is a 429 only while the first runs', async () => {
    const api = demo({ perUser: 1, total: 100 });
    const head = await open(api, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const first = await open(api);
    expect(first.status).toBe(200);
    const refused = await open(api);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    await first.stream![Symbol.asyncIterator]().return!();
    const again = await open(api);
    expect(again.status).toBe(200);
    await again.stream![Symbol.asyncIterator]().return!();
  });

  it('past the streams an instance serves, a stream of another user is 503 with Retry-After', async () => {
    const api = demo({ perUser: 3, total: 1 });
    const first = await open(api);
    expect(first.status).toBe(200);
    const admin = await api.handle({ method: 'GET', url: '/users/2/orders/events', headers: { authorization: 'Bearer admin-token' } });
    expect(admin.status).toBe(503);
    expect(admin.headers['retry-after']).toBe('5');
    await first.stream![Symbol.asyncIterator]().return!();
  });
});
