import * as otel from '@opentelemetry/api';
import { from, lastValueFrom, tap, toArray } from 'rxjs';
import { genAiTelemetry } from '../../src/telemetry/genAiTelemetry';
import { genAiProviderName } from '../../src/telemetry/genAiProviderName';
import { withGenAiTelemetry } from '../../src/telemetry/withGenAiTelemetry';
import type { ReplyTimings } from '../../src/telemetry/ReplyClock';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import {
  anthropicLoop,
  bedrockConverseLoop,
  geminiLoop,
  ollamaLoop,
  openaiChatLoop,
  openaiResponsesLoop,
} from '../../src/tool-loop/loopFormats';
import type { ToolLoopFormat } from '../../src/tool-loop/ToolLoopFormat';
import { providerStream } from '../../src/testing/writeProviderStream';
import type { TestReply } from '../../src/dialects/writing/TestReply';
import type { Fault } from '../../src/testing/faults';
import type { ChatEvent } from '../../src/types/events';
import { otelSdk, pointsOf, type OtelSdk } from './otelSdk';

// The inference span and the client metrics of a reply, with the real SDK in memory, for each dialect
// family: a text reply, a tool-call reply, a cut reply and a provider's error. Every expected value
// comes from the reply the test kit wrote, the request the spec made, or the conventions' text.

type Family = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock-converse' | 'ollama';

/** Each family's reader, its provider's name in the conventions, and what its wire carries of the reply's envelope. */
interface FamilyFacts {
  readonly format: ToolLoopFormat<unknown>;
  readonly provider: string;
  readonly carriesId: boolean;
  readonly carriesModel: boolean;
}
const FAMILIES: Record<Family, FamilyFacts> = {
  'openai-chat': { format: openaiChatLoop, provider: 'openai', carriesId: true, carriesModel: true },
  'openai-responses': { format: openaiResponsesLoop, provider: 'openai', carriesId: true, carriesModel: true },
  anthropic: { format: anthropicLoop, provider: 'anthropic', carriesId: true, carriesModel: true },
  gemini: { format: geminiLoop, provider: 'gcp.gemini', carriesId: true, carriesModel: true },
  'bedrock-converse': { format: bedrockConverseLoop, provider: 'aws.bedrock', carriesId: false, carriesModel: false },
  ollama: { format: ollamaLoop, provider: 'ollama', carriesId: false, carriesModel: true },
};

/** `reply` without the envelope fields the family's wire cannot carry. */
function forFamily(reply: TestReply, family: Family): TestReply {
  const { id, model, ...rest } = reply;
  const facts = FAMILIES[family];
  return {
    ...rest,
    ...(facts.carriesId && id !== undefined ? { id } : {}),
    ...(facts.carriesModel && model !== undefined ? { model } : {}),
  };
}

const usage = { promptTokens: 12, completionTokens: 30, totalTokens: 42 };
const text: TestReply = { id: 'resp-text-1', model: 'model-2026-01', usage, choices: [{ text: 'Oslo is sunny, 21 degrees today.' }] };
const toolCall: TestReply = {
  id: 'resp-call-1',
  model: 'model-2026-01',
  usage,
  choices: [{ text: 'Let me look.', toolCalls: [{ id: 'call_7', name: 'get_weather', arguments: { city: 'Oslo', days: 2 } }] }],
};

const request = { provider: '', model: 'model-requested', serverAddress: 'llm.example.com', serverPort: 443 } as const;

interface Run {
  readonly events: ChatEvent[];
  readonly error: unknown;
  readonly timings: ReplyTimings[];
}

