/**
 * A misspelled adapter option would otherwise be ignored without a word (`fallthru: false` leaves
 * the API falling through). Every adapter refuses unknown keys when it is set up, with a TypeError
 * that names the key and the option it resembles.
 */
import { describe, expect, it } from 'vitest';
import { expressHandler, toExpress } from '../../src/adapters/express.js';
import { fastifyHandler, frameworkErrorsOf, toFastify } from '../../src/adapters/fastify.js';
import { nodeHandler, toNodeListener } from '../../src/adapters/node.js';
import { createApi, endpoint } from '../../src/index.js';

const readNote = endpoint('GET', '/notes/:id', { public: true, handle: () => ({ id: 1 }) });
const api = createApi({ endpoints: [readNote] });

/** Calls `create` with options the types refuse, as plain JavaScript can. */
function withOptions(create: (options: never) => unknown, options: unknown): () => unknown {
  return () => create(options as never);
}

describe('adapter options: unknown keys are refused when the adapter is set up', () => {
  const cases: [string, (options: never) => unknown, Record<string, unknown>, string][] = [
    ['toExpress', (options) => toExpress(api, options), { fallthru: false }, '`fallthru` is not an option of toExpress(); did you mean `fallthrough`?'],
    ['toFastify', (options) => toFastify(api, options), { fallThrough: false }, '`fallThrough` is not an option of toFastify(); did you mean `fallthrough`?'],
    ['toNodeListener', (options) => toNodeListener(api, options), { fallbak: () => {} }, '`fallbak` is not an option of toNodeListener(); did you mean `fallback`?'],
    ['frameworkErrorsOf', (options) => frameworkErrorsOf(api, options), { prefx: '/v1' }, '`prefx` is not an option of frameworkErrorsOf(); did you mean `prefix`?'],
  ];
  for (const [name, create, options, message] of cases) {
    it(`${name}(api, ${JSON.stringify(options)}) throws a TypeError: ${message}`, () => {
      expect(withOptions(create, options)).toThrow(TypeError);
      expect(withOptions(create, options)).toThrow(message);
    });
  }

  it('options that are not an object (toExpress(api, "fallthrough")) are refused', () => {
    expect(withOptions((options) => toExpress(api, options), 'fallthrough')).toThrow(TypeError);
    expect(withOptions((options) => toFastify(api, options), null)).toThrow(TypeError);
    expect(withOptions((options) => frameworkErrorsOf(api, options), [])).toThrow(TypeError);
  });

  it('the known options, and none, are accepted', () => {
    expect(() => toExpress(api, { fallthrough: false })).not.toThrow();
    expect(() => toFastify(api, { fallthrough: false })).not.toThrow();
    expect(() => toNodeListener(api, { fallback: () => {} })).not.toThrow();
    expect(() => frameworkErrorsOf(api, { prefix: '/v1', fallthrough: false, fallback: () => {} })).not.toThrow();
    expect(() => [toExpress(api), toFastify(api), toNodeListener(api), frameworkErrorsOf(api)]).not.toThrow();
  });

  // The single-endpoint wrappers take createEndpointHandler's options, which the core checks.
  for (const [name, wrap] of [
    ['expressHandler', (options: never) => expressHandler(readNote, options)],
    ['fastifyHandler', (options: never) => fastifyHandler(readNote, options)],
    ['nodeHandler', (options: never) => nodeHandler(readNote, options)],
  ] as const) {
    it(`${name}(endpoint, { bodylimit: 10 }) throws a TypeError that suggests bodyLimit`, () => {
      expect(withOptions(wrap, { bodylimit: 10 })).toThrow(TypeError);
      expect(withOptions(wrap, { bodylimit: 10 })).toThrow(/`bodylimit` is not an option of .*; did you mean `bodyLimit`\?/);
    });
  }
});
