/**
 * restcanon/multipart's `fileFields` over node:http: the names files come under, the media types each
 * takes and how many, held to before the handler sees a file (from Node's own FormData, and on a raw
 * socket where the part's headers must be exactly as written); the mistakes of a declaration, thrown
 * when the API is built.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApi, endpoint } from '../../src/index.js';
import { multipart } from '../../src/multipart.js';
import { toNodeListener } from '../../src/adapters/node.js';
import { listen, type MountedServer } from '../adapters/conformance.js';
import { rawRequest } from '../security/raw-http.js';
import { answerOf, expectProblem } from '../helpers/problem.js';

/** What each handler saw: the files it was given, by field and type, and whether it ran at all. */
const seen: string[] = [];

async function drain(stream: AsyncIterable<Uint8Array>): Promise<number> {
  let size = 0;
  for await (const chunk of stream) size += chunk.byteLength;
  return size;
}

function uploadsApi() {
  const handle = async (ctx: { files?: AsyncIterable<{ field: string; type: string; stream: AsyncIterable<Uint8Array> }> | undefined; body: unknown }) => {
    seen.push('handler');
    const files = [];
    for await (const file of ctx.files!) {
      seen.push(`${file.field}:${file.type}`);
      files.push({ field: file.field, type: file.type, size: await drain(file.stream) });
    }
    return { fields: ctx.body, files };
  };
  return createApi({
    use: [multipart()],
    onError: () => {},
    endpoints: [
      endpoint('POST', '/reports', {
        consumes: ['multipart/form-data'],
        body: z.object({ title: z.string() }),
        conventions: { multipart: { fileFields: { photo: 'image/*', attachments: { type: ['application/pdf', 'text/csv'], max: 2 } } } },
        handle,
      }),
      endpoint('POST', '/notes', { consumes: ['multipart/form-data'], body: 'unvalidated', conventions: { multipart: { fileFields: {} } }, handle }),
      endpoint('POST', '/anything', { consumes: ['multipart/form-data'], body: 'unvalidated', handle }),
    ],
  });
}

let server: MountedServer;
beforeAll(async () => {
  server = await listen(http.createServer(toNodeListener(uploadsApi())));
});
afterAll(() => server.close());

async function post(path: string, files: [string, string, string][]): Promise<Response> {
  const form = new FormData();
  form.append('title', 'Quarterly');
  for (const [field, type, name] of files) form.append(field, new Blob(['%PDF-1.7 bytes'], { type }), name);
  seen.length = 0;
  return fetch(server.baseUrl + path, { method: 'POST', body: form });
}

describe('files under declared names and types reach the handler', () => {
  it('a photo (image/png) and two attachments (a PDF and a CSV) arrive as sent', async () => {
    const response = await post('/reports', [
      ['photo', 'image/png', 'a.png'],
      ['attachments', 'application/pdf', 'b.pdf'],
      ['attachments', 'text/csv', 'c.csv'],
    ]);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      fields: { title: 'Quarterly' },
      files: [
        { field: 'photo', type: 'image/png', size: 14 },
        { field: 'attachments', type: 'application/pdf', size: 14 },
        { field: 'attachments', type: 'text/csv', size: 14 },
      ],
    });
  });

  it('without fileFields, a file under any name is taken, as before', async () => {
    const response = await post('/anything', [['whatever', 'text/html', 'x.html']]);
    expect(response.status).toBe(200);
    expect(seen).toEqual(['handler', 'whatever:text/html']);
  });
});

