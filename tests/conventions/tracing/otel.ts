/**
 * OpenTelemetry as an application sets it up: the Node SDK's tracer provider (with its
 * AsyncLocalStorage context manager) exporting every span to memory, a meter provider read on
 * demand, and `@opentelemetry/instrumentation-http`, which starts a server span for each request a
 * node:http server receives and records its duration. Import this module before any other of a test
 * file.
 */
import { createRequire } from 'node:module';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { SpanKind } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { vi } from 'vitest';

export const exporter = new InMemorySpanExporter();
export const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

/** A reader that hands over what the meters recorded when asked, and nothing on its own. */
class OnDemandReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}
export const metrics = new OnDemandReader();
registerInstrumentations({ tracerProvider: provider, meterProvider: new MeterProvider({ readers: [metrics] }), instrumentations: [new HttpInstrumentation()] });
// The instrumentation patches `http.Server.prototype.emit` when `http` is next required (through
// require-in-the-middle); an ES module's `import 'node:http'` goes past that hook. Requiring it once
// here patches the one prototype that every server of the test file uses, however it imports http.
createRequire(import.meta.url)('node:http');

/**
 * The server span of the request for `path` (its `url.path`), once it has ended: the instrumentation
 * ends it when the response closes, which may come after the client read the answer.
 *
 * @example
 * const span = await serverSpanFor('/v1/books/1');
 */
export async function serverSpanFor(path: string): Promise<ReadableSpan> {
  return vi.waitFor(
    () => {
      const spans = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER && span.attributes['url.path'] === path);
      if (spans.length !== 1) throw new Error(`${spans.length} server spans for ${path}`);
      return spans[0]!;
    },
    { timeout: 5_000, interval: 5 },
  );
}

/**
 * The attributes of each point of the HTTP instrumentation's `http.server.request.duration` so far.
 *
 * @example
 * const points = await durationPoints();
 */
export async function durationPoints(): Promise<Array<Record<string, unknown>>> {
  const { resourceMetrics } = await metrics.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === 'http.server.request.duration')
    .flatMap((metric) => metric.dataPoints.map((point) => point.attributes));
}
