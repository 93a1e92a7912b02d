/**
 * restcanon/otel: the route of each request on its OpenTelemetry server span. It needs the optional
 * peer dependency `@opentelemetry/api`; only this entry imports it, so an API without tracing never
 * loads it.
 */
import { trace } from '@opentelemetry/api';
import type { Answer, ApiRequest } from '../../core/contract.js';
import { checkOptions } from '../../core/options.js';
import { joinPaths } from '../../core/path.js';
import type { ApiBuild, Convention, Responder } from '../../core/seam.js';
import { markServerError, nameByRoute, serverSpanOf } from './server-span.js';

/**
 * Options of {@link tracing}.
 *
 * @example
 * const options: TracingOptions = { mountPath: '/:tenant' };
 */
export interface TracingOptions {
  /**
   * The template of the path the host serves the API below, for a mount path with parameters
   * (`app.use('/:tenant', toExpress(api))`), where the adapter knows only the values sent
   * (`/acme`), which must not reach `http.route`. By default, the mount path the adapter took off
   * the URL: Express's `req.baseUrl`, Fastify's prefix, koa-mount's and a Hono route's.
   */
  mountPath?: string;
}

const OPTIONS = ['mountPath'];

/**
 * A module for `createApi({ use })` that names the request's HTTP server span by the route it
 * matched, as OpenTelemetry's semantic conventions for HTTP spans ask: `http.route` is the full
 * template from the server's root (`/v1/users/:id`: the host's mount path, the API's `basePath`, the
 * endpoint's path) and the name `GET /v1/users/:id`; a 5xx answer sets the status `Error` and
 * `error.type` to the status code. A path the API does not know gets no route. The span is the one
 * `@opentelemetry/instrumentation-http` starts (or any active server span); without an active span
 * it costs one call per request.
 *
 * @example
 * import { tracing } from 'restcanon/otel';
 * const api = createApi({ endpoints, use: [tracing()] });
 */
export function tracing(options: TracingOptions = {}): Convention {
  checkOptions('tracing()', options, OPTIONS);
  const { mountPath } = options;
  if (mountPath !== undefined && (typeof mountPath !== 'string' || !mountPath.startsWith('/'))) {
    throw new TypeError(`tracing(): "mountPath" is the template of the path the host serves the API below, such as '/:tenant'; got ${JSON.stringify(mountPath)}`);
  }
  return Object.freeze({ name: 'tracing', api: (_options: unknown, build: ApiBuild) => (respond: Responder) => traced(respond, build, mountPath) });
}

/** The API's answer, with the request's server span named by its route and marked by a 5xx. */
function traced(respond: Responder, { templateOf }: ApiBuild, mountPath: string | undefined): Responder {
  return (request, passUnmatched, lowerCaseHeaders) => {
    const active = trace.getActiveSpan();
    if (active === undefined) return respond(request, passUnmatched, lowerCaseHeaders);
    const server = serverSpanOf(active);
    if (server === undefined) return respond(request, passUnmatched, lowerCaseHeaders);
    const template = templateOf(request.url);
    if (template !== undefined) nameByRoute(server, request.method, routeOf(request, template, mountPath));
    const answer: Answer = respond(request, passUnmatched, lowerCaseHeaders);
    if (!(answer instanceof Promise)) {
      if (answer !== undefined) markServerError(server.span, answer.status);
      return answer;
    }
    return answer.then((response) => {
      if (response !== undefined) markServerError(server.span, response.status);
      return response;
    });
  };
}

/** The route from the server's root: the mount path (given, or the one the adapter took off), then the API's template. */
function routeOf(request: ApiRequest, template: string, mountPath: string | undefined): string {
  const mount = mountPath ?? request.baseUrl;
  return mount === undefined || mount === '' || mount === '/' ? template : joinPaths(mount, template);
}
