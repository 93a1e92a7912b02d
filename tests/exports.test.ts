/**
 * The public surface, written down: a name that appears or disappears from a subpath is a decision,
 * so it has to show up in this diff (as h3's package.test.ts does).
 */
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';
import * as testing from '../src/testing.js';
import * as engine from '../src/engine.js';
import * as openapi from '../src/openapi/index.js';
import * as xml from '../src/formats/xml.js';
import * as client from '../src/client/index.js';
import * as koa from '../src/adapters/koa.js';
import * as hono from '../src/adapters/hono.js';
import * as otel from '../src/conventions/tracing/index.js';
import * as idempotency from '../src/idempotency.js';
import * as store from '../src/store/index.js';
import * as redis from '../src/store/redis.js';
import * as rateLimit from '../src/conventions/rate-limit/index.js';
import * as deprecation from '../src/conventions/deprecation/index.js';
import * as multipartModule from '../src/multipart.js';

describe('public exports', () => {
  it('restcanon keeps to 35 values, so that its root reads as one page', () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(35);
  });

  it('restcanon/engine', () => {
    expect(Object.keys(engine).sort()).toMatchInlineSnapshot(`
      [
        "CONVENTIONS",
        "DEFAULT_STATUSES",
        "ERROR_OUTCOMES",
        "MEANINGS",
        "METHODS",
        "PHASES",
        "STATUS_TEXT",
        "SUCCESS_OUTCOMES",
        "conditional",
        "cors",
        "createApi",
        "createEndpointHandler",
        "createRouter",
        "defineEndpoint",
        "events",
        "forms",
        "isEmptyBodyStatus",
        "lintPath",
        "lintPaths",
        "lists",
        "mergePatch",
        "ownership",
        "projection",
        "ranges",
        "statusText",
      ]
    `);
  });

  it('restcanon', () => {
    expect(Object.keys(root).sort()).toMatchInlineSnapshot(`
      [
        "BadRequestError",
        "COLLECTION_OPERATIONS",
        "ConflictError",
        "ConventionError",
        "ERROR_CODES",
        "ForbiddenError",
        "GoneError",
        "HttpError",
        "InternalServerError",
        "MethodNotAllowedError",
        "NotAcceptableError",
        "NotFoundError",
        "OUTCOMES",
        "PayloadTooLargeError",
        "PreconditionFailedError",
        "PreconditionRequiredError",
        "ServiceUnavailableError",
        "TooManyRequestsError",
        "UnauthorizedError",
        "UnprocessableContentError",
        "UnsupportedMediaTypeError",
        "buildPath",
        "collection",
        "createApi",
        "createEndpointHandler",
        "createStatusPolicy",
        "endpoint",
        "extension",
        "isConventionError",
        "isHttpError",
        "json",
        "mergePatch",
        "problemOf",
        "text",
      ]
    `);
  });
  it('restcanon/testing', () => {
    expect(Object.keys(testing).sort()).toMatchInlineSnapshot(`
      [
        "callEndpoint",
        "createTestClient",
        "createTestContext",
      ]
    `);
  });
  it('restcanon/xml', () => {
    expect(Object.keys(xml).sort()).toMatchInlineSnapshot(`
      [
        "xml",
      ]
    `);
  });
  it('restcanon/client', () => {
    expect(Object.keys(client).sort()).toMatchInlineSnapshot(`
      [
        "ClientError",
        "bodyOf",
        "createClient",
      ]
    `);
  });
  it('restcanon/koa', () => {
    expect(Object.keys(koa).sort()).toMatchInlineSnapshot(`
      [
        "parserErrorsOf",
        "toKoa",
      ]
    `);
  });
  it('restcanon/hono', () => {
    expect(Object.keys(hono).sort()).toMatchInlineSnapshot(`
      [
        "toHono",
      ]
    `);
  });
  it('restcanon/otel', () => {
    expect(Object.keys(otel).sort()).toMatchInlineSnapshot(`
      [
        "tracing",
      ]
    `);
  });
  it('restcanon/rate-limit', () => {
    expect(Object.keys(rateLimit).sort()).toMatchInlineSnapshot(`
      [
        "QUOTA_EXCEEDED",
        "rateLimit",
      ]
    `);
  });
  it('restcanon/deprecation', () => {
    expect(Object.keys(deprecation).sort()).toMatchInlineSnapshot(`
      [
        "deprecation",
      ]
    `);
  });
  it('restcanon/multipart', () => {
    expect(Object.keys(multipartModule).sort()).toMatchInlineSnapshot(`
      [
        "multipart",
      ]
    `);
  });
  it('restcanon/idempotency', () => {
    expect(Object.keys(idempotency).sort()).toMatchInlineSnapshot(`
      [
        "IDEMPOTENCY_PROBLEMS",
        "idempotency",
      ]
    `);
  });
  it('restcanon/openapi', () => {
    expect(Object.keys(openapi).sort()).toMatchInlineSnapshot(`
      [
        "createOpenApiDocument",
        "openApi",
      ]
    `);
  });
  it('restcanon/store', () => {
    expect(Object.keys(store).sort()).toMatchInlineSnapshot(`
      [
        "StoreUnavailableError",
        "memoryStore",
        "withTimeout",
      ]
    `);
  });
  it('restcanon/redis', () => {
    expect(Object.keys(redis).sort()).toMatchInlineSnapshot(`
      [
        "redisStore",
      ]
    `);
  });
});
