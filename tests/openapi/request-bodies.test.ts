/**
 * The request bodies of an OpenAPI 3.1 document by media type: bytes as binary strings, forms and
 * multipart forms with the body's schema.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenApiDocument, type OpenApiDocument } from '../../src/openapi/document.js';
import { createApi, endpoint } from '../../src/index.js';
import { multipart } from '../../src/multipart.js';

const validator = new Validator();

async function documentOf(): Promise<OpenApiDocument> {
  const Signup = z.object({ name: z.string() });
  const api = createApi({
    use: [multipart()],
    endpoints: [
      endpoint('PUT', '/blobs/:id', { consumes: ['application/octet-stream'], body: 'bytes', handle: () => undefined }),
      endpoint('PUT', '/avatars/:id', { consumes: ['image/*'], body: 'stream', handle: () => undefined }),
      endpoint('POST', '/signups', { consumes: ['application/x-www-form-urlencoded', 'application/json'], body: Signup, handle: () => undefined }),
      endpoint('POST', '/photos', { consumes: ['multipart/form-data'], body: Signup, handle: () => undefined }),
    ],
  });
  const document = createOpenApiDocument(api, { info: { title: 'Bodies', version: '1.0.0' } });
  const result = await validator.validate(structuredClone(document) as never);
  expect(result.errors).toBeUndefined();
  return document;
}

const contentOf = (document: OpenApiDocument, path: string, verb: string): Record<string, { schema: unknown }> =>
  (document.paths as unknown as Record<string, Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>>)[path]![verb]!.requestBody.content;

describe('request bodies in OpenAPI', () => {
  it('bytes of an exact type are a string with contentMediaType; of a range, format binary', async () => {
    const document = await documentOf();
    expect(contentOf(document, '/blobs/{id}', 'put')).toEqual({ 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } });
    expect(contentOf(document, '/avatars/{id}', 'put')).toEqual({ 'image/*': { schema: { type: 'string', format: 'binary' } } });
  });

  it('urlencoded and multipart forms carry the body schema, as JSON does', async () => {
    const document = await documentOf();
    const forms = contentOf(document, '/signups', 'post');
    expect(forms['application/x-www-form-urlencoded']).toEqual(forms['application/json']);
    expect(contentOf(document, '/photos', 'post')['multipart/form-data']).toEqual(forms['application/json']);
  });
});
