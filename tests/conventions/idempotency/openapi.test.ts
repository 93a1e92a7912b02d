/**
 * The part of idempotency keys in the OpenAPI document: the header each operation takes or needs,
 * with the retention the draft asks a server to publish, the problems of its steps and the header of
 * a replay; nothing on an operation that takes no key.
 */
import { describe, expect, it } from 'vitest';
import { collection, createApi, endpoint } from '../../../src/index.js';
import { idempotency } from '../../../src/idempotency.js';
import { createOpenApiDocument } from '../../../src/openapi/index.js';
import { retentionText } from '../../../src/conventions/idempotency/openapi.js';

describe('idempotency in the OpenAPI document', () => {
  const orders = collection('orders', {
    body: 'unvalidated' as never,
    patch: 'unvalidated' as never,
    create: (ctx) => ({ id: 1, ...(ctx.body as object) }),
    read: (ctx) => ({ id: ctx.params.id }),
    update: { handle: (ctx) => ({ id: ctx.params.id }), conventions: { idempotency: false } },
  });
  const refunds = endpoint('POST', '/refunds', { body: 'unvalidated', handle: () => ({}), conventions: { idempotency: 'required' } });
  const api = createApi({ resources: [orders], endpoints: [refunds], authenticate: () => ({ id: 'alice' }), use: [idempotency({ retention: 3_600_000 })] });
  const paths = createOpenApiDocument(api, { info: { title: 'Orders', version: '1' } }).paths as unknown as Record<string, Record<string, { parameters?: { name: string; required: boolean; description: string }[]; responses: Record<string, { headers?: object }> }>>;
  const keyOf = (operation: { parameters?: { name: string; required: boolean; description: string }[] } | undefined) => operation?.parameters?.find((parameter) => parameter.name === 'Idempotency-Key');

  it('an optional key on a create, a required one where declared, with the retention', () => {
    expect(keyOf(paths['/orders']!.post)).toMatchObject({ in: 'header', required: false, schema: { type: 'string', maxLength: 512 } });
    expect(keyOf(paths['/orders']!.post)!.description).toContain('for 1 hour');
    expect(keyOf(paths['/refunds']!.post)).toMatchObject({ required: true });
  });

  it('its problems among the responses, and Idempotent-Replayed on the success', () => {
    const create = paths['/orders']!.post!;
    for (const status of ['400', '409', '422', '503']) expect(create.responses[status]).toBeDefined();
    expect(create.responses['201']!.headers).toHaveProperty('Idempotent-Replayed');
  });

  it('nothing on an operation that takes no key: a GET, or one that declares false', () => {
    expect(keyOf(paths['/orders/{id}']!.get)).toBeUndefined();
    expect(keyOf(paths['/orders/{id}']!.patch)).toBeUndefined();
    expect(paths['/orders/{id}']!.patch!.responses['200']!.headers ?? {}).not.toHaveProperty('Idempotent-Replayed');
    expect(paths['/orders/{id}']!.patch!.responses['409']).toBeUndefined();
  });

  it('a 401 where a scope of the API\'s own may name no caller', () => {
    const signups = endpoint('POST', '/signups', { public: true, body: 'unvalidated', handle: () => ({}), conventions: { idempotency: 'optional' } });
    const document = (options: Parameters<typeof idempotency>[0]) => createOpenApiDocument(createApi({ endpoints: [signups], authenticate: () => ({ id: 'a' }), use: [idempotency(options)] }), { info: { title: 'Signups', version: '1' } });
    const responses = (document({ scope: (ctx) => ctx.request.headers?.['x-tenant'] as string | undefined }).paths as unknown as Record<string, Record<string, { responses: Record<string, unknown> }>>)['/signups']!.post!.responses;
    expect(responses['401']).toBeDefined();
    expect(responses['400']).toBeDefined();
  });

  it('says a retention in the largest whole unit', () => {
    expect(retentionText(86_400_000)).toBe('24 hours');
    expect(retentionText(3_600_000)).toBe('1 hour');
    expect(retentionText(90_000)).toBe('90 seconds');
    expect(retentionText(1500)).toBe('1500 milliseconds');
  });
});
