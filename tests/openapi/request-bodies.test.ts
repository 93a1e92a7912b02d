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
  const Report = z.strictObject({ title: z.string() });
  const api = createApi({
    use: [multipart()],
    endpoints: [
      endpoint('PUT', '/blobs/:id', { consumes: ['application/octet-stream'], body: 'bytes', handle: () => undefined }),
      endpoint('PUT', '/avatars/:id', { consumes: ['image/*'], body: 'stream', handle: () => undefined }),
      endpoint('POST', '/signups', { consumes: ['application/x-www-form-urlencoded', 'application/json'], body: Signup, handle: () => undefined }),
      endpoint('POST', '/photos', { consumes: ['multipart/form-data'], body: Signup, handle: () => undefined }),
      endpoint('POST', '/reports', {
        consumes: ['application/json', 'multipart/form-data'],
        body: Report,
        conventions: { multipart: { fileFields: { cover: 'image/png', scans: { type: ['application/pdf', 'image/*'], max: 3 } } } },
        handle: () => undefined,
      }),
      endpoint('POST', '/scans', { consumes: ['multipart/form-data'], body: z.object({ label: z.string() }), conventions: { multipart: { fileFields: { scan: 'image/tiff' } } }, handle: () => undefined }),
      endpoint('POST', '/notes', { consumes: ['multipart/form-data'], body: 'unvalidated', conventions: { multipart: { fileFields: { note: 'text/*' } } }, handle: () => undefined }),
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

describe('the file fields of a multipart body in OpenAPI', () => {
  it('are properties of its schema, beside the fields, each a binary string (an array past one file), and their types its encoding', async () => {
    const document = await documentOf();
    const content = contentOf(document, '/reports', 'post');
    expect(Object.keys(content)).toEqual(['application/json', 'multipart/form-data']);
    expect(content['application/json']).toEqual({ schema: { $ref: '#/components/schemas/ReportBody' } });
    expect(content['multipart/form-data']).toEqual({
      schema: { $ref: '#/components/schemas/ReportUpload' },
      encoding: { cover: { contentType: 'image/png' }, scans: { contentType: 'application/pdf, image/*' } },
    });
    const schemas = document.components!.schemas as Record<string, unknown>;
    expect(schemas.ReportUpload).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string' },
        cover: { type: 'string', contentMediaType: 'image/png' },
        scans: { type: 'array', items: { type: 'string', format: 'binary' }, maxItems: 3 },
      },
      required: ['title'],
      additionalProperties: false,
    });
  });

  it('a body taken only as multipart is one component, its upload, and no other', async () => {
    const document = await documentOf();
    expect(contentOf(document, '/scans', 'post')['multipart/form-data']).toEqual({ schema: { $ref: '#/components/schemas/ScanUpload' }, encoding: { scan: { contentType: 'image/tiff' } } });
    expect(Object.keys(document.components!.schemas!).filter((name) => name.startsWith('Scan'))).toEqual(['ScanUpload']);
  });

  it('an unvalidated body lists its files alone', async () => {
    const document = await documentOf();
    expect(contentOf(document, '/notes', 'post')['multipart/form-data']).toEqual({
      schema: { type: 'object', properties: { note: { type: 'string', format: 'binary' } } },
      encoding: { note: { contentType: 'text/*' } },
    });
  });

  it('without fileFields, the multipart body is the body schema as before', async () => {
    const document = await documentOf();
    expect(contentOf(document, '/photos', 'post')['multipart/form-data']).toEqual({ schema: { $ref: '#/components/schemas/SignupBody' } });
  });
});
