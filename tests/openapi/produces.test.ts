/**
 * The OpenAPI document of endpoints with `produces`: their success content under each type, bytes as
 * OpenAPI 3.1 describes them, and a type of one of the API's formats as that format documents it.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint, type Endpoint } from '../../src/index.js';
import { openApi } from '../../src/openapi/index.js';

async function documentOf(endpoints: readonly Endpoint[]): Promise<{ paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>> }> {
  const api = createApi({ naming: 'off', openapi: openApi({ info: { title: 't', version: '1' } }), endpoints });
  return (await api.handle({ method: 'GET', url: '/openapi.json' })).body as never;
}

describe('produces in OpenAPI', () => {
  it('documents the 200 of a byte type as a string of that media type, and text as a string', async () => {
    const document = await documentOf([endpoint('GET', '/logo', { produces: ['image/png', 'text/csv'], handle: () => new Uint8Array(0) })]);
    expect(document.paths['/logo']!.get!.responses['200']!.content).toEqual({
      'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
      'text/csv': { schema: { type: 'string' } },
    });
  });

  it('documents a type of the API\'s format with the response schema, beside a byte type', async () => {
    const document = await documentOf([endpoint('GET', '/report', { produces: ['application/json', 'text/csv'], response: z.object({ n: z.number() }), handle: () => ({ n: 1 }) })]);
    const content = document.paths['/report']!.get!.responses['200']!.content as Record<string, { schema: unknown }>;
    expect(Object.keys(content)).toEqual(['application/json', 'text/csv']);
    expect(content['application/json']!.schema).toBeDefined();
    expect(content['text/csv']).toEqual({ schema: { type: 'string' } });
  });

  it('an endpoint without produces keeps the API\'s formats', async () => {
    const document = await documentOf([endpoint('GET', '/plain', { handle: () => ({}) })]);
    expect(Object.keys(document.paths['/plain']!.get!.responses['200']!.content as object)).toEqual(['application/json']);
  });

  it('documents the ranges of a GET of bytes: Range and If-Range, 206 with Content-Range, 416', async () => {
    const document = await documentOf([endpoint('GET', '/logo', { produces: ['image/png'], handle: () => new Uint8Array(0) })]);
    const operation = document.paths['/logo']!.get! as unknown as { parameters: { name: string; in: string }[]; responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }> };
    expect(operation.parameters.map((parameter) => [parameter.name, parameter.in])).toEqual([['Range', 'header'], ['If-Range', 'header']]);
    expect(Object.keys(operation.responses['206']!.content!)).toEqual(['image/png', 'multipart/byteranges']);
    expect(Object.keys(operation.responses['206']!.headers!)).toEqual(['Content-Range']);
    expect(Object.keys(operation.responses['416']!.headers!)).toEqual(['Content-Range']);
    expect(Object.keys(operation.responses['416']!.content!)).toEqual(['application/problem+json']);
  });

  it('documents no ranges for an endpoint without a byte type', async () => {
    const document = await documentOf([endpoint('GET', '/plain', { produces: ['application/json'], handle: () => ({}) })]);
    const operation = document.paths['/plain']!.get! as unknown as { parameters?: unknown; responses: Record<string, unknown> };
    expect(operation.parameters).toBeUndefined();
    expect(Object.keys(operation.responses)).not.toContain('206');
    expect(Object.keys(operation.responses)).not.toContain('416');
  });

  it('documents text/event-stream as a string described as server-sent events', async () => {
    const document = await documentOf([endpoint('GET', '/feed', { produces: ['text/event-stream'], handle: () => (async function* () {})() })]);
    const content = document.paths['/feed']!.get!.responses['200']!.content as Record<string, { schema: { type: string; description: string } }>;
    expect(content['text/event-stream']!.schema.type).toBe('string');
    expect(content['text/event-stream']!.schema.description).toMatch(/^Server-sent events/);
    // A stream of events has no length to cut into ranges.
    expect(Object.keys(document.paths['/feed']!.get!.responses)).not.toContain('206');
  });
});
