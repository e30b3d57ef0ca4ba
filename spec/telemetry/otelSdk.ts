import type { Attributes } from '@opentelemetry/api';
import { InMemorySpanExporter, BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type DataPoint, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';

// The real OpenTelemetry SDK for the telemetry specs, in memory: spans through a SimpleSpanProcessor
// into an InMemorySpanExporter, metrics through a reader the spec collects from. Nothing is registered
// globally: the providers are handed to `genAiTelemetry`.

/** A reader that exports nowhere: the spec collects from it. */
class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface OtelSdk {
  readonly tracerProvider: BasicTracerProvider;
  readonly meterProvider: MeterProvider;
  /** The spans ended so far. */
  spans(): readonly ReadableSpan[];
  /** Every metric collected now, by name. */
  metrics(): Promise<ReadonlyMap<string, MetricData>>;
  shutdown(): Promise<void>;
}

export function otelSdk(): OtelSdk {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: () => exporter.getFinishedSpans(),
    metrics: async () => {
      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).toEqual([]);
      const byName = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics) for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
      return byName;
    },
    shutdown: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** The points of a metric as `{ attributes, value }`, a histogram's value its `{ count, sum }`. */
export function pointsOf(metric: MetricData | undefined): { attributes: Attributes; value: number | { count: number; sum: number } }[] {
  if (metric === undefined) return [];
  return (metric.dataPoints as DataPoint<number | Histogram>[]).map((point) => ({
    attributes: point.attributes,
    value: typeof point.value === 'number' ? point.value : { count: point.value.count, sum: point.value.sum ?? 0 },
  }));
}
