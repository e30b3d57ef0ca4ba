import { Chunking, cutBody } from './chunking.js';
import { Fault, applyFault } from './faults.js';
import type { ProviderStream } from './ProviderStream.js';
import type { TestReply } from '../dialects/writing/TestReply.js';
import { frame } from '../dialects/writing/framing.js';
import { WRITERS } from './writers.js';
import type { ProviderFormat } from '../dialects/writing/wire.js';

/**
 * How `providerStream` cuts the body, and what goes wrong with it.
 *
 * @example
 * ```ts
 * import { providerStream, type ProviderStreamOptions } from 'rxjs-llm-stream/testing';
 *
 * const options: ProviderStreamOptions = { chunking: { every: 5 }, fault: 'cut-before-end' };
 * providerStream(reply, 'gemini', options);
 * ```
 */
export interface ProviderStreamOptions {
  /** Where the body is cut into chunks: one per event by default (see {@link Chunking}). */
  readonly chunking?: Chunking;
  /** A fault to write into the stream (see {@link Fault}); none by default. */
  readonly fault?: Fault;
}

/**
 * The exact bytes a provider sends for `reply`, framed as its server frames them, cut into chunks:
 * a stream to serve from a fake `fetch`, a marble or a test server, and to assemble back to the
 * same reply.
 *
 * `format` is a dialect of the library (`openai-chat`, `openai-responses`, `anthropic`, `gemini`,
 * `ollama`, `llamacpp-completion`, `typed-events`, `chat-events`, `ai-sdk-ui`, `bedrock-converse`,
 * `bedrock-invoke`) or `openai-completions`, the legacy `/v1/completions` stream that the
 * `openai-chat` dialect reads. Each writer's doc comment (`src/testing/writers/`) says what it
 * writes; in short, every format gets its real framing (SSE with LF, or CRLF for Gemini; NDJSON for
 * Ollama; AWS's binary event stream for Bedrock), its envelope and event names, its end signal,
 * its usage where the provider puts it, and text a word at a time, arguments a few characters at a
 * time where the provider streams them.
 *
 * What the kit fills in when the reply leaves it out: the finish (`stop`, or `tool_calls` after
 * calls), the model (`test-model`, where the format names one), the reply's id (`chatcmpl-test`,
 * `cmpl-test`, `resp_test`, `msg_test`, `test-response`, `msg-test`, or none where the wire has
 * none), call ids (`call_0`, `call_1`, ... per choice; Gemini writes none, and the library names
 * them `<responseId>-call-<n>`). Arguments given as a value are written as `JSON.stringify` writes
 * them. Usage, reasoning signatures and raw finish values are written only when the reply has them.
 * A part the format cannot carry (reasoning in `/completion`, a second choice in Anthropic's stream,
 * a total that is not the sum where the format sums) is an `UnsupportedReplyError`, never dropped.
 *
 * With a `fault`, `stream.fault` says which error the library promises and what its `partial`
 * shows; `stream.stalls` is set by a stall.
 *
 * @example
 * ```ts
 * import { lastValueFrom, from } from 'rxjs';
 * import { decodeUtf8, sseFrames, assembleChunks, groupToolCallsByIndex, finalizeCompletion } from 'rxjs-llm-stream';
 * import { providerStream } from 'rxjs-llm-stream/testing';
 *
 * const reply = { choices: [{ text: 'Sunny in Oslo.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }] };
 * const stream = providerStream(reply, 'anthropic', { chunking: { random: 7 } });
 * const completion = await lastValueFrom(
 *   from(stream.chunks).pipe(
 *     decodeUtf8(),
 *     sseFrames(),
 *     assembleChunks({ dialect: stream.dialect }),
 *     groupToolCallsByIndex(),
 *     finalizeCompletion(),
 *   ),
 * );
 * completion.toolCalls[0]?.args; // { city: 'Oslo' }
 * ```
 *
 * @param reply The reply to write.
 * @param format The provider format to write it in.
 * @param options How to cut the body, and a fault to write into it.
 * @returns The stream: its dialect, content type, status, chunks, and what a fault makes of it.
 */
export function providerStream(reply: TestReply, format: ProviderFormat, options: ProviderStreamOptions = {}): ProviderStream {
  const writer = WRITERS[format];
  if (writer === undefined) throw new TypeError(`providerStream: unknown format ${JSON.stringify(format)}`);
  const frames = frame(writer.write(reply), writer.framing);
  const body = applyFault(frames, options.fault, (before) => frame(writer.error(before), writer.framing), format, writer.framing === 'aws');
  return {
    dialect: writer.dialect,
    contentType: writer.contentType,
    status: 200,
    chunks: cutBody(body.pieces, options.chunking ?? 'events'),
    stalls: body.stalls,
    ...(writer.headers === undefined ? {} : { headers: writer.headers }),
    ...(body.outcome === undefined ? {} : { fault: body.outcome }),
  };
}
