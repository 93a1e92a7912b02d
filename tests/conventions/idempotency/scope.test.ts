/**
 * Whose key a key is, as the default scope and a `scope` of the API's own read the caller, and what
 * the fingerprint of a request covers beside its body: no two callers, tenants or requests share an
 * answer.
 */
import { describe, expect, it } from 'vitest';
import { createApi, endpoint, extension, ForbiddenError } from '../../../src/index.js';
import { idempotency, IDEMPOTENCY_PROBLEMS, type IdempotencyOptions } from '../../../src/idempotency.js';

/** One POST endpoint whose handler counts its runs, for callers `authenticate` reads from a header. */
function payments(principals: Record<string, object>, options: IdempotencyOptions = {}, handle: () => unknown = () => ({ ok: true })) {
  const state = { runs: 0, reported: [] as unknown[] };
  const api = createApi({
    endpoints: [endpoint('POST', '/payments', { public: options.scope !== undefined, body: 'unvalidated', handle: () => (state.runs++, handle()), conventions: { idempotency: 'optional' } })],
    authenticate: (request) => principals[String(request.headers?.authorization)],
    use: [idempotency(options)],
    onError: (error) => void state.reported.push(error),
  });
  const pay = (authorization: string, more: Record<string, string> = {}, url = '/payments') =>
    api.handle({ method: 'POST', url, headers: { authorization, 'content-type': 'application/json', 'idempotency-key': '"k1"', ...more }, body: '{"amount":1}' });
  return { api, state, pay };
}

describe('idempotency: the default scope', () => {
  it('a numeric id, and a sub where there is no id, each keep their own keys', async () => {
    const { state, pay } = payments({ seven: { id: 7 }, eight: { id: 8 }, subject: { sub: 'user-9' }, other: { sub: 'user-10' } });
    for (const caller of ['seven', 'eight', 'subject', 'other']) {
      expect((await pay(caller)).headers['idempotent-replayed'], caller).toBeUndefined();
      expect((await pay(caller)).headers['idempotent-replayed'], caller).toBe('true');
    }
    expect(state.runs).toBe(4);
  });

  it('an empty id is no id: the sub is read, and without one the request is a 500 that runs nothing', async () => {
    const { state, pay } = payments({ blank: { id: '', sub: 'user-1' }, nothing: { id: '' }, infinite: { id: Number.POSITIVE_INFINITY } });
    expect((await pay('blank')).status).toBe(200);
    expect((await pay('nothing')).status).toBe(500);
    expect((await pay('infinite')).status).toBe(500);
    expect(state.runs).toBe(1);
    expect(state.reported.map(String)).toEqual([expect.stringContaining('no "id" or "sub"'), expect.stringContaining('no "id" or "sub"')]);
  });

  it('a bigint id is an id', async () => {
    const { state, pay } = payments({ big: { id: 12345678901234567890n }, small: { id: 12345678901234567891n } });
    await pay('big');
    expect((await pay('small')).headers['idempotent-replayed']).toBeUndefined();
    expect((await pay('big')).headers['idempotent-replayed']).toBe('true');
    expect(state.runs).toBe(2);
  });
});

describe('idempotency: a scope of the API\'s own', () => {
  const byTenant = { scope: (ctx: { request: { headers?: Record<string, unknown> } }) => ctx.request.headers?.['x-tenant'] as never };

  it('keeps the keys of two tenants apart, a numeric tenant too', async () => {
    const { state, pay } = payments({}, byTenant as IdempotencyOptions);
    expect((await pay('-', { 'x-tenant': 'a' })).headers['idempotent-replayed']).toBeUndefined();
    expect((await pay('-', { 'x-tenant': 'b' })).headers['idempotent-replayed']).toBeUndefined();
    expect((await pay('-', { 'x-tenant': 'a' })).headers['idempotent-replayed']).toBe('true');
    expect(state.runs).toBe(2);
    const numeric = payments({}, { scope: () => 42 });
    await numeric.pay('-');
    expect((await numeric.pay('-')).headers['idempotent-replayed']).toBe('true');
  });

  it('null or an empty string names no caller: a 401; a value of another type is a 500, reported', async () => {
    for (const owner of [null, '']) {
      const { state, pay } = payments({}, { scope: () => owner as never });
      const response = await pay('-');
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.unscoped });
      expect(state.runs).toBe(0);
    }
    for (const owner of [{ id: 1 }, Number.NaN, true]) {
      const { state, pay } = payments({}, { scope: () => owner as never });
      expect((await pay('-')).status).toBe(500);
      expect(state.runs).toBe(0);
      expect(String(state.reported[0])).toContain('"scope" returned');
    }
  });
});

describe('idempotency: the same request', () => {
  it('another query is another request: a 422', async () => {
    const { pay } = payments({ alice: { id: 'alice' } });
    expect((await pay('alice', {}, '/payments?currency=eur')).status).toBe(200);
    expect((await pay('alice', {}, '/payments?currency=usd')).body).toMatchObject({ type: IDEMPOTENCY_PROBLEMS.reused });
    expect((await pay('alice', {}, '/payments?currency=eur')).headers['idempotent-replayed']).toBe('true');
  });

  it('a result no format can write is a 500 that keeps nothing: the retry runs', async () => {
    let unwritable = true;
    const { state, pay } = payments({ alice: { id: 'alice' } }, {}, () => (unwritable ? new Map() : { ok: true }));
    expect((await pay('alice')).status).toBe(500);
    unwritable = false;
    const retry = await pay('alice');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(state.runs).toBe(2);
  });

  it('with keepFailures, a refusal before the handler\'s phase is not kept', async () => {
    let refuse = true;
    const guard = extension({ name: 'guard', before: () => { if (refuse) throw new ForbiddenError(); }, outcomes: ['forbidden'] });
    let runs = 0;
    const api = createApi({
      endpoints: [endpoint('POST', '/payments', { body: 'unvalidated', handle: () => ({ run: ++runs }) })],
      authenticate: () => ({ id: 'alice' }),
      use: [guard, idempotency({ keepFailures: true })],
    });
    const pay = () => api.handle({ method: 'POST', url: '/payments', headers: { 'content-type': 'application/json', 'idempotency-key': '"k"' }, body: '{}' });
    expect((await pay()).status).toBe(403);
    refuse = false;
    expect((await pay()).status).toBe(200);
    expect(runs).toBe(1);
  });
});
