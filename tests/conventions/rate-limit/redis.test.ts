/**
 * Two instances of one API, one on node:http and one on Fastify, each with its own ioredis client,
 * counting in one real redis-server (tests/helpers/redis-server.ts): many clients at once, split
 * across both, get no more than the quota between them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFastify } from '../../../src/adapters/fastify.js';
import { toNodeListener } from '../../../src/adapters/node.js';
import { createApi, endpoint, type Api } from '../../../src/index.js';
import { rateLimit } from '../../../src/conventions/rate-limit/index.js';
import { redisStore } from '../../../src/store/redis.js';
import { listen, type MountedServer } from '../../adapters/conformance.js';
import { findRedisServer, REDIS_SKIPPED, startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const binary = findRedisServer();
if (binary === undefined) console.log(REDIS_SKIPPED);

describe.skipIf(binary === undefined)('a rate limit shared by two servers through Redis', () => {
  let redis: RedisServer;
  const clients: Redis[] = [];
  const servers: MountedServer[] = [];

  function instance(): Api {
    const client = new Redis({ port: redis.port, host: '127.0.0.1' });
    clients.push(client);
    return createApi({
      use: [rateLimit({ policies: { default: { quota: 100, window: 60 } }, store: redisStore({ client, prefix: 'shared:' }), onStoreError: 'deny', storeTimeout: 2_000 })],
      endpoints: [endpoint('GET', '/notes', { handle: () => [] })],
    });
  }

  beforeAll(async () => {
    redis = await startRedisServer(binary!);
    servers.push(await listen(http.createServer(toNodeListener(instance()))));
    const app = Fastify({ forceCloseConnections: true });
    await app.register(toFastify(instance(), { fallthrough: false }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    servers.push({ baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() });
  }, 20_000);

  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const client of clients) client.disconnect();
    await redis?.close();
  });

  it('300 concurrent requests, half to each server, against a quota of 100: exactly 100 succeed', async () => {
    const statuses = await Promise.all(Array.from({ length: 300 }, (_, index) => fetch(`${servers[index % 2]!.baseUrl}/notes`).then((response) => response.status)));
    expect(statuses.filter((status) => status === 200)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(200);
  });

  it('the count one server left is the other’s: the next answer of either says none are left', async () => {
    for (const server of servers) {
      const answer = await fetch(`${server.baseUrl}/notes`);
      expect(answer.status).toBe(429);
      expect(answer.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
    }
  });
});
