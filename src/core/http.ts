/**
 * HTTP vocabulary as data: methods, reason phrases and the statuses that never carry a body.
 * Behaviour elsewhere is derived from these tables rather than from scattered literals.
 */
import type { ResponseHeaders } from './contract.js';

/** The methods restcanon routes. Any other method on a known path answers 405. */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * An HTTP method that restcanon can route.
 *
 * @example
 * const method: Method = 'PATCH';
 */
export type Method = (typeof METHODS)[number];

/** Methods whose requests carry a body that the pipeline reads. */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** The reason phrases (RFC 9110) of the statuses an error can have (4xx, 5xx): the `title`s of problems. */
const ERROR_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  507: 'Insufficient Storage',
  511: 'Network Authentication Required',
};

/**
 * Reason phrases (RFC 9110), 2xx to 5xx. Errors read only their own table, so a bundle that never
 * reads this one leaves the 2xx and 3xx phrases out.
 */
export const STATUS_TEXT: Readonly<Record<number, string>> = /* @__PURE__ */ Object.assign(
  {
    200: 'OK',
    201: 'Created',
    202: 'Accepted',
    203: 'Non-Authoritative Information',
    204: 'No Content',
    205: 'Reset Content',
    206: 'Partial Content',
    300: 'Multiple Choices',
    301: 'Moved Permanently',
    302: 'Found',
    303: 'See Other',
    304: 'Not Modified',
    307: 'Temporary Redirect',
    308: 'Permanent Redirect',
  },
  ERROR_TEXT,
);

/**
 * The reason phrase of a status, or a generic one for its class.
 *
 * @example
 * statusText(404); // 'Not Found'
 */
export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? classText(status);
}

/**
 * {@link statusText} for a status from 400 to 599, the only ones an `HttpError` can have.
 *
 * @example
 * errorText(404); // 'Not Found'
 */
export function errorText(status: number): string {
  return ERROR_TEXT[status] ?? classText(status);
}

function classText(status: number): string {
  return status >= 500 ? 'Server Error' : status >= 400 ? 'Client Error' : 'Unknown';
}

/**
 * Whether a response with this status is sent without a body.
 *
 * @example
 * isEmptyBodyStatus(204); // true
 */
export function isEmptyBodyStatus(status: number): boolean {
  // RFC 9110 §6.4.1, §15.3.5, §15.4.5. Comparisons, not a Set: every success answer asks.
  return status < 200 || status === 204 || status === 205 || status === 304;
}

/**
 * An HTTP token (RFC 9110 section 5.6.2), the grammar of a header name.
 *
 * @example
 * HEADER_NAME.test('X-Request-Id'); // true
 */
export const HEADER_NAME = /^[-!#$%&'*+.^_`|~0-9A-Za-z]+$/;

/**
 * Throws unless a header name is an HTTP token and its value a string without a character no
 * header may carry (CR, LF, NUL, other controls, anything beyond Latin-1): a value taken from a
 * request could otherwise split the response, or make the server drop it.
 *
 * @example
 * checkHeader('ctx.set', 'x-total-count', '42');
 */
export function checkHeader(where: string, name: string, value: unknown): void {
  // A name that is no string could pass the test as its String() and be something else where it is used.
  if (typeof name !== 'string' || !HEADER_NAME.test(name)) throw new TypeError(`${where}: ${typeof name === 'string' ? JSON.stringify(name) : `a ${typeof name}`} is not a valid header name`);
  if (typeof value !== 'string' || !isHeaderValue(value)) throw new TypeError(`${where}: the value of header "${name}" must be a string without control characters or characters beyond Latin-1`);
}

/**
 * Whether a string can go on the wire as a header value: no control character but tab, nothing
 * beyond Latin-1.
 *
 * @example
 * isHeaderValue('req-1'); // true
 */
export function isHeaderValue(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f || code > 0xff) return false;
  }
  return true;
}

/** Headers that code outside restcanon may not give an answer: its framing and its media type are restcanon's. */
const RESERVED_HEADERS: ReadonlySet<string> = new Set(['content-type', 'content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection']);

/**
 * Checks a header that a handler (`ctx.set`) or a thrown error gives an answer, as {@link checkHeader}
 * does, and gives its name in lower case. Refused besides: the headers that frame the answer or name
 * its media type, and the CORS grants, which only the API's `cors` option gives.
 *
 * @example
 * answerHeader('ctx.set', 'X-Total-Count', '42'); // 'x-total-count'
 */
export function answerHeader(where: string, name: string, value: unknown): string {
  checkHeader(where, name, value);
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower)) throw new TypeError(`${where}: "${lower}" is set by restcanon, not by a handler`);
  if (lower.startsWith('access-control-')) throw new TypeError(`${where}: "${lower}" is a CORS grant, which the API's "cors" option gives`);
  return lower;
}

/**
 * A `Vary` value with more names: each added once, whatever its case, after those already listed;
 * `*` stays `*`.
 *
 * @example
 * mergeVary('Accept', 'Origin'); // 'Accept, Origin'
 * mergeVary('accept, origin', 'Origin'); // 'accept, origin'
 */
export function mergeVary(existing: string | undefined, names: string): string {
  if (existing === undefined || existing.trim() === '') return names;
  const listed = existing.split(',').map((name) => name.trim().toLowerCase());
  if (listed.includes('*')) return existing;
  const added = names.split(', ').filter((name) => !listed.includes(name.toLowerCase()));
  return added.length === 0 ? existing : `${existing}, ${added.join(', ')}`;
}

/**
 * Adds names to the `Vary` of an answer's headers (see {@link mergeVary}).
 *
 * @example
 * addVary(headers, 'Accept');
 */
export function addVary(headers: ResponseHeaders, names: string): void {
  headers.vary = mergeVary(headerText(headers.vary), names);
}

/**
 * A header's value as one string: the lines of a list joined with commas (RFC 9110 section 5.3).
 *
 * @example
 * headerText(['Accept', 'Origin']); // 'Accept, Origin'
 */
export function headerText(value: string | readonly string[] | undefined): string | undefined {
  return value === undefined || typeof value === 'string' ? value : value.join(', ');
}
