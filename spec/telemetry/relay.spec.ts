import * as otel from '@opentelemetry/api';
import { from, Subject } from 'rxjs';
import { MemoryStreamStore } from '../../src/relay/MemoryStreamStore';
import { StreamRelay } from '../../src/relay/StreamRelay';
import { genAiTelemetry } from '../../src/telemetry/genAiTelemetry';
import { withGenAiTelemetry } from '../../src/telemetry/withGenAiTelemetry';
import { openaiChatLoop } from '../../src/tool-loop/loopFormats';
import { providerStream } from '../../src/testing/writeProviderStream';
import type { ChatEvent } from '../../src/types/events';
import { collect } from '../support/collect';
import { readWhole, startHarness, type RelayHarness } from '../support/relayHarness';
import { otelSdk, type OtelSdk } from './otelSdk';

// The relay and the telemetry compose: the operator goes on the source the relay's producer reads,
// so the span is the generation's, whoever reads it and whenever they leave. Real sockets on 127.0.0.1.

describe('withGenAiTelemetry on a relayed reply', () => {
  let harness: RelayHarness;
  let sdk: OtelSdk;
  beforeAll(async () => (harness = await startHarness()));
  afterAll(() => harness.close());
  beforeEach(() => (sdk = otelSdk()));
  afterEach(() => sdk.shutdown());

  const request = { provider: 'openai', model: 'gpt-5', serverAddress: 'api.openai.com' } as const;

  it('records the generation a client reads through the relay', async () => {
    const telemetry = genAiTelemetry(otel, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
    const stream = providerStream({ id: 'chatcmpl-relay', model: 'gpt-5-2026', choices: [{ text: 'Relayed.' }] }, 'openai-chat');
    const relay = new StreamRelay({ store: new MemoryStreamStore() });
    const source = () => from(stream.chunks).pipe(openaiChatLoop.read(), withGenAiTelemetry(telemetry, request));
    harness.handle((_request, response) => void collect(relay.start(source, response, { streamId: 'otel-1' })));
    const { status, text } = await readWhole(`${harness.url}/`);
    expect(status).toBe(200);
    expect(text).toContain('Relayed.');
    const span = sdk.spans()[0]!;
    expect(span.name).toBe('chat gpt-5');
    expect(span.attributes).toMatchObject({
      'gen_ai.response.id': 'chatcmpl-relay',
      'gen_ai.response.model': 'gpt-5-2026',
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(span.attributes['error.type']).toBeUndefined();
  });

  it('is not cut short by a client that leaves: the generation goes on, and so does its span', async () => {
    const telemetry = genAiTelemetry(otel, { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider });
    const events = new Subject<ChatEvent>();
    const relay = new StreamRelay({ store: new MemoryStreamStore() });
    harness.handle((_request, response) => void collect(relay.start(() => events.pipe(withGenAiTelemetry(telemetry, request)), response)));
    const leaving = new AbortController();
    const response = await fetch(`${harness.url}/`, { signal: leaving.signal });
    const reader = response.body!.getReader();
    events.next({ type: 'start', id: 'chatcmpl-left', model: 'gpt-5-2026' });
    events.next({ type: 'content', choice: 0, text: 'Half' });
    await reader.read(); // the client has the start of it, then goes
    leaving.abort();
    await reader.closed.catch(() => undefined);
    expect(sdk.spans()).toEqual([]); // still generating
    events.next({ type: 'content', choice: 0, text: ' and the rest.' });
    events.next({ type: 'finish', choice: 0, reason: 'stop', raw: 'stop' });
    events.next({ type: 'done' });
    events.complete();
    const span = sdk.spans()[0]!;
    expect(span.attributes).toMatchObject({ 'gen_ai.response.id': 'chatcmpl-left', 'gen_ai.response.finish_reasons': ['stop'] });
    expect(span.attributes['error.type']).toBeUndefined();
  });
});
