/**
 * Deprecation through `api.handle`: the `Deprecation`, `Sunset` and `Link` fields of every answer of
 * a deprecated endpoint or collection operation, the 410 past the sunset, the OpenAPI document's
 * `deprecated`, and the declarations refused when the API is built.
 */
import { describe, expect, it } from 'vitest';
import { collection, createApi, endpoint, NotFoundError } from '../../../src/index.js';
import { deprecation } from '../../../src/conventions/deprecation/index.js';
import { createOpenApiDocument } from '../../../src/openapi/index.js';

const AT = '2026-01-01T00:00:00Z';
const SUNSET = '2027-06-30T00:00:00Z';
const DECLARED = { at: AT, sunset: SUNSET, link: 'https://example.com/changes/v1', sunsetLink: 'https://example.com/migrate' };
const FIELDS = {
  deprecation: '@1767225600',
  sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
  link: '<https://example.com/changes/v1>; rel="deprecation", <https://example.com/migrate>; rel="sunset"',
};

function deprecatedApi(options: Parameters<typeof deprecation>[0] = {}) {
  let handled = 0;
  const api = createApi({
    use: [deprecation(options)],
    resources: [
      collection('rows', {
        page: { by: 'offset', limit: { default: 1, max: 10 } },
        list: { conventions: { deprecation: DECLARED }, handle: () => (handled++, [{ id: 1 }, { id: 2 }]) },
        create: { conventions: { deprecation: { at: new Date(AT) } }, handle: () => ({ id: 3 }) },
        body: 'unvalidated',
      }),
    ],
    endpoints: [
      endpoint('GET', '/v1/users/:id', { conventions: { deprecation: DECLARED }, errors: { notFound: 'no such user' }, handle: () => (handled++, (() => { throw new NotFoundError(); })()) }),
      endpoint('GET', '/v2/users', { handle: () => [] }),
    ],
  });
  return { api, handled: () => handled };
}

describe('deprecation fields', () => {
  it('a deprecated list’s answer carries Deprecation, Sunset, and its Links after the page’s own', async () => {
    const { api } = deprecatedApi();
    const answer = await api.handle({ method: 'GET', url: '/rows' });
    expect(answer.status).toBe(200);
    expect(answer.headers.deprecation).toBe(FIELDS.deprecation);
    expect(answer.headers.sunset).toBe(FIELDS.sunset);
    expect(answer.headers.link).toBe(`</rows?limit=1&offset=1>; rel="next", ${FIELDS.link}`);
  });

  it('an error of a deprecated endpoint carries them too (a 404)', async () => {
    const { api } = deprecatedApi();
    const answer = await api.handle({ method: 'GET', url: '/v1/users/7' });
    expect(answer.status).toBe(404);
    expect({ deprecation: answer.headers.deprecation, sunset: answer.headers.sunset, link: answer.headers.link }).toEqual(FIELDS);
  });

  it('a deprecation without sunset or link is Deprecation alone; an endpoint that declares none has none', async () => {
    const { api } = deprecatedApi();
    const created = await api.handle({ method: 'POST', url: '/rows', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(created.status).toBe(201);
    expect(created.headers.deprecation).toBe('@1767225600');
    expect(created.headers.sunset).toBeUndefined();
    expect(created.headers.link).toBeUndefined();
    const current = await api.handle({ method: 'GET', url: '/v2/users' });
    expect(current.headers.deprecation).toBeUndefined();
  });

  it('past the sunset, gone: true answers 410 with a problem and the fields, without running the handler', async () => {
    let now = Date.parse(SUNSET) - 1;
    const { api, handled } = deprecatedApi({ gone: true, now: () => now });
    expect((await api.handle({ method: 'GET', url: '/rows' })).status).toBe(200);
    now = Date.parse(SUNSET);
    const gone = await api.handle({ method: 'GET', url: '/rows' });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ status: 410, code: 'RC_GONE', detail: 'This endpoint was retired on Wed, 30 Jun 2027 00:00:00 GMT' });
    expect(gone.headers.deprecation).toBe(FIELDS.deprecation);
    expect(gone.headers.link).toBe(FIELDS.link);
    expect(handled()).toBe(1);
  });

  it('past the sunset without gone, the endpoint still answers', async () => {
    const { api } = deprecatedApi({ now: () => Date.parse('2030-01-01T00:00:00Z') });
    expect((await api.handle({ method: 'GET', url: '/rows' })).status).toBe(200);
  });
});

describe('deprecation in the OpenAPI document', () => {
  it('marks the operation deprecated, with its headers on every answer and its 410 with gone', () => {
    const { api } = deprecatedApi({ gone: true });
    const document = createOpenApiDocument(api, { info: { title: 'rows', version: '1' } });
    const list = document.paths['/rows']!.get!;
    expect(list.deprecated).toBe(true);
    expect(list.description).toContain('Deprecated since 2026-01-01T00:00:00.000Z; it answers 410 Gone from 2027-06-30T00:00:00.000Z.');
    expect(list.responses['410']).toBeDefined();
    for (const response of Object.values(list.responses)) expect(Object.keys(response.headers as object)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset']));
    expect(document.paths['/v2/users']!.get!.deprecated).toBeUndefined();
  });
});

describe('declarations refused when the API is built', () => {
  const build = (declared: unknown) => () =>
    createApi({ use: [deprecation()], endpoints: [endpoint('GET', '/v1/users', { conventions: { deprecation: declared }, handle: () => [] })] });

  it.each([
    [{ sunset: SUNSET }, 'GET /v1/users: "conventions.deprecation" needs "at"'],
    [{ at: '2026-13-01' }, '"at" is not a valid date ("2026-13-01")'],
    [{ at: 'next tuesday' }, '"at" is not a valid date ("next tuesday")'],
    [{ at: new Date(Number.NaN) }, '"at" is not a valid date (an invalid Date)'],
    [{ at: SUNSET, sunset: AT }, 'its "sunset" (2026-01-01T00:00:00.000Z) comes before its deprecation "at" (2027-06-30T00:00:00.000Z)'],
    [{ at: AT, link: '/docs/v1' }, '"link" must be an absolute http(s) URL'],
    [{ at: AT, link: 'https://example.com/a>; rel="x"' }, '"link" must be an absolute http(s) URL'],
    [{ at: AT, sunsetLink: 'https://example.com/migrate' }, '"sunsetLink" documents a sunset, and it has none'],
    [{ at: AT, until: SUNSET }, 'until'],
    ['2026-01-01', 'must be { at, sunset?, link?, sunsetLink? }'],
  ])('%j: %s', (declared, message) => {
    expect(build(declared)).toThrow(message);
  });

  it('refuses options it does not have', () => {
    expect(() => deprecation({ gone: 'yes' } as never)).toThrow('"gone" must be true or false');
    expect(() => deprecation({ sunset: SUNSET } as never)).toThrow('sunset');
  });
});
