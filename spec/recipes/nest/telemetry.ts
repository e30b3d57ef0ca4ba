import * as otel from '@opentelemetry/api';
import { NodeSDK, metrics, tracing } from '@opentelemetry/sdk-node';
import { genAiTelemetry, type GenAiTelemetry } from 'rxjs-llm-stream';

/**
 * The gateway's OpenTelemetry, started once before Nest: the Node SDK with a metric reader and a
 * span processor over the exporters given (OTLP ones in production, `@opentelemetry/exporter-*-otlp-*`),
 * then the library's GenAI telemetry over the providers the SDK registered.
 */
export function startTelemetry(
  metricExporter: metrics.PushMetricExporter,
  spanExporter: tracing.SpanExporter,
): { sdk: NodeSDK; genAi: GenAiTelemetry } {
  const sdk = new NodeSDK({
    serviceName: 'llm-gateway',
    metricReaders: [new metrics.PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 15_000 })],
    spanProcessors: [new tracing.BatchSpanProcessor(spanExporter)],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  return { sdk, genAi: genAiTelemetry(otel) };
}
