/**
 * An API's own error body: one hook shapes every problem, in every format and on every path to an
 * error (routing, validation, authentication, a handler's throw, a masked 500).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConflictError, createApi, endpoint, json, type ProblemDetails, type Serializer } from '../../src/index.js';
import { xml } from '../../src/formats/xml.js';

/** Conduit's error body: `{"errors":{"<field>":["<message>"]}}`. */
const conduit = (problem: ProblemDetails) => ({
  errors: problem.errors === undefined ? { body: [problem.detail ?? problem.title] } : Object.fromEntries(problem.errors.map((issue) => [issue.pointer.replace(/^#\//, '').replace(/\//g, '.'), [issue.detail]])),
});

const users = endpoint('POST', '/users', {
  body: z.object({ email: z.string().email(), username: z.string() }),
  errors: { conflict: 'The email is taken' },
  handle: (ctx) => {
    if (ctx.body.email === 'taken@example.com') throw new ConflictError('has already been taken');
    return ctx.body;
  },
});
const post = (body: string, headers: Record<string, string> = {}) => ({ method: 'POST', url: '/users', headers: { 'content-type': 'application/json', ...headers }, body });

describe('problemBody', () => {
  const reports: unknown[] = [];
  const api = createApi({ endpoints: [users], problemBody: { build: conduit }, authenticate: () => ({ id: 1 }), onError: (error) => reports.push(error), formats: [json, xml] });

  it('shapes a validation error, with every invalid input and its pointer, as application/json', async () => {
    const response = await api.handle(post('{"email":"x"}'));
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(String(response.payload))).toEqual({ errors: { email: [expect.any(String)], username: [expect.any(String)] } });
  });

  it('shapes a thrown error, a routing error and a 500 alike', async () => {
    const taken = await api.handle(post('{"email":"taken@example.com","username":"a"}'));
    expect(taken.status).toBe(409);
    expect(taken.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(String(taken.payload))).toEqual({ errors: { body: ['has already been taken'] } });
    const nowhere = await api.handle({ method: 'GET', url: '/nowhere' });
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(String(nowhere.payload))).toEqual({ errors: { body: ['No resource matches this path'] } });
    // Statuses keep their headers: a 405 its Allow.
    const wrongMethod = await api.handle({ method: 'DELETE', url: '/users' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST, OPTIONS');
    expect(JSON.parse(String(wrongMethod.payload))).toEqual({ errors: { body: ['Method Not Allowed'] } });
    const broken = createApi({ endpoints: [endpoint('GET', '/users', { handle: () => { throw new Error('db down: s3cret'); } })], problemBody: { build: conduit }, onError: () => {} });
    const failed = await broken.handle({ method: 'GET', url: '/users' });
    expect(failed.status).toBe(500);
    expect(failed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(String(failed.payload))).toEqual({ errors: { body: ['Internal Server Error'] } });
    expect(String(failed.payload)).not.toContain('s3cret');
  });

  it('is written by the negotiated format: XML for Accept: application/xml', async () => {
    const response = await api.handle(post('{"email":"taken@example.com","username":"a"}', { accept: 'application/xml' }));
    expect(response.status).toBe(409);
    expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(String(response.payload)).toContain('has already been taken');
  });

  it('a build that throws or gives nothing sends the problem itself, and is reported', async () => {
    for (const build of [() => { throw new Error('bad hook'); }, () => undefined]) {
      reports.length = 0;
      const fallback = createApi({ endpoints: [users], problemBody: { build }, onError: (error) => reports.push(error) });
      const response = await fallback.handle(post('{}'));
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.body).toMatchObject({ code: 'RC_INVALID_INPUT' });
      expect(reports).toHaveLength(1);
    }
  });

  it('is checked when the API is built', () => {
    expect(() => createApi({ problemBody: { build: 'no' } as never })).toThrow(/"problemBody" needs a build function/);
    expect(() => createApi({ problemBody: { build: conduit, shape: {} } as never })).toThrow(/`shape` is not an option/);
  });
});

describe('a format of its own for application/json', () => {
  it('writes the problems of Accept: */* and application/json too', async () => {
    const tagged: Serializer = { ...json, serializeProblem: (problem) => JSON.stringify({ tagged: true, ...problem }) };
    const api = createApi({ formats: [tagged], endpoints: [] });
    for (const accept of [undefined, '*/*', 'application/json']) {
      const response = await api.handle({ method: 'GET', url: '/nowhere', headers: accept === undefined ? {} : { accept } });
      expect(JSON.parse(String(response.payload)), String(accept)).toMatchObject({ tagged: true, status: 404 });
    }
  });
});
