/**
 * Mistakes in the options of createApi throw when the API is built, with a sentence that names the
 * mistake and the fix, rather than answering every request with a 500 later.
 */
import { describe, expect, it } from 'vitest';
import { collection, createApi, endpoint, type ApiOptions } from '../../src/index.js';
import { openApi } from '../../src/openapi/index.js';

const health = endpoint('GET', '/health', { handle: () => ({ ok: true }) });

describe('createApi options that take a function', () => {
  it.each([
    ['authenticate', { id: 1 }, /"authenticate" must be a function \(request\) => the caller, got an object/],
    ['authorize', true, /"authorize" must be a function \(ctx\) => true to let the caller go on, got boolean true/],
    ['onError', 'console.error', /"onError" must be a function \(error, info\) => void, got the string "console.error"/],
    ['serializerCompiler', {}, /"serializerCompiler" must be a function \(schema\) => \(value\) => string, got an object/],
  ] as const)('createApi({ %s: %j }) throws (a 500 on every request otherwise)', (name, value, message) => {
    expect(() => createApi({ endpoints: [health], [name]: value } as unknown as ApiOptions)).toThrow(message);
  });

  it('an openapi option that is no document throws: openapi: openApi, not called', () => {
    expect(() => createApi({ endpoints: [health], openapi: openApi as never })).toThrow('createApi: "openapi" must be a document to serve, such as openApi({ info }) from restcanon/openapi');
  });
});

describe('resources and endpoints in the wrong list', () => {
  const users = collection('users', { list: () => [] });

  it('an endpoint in resources throws, saying to pass it in endpoints', () => {
    expect(() => createApi({ resources: [health as never] })).toThrow('createApi: resources[0] is an endpoint (GET /health); pass it in "endpoints"');
  });

  it('a collection in endpoints throws, saying to pass it in resources', () => {
    expect(() => createApi({ endpoints: [health, users as never] })).toThrow('createApi: endpoints[1] is a collection (/users); pass it in "resources"');
  });

  it('anything else in either list throws, saying what each holds', () => {
    expect(() => createApi({ endpoints: [(() => ({})) as never] })).toThrow('createApi: endpoints[0] is not an endpoint; declare it with endpoint(method, path, { handle })');
    expect(() => createApi({ resources: [{ endpoints: [null] } as never] })).toThrow('createApi: resources[0] holds an endpoints[0] that is not an endpoint; declare it with endpoint(method, path, { handle })');
    expect(() => createApi({ resources: [undefined as never] })).toThrow(/createApi: resources\[0\] is not a resource; pass a collection\(\.\.\.\), or \{ endpoints: \[\.\.\.\] \}/);
    expect(() => createApi({ endpoints: health as never })).toThrow('createApi: "endpoints" must be an array of endpoints');
  });
});
