// What the telemetry uses of OpenTelemetry's API, declared here by shape. The library imports nothing
// of `@opentelemetry/api`, not even its types: the package's declarations must compile in an app that
// does not have the optional peer installed. The API's own objects (`import * as otel from
// '@opentelemetry/api'`, an SDK's providers) have these shapes.

/** An attribute's value, as OpenTelemetry takes it. */
export type AttributeValue = string | number | boolean | string[] | number[] | boolean[];

/** Attributes of a span or a metric point. */
export interface Attributes {
  [key: string]: AttributeValue | undefined;
}

/** OpenTelemetry's context: opaque here, handed from the API back to the API. */
export type Context = object;

/** The part of a span the telemetry writes. */
export interface Span {
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
}

/** A tracer: makes spans. */
export interface Tracer {
  startSpan(name: string, options?: { kind?: number; attributes?: Attributes }, context?: Context): Span;
}

/** What makes tracers: the API's `trace`, an SDK's tracer provider. */
export interface TracerProvider {
  getTracer(name: string): Tracer;
}

/** A histogram. */
export interface Histogram {
  record(value: number, attributes?: Attributes): void;
}

/** A monotonic counter. */
export interface Counter {
  add(value: number, attributes?: Attributes): void;
}

/** How an instrument is made: its unit, its description, its value type, the bucket advice. */
export interface InstrumentOptions {
  unit?: string;
  description?: string;
  /** The API's `ValueType`: 0 for integers. */
  valueType?: number;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** A meter: makes instruments. */
export interface Meter {
  createHistogram(name: string, options?: InstrumentOptions): Histogram;
  createCounter(name: string, options?: InstrumentOptions): Counter;
}

/** What makes meters: the API's `metrics`, an SDK's meter provider. */
export interface MeterProvider {
  getMeter(name: string): Meter;
}
