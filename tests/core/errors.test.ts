import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ForbiddenError,
  HttpError,
  InternalServerError,
  isHttpError,
  MethodNotAllowedError,
  NotAcceptableError,
  NotFoundError,
  PayloadTooLargeError,
  problemOf,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '../../src/index.js';

describe('HttpError family', () => {
  it.each([
    [new BadRequestError('bad'), 400, 'Bad Request', 'RC_BAD_REQUEST'],
    [new UnauthorizedError('who'), 401, 'Unauthorized', 'RC_UNAUTHORIZED'],
    [new ForbiddenError('no'), 403, 'Forbidden', 'RC_FORBIDDEN'],
    [new NotFoundError('gone'), 404, 'Not Found', 'RC_NOT_FOUND'],
    [new MethodNotAllowedError(['GET']), 405, 'Method Not Allowed', 'RC_METHOD_NOT_ALLOWED'],
    [new NotAcceptableError('json only'), 406, 'Not Acceptable', 'RC_NOT_ACCEPTABLE'],
    [new PayloadTooLargeError('big'), 413, 'Content Too Large', 'RC_PAYLOAD_TOO_LARGE'],
    [new UnsupportedMediaTypeError('json only'), 415, 'Unsupported Media Type', 'RC_UNSUPPORTED_MEDIA_TYPE'],
    [new InternalServerError('db down'), 500, 'Internal Server Error', 'RC_INTERNAL'],
  ] as const)('%s has status %i, title %s and code %s', (error, status, title, code) => {
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toBeInstanceOf(Error);
    expect(isHttpError(error)).toBe(true);
    expect(error.status).toBe(status);
    expect(error.title).toBe(title);
    expect(error.code).toBe(code);
    expect(error.expose).toBe(status < 500);
    expect(error.toProblem()).toMatchObject({ type: 'about:blank', title, status, code });
  });

  it('exposes the detail of a 4xx and hides the detail of a 5xx', () => {
    expect(new NotFoundError('No user 7').toProblem()).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND', detail: 'No user 7' });
    const hidden = new InternalServerError('password=hunter2', { cause: new Error('stack') });
    expect(hidden.toProblem()).toEqual({ type: 'about:blank', title: 'Internal Server Error', status: 500, code: 'RC_INTERNAL' });
    expect(JSON.stringify(hidden.toProblem())).not.toContain('hunter2');
  });

  it('sends a 5xx detail only when expose is set on purpose', () => {
    const error = new HttpError(503, { detail: 'Maintenance until 10:00', expose: true });
    expect(error.toProblem()).toEqual({ type: 'about:blank', title: 'Service Unavailable', status: 503, code: 'RC_UNAVAILABLE', detail: 'Maintenance until 10:00' });
  });

  it('carries WWW-Authenticate on 401 and Allow on 405', () => {
    expect(new UnauthorizedError().headers).toEqual({ 'www-authenticate': 'Bearer realm="api"' });
    expect(new UnauthorizedError(undefined, { challenge: 'Basic realm="x"' }).headers).toEqual({ 'www-authenticate': 'Basic realm="x"' });
    expect(new MethodNotAllowedError(['GET', 'HEAD', 'OPTIONS']).headers).toEqual({ allow: 'GET, HEAD, OPTIONS' });
  });

  it('lists every input issue on a 400', () => {
    const errors = [
      { in: 'body' as const, pointer: '#/name', detail: 'is required' },
      { in: 'query' as const, pointer: '#/page', detail: 'must be a number' },
    ];
    expect(new BadRequestError('invalid', { errors }).toProblem().errors).toEqual(errors);
  });

  it.each([200, 201, 204, 302, 399, 600, 99, 404.5, Number.NaN])('cannot be built with status %s', (status) => {
    expect(() => new HttpError(status)).toThrow(RangeError);
  });

  it('names a status without a registered code', () => {
    expect(new HttpError(451).code).toBe('RC_HTTP_451');
    expect(new HttpError(451).title).toBe('Unavailable For Legal Reasons');
  });

  it('is recognized across copies of the library by its brand, not by instanceof', () => {
    const foreign = Object.create({ [Symbol.for('restcanon.HttpError')]: true });
    Object.assign(foreign, { status: 404, code: 'RC_NOT_FOUND', title: 'Not Found', type: 'about:blank', expose: true, headers: {}, detail: 'x', errors: undefined });
    expect(foreign instanceof HttpError).toBe(false);
    expect(isHttpError(foreign)).toBe(true);
    expect(problemOf(foreign)).toEqual({ type: 'about:blank', title: 'Not Found', status: 404, code: 'RC_NOT_FOUND', detail: 'x' });
    expect(isHttpError(new Error('x'))).toBe(false);
    expect(isHttpError(null)).toBe(false);
    expect(isHttpError({ status: 404 })).toBe(false);
  });

  it('keeps the cause for the server', () => {
    const cause = new Error('root');
    expect(new InternalServerError('x', { cause }).cause).toBe(cause);
  });
});

describe('isHttpError refuses forged brands', () => {
  // Regression (found by the fuzzer): an object with the public brand and status 200 was answered as a 200 problem.
  it.each([200, Number.NaN, '500', 99, 600])('a branded object with status %s is not an HttpError', (status) => {
    const forged = { [Symbol.for('restcanon.HttpError')]: true, status, headers: {}, expose: true };
    expect(isHttpError(forged)).toBe(false);
  });
});
