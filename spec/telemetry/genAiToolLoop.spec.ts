import * as otel from '@opentelemetry/api';
import { NEVER, lastValueFrom, of, toArray } from 'rxjs';
import { genAiTelemetry } from '../../src/telemetry/genAiTelemetry';
import { genAiToolLoop } from '../../src/telemetry/genAiToolLoop';
import { openaiChatLoop } from '../../src/tool-loop/loopFormats';
import { toolLoop } from '../../src/tool-loop/toolLoop';
import type { TestReply } from '../../src/dialects/writing/TestReply';
import { providerStream } from '../../src/testing/writeProviderStream';
import { otelSdk, pointsOf, type OtelSdk } from './otelSdk';

// The tool loop under OpenTelemetry: one invoke_agent span per run, an inference span per step and
// an execute_tool span per tool execution under it, with the real SDK in memory.

const usage = { promptTokens: 20, completionTokens: 8, totalTokens: 28 };
const asksWeather: TestReply = {
  model: 'model-2026-01',
  usage,
  choices: [{ toolCalls: [{ id: 'call_oslo', name: 'get_weather', arguments: { city: 'Oslo' } }] }],
};
const answers: TestReply = { model: 'model-2026-01', usage, choices: [{ text: 'Sunny, 21 degrees.' }] };

const bodyOf = (reply: TestReply) => of(providerStream(reply, 'openai-chat', { chunking: 'whole' }).chunks[0]!);

describe('genAiToolLoop', () => {
  let sdk: OtelSdk;
  beforeEach(() => (sdk = otelSdk()));
  afterEach(() => sdk.shutdown());

  const telemetryOf = (captureContent = false) =>
    genAiTelemetry(otel, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, captureContent });
  const request = { provider: 'openai', model: 'model-requested', serverAddress: 'api.openai.com', agentName: 'weather' } as const;

  it('puts each step and each tool execution under one invoke_agent span', async () => {
    const replies = [asksWeather, answers];
    const loop$ = toolLoop({
      format: openaiChatLoop,
      request: (_messages, { step }) => bodyOf(replies[step - 1]!),
      conversation: [{ role: 'user' as const, content: 'Weather in Oslo?' }],
      tools: { get_weather: { execute: async (args: { city: string }) => ({ city: args.city, temperature: 21 }) } },
      telemetry: genAiToolLoop(telemetryOf(true), request),
    });
    const events = await lastValueFrom(loop$.pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'loop-finish', reason: 'no-calls' });

    const spans = sdk.spans();
    const loop = spans.filter((span) => span.name === 'invoke_agent weather');
    expect(loop).toHaveLength(1);
    expect(loop[0]!.kind).toBe(otel.SpanKind.INTERNAL);
    expect(loop[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'weather',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'model-requested',
    });
    expect(loop[0]!.status.code).toBe(otel.SpanStatusCode.UNSET);
    const loopId = loop[0]!.spanContext().spanId;

    const steps = spans.filter((span) => span.name === 'chat model-requested');
    expect(steps).toHaveLength(2);
    for (const step of steps) {
      expect(step.parentSpanContext?.spanId).toBe(loopId);
      expect(step.kind).toBe(otel.SpanKind.CLIENT);
      expect(step.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 20, 'gen_ai.response.model': 'model-2026-01' });
    }
    expect(steps.map((step) => step.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_calls'], ['stop']]);

    const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]!.name).toBe('execute_tool get_weather');
    expect(tools[0]!.parentSpanContext?.spanId).toBe(loopId);
    expect(tools[0]!.attributes).toMatchObject({
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_oslo',
      'gen_ai.tool.call.arguments': JSON.stringify({ city: 'Oslo' }),
      'gen_ai.tool.call.result': JSON.stringify({ city: 'Oslo', temperature: 21 }),
    });
    // Every span of the run is in one trace.
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);

    const metrics = await sdk.metrics();
    expect(pointsOf(metrics.get('gen_ai.client.inference.duration'))[0]!.value).toMatchObject({ count: 2 });
    expect(pointsOf(metrics.get('gen_ai.client.inference.usage.input_tokens'))[0]!.value).toBe(40);
    expect(pointsOf(metrics.get('gen_ai.execute_tool.duration'))).toEqual([
      {
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'get_weather' },
        value: expect.objectContaining({ count: 1 }),
      },
    ]);
  });

  it('records a failing tool as an error on its span, without content unless the app opted in', async () => {
    const replies = [asksWeather, answers];
    const loop$ = toolLoop({
      format: openaiChatLoop,
      request: (_messages, { step }) => bodyOf(replies[step - 1]!),
      conversation: [{ role: 'user' as const, content: 'Weather in Oslo?' }],
      tools: {
        get_weather: {
          execute: async (): Promise<never> => {
            throw new RangeError('no station in Oslo');
          },
        },
      },
      telemetry: genAiToolLoop(telemetryOf(), request),
    });
    await lastValueFrom(loop$.pipe(toArray()));
    const tool = sdk.spans().find((span) => span.name === 'execute_tool get_weather')!;
    expect(tool.status).toEqual({ code: otel.SpanStatusCode.ERROR, message: 'no station in Oslo' });
    expect(tool.attributes['error.type']).toBe('RangeError');
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
    // The error went back to the model, which answered: the loop itself did not fail.
    expect(sdk.spans().find((span) => span.name === 'invoke_agent weather')!.status.code).toBe(otel.SpanStatusCode.UNSET);
  });

  it('ends the loop span as cancelled, and the step in flight too, when the subscriber leaves', async () => {
    const loop$ = toolLoop({
      format: openaiChatLoop,
      request: () => NEVER,
      conversation: [{ role: 'user' as const, content: 'Weather in Oslo?' }],
      tools: {},
      telemetry: genAiToolLoop(telemetryOf(), request),
    });
    // The loop starts its first request at once, and is left while the request waits.
    loop$.subscribe().unsubscribe();
    const spans = sdk.spans();
    expect(spans.map((span) => [span.name, span.attributes['error.type']])).toEqual(
      expect.arrayContaining([
        ['invoke_agent weather', 'cancelled'],
        ['chat model-requested', 'cancelled'],
      ]),
    );
    expect(spans).toHaveLength(2);
  });

  it('records a failed step and the loop it ended with the error type', async () => {
    const cut = providerStream(answers, 'openai-chat', { fault: 'cut-mid-line' });
    const loop$ = toolLoop({
      format: openaiChatLoop,
      request: () => of(...cut.chunks),
      conversation: [{ role: 'user' as const, content: 'Weather in Oslo?' }],
      tools: {},
      telemetry: genAiToolLoop(telemetryOf(), request),
    });
    await expect(lastValueFrom(loop$)).rejects.toMatchObject({ name: cut.fault!.error, reason: cut.fault!.reason });
    const type = `${cut.fault!.error}:${cut.fault!.reason}`;
    const spans = sdk.spans();
    expect(spans.find((span) => span.name === 'chat model-requested')!.attributes['error.type']).toBe(type);
    const loop = spans.find((span) => span.name === 'invoke_agent weather')!;
    expect(loop.attributes['error.type']).toBe(type);
    expect(loop.status.code).toBe(otel.SpanStatusCode.ERROR);
  });

  it('leaves a loop without the option as it was: no span', async () => {
    const loop$ = toolLoop({
      format: openaiChatLoop,
      request: () => bodyOf(answers),
      conversation: [{ role: 'user' as const, content: 'Hi' }],
      tools: {},
    });
    await lastValueFrom(loop$.pipe(toArray()));
    expect(sdk.spans()).toEqual([]);
  });
});
