import { BadRequestError, HttpError, PayloadTooLargeError, UnsupportedMediaTypeError, withoutStack } from '../../core/errors.js';
import { ERROR_CODES } from '../../core/error-codes.js';
import { OUTCOMES } from '../../core/outcomes.js';

/** The problems of a multipart body, each with its own code, without a stack: ordinary answers. */

/** The answers of a limit busboy reports, by its event. */
export const LIMIT_FAILURES = {
  files: () => withoutStack(() => new PayloadTooLargeError('The body holds more files than this endpoint takes', { code: ERROR_CODES.TOO_MANY_FILES })),
  fields: () => withoutStack(() => new PayloadTooLargeError('The body holds more fields than this endpoint takes', { code: ERROR_CODES.TOO_MANY_FIELDS })),
  parts: () => withoutStack(() => new PayloadTooLargeError('The body holds more parts than this endpoint takes', { code: ERROR_CODES.TOO_MANY_PARTS })),
  fileSize: (limit: number) => withoutStack(() => new PayloadTooLargeError(`A file is larger than ${limit} bytes`, { code: ERROR_CODES.FILE_TOO_LARGE })),
  fieldSize: (limit: number) => withoutStack(() => new PayloadTooLargeError(`A field is longer than ${limit} bytes`, { code: ERROR_CODES.FIELD_TOO_LARGE })),
  headerPairs: (limit: number) => withoutStack(() => new BadRequestError(`A part has more than ${limit} header lines`, { code: ERROR_CODES.TOO_MANY_PART_HEADERS })),
};

const quoted = (text: string): string => JSON.stringify(text.slice(0, 64));

/**
 * The answers of a file that an endpoint's `fileFields` do not take: refused before the handler sees it.
 *
 * @example
 * reading.fail(FILE_FAILURES.type('photo', 'text/html', ['image/*'])); // 415 RC_UNSUPPORTED_FILE_TYPE
 */
export const FILE_FAILURES = {
  undeclared: (field: string, declared: readonly string[]) =>
    withoutStack(
      () =>
        new BadRequestError(`The file ${quoted(field)} is not one this endpoint takes; ${declared.length === 0 ? 'it takes no files' : `it takes files under ${declared.map(quoted).join(', ')}`}`, {
          code: ERROR_CODES.UNEXPECTED_FILE,
        }),
    ),
  type: (field: string, type: string, types: readonly string[]) =>
    withoutStack(() => new UnsupportedMediaTypeError(`The file ${quoted(field)} is of type ${quoted(type)}; this endpoint takes ${types.join(', ')} there`, { code: ERROR_CODES.UNSUPPORTED_FILE_TYPE })),
  count: (field: string, max: number) =>
    withoutStack(() => new PayloadTooLargeError(`The body holds more than ${max} ${max === 1 ? 'file' : 'files'} under ${quoted(field)}`, { code: ERROR_CODES.TOO_MANY_FIELD_FILES })),
};

/**
 * A 400 of a multipart body that is not one (no boundary, a part without its end, a body that ends
 * within a part).
 *
 * @example
 * throw malformedParts('The multipart body ends within a part');
 */
export function malformedParts(detail: string): BadRequestError {
  return withoutStack(() => new BadRequestError(detail, { code: ERROR_CODES.MALFORMED_BODY }));
}

/**
 * The 400 of a field sent after a file: its value would reach the handler only after the file was
 * read, past the body schema's check.
 *
 * @example
 * throw fieldAfterFile('title');
 */
export function fieldAfterFile(field: string): BadRequestError {
  return withoutStack(
    () => new BadRequestError(`The field ${JSON.stringify(field.slice(0, 64))} comes after a file; send every field before the first file`, { code: ERROR_CODES.FIELD_AFTER_FILE }),
  );
}

/**
 * What a reading of files throws once its request ran out of time.
 *
 * @example
 * parts.fail(outOfTime());
 */
export function outOfTime(): HttpError {
  return withoutStack(() => new HttpError(OUTCOMES.timeout.status, { code: OUTCOMES.timeout.code, detail: 'The request did not finish in time', expose: true }));
}

/**
 * What a reading of files throws once its request was answered: the rest of the body is not read.
 *
 * @example
 * parts.fail(answered());
 */
export function answered(): BadRequestError {
  return malformedParts('The request was answered before its body was read to its end');
}
