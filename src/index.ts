export {
  LlmStreamError,
  StreamClosedEarlyError,
  ProtocolError,
  ProviderError,
  StreamIdleError,
  ToolArgumentsError,
} from './errors/errors.js';
export { isLlmStreamError } from './errors/isLlmStreamError.js';
export type { StreamPosition, LlmStreamErrorOptions, ProviderErrorOptions, ToolArgumentsErrorOptions } from './errors/errors.js';
export { Demand } from './io/Demand.js';

export { Utf8Decoder } from './frames/Utf8Decoder.js';
export type { Utf8DecoderOptions } from './frames/Utf8Decoder.js';
export { SseParser, DEFAULT_MAX_EVENT_CHARS } from './frames/SseParser.js';
export type { SseFrame, SseParserOptions, SsePartial } from './frames/SseParser.js';
export { CompletionTracker } from './reply/CompletionTracker.js';
export { CallAssembler } from './reply/CallAssembler.js';
export type { ClosedToolCall } from './reply/CallAssembler.js';
export { ReplyExtras } from './reply/ReplyExtras.js';
export type { ReplyExtrasView } from './reply/ReplyExtras.js';
export type { FinishedCalls } from './reply/CallAssembler.js';
export { isCompletionSnapshot } from './reply/isCompletionSnapshot.js';

export { TokenAssembler } from './messages/TokenAssembler.js';
export type { TokenEvent } from './messages/TokenAssembler.js';
export {
  TranscriptPublisher,
  Utf8TranscriptPublisher,
  transcriptCommonPrefix,
  transcriptPublishableEnd,
} from './messages/TranscriptPublisher.js';
export type { TranscriptDelta } from './messages/TranscriptPublisher.js';
export { LineSplitter, type LineSink } from './frames/LineSplitter.js';
export { PartialJson, DEFAULT_PREVIEW_MAX_DEPTH, DEFAULT_PREVIEW_MAX_CHARS } from './json/PartialJson.js';
export type { PartialJsonOptions, PartialJsonStop } from './json/PartialJson.js';
export { NdjsonParser } from './frames/NdjsonParser.js';
export { AwsEventStreamParser } from './frames/AwsEventStreamParser.js';
export type { AwsEventStreamParserOptions } from './frames/AwsEventStreamParser.js';
export type { NdjsonParserOptions } from './frames/NdjsonParser.js';
export { JsonTemplateParser } from './json/JsonTemplateParser.js';
export type { JsonTemplateParserOptions, JsonTemplateStats } from './json/JsonTemplateParser.js';

