export { LlmStreamError, StreamClosedEarlyError, ProtocolError, ProviderError, StreamIdleError, ToolArgumentsError } from './errors.js';
export { isLlmStreamError } from './isLlmStreamError.js';
export type { StreamPosition, LlmStreamErrorOptions, ProviderErrorOptions, ToolArgumentsErrorOptions } from './errors.js';
export { Demand } from './core/Demand.js';

export { Utf8Decoder } from './core/Utf8Decoder.js';
export type { Utf8DecoderOptions } from './core/Utf8Decoder.js';
export { SseParser, DEFAULT_MAX_EVENT_SIZE } from './core/SseParser.js';
export type { SseFrame, SseParserOptions, SsePartial } from './core/SseParser.js';
export { CompletionTracker } from './core/CompletionTracker.js';
export { CallAssembler } from './core/CallAssembler.js';
export type { ClosedToolCall } from './core/CallAssembler.js';
export { ReplyExtras } from './core/ReplyExtras.js';
export type { ReplyExtrasView } from './core/ReplyExtras.js';
export type { FinishedCalls } from './core/CallAssembler.js';
export { isCompletionSnapshot } from './core/isCompletionSnapshot.js';

export { TokenAssembler } from './core/TokenAssembler.js';
export type { TokenEvent } from './core/TokenAssembler.js';
export {
  TranscriptPublisher,
  Utf8TranscriptPublisher,
  transcriptCommonPrefix,
  transcriptPublishableEnd,
} from './core/TranscriptPublisher.js';
export type { TranscriptDelta } from './core/TranscriptPublisher.js';
export { LineSplitter, type LineSink } from './core/LineSplitter.js';
export { PartialJson, DEFAULT_PREVIEW_MAX_DEPTH, DEFAULT_PREVIEW_MAX_SIZE } from './core/PartialJson.js';
export type { PartialJsonOptions, PartialJsonStop } from './core/PartialJson.js';
export { NdjsonParser } from './core/NdjsonParser.js';
export { AwsEventStreamParser } from './core/AwsEventStreamParser.js';
export type { AwsEventStreamParserOptions } from './core/AwsEventStreamParser.js';
export type { NdjsonParserOptions } from './core/NdjsonParser.js';
export { JsonTemplateParser } from './core/JsonTemplateParser.js';
export type { JsonTemplateParserOptions, JsonTemplateStats } from './core/JsonTemplateParser.js';

