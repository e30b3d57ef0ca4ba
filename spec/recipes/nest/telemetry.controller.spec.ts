import 'reflect-metadata';
import * as otel from '@opentelemetry/api';
import { core, metrics, tracing, type NodeSDK } from '@opentelemetry/sdk-node';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { fakeFetch, providerStream, type TestReply } from 'rxjs-llm-stream/testing';
import { GEN_AI_TELEMETRY, TelemetryChatController, UPSTREAM } from './telemetry.controller.js';
import { startTelemetry } from './telemetry.js';

const reply: TestReply = {
  id: 'chatcmpl-gw-1',
  model: 'gpt-5-2026-01',
  usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
  choices: [{ text: 'Sunny in Oslo.' }],
};

describe('a Nest gateway exporting the GenAI metrics with the OpenTelemetry Node SDK', () => {
  const metricExporter = new metrics.InMemoryMetricExporter(metrics.AggregationTemporality.CUMULATIVE);
  // Kept past the SDK's shutdown (the in-memory exporter forgets its spans when shut down).
  const exportedSpans: tracing.ReadableSpan[] = [];
  const spanExporter: tracing.SpanExporter = {
    export: (spans, done) => {
      exportedSpans.push(...spans);
      done({ code: core.ExportResultCode.SUCCESS });
    },
    shutdown: async () => {},
  };
  let sdk: NodeSDK;
  let app: INestApplication;

  beforeAll(async () => {
    const started = startTelemetry(metricExporter, spanExporter);
    sdk = started.sdk;
    const moduleRef = await Test.createTestingModule({
      controllers: [TelemetryChatController],
      providers: [{ provide: GEN_AI_TELEMETRY, useValue: started.genAi }],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await sdk?.shutdown();
    // The SDK registered global providers: other specs of this worker get the API's no-ops back.
    otel.trace.disable();
    otel.metrics.disable();
    otel.context.disable();
    otel.propagation.disable();
  });
  afterEach(() => jest.restoreAllMocks());

  it('exports the inference span and the client metrics of each reply it relays', async () => {
    const upstream = fakeFetch(providerStream(reply, 'openai-chat'));
    const { fetch } = globalThis; // the test's own requests go to the app
    jest.spyOn(globalThis, 'fetch').mockImplementation((input, init) => (String(input) === UPSTREAM ? upstream : fetch)(input, init));
    const response = await fetch(`${await app.getUrl()}/chat?q=${encodeURIComponent('Weather in Oslo?')}`);
    expect(await response.text()).toContain('event: done');

    await sdk.shutdown(); // flushes the reader and the span processor into the exporters
    const exported = metricExporter.getMetrics().flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics));
    const names = new Set(exported.map((metric) => metric.descriptor.name));
    for (const name of [
      'gen_ai.client.inference.duration',
      'gen_ai.client.inference.time_to_first_chunk',
      'gen_ai.client.inference.time_per_output_chunk',
      'gen_ai.client.inference.usage.input_tokens',
      'gen_ai.client.inference.usage.output_tokens',
      'gen_ai.client.inference.operation.input_tokens',
      'gen_ai.client.inference.operation.output_tokens',
    ]) {
      expect(names).toContain(name);
    }
    const input = exported.find((metric) => metric.descriptor.name === 'gen_ai.client.inference.usage.input_tokens')!;
    expect(input.dataPoints).toEqual([
      expect.objectContaining({
        value: 9,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-5',
          'gen_ai.response.model': 'gpt-5-2026-01',
          'server.address': 'llm.example.com',
          'server.port': 443,
          'gen_ai.token.modality': 'unknown',
        },
      }),
    ]);
    const spans = exportedSpans;
    expect(spans.map((span) => span.name)).toEqual(['chat gpt-5']);
    expect(spans[0]!.attributes).toMatchObject({ 'gen_ai.response.id': 'chatcmpl-gw-1', 'gen_ai.usage.output_tokens': 4 });
    expect(spans[0]!.resource.attributes['service.name']).toBe('llm-gateway');
  });
});