export { decodeUtf8 } from './frames/decodeUtf8.js';
export { sseFrames } from './frames/sseFrames.js';
export { ndjsonFrames } from './frames/ndjsonFrames.js';
export { awsEventStreamFrames } from './frames/awsEventStreamFrames.js';
export { encodeSse, encodeSseBytes } from './ui/encodeSse.js';
export { SseEncoder } from './ui/SseEncoder.js';
export { toMessageEvents } from './ui/toMessageEvents.js';
export { toUiMessageStream, encodeUiMessageSse } from './ui/toUiMessageStream.js';
export { UiMessageEncoder } from './ui/UiMessageEncoder.js';
export type { UiMessageEncoderOptions } from './ui/UiMessageEncoder.js';
export { uiMessageStreamHeaders } from './ui/uiMessageChunks.js';
export type { UiMessageChunk, UiFinishReason } from './ui/uiMessageChunks.js';
export { streamErrorData, errorFromStreamErrorData } from './errors/streamErrorData.js';
export type { StreamErrorData } from './errors/streamErrorData.js';
export { idleTimeout } from './io/idleTimeout.js';
export { resumeFrames, isFinalFrame } from './io/resumeFrames.js';
export type { ResumeFramesOptions } from './io/resumeFrames.js';
export { recordStream } from './recording/recordStream.js';
export type { RecordStreamOptions } from './recording/recordStream.js';
export { StreamRecording, isCredentialHeader } from './recording/StreamRecording.js';
export { serializeRecording, parseRecording, isRecordingText, RECORDING_FORMAT, RECORDING_VERSION } from './recording/recordingFile.js';
export type { RecordedChunk, StreamRecordingInit } from './recording/recordedChunks.js';
export { replayRecording } from './recording/replayRecording.js';
export type { ReplayRecordingOptions } from './recording/replayRecording.js';
export type { IdleTimeoutOptions } from './io/idleTimeout.js';
export type { SseMessageEvent } from './ui/toMessageEvents.js';
export { fromResponse } from './io/fromResponse.js';
export type { FromResponseOptions } from './io/fromResponse.js';
export { fromReadableStream, DEFAULT_IDLE_TIMEOUT_MS } from './io/fromReadableStream.js';
export type { BodySourceOptions } from './io/fromReadableStream.js';
export type { NodeReadableLike } from './io/NodeReadableLike.js';
export { STREAM_CONTENT_TYPES } from './io/checkedBody.js';
export type { ResponseCheckOptions } from './io/checkedBody.js';
export { assembleChunks } from './reply/assembleChunks.js';
export { assembleChunksWith } from './reply/assembleChunksWith.js';
export type { AssembleChunksOptions } from './reply/assembleChunks.js';
export type { DialectName } from './dialects/registry.js';
export { DIALECTS, DIALECT_LIST } from './dialects/registry.js';
export { autoDialect } from './dialects/auto.js';
export { detectDialect, AutoDialectParser } from './dialects/auto.js';
export { groupToolCallsByIndex } from './reply/groupToolCallsByIndex.js';
export type { GroupToolCallsByIndexOptions } from './reply/groupToolCallsByIndex.js';
export { finalizeCompletion } from './reply/finalizeCompletion.js';
export type { FinalizeCompletionOptions, FinalizeStructuredOptions } from './reply/finalizeCompletion.js';
export { scanStructuredOutput } from './structured/scanStructuredOutput.js';
export { structuredElements } from './structured/structuredElements.js';
export type { StructuredElementsOptions } from './structured/structuredElements.js';
export { StructuredJson } from './structured/StructuredJson.js';
export type { StructuredJsonOptions } from './structured/StructuredJson.js';
export { StructuredOutputReader } from './structured/StructuredOutputReader.js';
export type { StructuredOutputReaderOptions } from './structured/StructuredOutputReader.js';
export { StructuredOutputError, IncompleteOutputError } from './structured/outputErrors.js';
export type { StructuredOutputErrorOptions } from './structured/outputErrors.js';
export { STRUCTURED_OUTPUT_REASONS } from './errors/structuredOutputReasons.js';
export type { StructuredOutputReason } from './errors/structuredOutputReasons.js';
export { DEFAULT_STRUCTURED_MAX_CHARS } from './structured/structuredOutput.js';
export type { JsonPath } from './types/replyParts.js';
export type {
  OutputSource,
  DeepPartial,
  PartialOutput,
  OutputOf,
  StructuredOutputOptions,
  StructuredOutputSnapshot,
  StructuredOutput,
  StructuredCompletion,
} from './structured/structuredOutput.js';
export { estimateTokenUsage } from './reply/estimateTokenUsage.js';
export type { UsageEstimateSource } from './reply/estimateTokenUsage.js';
export { scanCompletion } from './reply/scanCompletion.js';
export type { ScanCompletionOptions } from './reply/scanCompletion.js';
export { validateToolCalls } from './reply/validateToolCalls.js';
export type { ValidateToolCallsOptions } from './reply/validateToolCalls.js';
export type { ToolValidator, ToolArgumentsPredicate } from './reply/checkToolCall.js';
export { isStandardSchema } from './types/standardSchema.js';
export type {
  StandardSchemaV1,
  StandardSchemaV1Props,
  StandardSchemaV1Result,
  StandardSchemaV1Success,
  StandardSchemaV1Failure,
  StandardSchemaV1Issue,
  StandardSchemaV1PathSegment,
} from './types/standardSchema.js';
export { assembleMessages } from './messages/assembleMessages.js';
export type { AssembledMessage } from './messages/assembleMessages.js';
export { transcriptDeltas } from './messages/transcriptDeltas.js';
export type { TranscriptDeltasOptions } from './messages/transcriptDeltas.js';

export { OpenAiChatParser, openaiChat } from './dialects/openai-chat/openaiChat.js';
export { OpenAiResponsesParser, openaiResponses } from './dialects/openai-responses/openaiResponses.js';
export { AnthropicParser, anthropic } from './dialects/anthropic/anthropic.js';
export { BedrockConverseParser, bedrockConverse } from './dialects/bedrock-converse/bedrockConverse.js';
export { BedrockInvokeParser, bedrockInvoke } from './dialects/bedrock-invoke/bedrockInvoke.js';
export { GeminiParser, gemini } from './dialects/gemini/gemini.js';
export { OllamaParser, ollama } from './dialects/ollama/ollama.js';
export { LlamaCppCompletionParser, llamacppCompletion } from './dialects/llamacpp-completion/llamacppCompletion.js';
export { TypedEventsParser, typedEvents } from './dialects/typed-events/typedEvents.js';
export { ChatEventsParser, chatEvents } from './dialects/chat-events/chatEvents.js';
export { AiSdkUiParser, aiSdkUi } from './dialects/ai-sdk-ui/aiSdkUi.js';
export { dialectFactory } from './dialects/Dialect.js';
export { JsonDialectParser } from './dialects/base/JsonDialectParser.js';
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
  FinishReasonTable,
  Usage,
  Timings,
  PromptProgress,
  JsonValue,
} from './types/events.js';
