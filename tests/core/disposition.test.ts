/**
 * `Content-Disposition` for downloads (RFC 6266, RFC 8187): the names a client may be offered, and
 * names that try to split the header, climb out of a folder or smuggle quotes.
 */
import { describe, expect, it } from 'vitest';
import { contentDisposition } from '../../src/core/disposition.js';
import { createApi, endpoint } from '../../src/index.js';

describe('contentDisposition', () => {
  it.each([
    [undefined, 'attachment'],
    ['report.csv', 'attachment; filename="report.csv"'],
    ['report 2024.csv', 'attachment; filename="report 2024.csv"'],
    ['naïve.txt', `attachment; filename="na_ve.txt"; filename*=UTF-8''na%C3%AFve.txt`],
    ['отчёт.pdf', `attachment; filename="_____.pdf"; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.pdf`],
    ['a "quoted" name.txt', `attachment; filename="a _quoted_ name.txt"; filename*=UTF-8''a%20%22quoted%22%20name.txt`],
    ['back\\slash.txt', 'attachment; filename="slash.txt"'],
    ['100%.txt', `attachment; filename="100_.txt"; filename*=UTF-8''100%25.txt`],
    ["it's (1)*.txt", `attachment; filename="it's (1)*.txt"`],
    ['../../etc/passwd', 'attachment; filename="passwd"'],
    ['..\\..\\windows\\win.ini', 'attachment; filename="win.ini"'],
    ['evil.txt\r\nSet-Cookie: a=1', 'attachment; filename="evil.txtSet-Cookie: a=1"'],
    ['nul\u0000.txt', 'attachment; filename="nul.txt"'],
    ['..', 'attachment'],
    ['dir/', 'attachment'],
    ['', 'attachment'],
    ['\ud800.txt', `attachment; filename="_.txt"; filename*=UTF-8''%EF%BF%BD.txt`],
  ])('%j gives %s', (name, header) => {
    expect(contentDisposition(name)).toBe(header);
  });

  it('a name that is not ASCII but for its attr-chars keeps them unencoded in filename*', () => {
    expect(contentDisposition("é'(1)*.txt")).toBe(`attachment; filename="_'(1)*.txt"; filename*=UTF-8''%C3%A9%27%281%29%2A.txt`);
  });

  it('a long name is cut to 255 characters', () => {
    const header = contentDisposition(`${'a'.repeat(1000)}.txt`);
    expect(header).toBe(`attachment; filename="${'a'.repeat(255)}"`);
  });

  it('a name that is no string throws', () => {
    expect(() => contentDisposition(7 as unknown as string)).toThrow(/must be a string, got number/);
  });

  it('every value is one header line of visible ASCII', () => {
    for (const name of ['\r\n', 'a\nb', '\u2028x', 'é\r\né', '"\\"']) expect(contentDisposition(name)).toMatch(/^[\x20-\x7e]+$/);
  });
});

describe('ctx.attachment', () => {
  it('sets Content-Disposition on the answer', async () => {
    const api = createApi({
      naming: 'off',
      endpoints: [endpoint('GET', '/export', { produces: ['text/csv'], handle: (ctx) => (ctx.attachment('../../etc/passwd\r\nX: y'), 'a,b') })],
    });
    const response = await api.handle({ method: 'GET', url: '/export' });
    expect(response.headers['content-disposition']).toBe('attachment; filename="passwdX: y"');
    expect(response.payload).toBe('a,b');
  });
});
