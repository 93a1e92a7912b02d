import type { ApiRequest, ApiResponse, HeaderRecord } from '../../core/contract.js';
import { optionsResponse } from '../../core/answers.js';
import { newRequestId } from '../../core/request-id.js';
import { EMPTY_HEADERS, withLowerCaseHeaders } from '../../core/request.js';
import type { ApiBuild, Convention, Responder } from '../../core/seam.js';
import { allowedOrigin, applyCors, createCorsPolicy, isPreflight, preflightHeaders, PREFLIGHT_VARY, responseHeaders, type CorsOptions, type CorsPolicy } from './cors.js';

/**
 * CORS as a convention: it wraps the API's answer. A preflight on a path the API serves is answered
 * before any endpoint (it carries no credentials, so it is never authenticated); every other answer
 * to a request with `Origin` gets the grant of its origin, or none, and `Vary: Origin`, whether it
 * came at once or later. An API without `cors` never runs it.
 */

/**
 * The `cors` convention: what `createApi({ cors })` asks for.
 *
 * @example
 * createApi({ endpoints, cors: { origins: ['https://app.example.com'] } });
 */
export const cors: Convention = {
  name: 'cors',
  rank: 10,
  options: ['cors'],
  api(options, build) {
    const given = options.cors as CorsOptions | undefined;
    if (given === undefined) return undefined;
    const policy = createCorsPolicy(given, build.exposes);
    return (respond) => withCors(policy, respond, build);
  },
};

function withCors(cors: CorsPolicy, respond: Responder, { settings, allowOf }: ApiBuild): Responder {
  /** The origin's `Access-Control-Allow-Origin` value, or undefined; an origin function that throws refuses, and is reported. */
  function originOf(origin: string | string[], request: ApiRequest, status: number): string | undefined {
    try {
      return allowedOrigin(cors, origin, request);
    } catch (error) {
      settings.report(error, { requestId: newRequestId(), status, request });
      return undefined;
    }
  }

  function preflight(request: ApiRequest, headers: HeaderRecord): ApiResponse | undefined {
    const allow = allowOf(request.url);
    if (allow === undefined) return undefined;
    const response = optionsResponse(allow, settings);
    const allowOrigin = originOf(headers.origin!, request, response.status);
    const grant = allowOrigin === undefined ? undefined : preflightHeaders(cors, allowOrigin, allow, headers['access-control-request-method'], headers['access-control-request-headers']);
    applyCors(response.headers, grant, PREFLIGHT_VARY);
    return response;
  }

  function granted(response: ApiResponse, request: ApiRequest, origin: string | string[]): ApiResponse {
    const allowOrigin = originOf(origin, request, response.status);
    applyCors(response.headers, allowOrigin === undefined ? undefined : responseHeaders(cors, allowOrigin, request.method), 'Origin');
    return response;
  }

  return (given, passUnmatched, lowerCaseHeaders = false) => {
    const request = lowerCaseHeaders ? given : withLowerCaseHeaders(given);
    const headers = request.headers ?? EMPTY_HEADERS;
    const origin = headers.origin;
    if (origin === undefined) return respond(request, passUnmatched, true);
    if (isPreflight(request.method, headers)) {
      const response = preflight(request, headers);
      if (response !== undefined) return response;
    }
    const answer = respond(request, passUnmatched, true);
    if (answer === undefined) return undefined;
    if (answer instanceof Promise) return answer.then((response) => (response === undefined ? undefined : granted(response, request, origin)));
    return granted(answer, request, origin);
  };
}

export type { CorsOptions };
