/**
 * A Blob result whose type is another of its endpoint's `produces` types answers in that type, over
 * the negotiated one: an avatar stored as JPEG on an endpoint that produces PNG first.
 */
import { describe, expect, it } from 'vitest';
import { createApi, createStatusPolicy, endpoint, type ErrorInfo } from '../../src/index.js';

const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0]);

function avatarApi(type: string, reports: [unknown, ErrorInfo][] = [], options: Record<string, unknown> = {}) {
  return createApi({
    onError: (error, info) => reports.push([error, info]),
    endpoints: [endpoint('GET', '/avatar', { produces: ['image/png', 'image/jpeg', 'image/webp'], handle: () => new Blob([JPEG], { type }) })],
    ...options,
  });
}

describe('a Blob that names its type among produces', () => {
  it('a JPEG Blob without Accept answers image/jpeg, not the first type image/png', async () => {
    const response = await avatarApi('image/jpeg').handle({ method: 'GET', url: '/avatar' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('image/jpeg');
    expect(response.headers['content-length']).toBe('4');
  });

  it('a JPEG Blob under Accept: image/* answers image/jpeg; HEAD the same headers', async () => {
    for (const method of ['GET', 'HEAD']) {
      const response = await avatarApi('image/jpeg').handle({ method, url: '/avatar', headers: { accept: 'image/png;q=0.9, image/*;q=0.5' } });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('image/jpeg');
    }
  });

  it('a JPEG Blob under Accept: image/png is a 406, the JPEG it has being unacceptable', async () => {
    const response = await avatarApi('image/jpeg').handle({ method: 'GET', url: '/avatar', headers: { accept: 'image/png' } });
    expect(response.status).toBe(406);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const json = await avatarApi('image/jpeg', [], { policy: createStatusPolicy({ unacceptable: 'json' }) }).handle({ method: 'GET', url: '/avatar', headers: { accept: 'image/png' } });
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toBe('image/jpeg');
  });

  it('a Blob of a type produces does not list (image/gif) is a masked 500, reported with the fix', async () => {
    const reports: [unknown, ErrorInfo][] = [];
    const response = await avatarApi('image/gif', reports).handle({ method: 'GET', url: '/avatar' });
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('gif');
    expect(reports).toHaveLength(1);
    expect(String(reports[0]![0])).toContain('returned a Blob of type "image/gif", which its "produces" does not list');
  });

  it('a Blob without a type, or of the negotiated type with parameters, keeps the negotiated type', async () => {
    expect((await avatarApi('').handle({ method: 'GET', url: '/avatar', headers: { accept: 'image/webp' } })).headers['content-type']).toBe('image/webp');
    expect((await avatarApi('image/PNG').handle({ method: 'GET', url: '/avatar' })).headers['content-type']).toBe('image/png');
  });
});

describe('the offers a Blob is matched against are each endpoint’s own, read once', () => {
  it('a JPEG Blob answers image/jpeg on the endpoint that produces it, and stays a 500 on one that does not, request after request', async () => {
    const reports: [unknown, ErrorInfo][] = [];
    const api = createApi({
      onError: (error, info) => reports.push([error, info]),
      endpoints: [
        endpoint('GET', '/avatar', { produces: ['image/png', 'image/jpeg'], handle: () => new Blob([JPEG], { type: 'image/jpeg' }) }),
        endpoint('GET', '/banner', { produces: ['image/png', 'image/webp'], handle: () => new Blob([JPEG], { type: 'image/jpeg' }) }),
      ],
    });
    for (let round = 0; round < 3; round++) {
      const avatar = await api.handle({ method: 'GET', url: '/avatar', headers: { accept: round === 2 ? 'image/png' : 'image/*' } });
      expect(avatar.status).toBe(round === 2 ? 406 : 200);
      if (round < 2) expect(avatar.headers['content-type']).toBe('image/jpeg');
      expect((await api.handle({ method: 'GET', url: '/banner' })).status).toBe(500);
    }
    expect(reports).toHaveLength(3);
  });
});
