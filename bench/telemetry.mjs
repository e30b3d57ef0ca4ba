// The cost per event of the telemetry operators, over the built package: one long text reply of
// OpenAI's chunks, in 256-byte pieces, read by the README's pipeline (decodeUtf8, sseFrames,
// assembleChunks, finalizeCompletion) without telemetry (the floor), with measureReply, with
// withGenAiTelemetry over the OpenTelemetry API alone (no SDK registered: its no-ops), and with
// withGenAiTelemetry over a registered SDK (a tracer provider with a simple span processor into
// memory, a meter provider with a reader: every metric point recorded).
// Run with `npm run bench:telemetry`. Prints nanoseconds per event and each row's ratio to the floor
// measured in the same run, the rows alternating round by round. Not a test: nothing asserts on time.
import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { from } from 'rxjs';
import {
  assembleChunks,
  decodeUtf8,
  finalizeCompletion,
  genAiTelemetry,
  measureReply,
  sseFrames,
  withGenAiTelemetry,
} from '../dist/esm/index.js';

const CHUNKS = Number(process.env.CHUNKS ?? 2000);
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const REPLIES = Number(process.env.REPLIES ?? 20);

/** A text reply of `CHUNKS` content chunks with usage, as OpenAI streams it, in 256-byte pieces. */
function replyBytes() {
  const envelope = '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"gpt-5-2026","choices":';
  const lines = [];
  for (let i = 0; i < CHUNKS; i++) {
    lines.push(`data: ${envelope}[{"index":0,"delta":{"content":"word${i % 10} "},"finish_reason":null}]}\n\n`);
  }
  lines.push(`data: ${envelope}[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
  const usage = `{"prompt_tokens":120,"completion_tokens":${CHUNKS},"total_tokens":${120 + CHUNKS}}`;
  lines.push(`data: ${envelope}[],"usage":${usage}}\n\n`, 'data: [DONE]\n\n');
  const bytes = new TextEncoder().encode(lines.join(''));
  const pieces = [];
  for (let i = 0; i < bytes.length; i += 256) pieces.push(bytes.subarray(i, i + 256));
  return pieces;
}
const pieces = replyBytes();

class CollectingReader extends MetricReader {
  async onShutdown() {}
  async onForceFlush() {}
}
const spans = new InMemorySpanExporter();
const withSdk = genAiTelemetry(otel, {
  tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
  meterProvider: new MeterProvider({ readers: [new CollectingReader()] }),
});
const noop = genAiTelemetry(otel);
const request = { provider: 'openai', model: 'gpt-5', serverAddress: 'api.openai.com' };

/** Runs one synchronous pipeline to its completion; rethrows its error here. */
function drain(pipeline) {
  let failure;
  let content = 0;
  from(pieces)
    .pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: 'openai-chat' }), ...pipeline, finalizeCompletion())
    .subscribe({ next: (completion) => (content = completion.content.length), error: (error) => (failure = error) });
  if (failure !== undefined) throw failure;
  return content;
}

const variants = [
  ['floor: the pipeline without telemetry', () => []],
  ['measureReply', () => [measureReply({ onTimings: () => {} })]],
  ['withGenAiTelemetry, API without SDK (no-op)', () => [withGenAiTelemetry(noop, request)]],
  ['withGenAiTelemetry, registered SDK', () => [withGenAiTelemetry(withSdk, request)]],
];

/** The events a reply makes (what "per event" divides by), counted once. */
let eventCount = 0;
from(pieces)
  .pipe(decodeUtf8(), sseFrames(), assembleChunks({ dialect: 'openai-chat' }))
  .subscribe(() => eventCount++);

const samples = variants.map(() => []);
for (let round = 0; round < ROUNDS + 2; round++) {
  // Rounds alternate the order, so no variant always runs on a warmer or a colder heap.
  const order = round % 2 === 0 ? variants.map((_, i) => i) : variants.map((_, i) => variants.length - 1 - i);
  for (const index of order) {
    const start = process.hrtime.bigint();
    for (let reply = 0; reply < REPLIES; reply++) drain(variants[index][1]());
    const nsPerEvent = Number(process.hrtime.bigint() - start) / (REPLIES * eventCount);
    if (round >= 2) samples[index].push(nsPerEvent); // the first two rounds warm up
  }
  spans.reset();
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const floor = median(samples[0]);
const sampled = `${REPLIES} replies a sample, median of ${ROUNDS} samples`;
console.log(`${eventCount} events a reply (${pieces.length} pieces of 256 bytes), ${sampled}, Node ${process.version}\n`);
const rows = variants.map(([name], i) => {
  const ns = median(samples[i]);
  return { pipeline: name, 'ns/event': ns.toFixed(0), 'x floor': (ns / floor).toFixed(2), 'added ns/event': (ns - floor).toFixed(0) };
});
console.table(rows);