describe('a file fileFields do not take is refused before the handler sees it', () => {
  it('a file under the undeclared name "avatar" is a 400 RC_UNEXPECTED_FILE, and the handler never runs', async () => {
    expectProblem(await answerOf(await post('/reports', [['avatar', 'image/png', 'a.png']])), { status: 400, code: 'RC_UNEXPECTED_FILE', detail: 'The file "avatar" is not one this endpoint takes; it takes files under "photo", "attachments"' });
    expect(seen).toEqual([]);
  });

  it('a file under "constructor" is undeclared too, not a name found on a prototype', async () => {
    expectProblem(await answerOf(await post('/reports', [['constructor', 'image/png', 'a.png']])), { status: 400, code: 'RC_UNEXPECTED_FILE' });
    expect(seen).toEqual([]);
  });

  it('any file on an endpoint whose fileFields are {} is a 400 RC_UNEXPECTED_FILE', async () => {
    expectProblem(await answerOf(await post('/notes', [['photo', 'image/png', 'a.png']])), { status: 400, code: 'RC_UNEXPECTED_FILE', detail: 'The file "photo" is not one this endpoint takes; it takes no files' });
    expect(seen).toEqual([]);
  });

  it('a photo of type text/html is a 415 RC_UNSUPPORTED_FILE_TYPE, and the handler never runs', async () => {
    expectProblem(await answerOf(await post('/reports', [['photo', 'text/html', 'a.html']])), { status: 415, code: 'RC_UNSUPPORTED_FILE_TYPE', detail: 'The file "photo" is of type "text/html"; this endpoint takes image/* there' });
    expect(seen).toEqual([]);
  });

  it('a second photo, past its max of 1, is a 413 RC_TOO_MANY_FIELD_FILES; a third attachment past 2 as well', async () => {
    expectProblem(await answerOf(await post('/reports', [['photo', 'image/png', 'a.png'], ['photo', 'image/jpeg', 'b.jpg']])), { status: 413, code: 'RC_TOO_MANY_FIELD_FILES', detail: 'The body holds more than 1 file under "photo"' });
    const three = Array.from({ length: 3 }, (_, index): [string, string, string] => ['attachments', 'application/pdf', `${index}.pdf`]);
    expectProblem(await answerOf(await post('/reports', three)), { status: 413, code: 'RC_TOO_MANY_FIELD_FILES' });
  });

  it('an undeclared file after a declared one ends the handler’s loop with the 400; the handler never gets it', async () => {
    const response = await post('/reports', [['photo', 'image/png', 'a.png'], ['avatar', 'image/png', 'b.png']]);
    expectProblem(await answerOf(response), { status: 400, code: 'RC_UNEXPECTED_FILE' });
    expect(seen).not.toContain('avatar:image/png');
  });
});

const BOUNDARY = 'XyZ123';
const part = (headers: string[], content: string): string => `--${BOUNDARY}\r\n${headers.join('\r\n')}\r\n\r\n${content}\r\n`;
const end = `--${BOUNDARY}--\r\n`;
const title = part(['Content-Disposition: form-data; name="title"'], 'Quarterly');

function photo(contentType: string | undefined) {
  const headers = ['Content-Disposition: form-data; name="photo"; filename="a.png"', ...(contentType === undefined ? [] : [`Content-Type: ${contentType}`])];
  seen.length = 0;
  return rawRequest(server, ['POST /reports HTTP/1.1', `Content-Type: multipart/form-data; boundary=${BOUNDARY}`], title + part(headers, 'png') + end);
}

describe('the part’s own Content-Type, as written on a raw socket', () => {
  it('IMAGE/PNG and image/png with a parameter are image/png: taken', async () => {
    for (const type of ['IMAGE/PNG', 'image/png; name="a.png"']) {
      const answer = await photo(type);
      expect(answer.status).toBe(200);
      expect(seen).toEqual(['handler', 'photo:image/png']);
    }
  });

  it('a photo part without a Content-Type is text/plain (RFC 7578), which image/* does not take: 415', async () => {
    expectProblem(await photo(undefined), { status: 415, code: 'RC_UNSUPPORTED_FILE_TYPE' });
    expect(seen).toEqual([]);
  });

  it('a file part with a filename and no name is undeclared: 400, and the server lives on', async () => {
    seen.length = 0;
    const nameless = part(['Content-Disposition: form-data; filename="a.png"', 'Content-Type: image/png'], 'png');
    expectProblem(await rawRequest(server, ['POST /reports HTTP/1.1', `Content-Type: multipart/form-data; boundary=${BOUNDARY}`], title + nameless + end), { status: 400, code: 'RC_UNEXPECTED_FILE' });
    expect(seen).toEqual([]);
    expect((await photo('image/png')).status).toBe(200);
  });

  it('a Content-Type of two types, "image/png, text/html", is no media type: 415', async () => {
    expectProblem(await photo('image/png, text/html'), { status: 415, code: 'RC_UNSUPPORTED_FILE_TYPE' });
    expect(seen).toEqual([]);
  });
});

