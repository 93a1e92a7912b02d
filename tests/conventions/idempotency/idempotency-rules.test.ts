/**
 * What `idempotency()` and the endpoints that declare for it refuse when the API is built, and the
 * `Idempotency-Key` headers it refuses at request time: each with the sentence or problem it gives.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collection, createApi, endpoint } from '../../../src/index.js';
import { IDEMPOTENCY_PROBLEMS, idempotency } from '../../../src/idempotency.js';
import { keyOf } from '../../../src/conventions/idempotency/key.js';
import { ALICE, createOrder, ordersApi } from './orders.js';

const authenticate = () => ({ id: 'alice' });
const post = (conventions?: Record<string, unknown>) => endpoint('POST', '/payments', { body: 'unvalidated', handle: () => ({ ok: true }), ...(conventions === undefined ? {} : { conventions }) });

describe('idempotency: refused when the API is built', () => {
  it('a declaration other than required, optional or false', () => {
    expect(() => createApi({ authenticate, endpoints: [post({ idempotency: true })], use: [idempotency()] })).toThrow(
      "POST /payments: conventions.idempotency must be 'required', 'optional' or false; got true",
    );
    expect(() => createApi({ authenticate, endpoints: [post({ idempotency: 'always' })], use: [idempotency()] })).toThrow('got "always"');
  });

  it('a GET or DELETE that declares it', () => {
    const read = endpoint('GET', '/payments/:id', { handle: () => ({}), conventions: { idempotency: 'optional' } });
    expect(() => createApi({ authenticate, endpoints: [read], use: [idempotency()] })).toThrow('GET /payments/:id: conventions.idempotency is for POST and PATCH endpoints; a GET takes no Idempotency-Key, so drop the declaration');
    const payments = collection('payments', { read: () => ({}), remove: { handle: () => true, conventions: { idempotency: 'required' } } });
    expect(() => createApi({ authenticate, resources: [payments], use: [idempotency()] })).toThrow('DELETE /payments/:id: conventions.idempotency is for POST and PATCH endpoints');
    // An endpoint that declares nothing on such a method is left alone.
    expect(() => createApi({ authenticate, resources: [collection('payments', { read: () => ({}), remove: () => true })], use: [idempotency()] })).not.toThrow();
  });

  it('a PUT that declares it unless methods has PUT', () => {
    const put = endpoint('PUT', '/payments/:id', { body: 'unvalidated', handle: () => ({}), conventions: { idempotency: 'required' } });
    expect(() => createApi({ authenticate, endpoints: [put], use: [idempotency()] })).toThrow("(or add 'PUT' to idempotency({ methods }))");
    expect(() => createApi({ authenticate, endpoints: [put], use: [idempotency({ methods: ['POST', 'PATCH', 'PUT'] })] })).not.toThrow();
  });

  it('a declaration where no caller can own a key: a public endpoint, or an API without authenticate', () => {
    const open = endpoint('POST', '/signups', { public: true, body: 'unvalidated', handle: () => ({}), conventions: { idempotency: 'required' } });
    expect(() => createApi({ authenticate, endpoints: [open], use: [idempotency()] })).toThrow(
      'POST /signups: an Idempotency-Key is kept per caller, and this endpoint is public; give idempotency({ scope: (ctx) => ... }) to name its callers, or declare conventions: { idempotency: false }',
    );
    expect(() => createApi({ endpoints: [post()], use: [idempotency({ required: true })] })).toThrow('this API has no "authenticate"');
    // Optional by default, such an endpoint takes no key rather than one that anybody could replay.
    expect(() => createApi({ endpoints: [post()], use: [idempotency()] })).not.toThrow();
    expect(() => createApi({ endpoints: [open], use: [idempotency({ scope: () => 'tenant-1' })] })).not.toThrow();
  });

  it('options that are no options', () => {
    expect(() => idempotency({ retention: 0 })).toThrow('idempotency(): "retention" must be a whole number of milliseconds from 1 to');
    expect(() => idempotency({ methods: ['GET'] as never })).toThrow('"methods" must be a list of POST, PATCH and PUT; GET, HEAD, DELETE and OPTIONS are idempotent already and take no key');
    expect(() => idempotency({ store: {} as never })).toThrow('"store" must be a Store');
    expect(() => idempotency({ retension: 1 } as never)).toThrow('`retension` is not an option of idempotency(); did you mean `retention`?');
    expect(() => idempotency({ scope: 'id' as never })).toThrow('idempotency(): "scope"');
  });
});

describe('idempotency: Idempotency-Key headers that are no key', () => {
  const refused = async (header: string | string[], mistake: string) => {
    const { api, runs } = ordersApi();
    const response = await api.handle({ ...createOrder(undefined), headers: { ...createOrder(undefined).headers, 'idempotency-key': header as string } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.malformed, title: 'Idempotency-Key is malformed' });
    expect((response.body as { detail: string }).detail).toContain(mistake);
    expect(runs.create).toBe(0);
  };

  it('a key of 256 characters, and a huge one, without reading it all', async () => {
    await refused(`"${'k'.repeat(256)}"`, 'longer than 255 characters');
    await refused('k'.repeat(256), 'longer than 255 characters');
    await refused(`"${'k'.repeat(1_000_000)}"`, 'longer than 255 characters');
  });

  it('a key of 255 characters is a key', async () => {
    const { api } = ordersApi();
    expect((await api.handle(createOrder(`"${'k'.repeat(255)}"`))).status).toBe(201);
  });

  it('control characters and text beyond ASCII', async () => {
    await refused('"a\u0000b"', 'no control characters');
    await refused('"a\u007fb"', 'no control characters');
    await refused('"clé"', 'no text beyond ASCII');
    await refused('a\tb', 'a bare key holds only');
  });

  it('two Idempotency-Key headers, as an array or joined by a comma', async () => {
    await refused(['"a"', '"b"'], 'more than one Idempotency-Key header');
    await refused('"a", "b"', 'more than one Idempotency-Key');
    await refused('a, b', 'more than one Idempotency-Key');
  });

  it('an empty key, parameters, a lone quote and a stray backslash', async () => {
    await refused('""', 'the key is empty');
    await refused('"a";v=1', 'no parameters');
    await refused('"abc', 'no closing quote');
    await refused('"a\\b"', 'escapes only');
  });

  it('reads escapes and the spaces around a key as RFC 8941 does', () => {
    expect(keyOf('  "a\\"b\\\\c"\t', 255)).toEqual({ key: 'a"b\\c' });
    expect(keyOf('8e03978e-40d5-43e8-bc93-6894a57f9324', 255)).toEqual({ key: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
    expect(keyOf('" a b "', 255)).toEqual({ key: ' a b ' });
    expect(keyOf('k1  \t ', 255)).toEqual({ key: 'k1' });
    expect(keyOf('"~k~"', 255)).toEqual({ key: '~k~' });
    expect(keyOf('~k~', 255)).toEqual({ key: '~k~' });
  });

  it('counts the length on the key, not on its quotes and escapes', () => {
    expect(keyOf('k'.repeat(255), 255)).toEqual({ key: 'k'.repeat(255) });
    expect(keyOf(`"${'\\"'.repeat(255)}"`, 255)).toEqual({ key: '"'.repeat(255) });
    expect(keyOf(`"${'\\"'.repeat(256)}"`, 255)).toEqual({ mistake: 'the key is longer than 255 characters' });
  });

  it('names the mistake of an empty header and of two keys with spaces between', () => {
    expect(keyOf('  ', 255)).toEqual({ mistake: 'the key is empty' });
    expect(keyOf('"a" , "b"', 255)).toEqual({ mistake: 'the request carries more than one Idempotency-Key; send one' });
  });

  it('a malformed key on a request that fails its schema too is answered as the malformed key', async () => {
    const { api } = ordersApi();
    const both = await api.handle({ ...createOrder('"a'), body: '{"item":1}' });
    expect(both.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.malformed });
  });
});

describe('idempotency: callers that cannot own a key', () => {
  it('a principal without id or sub is a 500, reported, and nothing runs', async () => {
    const reported: unknown[] = [];
    let runs = 0;
    const payments = endpoint('POST', '/payments', { body: z.object({ amount: z.number() }), handle: () => ({ runs: ++runs }) });
    const api = createApi({ authenticate: () => ({ name: 'alice' }), endpoints: [payments], use: [idempotency()], onError: (error) => void reported.push(error) });
    const response = await api.handle({ method: 'POST', url: '/payments', headers: { authorization: ALICE, 'content-type': 'application/json', 'idempotency-key': '"k"' }, body: '{"amount":1}' });
    expect(response.status).toBe(500);
    expect(runs).toBe(0);
    expect(String(reported[0])).toContain('the principal has no "id" or "sub"');
  });

  it('a scope that names no caller is a 401 of its own type', async () => {
    let runs = 0;
    const signups = endpoint('POST', '/signups', { public: true, body: 'unvalidated', handle: () => ({ runs: ++runs }), conventions: { idempotency: 'optional' } });
    const api = createApi({ endpoints: [signups], use: [idempotency({ scope: (ctx) => ctx.request.headers?.['x-tenant'] as string | undefined })] });
    const anonymous = await api.handle({ method: 'POST', url: '/signups', headers: { 'content-type': 'application/json', 'idempotency-key': '"k"' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.unscoped });
    const tenant = { 'content-type': 'application/json', 'idempotency-key': '"k"', 'x-tenant': 't1' };
    expect((await api.handle({ method: 'POST', url: '/signups', headers: tenant, body: '{}' })).status).toBe(200);
    expect((await api.handle({ method: 'POST', url: '/signups', headers: tenant, body: '{}' })).headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
  });
});
