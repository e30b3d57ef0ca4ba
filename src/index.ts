export { LlmStreamError, StreamClosedEarlyError, ProtocolError, ProviderError, isLlmStreamError } from './errors.js';
export type { StreamPosition, LlmStreamErrorOptions, ProviderErrorOptions } from './errors.js';

export { Utf8Decoder } from './core/Utf8Decoder.js';
export type { Utf8DecoderOptions } from './core/Utf8Decoder.js';
export { SseParser, DEFAULT_MAX_EVENT_SIZE } from './core/SseParser.js';
export type { SseFrame, SseParserOptions, SsePartial } from './core/SseParser.js';
export { CompletionTracker } from './core/CompletionTracker.js';
export type {
  CompletionSnapshot,
  ChoiceSnapshot,
  PartialToolCall,
  ClosedToolCall,
} from './core/CompletionTracker.js';

export { TokenAssembler } from './core/TokenAssembler.js';
export type { TokenEvent } from './core/TokenAssembler.js';
export {
  TranscriptPublisher,
  Utf8TranscriptPublisher,
  transcriptCommonPrefix,
  transcriptPublishableEnd,
} from './core/TranscriptPublisher.js';
export type { TranscriptDelta } from './core/TranscriptPublisher.js';
export { LineSplitter } from './core/LineSplitter.js';
export { NdjsonParser } from './core/NdjsonParser.js';
export type { NdjsonParserOptions } from './core/NdjsonParser.js';

export { decodeUtf8 } from './decodeUtf8.js';
export { sseFrames } from './sseFrames.js';
export { ndjsonFrames } from './ndjsonFrames.js';
export { assembleChunks } from './assembleChunks.js';
export type { AssembleChunksOptions, DialectName } from './assembleChunks.js';
export { groupToolCallsByIndex } from './groupToolCallsByIndex.js';
export { finalizeCompletion } from './finalizeCompletion.js';
export { scanCompletion } from './scanCompletion.js';
export { assembleMessages } from './assembleMessages.js';
export type { AssembledMessage } from './assembleMessages.js';
export { transcriptDeltas } from './transcriptDeltas.js';
export type { TranscriptDeltasOptions } from './transcriptDeltas.js';

export { OpenAiChatParser } from './dialects/openaiChat.js';
export type { OpenAiChatOptions } from './dialects/openaiChat.js';
export type { DialectParser, DialectFactory, DialectOptions } from './dialects/Dialect.js';

export type {
  ChatEvent,
  StartEvent,
  ProgressEvent,
  ReasoningEvent,
  ReasoningSignatureEvent,
  ContentEvent,
  RefusalEvent,
  ToolCallDeltaEvent,
  ToolCallEndEvent,
  ToolCallEvent,
  FinishEvent,
  UsageEvent,
  TimingsEvent,
  DoneEvent,
  Completion,
  CompletionChoice,
  ToolCall,
  ToolCallProgress,
  FinishReason,
  Usage,
  Timings,
  PromptProgress,
  JsonValue,
} from './events.js';