async function run(sdk: OtelSdk, family: Family, reply: TestReply, fault?: Fault, captureContent = false): Promise<Run> {
  const telemetry = genAiTelemetry(otel, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, captureContent });
  const stream = providerStream(forFamily(reply, family), family, fault === undefined ? {} : { fault });
  const events: ChatEvent[] = [];
  const timings: ReplyTimings[] = [];
  let error: unknown;
  await lastValueFrom(
    from(stream.chunks).pipe(
      FAMILIES[family].format.read(),
      groupToolCallsByIndex(),
      tap((event) => events.push(event)),
      withGenAiTelemetry(telemetry, { ...request, provider: FAMILIES[family].provider, onTimings: (t) => timings.push(t) }),
      finalizeCompletion(),
      toArray(),
    ),
  ).catch((caught: unknown) => (error = caught));
  return { events, error, timings };
}

const OUTPUT = new Set(['content', 'reasoning', 'refusal', 'tool-call-delta', 'audio']);

describe.each(Object.keys(FAMILIES) as Family[])('withGenAiTelemetry over %s', (family) => {
  const { provider, carriesId, carriesModel } = FAMILIES[family];
  const responseModel = carriesModel ? { 'gen_ai.response.model': 'model-2026-01' } : {};
  let sdk: OtelSdk;
  beforeEach(() => (sdk = otelSdk()));
  afterEach(() => sdk.shutdown());

  const base = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': provider,
    'gen_ai.request.model': 'model-requested',
    'server.address': 'llm.example.com',
    'server.port': 443,
  };

  it('records a text reply: a CLIENT span named after the operation and model, with the response, its usage and its timing', async () => {
    const { error, events, timings } = await run(sdk, family, text);
    expect(error).toBeUndefined();
    const spans = sdk.spans();
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    expect(span.name).toBe('chat model-requested');
    expect(span.kind).toBe(otel.SpanKind.CLIENT);
    expect(span.status.code).toBe(otel.SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({
      ...base,
      'gen_ai.request.stream': true,
      ...responseModel,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 30,
    });
    if (carriesId) expect(span.attributes['gen_ai.response.id']).toBe('resp-text-1');
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.attributes['gen_ai.output.messages']).toBeUndefined(); // not without captureContent
    expect(span.attributes['gen_ai.response.time_to_first_chunk']).toBe(timings[0]!.timeToFirstChunkMs! / 1000);

    const metrics = await sdk.metrics();
    const withModel = { ...base, ...responseModel };
    expect(pointsOf(metrics.get('gen_ai.client.inference.duration'))).toEqual([
      { attributes: withModel, value: expect.objectContaining({ count: 1 }) },
    ]);
    expect(metrics.get('gen_ai.client.inference.duration')!.descriptor.unit).toBe('s');
    expect(pointsOf(metrics.get('gen_ai.client.inference.time_to_first_chunk'))).toEqual([
      { attributes: withModel, value: expect.objectContaining({ count: 1 }) },
    ]);
    const chunks = events.filter((event) => OUTPUT.has(event.type)).length;
    const perChunk = pointsOf(metrics.get('gen_ai.client.inference.time_per_output_chunk'));
    expect(perChunk.reduce((count, point) => count + (point.value as { count: number }).count, 0)).toBe(chunks - 1);
    expect(pointsOf(metrics.get('gen_ai.client.inference.usage.input_tokens'))).toEqual([
      { attributes: { ...withModel, 'gen_ai.token.modality': 'unknown' }, value: 12 },
    ]);
    expect(pointsOf(metrics.get('gen_ai.client.inference.usage.output_tokens'))).toEqual([
      { attributes: { ...withModel, 'gen_ai.token.modality': 'unknown' }, value: 30 },
    ]);
    expect(metrics.get('gen_ai.client.inference.usage.output_tokens')!.descriptor.unit).toBe('{token}');
    expect(pointsOf(metrics.get('gen_ai.client.inference.operation.input_tokens'))).toEqual([
      { attributes: withModel, value: { count: 1, sum: 12 } },
    ]);
    expect(pointsOf(metrics.get('gen_ai.client.inference.operation.output_tokens'))).toEqual([
      { attributes: withModel, value: { count: 1, sum: 30 } },
    ]);
  });

  it('records a tool-call reply: finish reason tool_calls, and the call in the output messages when content is captured', async () => {
    const { error } = await run(sdk, family, toolCall, undefined, true);
    expect(error).toBeUndefined();
    const span = sdk.spans()[0]!;
    expect(span.attributes).toMatchObject({ ...base, 'gen_ai.response.finish_reasons': ['tool_calls'], 'gen_ai.usage.output_tokens': 30 });
    const output = JSON.parse(String(span.attributes['gen_ai.output.messages'])) as unknown;
    expect(output).toEqual([
      {
        role: 'assistant',
        finish_reason: 'tool_calls',
        parts: [
          { type: 'text', content: 'Let me look.' },
          { type: 'tool_call', id: 'call_7', name: 'get_weather', arguments: JSON.stringify({ city: 'Oslo', days: 2 }) },
        ],
      },
    ]);
  });

  it('records a cut reply as an error with what arrived: status ERROR, error.type from class and reason, finish reason error', async () => {
    const stream = providerStream(forFamily(text, family), family, { fault: 'cut-mid-line' });
    const { error, events } = await run(sdk, family, text, 'cut-mid-line');
    // What usage arrived before the cut (Anthropic's and Gemini's first events carry some), as the parser read it.
    const arrived = events.flatMap((event) => (event.type === 'usage' ? [event.usage] : [])).at(-1);
    expect(error).toMatchObject({ name: stream.fault!.error, reason: stream.fault!.reason });
    const errorType = `${stream.fault!.error}:${stream.fault!.reason}`;
    const span = sdk.spans()[0]!;
    expect(span.status.code).toBe(otel.SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ ...base, 'error.type': errorType, 'gen_ai.response.finish_reasons': ['error'] });
    expect(span.attributes['gen_ai.usage.input_tokens']).toBe(arrived?.promptTokens ?? undefined);

    const metrics = await sdk.metrics();
    const duration = pointsOf(metrics.get('gen_ai.client.inference.duration'));
    expect(duration).toHaveLength(1);
    expect(duration[0]!.attributes).toMatchObject({ ...base, 'error.type': errorType });
    // Failed operations count their tokens too: what arrived, or the conventions' zero under `unknown` when none did.
    const counted = { input: arrived?.promptTokens ?? 0, output: arrived?.completionTokens ?? 0 };
    for (const [name, value] of [
      ['gen_ai.client.inference.usage.input_tokens', counted.input],
      ['gen_ai.client.inference.usage.output_tokens', counted.output],
    ] as const) {
      const points = pointsOf(metrics.get(name));
      expect(points).toHaveLength(1);
      expect(points[0]).toMatchObject({ attributes: { ...base, 'gen_ai.token.modality': 'unknown' }, value });
    }
    expect(pointsOf(metrics.get('gen_ai.client.inference.operation.input_tokens'))[0]).toMatchObject({
      attributes: { 'error.type': errorType },
      value: { count: 1, sum: counted.input },
    });
  });

  it("records the provider's error in the stream: status ERROR, error.type ProviderError:in-stream", async () => {
    const stream = providerStream(forFamily(text, family), family, { fault: 'error' });
    const { error } = await run(sdk, family, text, 'error');
    expect(error).toMatchObject({ name: 'ProviderError', reason: 'in-stream' });
    expect(stream.fault).toMatchObject({ error: 'ProviderError', reason: 'in-stream' });
    const span = sdk.spans()[0]!;
    expect(span.status).toMatchObject({ code: otel.SpanStatusCode.ERROR, message: (error as Error).message });
    expect(span.attributes).toMatchObject({ ...base, 'error.type': 'ProviderError:in-stream' });
    const metrics = await sdk.metrics();
    expect(pointsOf(metrics.get('gen_ai.client.inference.duration'))[0]!.attributes).toMatchObject({
      'error.type': 'ProviderError:in-stream',
    });
  });

  it('names the provider as the conventions do', () => {
    expect(genAiProviderName(family)).toBe(provider);
  });
});
