/**
 * A repeated `Authorization` or `Content-Type` of a Node request, kept as every value it was sent
 * with. Node keeps the first of each in `req.headers` and drops the others, so a server that reads the
 * first and a proxy that reads the last would act on different credentials or media types; the core
 * sees the array and answers it as the ambiguity it is.
 */
import type { HeaderRecord } from '../core/contract.js';

/**
 * The headers with every value of a repeated `Authorization` or `Content-Type`, from Node's raw
 * header lines (name, value, name, value, ...). The raw lines are only counted, without a string made,
 * and the headers are copied only when one of the two is repeated.
 *
 * @example
 * withRepeatedHeaders(req.headers, ['Authorization', 'Bearer a', 'authorization', 'Bearer b']);
 * // { ...req.headers, authorization: ['Bearer a', 'Bearer b'] }
 */
export function withRepeatedHeaders(headers: HeaderRecord, rawHeaders: readonly string[] | undefined): HeaderRecord {
  if (rawHeaders === undefined) return headers;
  let authorizations = 0;
  let contentTypes = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    if (isHeaderName(name, 'authorization')) authorizations++;
    else if (isHeaderName(name, 'content-type')) contentTypes++;
  }
  if (authorizations < 2 && contentTypes < 2) return headers;
  const copy = { ...headers };
  if (authorizations > 1) copy.authorization = valuesOf(rawHeaders, 'authorization');
  if (contentTypes > 1) copy['content-type'] = valuesOf(rawHeaders, 'content-type');
  return copy;
}

/** Whether a raw header name is `lowerName` in any case. Setting bit 0x20 lower-cases a letter and leaves `-` as it is. */
function isHeaderName(name: string, lowerName: string): boolean {
  if (name.length !== lowerName.length) return false;
  for (let index = 0; index < name.length; index++) {
    if ((name.charCodeAt(index) | 0x20) !== lowerName.charCodeAt(index)) return false;
  }
  return true;
}

function valuesOf(rawHeaders: readonly string[], lowerName: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (isHeaderName(rawHeaders[index]!, lowerName)) values.push(rawHeaders[index + 1]!);
  }
  return values;
}
