/**
 * `application/x-www-form-urlencoded` bodies: parsed into a record as the query is, inspected and
 * validated like JSON, within a bound on their fields.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint } from '../../src/index.js';
import { expectProblem } from '../helpers/problem.js';

const form = { 'content-type': 'application/x-www-form-urlencoded' };

function formsApi() {
  const signup = endpoint('POST', '/signups', {
    consumes: ['application/x-www-form-urlencoded', 'application/json'],
    body: z.object({ name: z.string(), tags: z.array(z.string()).optional(), age: z.coerce.number().optional() }),
    handle: (ctx) => ctx.body,
  });
  const any = endpoint('POST', '/raw', { consumes: ['application/x-www-form-urlencoded'], body: 'unvalidated', handle: (ctx) => ({ body: ctx.body }) });
  return createApi({ endpoints: [signup, any] });
}

describe('urlencoded forms', () => {
  const api = formsApi();

  it('a form is parsed into an object and validated by the body schema, not handed over as one string', async () => {
    const response = await api.handle({ method: 'POST', url: '/signups', headers: form, body: 'name=Ada+Lovelace&age=36&tags=math&tags=poetry' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ name: 'Ada Lovelace', age: 36, tags: ['math', 'poetry'] });
  });

  it('a key the schema takes only as an array, sent once, is a one-element array, as in the query', async () => {
    expect((await api.handle({ method: 'POST', url: '/signups', headers: form, body: 'name=Ada&tags=math' })).body).toEqual({ name: 'Ada', tags: ['math'] });
  });

  it('a repeated key without a schema is an array; percent-escapes are decoded', async () => {
    expect((await api.handle({ method: 'POST', url: '/raw', headers: form, body: 'a=1&a=2&b=%E2%82%AC' })).body).toEqual({ body: { a: ['1', '2'], b: '€' } });
  });

  it('a form that fails the schema is the one 400 of invalid input', async () => {
    expectProblem(await api.handle({ method: 'POST', url: '/signups', headers: form, body: 'age=36' }), { status: 400, code: 'RC_INVALID_INPUT' });
  });

  it('a __proto__ key of a form is refused as in JSON', async () => {
    expectProblem(await api.handle({ method: 'POST', url: '/raw', headers: form, body: '__proto__=x&a=1' }), { status: 400, code: 'RC_FORBIDDEN_KEY' });
  });

  it('1,000 fields are read, 1,001 are a 413 with its own code', async () => {
    const fields = (count: number): string => Array.from({ length: count }, (_, index) => `f${index}=1`).join('&');
    expect((await api.handle({ method: 'POST', url: '/raw', headers: form, body: fields(1000) })).status).toBe(200);
    expectProblem(await api.handle({ method: 'POST', url: '/raw', headers: form, body: fields(1001) }), { status: 413, code: 'RC_TOO_MANY_FIELDS' });
  });

  it('a form in another charset than UTF-8 is a 415', async () => {
    expectProblem(await api.handle({ method: 'POST', url: '/raw', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' }, body: 'a=1' }), { status: 415 });
  });
});
