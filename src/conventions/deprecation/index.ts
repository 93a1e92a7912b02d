import type { ApiResponse } from '../../core/contract.js';
import type { Exchange } from '../../core/exchange.js';
import type { Endpoint } from '../../core/endpoint.js';
import { GoneError, withoutStack } from '../../core/errors.js';
import { checkFunction, checkOptions } from '../../core/options.js';
import type { Convention, EndpointBuild, EndpointParts } from '../../core/seam.js';
import { checkDeprecation, type Deprecation, type DeprecationDeclaration } from './declare.js';
import { deprecationPart } from './openapi.js';

/**
 * Deprecation and sunset as a module: every answer of a deprecated endpoint says so (`Deprecation`,
 * RFC 9745; `Sunset`, RFC 8594; their `Link` relations), and with `gone: true` an endpoint past its
 * sunset answers 410 before anything else runs.
 */

/**
 * The options of {@link deprecation}.
 *
 * @example
 * const options: DeprecationOptions = { gone: true };
 */
export interface DeprecationOptions {
  /** An endpoint past its sunset answers 410 Gone, without authenticating or running its handler. */
  gone?: boolean;
  /** The time now, in milliseconds since the epoch (`Date.now` when omitted): what `gone` compares with the sunset. */
  now?: () => number;
}

const OPTIONS = ['gone', 'now'];

/**
 * A module for `createApi({ use })` that marks the endpoints and collection operations that declare
 * `conventions: { deprecation: { at, sunset?, link?, sunsetLink? } }`: each of their answers,
 * successes and errors alike, carries `Deprecation: @<seconds>`, `Sunset: <HTTP date>` and `Link`s
 * (added to any `Link` the answer has), and the OpenAPI document marks them `deprecated`. Every
 * declaration is checked when the API is built.
 *
 * @example
 * import { deprecation } from 'restcanon/deprecation';
 * const api = createApi({
 *   use: [deprecation({ gone: true })],
 *   endpoints: [endpoint('GET', '/v1/users', { conventions: { deprecation: { at: '2026-01-01', sunset: '2027-06-30', link: 'https://example.com/v2' } }, handle })],
 * });
 */
export function deprecation(options: DeprecationOptions = {}): Convention {
  if (typeof options !== 'object' || options === null) throw new TypeError('deprecation(): its options are an object, such as { gone: true }, or none');
  checkOptions('deprecation()', options, OPTIONS);
  const { gone = false, now = Date.now } = options;
  if (typeof gone !== 'boolean') throw new TypeError(`deprecation(): "gone" must be true or false, got ${String(gone)}`);
  checkFunction(now, 'deprecation(): "now"', '() => milliseconds since the epoch, such as Date.now');

  return Object.freeze({
    name: 'deprecation',
    rank: 4,
    exposes: ['Deprecation', 'Sunset'],
    endpoint(_endpoint: Endpoint, declared: unknown, build: EndpointBuild): EndpointParts | undefined {
      if (declared === undefined) return undefined;
      const checked = checkDeprecation(declared, build.where);
      const retired = gone && checked.sunset !== undefined ? withoutStack(() => new GoneError(`This endpoint was retired on ${checked.fields.sunset}`)) : undefined;
      const finish = (_exchange: Exchange, response: ApiResponse): void => addFields(response, checked);
      if (retired === undefined) return { finish };
      const retire = (): undefined => {
        if (now() >= checked.sunset!) throw retired;
        return undefined;
      };
      return { steps: [{ phase: 'request', run: retire, outcomes: ['gone'] }], finish };
    },
    openapi: deprecationPart(gone),
  });
}

/** The fields of a deprecated endpoint on one of its answers, its links after any the answer has. */
function addFields(response: ApiResponse, { fields, link }: Deprecation): void {
  Object.assign(response.headers, fields);
  if (link === undefined) return;
  const given = response.headers.link;
  response.headers.link = given === undefined || given === '' ? link : `${given}, ${link}`;
}

export type { DeprecationDeclaration };
