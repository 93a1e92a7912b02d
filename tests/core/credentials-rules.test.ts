/**
 * One set of credentials per request (RFC 9110 §11.6.2: `Authorization` holds one `credentials`), as
 * a caller of `api.handle` sees it: an `Authorization` that holds two is a 400 before `authenticate`
 * runs; one whose commas belong to its own parameters reaches `authenticate` whole. Each case pins a
 * rule of the list grammar (RFC 9110 §5.6.1, §5.6.2 tokens, §5.6.4 quoted strings, §11.2 auth-params).
 */
import { describe, expect, it, vi } from 'vitest';
import { createApi, endpoint, type ApiRequest } from '../../src/index.js';
import { expectProblem } from '../helpers/problem.js';

function meApi() {
  const authenticate = vi.fn((request: ApiRequest) => ({ authorization: request.headers?.authorization }));
  const api = createApi({ endpoints: [endpoint('GET', '/me', { handle: (ctx) => ctx.principal })], authenticate });
  return { api, authenticate };
}

async function expectAmbiguous(authorization: string | string[]) {
  const { api, authenticate } = meApi();
  const response = await api.handle({ method: 'GET', url: '/me', headers: { authorization } });
  expectProblem(response, { status: 400, code: 'RC_AMBIGUOUS_CREDENTIALS', detail: 'The request carries more than one set of credentials', exact: true });
  expect(authenticate).not.toHaveBeenCalled();
}

async function expectOne(authorization: string | string[]) {
  const { api, authenticate } = meApi();
  const response = await api.handle({ method: 'GET', url: '/me', headers: { authorization } });
  expect(response.status).toBe(200);
  expect(response.body).toEqual({ authorization });
  expect(authenticate).toHaveBeenCalledTimes(1);
}

describe('two credentials in one Authorization are a 400 (RFC 9110 §11.6.2)', () => {
  it.each([
    // §5.6.1: the whitespace around a list's comma is OWS, spaces or tabs.
    ['a tab after the comma', 'Bearer a,\tBearer b'],
    ['a tab and a space after the comma', 'Bearer a, \t Bearer b'],
    ['a bare scheme after a tab', 'Bearer a,\tNegotiate'],
    // §5.6.4: a backslash escapes only inside a quoted string; outside, the comma after it still separates.
    ['a backslash before the comma, outside quotes', 'Bearer a\\, Bearer b'],
    ['a credential after a closed quoted string holding an escaped quote', 'Digest realm="a\\"b", Bearer c'],
    // §11.2: after a comma only `name = value` continues the parameters; a bare token is a scheme.
    ['a bare scheme followed by a parameter', 'Bearer a, Negotiate, realm=x'],
    ['a scheme with a parameter of its own', 'Bearer a, b c=d'],
    ['a scheme whose token68 ends in =', 'Basic YTpi, Bearer b=='],
    ['a scheme holding every tchar', "Bearer a, !#$%&'*+-.^_`|~09AZaz b"],
  ])('%s (%j)', async (_rule, authorization) => {
    await expectAmbiguous(authorization);
  });

  it('a one-element list holding two credentials joined by a comma is read like the joined header ([\'Bearer a, Bearer b\'])', async () => {
    await expectAmbiguous(['Bearer a, Bearer b']);
  });

  it('two headers are ambiguous even when the first is empty ([\'\', \'Bearer b\'])', async () => {
    await expectAmbiguous(['', 'Bearer b']);
  });
});

describe('one credential with commas of its own reaches authenticate whole', () => {
  it.each([
    // §5.6.4: a comma inside a quoted string, even after an escaped quote, is part of the value.
    ['an escaped quote before a quoted comma', 'Digest realm="a\\", Bearer b", nonce=x'],
    ['an escaped backslash before the closing quote', 'Digest realm="a\\\\", nonce=x'],
    // §11.2: BWS around `=` of a later parameter.
    ['spaces around = in a later parameter', 'Digest realm="x", nonce = y'],
    ['a tab before = in a later parameter', 'Digest realm="x",\tnonce\t=y'],
    ['a space before = and a quoted value', 'Digest realm="x", qop ="auth"'],
    // §5.6.1: empty list elements are skipped.
    ['an empty element between parameters', 'Digest realm="x", , nonce=y'],
    // §5.6.2: an element that does not start with a tchar is no scheme.
    ['an element starting with a quote', 'Digest realm="x", "y"'],
    ['an element starting with DEL, no tchar', 'Bearer a,\u007fb'],
    ['an element starting with a control character', 'Bearer a,\u0001b'],
    ['an element starting with a delimiter', 'Bearer a, (b)'],
  ])('%s (%j)', async (_rule, authorization) => {
    await expectOne(authorization);
  });

  it('a one-element list is the header itself ([\'Digest realm="a, b", nonce=x\'])', async () => {
    await expectOne(['Digest realm="a, b", nonce=x']);
  });

  it('an empty list is no Authorization at all', async () => {
    const { api, authenticate } = meApi();
    const response = await api.handle({ method: 'GET', url: '/me', headers: { authorization: [] } });
    expect(response.status).toBe(200);
    expect(authenticate).toHaveBeenCalledTimes(1);
  });
});
