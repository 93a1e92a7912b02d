/**
 * Two instances of one API, a node:http server and a Fastify server, sharing one real redis-server
 * (tests/helpers/redis-server.ts) through `redisStore`: one key sent fifty times at once, half to
 * each, runs the handler once, and every client that retries its 409 ends with the same answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFastify } from '../../../src/adapters/fastify.js';
import { toNodeListener } from '../../../src/adapters/node.js';
import { redisStore } from '../../../src/store/redis.js';
import { listen, type MountedServer } from '../../adapters/conformance.js';
import { findRedisServer, REDIS_SKIPPED, startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import { ALICE, ordersApi, type Orders } from './orders.js';

const binary = findRedisServer();
if (binary === undefined) console.log(REDIS_SKIPPED);

describe.skipIf(binary === undefined)('idempotency: two servers sharing one Redis', () => {
  let redis: RedisServer;
  let client: Redis;
  let instances: Orders[];
  let servers: MountedServer[];

  beforeAll(async () => {
    redis = await startRedisServer(binary!);
    client = new Redis({ port: redis.port, host: '127.0.0.1' });
    const store = redisStore({ client, prefix: 'idempotency-test:' });
    instances = [ordersApi({ store }), ordersApi({ store })];
    const fastify = Fastify({ forceCloseConnections: true });
    await fastify.register(toFastify(instances[1]!.api));
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fastify.server.address() as AddressInfo;
    servers = [await listen(http.createServer(toNodeListener(instances[0]!.api))), { baseUrl: `http://127.0.0.1:${port}`, close: () => fastify.close() }];
  }, 20_000);

  afterAll(async () => {
    await Promise.all((servers ?? []).map((server) => server.close()));
    client?.disconnect();
    await redis?.close();
  });

  /** Sends the request until it is answered with anything but a 409, waiting a little after each. */
  async function until(baseUrl: string): Promise<{ status: number; text: string; replayed: string | null; conflicts: number }> {
    for (let conflicts = 0; ; conflicts++) {
      const response = await fetch(`${baseUrl}/orders`, {
        method: 'POST',
        headers: { authorization: ALICE, 'content-type': 'application/json', 'idempotency-key': '"shared-key"' },
        body: JSON.stringify({ item: 'tea', quantity: 2 }),
      });
      const text = await response.text();
      if (response.status !== 409) return { status: response.status, text, replayed: response.headers.get('idempotent-replayed'), conflicts };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  it('runs the handler once for fifty requests at once, and every client ends with the same answer', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => until(servers[index % 2]!.baseUrl)));
    expect(instances[0]!.runs.create + instances[1]!.runs.create).toBe(1);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((answer) => answer.text)).size).toBe(1);
    expect(answers.filter((answer) => answer.replayed === null)).toHaveLength(1);
    expect(answers.filter((answer) => answer.replayed === 'true')).toHaveLength(49);
  }, 20_000);
});
