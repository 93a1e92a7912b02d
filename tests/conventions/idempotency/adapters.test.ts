/**
 * Idempotency keys over real HTTP, on every adapter: a retry replays the first answer as it went on
 * the wire, fifty retries at once run the handler once, and the headers a client cannot send through
 * `fetch` (two Idempotency-Key lines) are written on a raw socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_PROBLEMS } from '../../../src/idempotency.js';
import type { MountedServer } from '../../adapters/conformance.js';
import { ADAPTER_SETUPS, rawRequest } from '../../security/raw-http.js';
import { ALICE, BOB, gate, ordersApi, type Orders } from './orders.js';

/** The headers of an answer that describe the answer, not its transfer. */
function headersOf(response: Response): Record<string, string> {
  const headers = Object.fromEntries(response.headers);
  for (const name of ['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'set-cookie', 'idempotent-replayed']) delete headers[name];
  return headers;
}

describe.each(Object.entries(ADAPTER_SETUPS))('idempotency over %s', (_name, setup) => {
  let orders: Orders;
  let server: MountedServer;
  beforeAll(async () => {
    orders = ordersApi();
    server = await setup(orders.api);
  });
  afterAll(() => server.close());

  const post = (key: string, quantity = 2, authorization = ALICE) =>
    fetch(`${server.baseUrl}/orders`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ item: 'tea', quantity }),
    });

  it('a retry gets the first answer again, status, headers and bytes, with Idempotent-Replayed: true', async () => {
    const before = orders.runs.create;
    const first = await post('"replay"');
    const firstText = await first.text();
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post('"replay"');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(headersOf(again)).toEqual(headersOf(first));
    expect(orders.runs.create - before).toBe(1);
  });

  it('another body under the key is a 422, another caller\'s same key runs for that caller', async () => {
    const before = orders.runs.create;
    await (await post('"mine"')).text();
    const other = await post('"mine"', 3);
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await other.json()).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.reused });
    const bob = await post('"mine"', 2, BOB);
    expect(bob.status).toBe(201);
    expect(await bob.json()).toMatchObject({ owner: 'bob' });
    expect(orders.runs.create - before).toBe(2);
  });

  it('fifty requests at once with one key: one 201, 49 409s, the handler run once', async () => {
    const before = orders.runs.create;
    orders.hold = gate();
    const first = post('"fifty"');
    while (orders.runs.create === before) await new Promise((resolve) => setTimeout(resolve, 1));
    const others = await Promise.all(Array.from({ length: 49 }, () => post('"fifty"')));
    expect(others.map((response) => response.status)).toEqual(Array(49).fill(409));
    for (const response of others) expect(await response.json()).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.inUse });
    orders.hold.open();
    orders.hold = undefined;
    const created = await first;
    expect(created.status).toBe(201);
    const createdText = await created.text();
    const replays = await Promise.all(Array.from({ length: 10 }, () => post('"fifty"')));
    for (const response of replays) {
      expect(response.headers.get('idempotent-replayed')).toBe('true');
      expect(await response.text()).toBe(createdText);
    }
    expect(orders.runs.create - before).toBe(1);
  });

  it('two Idempotency-Key lines on the wire are a 400 of the malformed key, and nothing runs', async () => {
    const before = orders.runs.create;
    const body = JSON.stringify({ item: 'tea', quantity: 2 });
    const answer = await rawRequest(server, ['POST /orders HTTP/1.1', `Authorization: ${ALICE}`, 'Content-Type: application/json', 'Idempotency-Key: "a"', 'Idempotency-Key: "b"'], body);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.malformed });
    expect(orders.runs.create).toBe(before);
  });
});