describe('a declaration’s mistakes throw when the API is built, naming the fix', () => {
  const build = (declared: unknown, body: unknown = z.object({ title: z.string() }), options: Record<string, unknown> = {}) => () =>
    createApi({
      use: [multipart(options)],
      endpoints: [endpoint('POST', '/reports', { consumes: ['multipart/form-data'], body: body as never, conventions: { multipart: declared }, handle: () => ({}) })],
    });

  it('a file field named as a property of the body schema', () => {
    expect(build({ fileFields: { title: 'image/*' } })).toThrow('POST /reports: conventions.multipart.fileFields declares "title", which is also a property of the body schema; a form field is a field or a file: drop it from the schema, or from fileFields');
  });

  it('a file field named "__proto__" (from JSON), which the OpenAPI document dropped while the server took files under it', () => {
    expect(build({ fileFields: JSON.parse('{"__proto__": "image/png", "photo": "image/png"}') as unknown })).toThrow(
      'POST /reports: conventions.multipart.fileFields declares "__proto__", a name refused as a key of any body, which no document can list; name the file field otherwise',
    );
  });

  it.each([['image'], ['image/png; charset=utf-8'], ['*/png'], [''], [['image/png', 42]]])('the media type %j', (type) => {
    expect(build({ fileFields: { photo: type } })).toThrow(/which is no media type or range; write 'application\/pdf', 'image\/\*' or '\*\/\*', without parameters/);
  });

  it('a field without a type, with an unknown key, or a max of 0 or past the files limit', () => {
    expect(build({ fileFields: { photo: [] } })).toThrow('conventions.multipart.fileFields.photo needs "type"');
    expect(build({ fileFields: { photo: { type: 'image/*', maxSize: 5 } } })).toThrow('fileFields.photo has "maxSize"; a file field takes "type" and "max" only');
    expect(build({ fileFields: { photo: { type: 'image/*', max: 0 } } })).toThrow('"max" must be a whole number, at least 1; got 0');
    expect(build({ files: 2, fileFields: { photo: { type: 'image/*', max: 3 } } })).toThrow('"max" is 3, above the endpoint\'s "files" limit of 2, which would refuse the files first; raise "files", or lower "max"');
  });

  it('fileFields given to multipart(), which has no endpoint to hold them to', () => {
    expect(build(undefined, undefined, { fileFields: { photo: 'image/*' } })).toThrow('multipart() has "fileFields", which belong to the endpoint that takes the files; declare them in its conventions: { multipart: { fileFields: {...} } }');
  });

  it('fileFields on an endpoint that does not consume multipart/form-data', () => {
    const api = () => createApi({ use: [multipart()], endpoints: [endpoint('POST', '/reports', { body: z.object({ title: z.string() }), conventions: { multipart: { fileFields: { photo: 'image/*' } } }, handle: () => ({}) })] });
    expect(api).toThrow('POST /reports: it declares conventions.multipart (limits or fileFields), and does not consume multipart/form-data; add it to "consumes", or drop conventions.multipart');
  });

  it("fileFields on an endpoint whose body is 'stream', which multipart() does not read", () => {
    expect(build({ fileFields: { photo: 'image/*' } }, 'stream')).toThrow(`it declares fileFields, and its body is "stream", which multipart() does not read`);
  });
});
