/**
 * The HTTP server span of a request, as OpenTelemetry's semantic conventions for HTTP spans describe
 * it: its name `{method} {http.route}`, its `http.route`, and its status and `error.type` on a 5xx.
 */
import { context, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';

/**
 * Where an HTTP server instrumentation (`@opentelemetry/instrumentation-http`) keeps the request's
 * server span in the context, for the framework instrumentations to give it a route: the key of
 * `@opentelemetry/core`'s `getRPCMetadata`, which `createContextKey` makes with `Symbol.for`, so that
 * every copy of the API finds it.
 */
const RPC_METADATA = Symbol.for('OpenTelemetry SDK Context Key RPC_METADATA');

/** What that instrumentation keeps there: its own span, and the route it reports when the response ends. */
interface RpcMetadata {
  type?: unknown;
  span?: Span;
  route?: string;
}

/**
 * The methods the semantic conventions know (RFC 9110's, PATCH, and QUERY as the HTTP instrumentation
 * knows it): a span of another method is named `HTTP`, as its `http.request.method` is `_OTHER`.
 */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH', 'QUERY']);

/**
 * The request's HTTP server span: the one the HTTP instrumentation put in the context (even where a
 * span of the host's is active below it), else the active span when it shows that it is a server
 * span, as the SDK's spans do; undefined for any other span. A span that is not sampled is still
 * found: it records nothing, but the instrumentation's duration metric takes the route all the same.
 *
 * @example
 * const span = serverSpanOf(trace.getActiveSpan()!);
 */
export function serverSpanOf(active: Span): ServerSpan | undefined {
  const metadata = context.active().getValue(RPC_METADATA) as RpcMetadata | undefined;
  if (metadata?.type === 'http' && metadata.span !== undefined) return { span: metadata.span, metadata };
  return (active as { kind?: unknown }).kind === SpanKind.SERVER ? { span: active, metadata: undefined } : undefined;
}

/**
 * A server span, and the HTTP instrumentation's record of its request when there is one.
 *
 * @example
 * const { span, metadata }: ServerSpan = serverSpanOf(active)!;
 */
export interface ServerSpan {
  readonly span: Span;
  readonly metadata: RpcMetadata | undefined;
}

/**
 * Gives the span the route the request matched: `http.route`, and the name `{method} {route}`. The
 * HTTP instrumentation's record gets it too, so that its own attributes and its duration metric,
 * written when the response ends, carry the same route.
 *
 * @example
 * nameByRoute(serverSpanOf(active)!, 'GET', '/v1/users/:id'); // span "GET /v1/users/:id"
 */
export function nameByRoute({ span, metadata }: ServerSpan, method: string, route: string): void {
  const upper = method.toUpperCase();
  span.setAttribute('http.route', route);
  span.updateName(`${KNOWN_METHODS.has(upper) ? upper : 'HTTP'} ${route}`);
  if (metadata !== undefined) metadata.route = route;
}

/**
 * Marks a server span whose answer is a 5xx: status `Error` without a description (the status code
 * says it) and `error.type`, the status code as a string. A 4xx leaves both alone, as the conventions
 * ask of a server span: the client erred, not the server.
 *
 * @example
 * markServerError(span, 503); // status Error, error.type "503"
 */
export function markServerError(span: Span, status: number): void {
  if (status < 500 || status > 599) return;
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', String(status));
}
