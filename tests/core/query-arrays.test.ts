/**
 * The rule for arrays in a query: a key given once reaches a schema that takes only arrays there as
 * a one-element array, over HTTP and in memory, for an endpoint's query and a list's filter, with
 * the schema libraries that describe themselves in JSON Schema; a schema that also takes a string
 * gets the string.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { type } from 'arktype';
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { z } from 'zod';
import { collection, createApi, endpoint } from '../../src/index.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { createClient } from '../../src/client/index.js';
import { takesOnlyArrays } from '../../src/core/query-arrays.js';

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(api: Parameters<typeof toNodeListener>[0]): Promise<string> {
  const server = createServer(toNodeListener(api));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const tagged = (query: Parameters<typeof endpoint>[2]['query']) =>
  createApi({
    endpoints: [endpoint('GET', '/tags', { public: true, query, handle: (ctx) => ctx.query as Record<string, unknown> })],
    resources: [collection('posts', { filter: { tag: z.array(z.string()) }, list: (ctx) => [{ id: 1, filter: ctx.filter }] })],
  });

const SCHEMAS = {
  zod: z.object({ tag: z.array(z.string()), q: z.string().optional() }),
  'zod, optional and nullable': z.object({ tag: z.array(z.string()).nullable().optional(), q: z.string().optional() }),
  arktype: type({ tag: 'string[]', 'q?': 'string' }),
  'valibot with toStandardJsonSchema': toStandardJsonSchema(v.object({ tag: v.array(v.string()), q: v.optional(v.string()) })),
};

describe.each(['memory', 'http'] as const)('a single value of an array key (%s)', (transport) => {
  async function get(api: ReturnType<typeof tagged>, target: string): Promise<{ status: number; body: unknown }> {
    if (transport === 'memory') {
      const response = await api.handle({ method: 'GET', url: target, headers: {} });
      return { status: response.status, body: JSON.parse(String(response.payload)) };
    }
    const response = await fetch((await serve(api)) + target);
    return { status: response.status, body: await response.json() };
  }

  it.each(Object.entries(SCHEMAS))('?tag=a reaches the %s schema as ["a"], and ?tag=a&tag=b as two', async (_, schema) => {
    const api = tagged(schema as never);
    expect(await get(api, '/tags?tag=a&q=x')).toEqual({ status: 200, body: { tag: ['a'], q: 'x' } });
    expect(await get(api, '/tags?tag=a&tag=b')).toEqual({ status: 200, body: { tag: ['a', 'b'] } });
  });

  it('leaves a string where the schema takes one: ?q=a with q a string, and a union of a string and an array', async () => {
    const api = tagged(z.object({ q: z.string(), u: z.union([z.string(), z.array(z.string())]) }));
    expect(await get(api, '/tags?q=a&u=b')).toEqual({ status: 200, body: { q: 'a', u: 'b' } });
    // A repeated key where the schema takes one value is still refused.
    expect((await get(api, '/tags?q=a&q=b&u=c')).status).toBe(400);
  });

  it('?tag=a reaches a list filter that takes only arrays as ["a"]', async () => {
    const api = tagged(undefined);
    expect(await get(api, '/posts?tag=a')).toEqual({ status: 200, body: [{ id: 1, filter: { tag: ['a'] } }] });
  });
});

describe('the client and the server agree on one-element arrays', () => {
  it("query: { tag: ['a'] } against z.array(z.string()) answers 200, over HTTP and in memory", async () => {
    const api = createApi({ endpoints: [endpoint('GET', '/tags', { query: z.object({ tag: z.array(z.string()) }), handle: (ctx) => ctx.query.tag })] });
    for (const client of [createClient<typeof api>({ api }), createClient<typeof api>({ baseUrl: await serve(api) })]) {
      expect(await client.get('/tags', { query: { tag: ['a'] } })).toMatchObject({ status: 200, body: ['a'] });
    }
  });
});

describe('takesOnlyArrays', () => {
  it('reads the JSON Schema a schema gives of itself', () => {
    expect(takesOnlyArrays(z.array(z.number()))).toBe(true);
    expect(takesOnlyArrays(z.union([z.array(z.string()), z.array(z.number())]))).toBe(true);
    expect(takesOnlyArrays(z.string())).toBe(false);
    expect(takesOnlyArrays(z.union([z.string(), z.array(z.string())]))).toBe(false);
    // valibot without toStandardJsonSchema says nothing of its shape: its values are passed as they are.
    expect(takesOnlyArrays(v.array(v.string()))).toBe(false);
  });
});