export { decodeUtf8 } from './decodeUtf8.js';
export { sseFrames } from './sseFrames.js';
export { ndjsonFrames } from './ndjsonFrames.js';
export { awsEventStreamFrames } from './awsEventStreamFrames.js';
export { encodeSse, encodeSseBytes } from './encodeSse.js';
export { SseEncoder } from './core/SseEncoder.js';
export { toMessageEvents } from './toMessageEvents.js';
export { toUiMessageStream, encodeUiMessageSse } from './toUiMessageStream.js';
export { UiMessageEncoder } from './core/UiMessageEncoder.js';
export type { UiMessageEncoderOptions } from './core/UiMessageEncoder.js';
export { uiMessageStreamHeaders } from './core/uiMessageChunks.js';
export type { UiMessageChunk, UiFinishReason } from './core/uiMessageChunks.js';
export { streamErrorData, errorFromStreamErrorData } from './core/streamErrorData.js';
export type { StreamErrorData } from './core/streamErrorData.js';
export { idleTimeout } from './idleTimeout.js';
export { resumeFrames, isFinalFrame } from './resumeFrames.js';
export type { ResumeFramesOptions } from './resumeFrames.js';
export { recordStream } from './recordStream.js';
export type { RecordStreamOptions } from './recordStream.js';
export { StreamRecording, isCredentialHeader } from './core/StreamRecording.js';
export { serializeRecording, parseRecording, isRecordingText, RECORDING_FORMAT, RECORDING_VERSION } from './core/recordingFile.js';
export type { RecordedChunk, StreamRecordingInit } from './core/recordingFile.js';
export { replayRecording } from './replayRecording.js';
export type { ReplayRecordingOptions } from './replayRecording.js';
export type { IdleTimeoutOptions } from './idleTimeout.js';
export type { SseMessageEvent } from './toMessageEvents.js';
export { fromResponse } from './io/fromResponse.js';
export type { FromResponseOptions } from './io/fromResponse.js';
export { fromReadableStream, DEFAULT_IDLE_TIMEOUT } from './io/fromReadableStream.js';
export type { NodeReadableLike, BodySourceOptions } from './io/fromReadableStream.js';
export { STREAM_CONTENT_TYPES } from './io/checkedBody.js';
export type { ResponseCheckOptions } from './io/checkedBody.js';
export { assembleChunks } from './assembleChunks.js';
export type { AssembleChunksOptions } from './assembleChunks.js';
export type { DialectName } from './dialects/registry.js';
export { DIALECTS, autoDialect } from './dialects/registry.js';
export { detectDialect, AutoDialectParser } from './dialects/auto.js';
export { groupToolCallsByIndex } from './groupToolCallsByIndex.js';
export type { GroupToolCallsByIndexOptions } from './groupToolCallsByIndex.js';
export { finalizeCompletion } from './finalizeCompletion.js';
export type { FinalizeCompletionOptions, FinalizeStructuredOptions } from './finalizeCompletion.js';
export { scanStructuredOutput } from './scanStructuredOutput.js';
export { structuredElements } from './structuredElements.js';
export type { StructuredElementsOptions } from './structuredElements.js';
export { StructuredJson } from './core/StructuredJson.js';
export type { StructuredJsonOptions } from './core/StructuredJson.js';
export { StructuredOutputReader } from './core/StructuredOutputReader.js';
export type { StructuredOutputReaderOptions } from './core/StructuredOutputReader.js';
export { StructuredOutputError, IncompleteOutputError, STRUCTURED_OUTPUT_REASONS } from './outputErrors.js';
export type { StructuredOutputReason, StructuredOutputErrorOptions } from './outputErrors.js';
export { DEFAULT_STRUCTURED_MAX_SIZE } from './structuredOutput.js';
export type { JsonPath } from './replyParts.js';
export type {
  OutputSource,
  DeepPartial,
  PartialOutput,
  OutputOf,
  StructuredOutputOptions,
  StructuredOutputSnapshot,
  StructuredOutput,
  StructuredCompletion,
} from './structuredOutput.js';
export { estimateTokenUsage } from './core/estimateTokenUsage.js';
export type { UsageEstimateSource } from './core/estimateTokenUsage.js';
export { scanCompletion } from './scanCompletion.js';
export type { ScanCompletionOptions } from './scanCompletion.js';
export { validateToolCalls } from './validateToolCalls.js';
export type { ValidateToolCallsOptions } from './validateToolCalls.js';
export type { ToolValidator, ToolArgumentsPredicate } from './core/checkToolCall.js';
export { isStandardSchema } from './standardSchema.js';
export type {
  StandardSchemaV1,
  StandardSchemaV1Props,
  StandardSchemaV1Result,
  StandardSchemaV1Success,
  StandardSchemaV1Failure,
  StandardSchemaV1Issue,
  StandardSchemaV1PathSegment,
} from './standardSchema.js';
export { assembleMessages } from './assembleMessages.js';
export type { AssembledMessage } from './assembleMessages.js';
export { transcriptDeltas } from './transcriptDeltas.js';
export type { TranscriptDeltasOptions } from './transcriptDeltas.js';

export { OpenAiChatParser, openaiChat } from './dialects/openaiChat.js';
export { OpenAiResponsesParser, openaiResponses } from './dialects/openaiResponses.js';
export { AnthropicParser, anthropic } from './dialects/anthropic.js';
export { BedrockConverseParser, bedrockConverse } from './dialects/bedrockConverse.js';
export { BedrockInvokeParser, bedrockInvoke } from './dialects/bedrockInvoke.js';
export { GeminiParser, gemini } from './dialects/gemini.js';
export { OllamaParser, ollama } from './dialects/ollama.js';
export { LlamaCppCompletionParser, llamacppCompletion } from './dialects/llamacppCompletion.js';
export { TypedEventsParser, typedEvents } from './dialects/typedEvents.js';
export { ChatEventsParser, chatEvents } from './dialects/chatEvents.js';
export { AiSdkUiParser, aiSdkUi } from './dialects/aiSdkUi.js';
export { dialectFactory } from './dialects/Dialect.js';
export { JsonDialectParser } from './dialects/JsonDialectParser.js';
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
  CompletionSnapshot,
  ReplyExtraParts,
  ToolCallIncompleteEvent,
  LogprobsEvent,
  SourceEvent,
  AudioEvent,
  ProviderToolCallEvent,
  ProviderToolResultEvent,
  UnknownEvent,
  FunctionToolCall,
  CustomToolCall,
  IncompleteToolCall,
  TokenLogprob,
  Logprobs,
  Source,
  AudioOutput,
  ProviderToolCall,
  ChoiceSnapshot,
  PartialToolCall,
  ToolCall,
  ToolCallProgress,
  FinishReason,
  Usage,
  Timings,
  PromptProgress,
  JsonValue,
} from './events.js';
