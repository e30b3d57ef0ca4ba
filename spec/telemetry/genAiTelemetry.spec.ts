import * as otel from '@opentelemetry/api';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { from, lastValueFrom, NEVER, concat, toArray } from 'rxjs';
import { genAiTelemetry } from '../../src/telemetry/genAiTelemetry';
import { genAiErrorType } from '../../src/telemetry/errorType';
import { withGenAiTelemetry } from '../../src/telemetry/withGenAiTelemetry';
import { finalizeCompletion } from '../../src/reply/finalizeCompletion';
import { ProviderError, StreamClosedEarlyError } from '../../src/errors/errors';
import type { ChatEvent } from '../../src/types/events';
import { root } from '../support/build';
import { otelSdk, pointsOf, type OtelSdk } from './otelSdk';

// What the telemetry records beside the per-dialect replies: the usage details and their counters,
// content only on opt-in, a reply left by its subscriber, and nothing at all without an SDK or
// without the peer dependency.

const reply: ChatEvent[] = [
  { type: 'start', id: 'resp_1', model: 'gpt-audio-2026' },
  { type: 'content', choice: 0, text: 'Hello' },
  { type: 'content', choice: 0, text: ' there' },
  { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
  {
    type: 'usage',
    usage: {
      promptTokens: 100,
      completionTokens: 50,
      totalTokens: 150,
      cachedPromptTokens: 40,
      cacheWritePromptTokens: 10,
      reasoningTokens: 20,
      audioPromptTokens: 30,
      audioCompletionTokens: 5,
    },
  },
  { type: 'done' },
];

describe('genAiTelemetry', () => {
  let sdk: OtelSdk;
  beforeEach(() => (sdk = otelSdk()));
  afterEach(() => sdk.shutdown());
  const telemetryOf = (options: { captureContent?: boolean } = {}) =>
    genAiTelemetry(otel, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, ...options });
  const request = { provider: 'openai', model: 'gpt-audio', serverAddress: 'api.openai.com' } as const;
  const base = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-audio',
    'server.address': 'api.openai.com',
    'gen_ai.response.model': 'gpt-audio-2026',
  };

  it('records every usage count on the span, and the counters by modality: audio as reported, the rest unknown', async () => {
    await lastValueFrom(from(reply).pipe(withGenAiTelemetry(telemetryOf(), request), finalizeCompletion()));
    expect(sdk.spans()[0]!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 50,
      'gen_ai.usage.cache_read.input_tokens': 40,
      'gen_ai.usage.cache_write.input_tokens': 10,
      'gen_ai.usage.reasoning.output_tokens': 20,
      'gen_ai.usage.audio.input_tokens': 30,
      'gen_ai.usage.audio.output_tokens': 5,
    });
    const metrics = await sdk.metrics();
    const by = (modality: string) => ({ ...base, 'gen_ai.token.modality': modality });
    expect(pointsOf(metrics.get('gen_ai.client.inference.usage.input_tokens'))).toEqual(
      expect.arrayContaining([
        { attributes: by('audio'), value: 30 },
        { attributes: by('unknown'), value: 70 },
      ]),
    );
    expect(pointsOf(metrics.get('gen_ai.client.inference.usage.output_tokens'))).toEqual(
      expect.arrayContaining([
        { attributes: by('audio'), value: 5 },
        { attributes: by('unknown'), value: 45 },
      ]),
    );
    expect(pointsOf(metrics.get('gen_ai.client.inference.usage.cache_read.input_tokens'))).toEqual([
      { attributes: by('unknown'), value: 40 },
    ]);
    expect(pointsOf(metrics.get('gen_ai.client.inference.usage.cache_write.input_tokens'))).toEqual([
      { attributes: by('unknown'), value: 10 },
    ]);
    expect(pointsOf(metrics.get('gen_ai.client.inference.usage.reasoning.output_tokens'))).toEqual([
      { attributes: by('unknown'), value: 20 },
    ]);
    // The per-operation histograms are not split by modality (percentiles across modalities do not add up).
    expect(pointsOf(metrics.get('gen_ai.client.inference.operation.input_tokens'))).toEqual([
      { attributes: base, value: { count: 1, sum: 100 } },
    ]);
  });

  it("gives the histograms the conventions' bucket advice", async () => {
    await lastValueFrom(from(reply).pipe(withGenAiTelemetry(telemetryOf(), request)));
    const metrics = await sdk.metrics();
    const boundaries = (name: string) =>
      (metrics.get(name)!.dataPoints[0]!.value as { buckets: { boundaries: number[] } }).buckets.boundaries;
    const seconds = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
    const tokens = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
    expect(boundaries('gen_ai.client.inference.duration')).toEqual(seconds);
    expect(boundaries('gen_ai.client.inference.time_to_first_chunk')).toEqual(seconds);
    expect(boundaries('gen_ai.client.inference.time_per_output_chunk')).toEqual(seconds);
    expect(boundaries('gen_ai.client.inference.operation.input_tokens')).toEqual(tokens);
    expect(boundaries('gen_ai.client.inference.operation.output_tokens')).toEqual(tokens);
  });

  it('records the messages only when the app opted in', async () => {
    const input = [{ role: 'user', parts: [{ type: 'text', content: 'Say hello' }] }];
    await lastValueFrom(from(reply).pipe(withGenAiTelemetry(telemetryOf(), { ...request, inputMessages: input })));
    await lastValueFrom(from(reply).pipe(withGenAiTelemetry(telemetryOf({ captureContent: true }), { ...request, inputMessages: input })));
    const [quiet, captured] = sdk.spans();
    expect(quiet!.attributes['gen_ai.input.messages']).toBeUndefined();
    expect(quiet!.attributes['gen_ai.output.messages']).toBeUndefined();
    expect(JSON.parse(String(captured!.attributes['gen_ai.input.messages']))).toEqual(input);
    expect(JSON.parse(String(captured!.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello there' }], finish_reason: 'stop' },
    ]);
  });

  it('caps the captured output', async () => {
    const telemetry = genAiTelemetry(otel, { tracerProvider: sdk.tracerProvider, captureContent: true, maxCapturedChars: 7 });
    await lastValueFrom(from(reply).pipe(withGenAiTelemetry(telemetry, request)));
    const output = JSON.parse(String(sdk.spans()[0]!.attributes['gen_ai.output.messages'])) as { parts: { content: string }[] }[];
    expect(output[0]!.parts[0]!.content).toBe('Hello t');
  });

  it('records a reply its subscriber left as cancelled, with what had arrived', async () => {
    const subscription = concat(from(reply.slice(0, 2)), NEVER)
      .pipe(withGenAiTelemetry(telemetryOf(), request))
      .subscribe();
    subscription.unsubscribe();
    const span = sdk.spans()[0]!;
    expect(span.status.code).toBe(otel.SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'error.type': 'cancelled',
      'gen_ai.response.id': 'resp_1',
      'gen_ai.response.finish_reasons': ['error'],
    });
  });

  it('names the span after the operation and the model, and the operation as the app says (Gemini: generate_content)', async () => {
    await lastValueFrom(
      from(reply).pipe(withGenAiTelemetry(telemetryOf(), { provider: 'gcp.gemini', operation: 'generate_content', model: 'gemini-3-pro' })),
    );
    expect(sdk.spans()[0]!.name).toBe('generate_content gemini-3-pro');
    expect(sdk.spans()[0]!.attributes['gen_ai.operation.name']).toBe('generate_content');
  });

  it('puts a status code of an answer on the span', async () => {
    const refused = new ProviderError('429 Too Many Requests', { status: 429 });
    await lastValueFrom(concat(from(reply.slice(0, 1)), Promise.reject(refused)).pipe(withGenAiTelemetry(telemetryOf(), request))).catch(
      () => {},
    );
    expect(sdk.spans()[0]!.attributes).toMatchObject({ 'error.type': 'ProviderError:http-status', 'http.response.status_code': 429 });
  });

  it('records nothing and changes nothing with the API alone (no SDK registered)', async () => {
    const telemetry = genAiTelemetry(otel);
    const events = await lastValueFrom(from(reply).pipe(withGenAiTelemetry(telemetry, request), toArray()));
    expect(events).toEqual(reply);
    expect(sdk.spans()).toEqual([]);
    expect((await sdk.metrics()).size).toBe(0);
  });
});

