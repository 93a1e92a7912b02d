/**
 * The answer side of the engine's seam, which `ranges` and `events` are built on: a module's
 * `writers` (the success of a media type written by the module), its `bytes` hook (what becomes of
 * an answer of bytes) and the `statuses` it declares; and what the engine refuses of them.
 */
import { describe, expect, it } from 'vitest';
import { endpoint, HttpError, type ErrorInfo } from '../../src/index.js';
import { createApi, type BodyWriter, type ByteHook, type Convention } from '../../src/engine.js';

const csv: BodyWriter = (_exchange, status, headers, body) => {
  if (!Array.isArray(body)) return undefined;
  headers['content-type'] = 'text/csv; charset=utf-8';
  return { status, headers, body: undefined, payload: (body as string[][]).map((row) => row.join(',')).join('\n') };
};

const csvModule: Convention = { name: 'csv', endpoint: () => ({ writers: { 'text/csv': csv } }) };

function rows(result: unknown) {
  return endpoint('GET', '/rows', { produces: ['text/csv'], handle: () => result });
}

describe('writers: a module writes the success of a media type', () => {
  it('answers a result it writes in its own way, with the cookies the handler set', async () => {
    const api = createApi({
      use: [csvModule],
      endpoints: [
        endpoint('GET', '/rows', {
          produces: ['text/csv'],
          handle: (ctx) => {
            ctx.cookie('seen', '1');
            return [['a', 'b'], ['1', '2']];
          },
        }),
      ],
    });
    const response = await api.handle({ method: 'GET', url: '/rows' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['set-cookie']).toEqual([expect.stringMatching(/^seen=1;/)]);
    expect(response.payload).toBe('a,b\n1,2');
  });

  it('a result it does not write (undefined from the writer) goes out as bytes', async () => {
    const response = await createApi({ use: [csvModule], endpoints: [rows('a,b\n1,2')] }).handle({ method: 'GET', url: '/rows' });
    expect(response.headers).toMatchObject({ 'content-type': 'text/csv; charset=utf-8', 'content-length': '7' });
    expect(response.payload).toBe('a,b\n1,2');
  });

  it('without the module, an array on text/csv is data no format writes: a masked 500, reported', async () => {
    const reports: unknown[] = [];
    const response = await createApi({ endpoints: [rows([['a']])], onError: (error) => reports.push(error) }).handle({ method: 'GET', url: '/rows' });
    expect(response.status).toBe(500);
    expect(String(reports[0])).toContain('which no format of the API writes');
  });

  it('a writer of a type the endpoint does not produce, or that a format of the API writes, is never asked', async () => {
    let asked = 0;
    const counting: Convention = { name: 'counting', endpoint: () => ({ writers: { 'application/json': () => (asked++, undefined), 'text/plain': () => (asked++, undefined) } }) };
    const api = createApi({ use: [counting], endpoints: [endpoint('GET', '/json', { produces: ['application/json'], handle: () => ({ ok: true }) }), rows('x')] });
    expect((await api.handle({ method: 'GET', url: '/json' })).payload).toBe('{"ok":true}');
    expect((await api.handle({ method: 'GET', url: '/rows' })).payload).toBe('x');
    expect(asked).toBe(0);
  });
});

describe('bytes: a module sees each answer of bytes', () => {
  const seen: string[] = [];
  const mark = (name: string): ByteHook => (_exchange, response) => {
    seen.push(name);
    response.headers[`x-${name}`] = String(response.headers['content-length']);
    return response;
  };

  it('in the order of the modules, each given what the one before it gave; a JSON answer never comes here', async () => {
    seen.length = 0;
    const first: Convention = { name: 'first', endpoint: () => ({ bytes: mark('first') }) };
    const second: Convention = { name: 'second', endpoint: () => ({ bytes: (exchange, response, result, bytes) => ({ ...mark('second')(exchange, response, result, bytes), status: 203 }) }) };
    const api = createApi({ use: [first, second], endpoints: [rows('abc'), endpoint('GET', '/json', { handle: () => ({ ok: true }) })] });
    const response = await api.handle({ method: 'GET', url: '/rows' });
    expect(response.status).toBe(203);
    expect(response.headers).toMatchObject({ 'x-first': '3', 'x-second': '3' });
    expect(seen).toEqual(['first', 'second']);
    await api.handle({ method: 'GET', url: '/json' });
    expect(seen).toEqual(['first', 'second']);
  });

  it('what it throws is answered as a problem; a status it lists in "statuses" is declared, any other reported as undeclared', async () => {
    const teapot = (statuses?: number[]): Convention => ({
      name: 'teapot',
      endpoint: () => ({
        bytes: () => {
          throw new HttpError(418, { detail: 'short and stout' });
        },
        ...(statuses === undefined ? {} : { statuses }),
      }),
    });
    for (const [statuses, reported] of [[undefined, 1], [[418], 0]] as const) {
      const reports: [unknown, ErrorInfo][] = [];
      const api = createApi({ use: [teapot(statuses as number[] | undefined)], endpoints: [rows('abc')], onError: (error, info) => reports.push([error, info]) });
      const response = await api.handle({ method: 'GET', url: '/rows' });
      expect(response.status).toBe(418);
      expect(reports.length).toBe(reported);
      if (reported === 1) expect(String(reports[0]![0])).toContain('answered 418');
    }
  });
});

describe('what the engine refuses of the answer side of a module', () => {
  const refused = (parts: object) => () => createApi({ use: [{ name: 'wrong', endpoint: () => parts } as Convention], endpoints: [rows('x')] });

  it('writers that are not functions by lower-case media type', () => {
    expect(refused({ writers: { 'Text/CSV': csv } })).toThrow('GET /rows: the module "wrong" gave "writers" that are not functions by lower-case media type');
    expect(refused({ writers: { csv } })).toThrow('gave "writers" that are not functions');
    expect(refused({ writers: { 'text/csv': 'csv' } })).toThrow('gave "writers" that are not functions');
    expect(refused({ writers: null })).toThrow('gave "writers" that are not functions');
  });

  it('a bytes hook that is not a function', () => {
    expect(refused({ bytes: 'ranges' })).toThrow('GET /rows: the module "wrong" gave a "bytes" that is not a function');
  });

  it('statuses that are not HTTP statuses', () => {
    for (const statuses of [416, [99], [416.5], ['416'], [600]]) expect(refused({ statuses })).toThrow('GET /rows: the module "wrong" gave "statuses" that are not an array of HTTP statuses, such as [416]');
  });
});
