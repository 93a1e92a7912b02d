/**
 * The public surface, written down: a name that appears or disappears from a subpath is a decision,
 * so it has to show up in this diff (as h3's package.test.ts does).
 */
import { describe, expect, it } from 'vitest';
import * as root from '../src/index.js';
import * as testing from '../src/testing.js';
import * as openapi from '../src/openapi/index.js';
import * as xml from '../src/formats/xml.js';
import * as client from '../src/client/index.js';

describe('public exports', () => {
  it('restcanon', () => {
    expect(Object.keys(root).sort()).toMatchInlineSnapshot(`
      [
        "BadRequestError",
        "COLLECTION_OPERATIONS",
        "ConflictError",
        "ConventionError",
        "DEFAULT_STATUSES",
        "ERROR_CODES",
        "ERROR_OUTCOMES",
        "ForbiddenError",
        "GoneError",
        "HttpError",
        "InternalServerError",
        "MEANINGS",
        "METHODS",
        "MethodNotAllowedError",
        "NotAcceptableError",
        "NotFoundError",
        "OUTCOMES",
        "PayloadTooLargeError",
        "PreconditionFailedError",
        "PreconditionRequiredError",
        "STATUS_TEXT",
        "SUCCESS_OUTCOMES",
        "ServiceUnavailableError",
        "TooManyRequestsError",
        "UnauthorizedError",
        "UnprocessableContentError",
        "UnsupportedMediaTypeError",
        "buildPath",
        "collection",
        "createApi",
        "createEndpointHandler",
        "createRouter",
        "createStatusPolicy",
        "defineEndpoint",
        "endpoint",
        "isConventionError",
        "isEmptyBodyStatus",
        "isHttpError",
        "json",
        "lintPath",
        "lintPaths",
        "mergePatch",
        "problemOf",
        "statusText",
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
  it('restcanon/openapi', () => {
    expect(Object.keys(openapi).sort()).toMatchInlineSnapshot(`
      [
        "createOpenApiDocument",
        "openApi",
      ]
    `);
  });
});