describe('genAiErrorType', () => {
  it('is the class and reason of an error of the library, the name of another error, _OTHER for anything else', () => {
    expect(genAiErrorType(new StreamClosedEarlyError('cut', { reason: 'transport' }))).toBe('StreamClosedEarlyError:transport');
    expect(genAiErrorType({ name: 'ProviderError', message: 'x', reason: 'in-stream', partial: undefined })).toBe(
      'ProviderError:in-stream',
    ); // another realm
    expect(genAiErrorType(new TypeError('fetch failed'))).toBe('TypeError');
    expect(genAiErrorType('a string')).toBe('_OTHER');
  });
});

describe('without @opentelemetry/api', () => {
  it('loads the main entry and measures a reply with no OpenTelemetry module loaded, or even resolvable', () => {
    // A child process where resolving any @opentelemetry module throws, as it would where the peer is not installed.
    const script = `
      const Module = require('node:module');
      const resolve = Module._resolveFilename;
      Module._resolveFilename = function (request, ...rest) {
        if (request.startsWith('@opentelemetry/')) throw new Error('not installed: ' + request);
        return resolve.call(this, request, ...rest);
      };
      const { from, lastValueFrom } = require('rxjs');
      const llm = require(${JSON.stringify(join(root, 'dist', 'cjs', 'index.js'))});
      let timings;
      const events = [
        { type: 'content', choice: 0, text: 'hi' },
        { type: 'finish', choice: 0, reason: 'stop', raw: 'stop' },
        { type: 'done' },
      ];
      lastValueFrom(from(events).pipe(llm.measureReply({ onTimings: (t) => (timings = t) }), llm.finalizeCompletion()))
        .then((completion) => {
          const loaded = Object.keys(require.cache).filter((path) => path.includes('@opentelemetry'));
          const provider = llm.genAiProviderName('anthropic');
          console.log(JSON.stringify({ content: completion.content, chunks: timings.chunks, loaded, provider }));
        });
    `;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ content: 'hi', chunks: 1, loaded: [], provider: 'anthropic' });
  });

  it('has no import of @opentelemetry in the built package, not even of types: its declarations compile without the peer', () => {
    for (const format of ['cjs', 'esm']) {
      const folder = join(root, 'dist', format, 'telemetry');
      const files = readdirSync(folder).filter((name) => name.endsWith('.js') || name.endsWith('.d.ts'));
      expect(files.filter((name) => name.endsWith('.d.ts')).length).toBeGreaterThan(5);
      const load = /require\(["']@opentelemetry|from ["']@opentelemetry|import\(["']@opentelemetry/;
      // The code, without its doc comments (whose examples import the API as an app does).
      const code = (file: string) => readFileSync(join(folder, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const file of files) expect({ file, imports: load.test(code(file)) }).toEqual({ file, imports: false });
    }
  });
});
