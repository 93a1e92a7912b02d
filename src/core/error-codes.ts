/**
 * The registry of stable error codes. Every problem body carries one in its `code` member, so a client
 * can branch on it without parsing `title` or `detail`. Codes never change meaning between releases;
 * new codes are only added. The documentation's table of error codes lists every one.
 */
export const ERROR_CODES = {
  /** The request is invalid in a way no more specific code describes. */
  BAD_REQUEST: 'RC_BAD_REQUEST',
  /** Params, query, headers or body failed their schema; `errors` lists every issue. */
  INVALID_INPUT: 'RC_INVALID_INPUT',
  /** The body is not valid JSON (or not valid for its media type), or is missing where one is required. */
  MALFORMED_BODY: 'RC_MALFORMED_BODY',
  /** The body holds `__proto__` or `constructor.prototype`, which could pollute prototypes. */
  FORBIDDEN_KEY: 'RC_FORBIDDEN_KEY',
  /** The body nests deeper than the configured depth. */
  TOO_DEEP: 'RC_TOO_DEEP',
  /** The endpoint takes no body, and the request carries one. */
  UNEXPECTED_BODY: 'RC_UNEXPECTED_BODY',
  /** The request carries more than one set of credentials (two `Authorization` headers, or two joined in one). */
  AMBIGUOUS_CREDENTIALS: 'RC_AMBIGUOUS_CREDENTIALS',
  /** The URL holds a malformed percent-escape. */
  MALFORMED_URL: 'RC_MALFORMED_URL',
  /** No credentials, or credentials that were not accepted. */
  UNAUTHORIZED: 'RC_UNAUTHORIZED',
  /** The caller is known but may not do this. */
  FORBIDDEN: 'RC_FORBIDDEN',
  /** No such path, or no such item. */
  NOT_FOUND: 'RC_NOT_FOUND',
  /** The path exists but not with this method; `Allow` lists the methods that do. */
  METHOD_NOT_ALLOWED: 'RC_METHOD_NOT_ALLOWED',
  /** No representation matches the `Accept` header. */
  NOT_ACCEPTABLE: 'RC_NOT_ACCEPTABLE',
  /** The request conflicts with the state of the resource (a taken name, a concurrent change). */
  CONFLICT: 'RC_CONFLICT',
  /** The resource existed and is gone for good. */
  GONE: 'RC_GONE',
  /** A precondition (`If-Match`, `If-Unmodified-Since`) does not hold. */
  PRECONDITION_FAILED: 'RC_PRECONDITION_FAILED',
  /** No range of the request's `Range` lies within the body; `Content-Range` gives its length. */
  RANGE_NOT_SATISFIABLE: 'RC_RANGE_NOT_SATISFIABLE',
  /** The body is larger than the limit. */
  PAYLOAD_TOO_LARGE: 'RC_PAYLOAD_TOO_LARGE',
  /** A form (urlencoded or multipart) holds more fields than the endpoint takes. */
  TOO_MANY_FIELDS: 'RC_TOO_MANY_FIELDS',
  /** A multipart field's value is longer than the endpoint takes. */
  FIELD_TOO_LARGE: 'RC_FIELD_TOO_LARGE',
  /** A multipart body holds more files than the endpoint takes. */
  TOO_MANY_FILES: 'RC_TOO_MANY_FILES',
  /** A file of a multipart body is larger than the endpoint takes. */
  FILE_TOO_LARGE: 'RC_FILE_TOO_LARGE',
  /** A multipart body holds more parts than the endpoint takes. */
  TOO_MANY_PARTS: 'RC_TOO_MANY_PARTS',
  /** A part of a multipart body has more header lines than the endpoint takes. */
  TOO_MANY_PART_HEADERS: 'RC_TOO_MANY_PART_HEADERS',
  /** A multipart body sends a field after a file: fields come first, so that they are checked before any file is read. */
  FIELD_AFTER_FILE: 'RC_FIELD_AFTER_FILE',
  /** A multipart body sends a file under a name the endpoint does not declare among its file fields. */
  UNEXPECTED_FILE: 'RC_UNEXPECTED_FILE',
  /** A file of a multipart body is of a media type its field does not take. */
  UNSUPPORTED_FILE_TYPE: 'RC_UNSUPPORTED_FILE_TYPE',
  /** A multipart body sends more files under one name than its field takes. */
  TOO_MANY_FIELD_FILES: 'RC_TOO_MANY_FIELD_FILES',
  /** The body's media type or charset is not accepted here. */
  UNSUPPORTED_MEDIA_TYPE: 'RC_UNSUPPORTED_MEDIA_TYPE',
  /** The request is well-formed but cannot be processed as it stands. */
  UNPROCESSABLE: 'RC_UNPROCESSABLE',
  /** A change needs a precondition (`If-Match`) and the request has none. */
  PRECONDITION_REQUIRED: 'RC_PRECONDITION_REQUIRED',
  /** Too many requests; `Retry-After` says when to try again. */
  TOO_MANY_REQUESTS: 'RC_TOO_MANY_REQUESTS',
  /** Something failed on the server; the details went to `onError`, never to the client. */
  INTERNAL: 'RC_INTERNAL',
  /** The service cannot answer now; `Retry-After` says when to try again. */
  UNAVAILABLE: 'RC_UNAVAILABLE',
  /** The handler did not finish within the configured time. */
  TIMEOUT: 'RC_TIMEOUT',
} as const;

/**
 * One of the stable codes in {@link ERROR_CODES}, or `RC_HTTP_<status>` for an `HttpError` built
 * with a status that has no named code.
 *
 * @example
 * const code: ErrorCode = 'RC_NOT_FOUND';
 */
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES] | `RC_HTTP_${number}`;
