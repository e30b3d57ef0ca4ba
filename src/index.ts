// The package's main entry: what an app imports. Grouped by the folder each name lives in, sorted
// within a group, each name exported once. The pure cores that only advanced users need (parsers,
// trackers, encoders) are on `rxjs-llm-stream/core` (src/core/index.ts); the test kit and the relay
// have entries of their own.

// frames: bytes to frames
export { awsEventStreamFrames } from './frames/awsEventStreamFrames.js';
export type { AwsEventStreamParserOptions } from './frames/AwsEventStreamParser.js';
export { decodeUtf8 } from './frames/decodeUtf8.js';
export type { NdjsonParserOptions } from './frames/NdjsonParser.js';
export { ndjsonFrames } from './frames/ndjsonFrames.js';
export { DEFAULT_MAX_EVENT_CHARS } from './frames/SseParser.js';
export type { SseFrame, SseParserOptions, SsePartial } from './frames/SseParser.js';
export { sseFrames } from './frames/sseFrames.js';
export type { Utf8DecoderOptions } from './frames/Utf8Decoder.js';

// dialects: the wire formats
export { aiSdkUi } from './dialects/ai-sdk-ui/aiSdkUi.js';
export { anthropic } from './dialects/anthropic/anthropic.js';
export { autoDialect, detectDialect } from './dialects/auto.js';
export { DEFAULT_MAX_PROVIDER_METADATA_CHARS, JsonDialectParser } from './dialects/base/JsonDialectParser.js';
export type { MetadataPlace } from './dialects/base/JsonDialectParser.js';
export { bedrockConverse } from './dialects/bedrock-converse/bedrockConverse.js';
export { bedrockInvoke } from './dialects/bedrock-invoke/bedrockInvoke.js';
export { chatEvents } from './dialects/chat-events/chatEvents.js';
export { cohere } from './dialects/cohere/cohere.js';
export { defineDialect, dialectFactory } from './dialects/Dialect.js';
export type { Dialect, DialectDefinition, DialectFactory, DialectOptions, DialectParser } from './dialects/Dialect.js';
export { gemini } from './dialects/gemini/gemini.js';
export { geminiInteractions } from './dialects/gemini-interactions/geminiInteractions.js';
export { llamacppCompletion } from './dialects/llamacpp-completion/llamacppCompletion.js';
export { mistralConversations } from './dialects/mistral-conversations/mistralConversations.js';
export { ollama } from './dialects/ollama/ollama.js';
export { openaiChat } from './dialects/openai-chat/openaiChat.js';
export { openaiRealtime } from './dialects/openai-realtime/openaiRealtime.js';
export { openaiResponses } from './dialects/openai-responses/openaiResponses.js';
export { DIALECT_LIST, DIALECTS } from './dialects/registry.js';
export type { DialectName } from './dialects/registry.js';
export { typedEvents } from './dialects/typed-events/typedEvents.js';

// reply: events to the completion
export { assembleChunks } from './reply/assembleChunks.js';
export { assembleChunksWith } from './reply/assembleChunksWith.js';
export type { AssembleChunksOptions } from './reply/assembleChunks.js';
export type { ToolArgumentsPredicate, ToolValidator } from './reply/checkToolCall.js';
export { estimateTokenUsage } from './reply/estimateTokenUsage.js';
export type { UsageEstimateSource } from './reply/estimateTokenUsage.js';
export { finalizeCompletion } from './reply/finalizeCompletion.js';
export type { FinalizeCompletionOptions, FinalizeStructuredOptions } from './reply/finalizeCompletion.js';
export { groupToolCallsByIndex } from './reply/groupToolCallsByIndex.js';
export type { GroupToolCallsByIndexOptions } from './reply/groupToolCallsByIndex.js';
export { isCompletionSnapshot } from './reply/isCompletionSnapshot.js';
export { scanCompletion } from './reply/scanCompletion.js';
export type { ScanCompletionOptions } from './reply/scanCompletion.js';
export { toolCallPreviews } from './reply/toolCallPreviews.js';
export type { ArgumentsPreview, ToolCallPreviews } from './reply/toolCallPreviews.js';
export { validateToolCalls } from './reply/validateToolCalls.js';
export type { ValidateToolCallsOptions } from './reply/validateToolCalls.js';

// messages: assembly by id, and a transcript into deltas
export { assembleMessages } from './messages/assembleMessages.js';
export type { AssembledMessage } from './messages/assembleMessages.js';
export type { TokenEvent } from './messages/TokenAssembler.js';
export { transcriptDeltas } from './messages/transcriptDeltas.js';
export type { TranscriptDeltasOptions } from './messages/transcriptDeltas.js';
export type { TranscriptDelta } from './messages/TranscriptPublisher.js';

// json: the bounds of a preview
export { DEFAULT_PREVIEW_MAX_CHARS, DEFAULT_PREVIEW_MAX_DEPTH } from './json/PartialJsonOptions.js';
export type { PartialJsonOptions, PartialJsonStop } from './json/PartialJsonOptions.js';

// structured: structured output
export { IncompleteOutputError, StructuredOutputError } from './structured/outputErrors.js';
export type { StructuredOutputErrorOptions } from './structured/outputErrors.js';
export { scanStructuredOutput } from './structured/scanStructuredOutput.js';
export { structuredElements } from './structured/structuredElements.js';
export type { StructuredElementsOptions } from './structured/structuredElements.js';
export { DEFAULT_STRUCTURED_MAX_CHARS } from './structured/structuredOutput.js';
export type {
  DeepPartial,
  OutputOf,
  OutputSource,
  PartialOutput,
  StructuredCompletion,
  StructuredOutput,
  StructuredOutputOptions,
  StructuredOutputSnapshot,
} from './structured/structuredOutput.js';

// next-turn: the assistant's turn and the tool results, in each provider's request shape
export { anthropicAssistantTurn, anthropicToolResults } from './next-turn/anthropicTurn.js';
export type {
  AnthropicAssistantBlock,
  AnthropicAssistantMessage,
  AnthropicCaller,
  AnthropicOpaqueBlock,
  AnthropicRedactedThinkingBlock,
  AnthropicServerToolResultBlock,
  AnthropicServerToolUseBlock,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolResultBlock,
  AnthropicToolResultsMessage,
  AnthropicToolUseBlock,
} from './next-turn/anthropicTurn.js';
export type { AssistantReply } from './next-turn/AssistantReply.js';
export { bedrockConverseTurn, bedrockToolResults } from './next-turn/bedrockConverseTurn.js';
export type {
  BedrockAssistantMessage,
  BedrockReasoningBlock,
  BedrockTextBlock,
  BedrockToolResultBlock,
  BedrockToolResultsMessage,
  BedrockToolUseBlock,
} from './next-turn/bedrockConverseTurn.js';
export { geminiModelTurn, geminiToolResults } from './next-turn/geminiTurn.js';
export type {
  GeminiFunctionCallPart,
  GeminiFunctionResponseContent,
  GeminiFunctionResponsePart,
  GeminiModelContent,
  GeminiObject,
  GeminiServerToolPart,
  GeminiTextPart,
} from './next-turn/geminiTurn.js';
export { mistralAssistantTurn } from './next-turn/mistralTurn.js';
export type { MistralAssistantMessage, MistralTextChunk, MistralThinkingChunk } from './next-turn/mistralTurn.js';
export { ollamaAssistantTurn, ollamaToolResults } from './next-turn/ollamaTurn.js';
export type { OllamaAssistantMessage, OllamaToolCall, OllamaToolMessage } from './next-turn/ollamaTurn.js';
export { openaiChatAssistantTurn, openaiChatToolResults } from './next-turn/openaiChatTurn.js';
export type {
  OpenAiChatAssistantMessage,
  OpenAiChatCustomCall,
  OpenAiChatFunctionCall,
  OpenAiChatToolMessage,
  OpenAiChatTurnOptions,
} from './next-turn/openaiChatTurn.js';
export { openaiResponsesToolResults, openaiResponsesTurn } from './next-turn/openaiResponsesTurn.js';
export type {
  ResponsesAssistantMessage,
  ResponsesCompactionItem,
  ResponsesCustomToolCall,
  ResponsesFunctionCall,
  ResponsesProgramItem,
  ResponsesReasoningItem,
  ResponsesToolOutput,
  ResponsesTurnItem,
} from './next-turn/openaiResponsesTurn.js';
export type { ToolFailure, ToolOutput, ToolResult } from './next-turn/ToolResult.js';

// tool-loop: the tool loop as an Observable
export {
  anthropicLoop,
  bedrockConverseLoop,
  bedrockInvokeLoop,
  geminiLoop,
  ollamaLoop,
  openaiChatLoop,
  openaiResponsesLoop,
} from './tool-loop/loopFormats.js';
export type { LoopTool, LoopTools, ToolContext, ToolOutcome } from './tool-loop/LoopTool.js';
export { DEFAULT_MAX_STEPS, toolLoop } from './tool-loop/toolLoop.js';
export type { ApprovalRequest, ToolLoopOptions, ToolLoopRequestContext } from './tool-loop/toolLoop.js';
export { ToolLoopError } from './tool-loop/ToolLoopError.js';
export { isToolLoopPartial } from './tool-loop/ToolLoopEvent.js';
export type {
  ToolErrorReason,
  ToolLoopApprovalRequest,
  ToolLoopErrorEvent,
  ToolLoopEvent,
  ToolLoopFinish,
  ToolLoopPartial,
  ToolLoopReplyEvent,
  ToolLoopResultEvent,
  ToolLoopStep,
  ToolLoopStepFinish,
  ToolLoopStepStart,
} from './tool-loop/ToolLoopEvent.js';
export type { ToolLoopFormat } from './tool-loop/ToolLoopFormat.js';

// telemetry: OpenTelemetry after the GenAI semantic conventions (the app passes the API in), and the reply's timings without it
export { genAiErrorType } from './telemetry/errorType.js';
export { genAiProviderName } from './telemetry/genAiProviderName.js';
export { genAiTelemetry } from './telemetry/genAiTelemetry.js';
export type { GenAiInstruments, GenAiTelemetry, GenAiTelemetryOptions, OpenTelemetryApi } from './telemetry/genAiTelemetry.js';
export { genAiToolLoop } from './telemetry/genAiToolLoop.js';
export type { GenAiToolLoopOptions } from './telemetry/genAiToolLoop.js';
export type { GenAiRequest } from './telemetry/InferenceRecord.js';
export { measureReply } from './telemetry/measureReply.js';
export type { MeasureReplyOptions } from './telemetry/measureReply.js';
export type { ReplyTimings } from './telemetry/ReplyClock.js';
export type { ToolLoopOutput, ToolLoopTelemetry, ToolLoopWatch } from './telemetry/ToolLoopTelemetry.js';
export { withGenAiTelemetry } from './telemetry/withGenAiTelemetry.js';
export type { WithGenAiTelemetryOptions } from './telemetry/withGenAiTelemetry.js';

// ui: what goes to a browser
export { encodeSse, encodeSseBytes } from './ui/encodeSse.js';
export { toMessageEvents } from './ui/toMessageEvents.js';
export type { MessageEventsOptions, SseMessageEvent } from './ui/toMessageEvents.js';
export { toolLoopUiMessageStream } from './ui/toolLoopUiMessageStream.js';
export type { ToolLoopUiMessageStreamOptions } from './ui/toolLoopUiMessageStream.js';
export type { ToolLoopUiEncoderOptions } from './ui/ToolLoopUiEncoder.js';
export { encodeUiMessageSse, toUiMessageStream } from './ui/toUiMessageStream.js';
export type { UiMessageStreamOptions } from './ui/toUiMessageStream.js';
export type { UiMessageEncoderOptions, UiMessageEncoderState } from './ui/UiMessageEncoder.js';
export { uiMessageStreamHeaders } from './ui/uiMessageChunks.js';
export type { UiFinishReason, UiMessageChunk } from './ui/uiMessageChunks.js';

// screen: a reply's updates paced for a screen
export { batchEventsPerFrame, latestPerFrame } from './screen/perFrame.js';
export type { PerFrameOptions } from './screen/perFrame.js';
export { smoothText } from './screen/smoothText.js';
export type { SmoothTextOptions } from './screen/smoothText.js';
export type { SmoothChunking, TextSmootherOptions } from './screen/TextSmoother.js';

// recording: record and replay
export type { RecordedChunk, StreamRecordingInit } from './recording/recordedChunks.js';
export { isRecordingText, parseRecording, RECORDING_FORMAT, RECORDING_VERSION, serializeRecording } from './recording/recordingFile.js';
export { recordStream } from './recording/recordStream.js';
export type { RecordStreamOptions } from './recording/recordStream.js';
export { replayRecording } from './recording/replayRecording.js';
export type { ReplayRecordingOptions } from './recording/replayRecording.js';
export { isCredentialHeader, StreamRecording } from './recording/StreamRecording.js';

// io: sources over platform bodies
export { STREAM_CONTENT_TYPES } from './io/checkedBody.js';
export type { ResponseCheckOptions } from './io/checkedBody.js';
export { Demand } from './io/Demand.js';
export { DEFAULT_IDLE_TIMEOUT_MS, fromReadableStream } from './io/fromReadableStream.js';
export type { BodySourceOptions } from './io/fromReadableStream.js';
export { fromResponse } from './io/fromResponse.js';
export type { FromResponseOptions } from './io/fromResponse.js';
export { idleTimeout } from './io/idleTimeout.js';
export type { IdleTimeoutOptions } from './io/idleTimeout.js';
export type { NodeReadableLike } from './io/NodeReadableLike.js';
export { isFinalFrame, resumeFrames } from './io/resumeFrames.js';
export type { ResumeFramesOptions } from './io/resumeFrames.js';

// timeouts: limits on a reply's content
export { CONTENT_EVENT_TYPES } from './timeouts/contentEvents.js';
export type { ReplyTimeoutLimits } from './timeouts/ReplyDeadlines.js';
export { replyTimeouts } from './timeouts/replyTimeouts.js';
export type { ReplyTimeoutsOptions } from './timeouts/replyTimeouts.js';

// request: retries before the first byte
export type { RetryOptions } from './request/retryDelay.js';
export { retryingFetch } from './request/retryingFetch.js';
export type { FetchFunction, RetryingFetchOptions } from './request/retryingFetch.js';
export { retryRequest } from './request/retryRequest.js';
export type { RetryRequestOptions } from './request/retryRequest.js';

// rate-limits: the limits a response announced
export { readRateLimits } from './rate-limits/readRateLimits.js';
export type { HeadersLike } from './internal/headerValue.js';
export type { RateLimit, RateLimitPolicy, RateLimits } from './types/rateLimits.js';

// websocket: replies over a socket
export { realtimeSocketReplies } from './websocket/realtimeSocketReplies.js';
export type { RealtimeSocketRepliesOptions } from './websocket/realtimeSocketReplies.js';
export { responsesSocketReplies } from './websocket/responsesSocketReplies.js';
export type { ResponsesSocketRepliesOptions } from './websocket/responsesSocketReplies.js';
export type { SocketOutsideEvent, SocketRepliesOptions, SocketReply } from './websocket/socketReplies.js';
export type { SocketMessage } from './websocket/socketMessageText.js';

// errors
export {
  LlmStreamError,
  ProtocolError,
  ProviderError,
  StreamClosedEarlyError,
  StreamIdleError,
  ToolArgumentsError,
} from './errors/errors.js';
export { IDLE_REASONS } from './errors/errors.js';
export type {
  IdleReason,
  LlmStreamErrorOptions,
  ProviderErrorOptions,
  RequestAttempt,
  StreamClosedEarlyErrorOptions,
  StreamPosition,
  ToolArgumentsErrorOptions,
} from './errors/errors.js';
export { isLlmStreamError } from './errors/isLlmStreamError.js';
export { errorFromStreamErrorData, streamErrorData } from './errors/streamErrorData.js';
export type { StreamErrorData } from './errors/streamErrorData.js';
export { clientErrorData, publicErrorData, publicErrorText } from './errors/publicErrorData.js';
export type { ErrorExposureOptions } from './errors/publicErrorData.js';
export { STRUCTURED_OUTPUT_REASONS } from './errors/structuredOutputReasons.js';
export type { StructuredOutputReason } from './errors/structuredOutputReasons.js';
export { TOOL_LOOP_REASONS } from './errors/toolLoopReasons.js';
export type { ToolLoopReason } from './errors/toolLoopReasons.js';

// types: the events, the completion and the parts of a reply
export type {
  ChoiceSnapshot,
  Completion,
  CompletionChoice,
  CompletionSnapshot,
  PartialToolCall,
  ReplyExtraParts,
} from './types/completion.js';
export type {
  AudioEvent,
  ImagePreviewEvent,
  ChatEvent,
  ContentEvent,
  DoneEvent,
  FinishEvent,
  FinishDetailsEvent,
  LogprobsEvent,
  OpaqueItemEvent,
  ProgressEvent,
  ProviderMetadataEvent,
  ProviderToolCallEvent,
  ProviderToolResultEvent,
  ReasoningEvent,
  ReasoningSignatureEvent,
  RefusalEvent,
  ReplyTimingsEvent,
  RetractEvent,
  SourceEvent,
  StartEvent,
  TimingsEvent,
  ToolCallDeltaEvent,
  ToolCallEndEvent,
  ToolCallEvent,
  ToolCallIncompleteEvent,
  ToolRequestEvent,
  UnknownEvent,
  UsageEvent,
} from './types/events.js';
export type {
  AudioOutput,
  CustomToolCall,
  FinishDetails,
  FinishReason,
  FinishReasonTable,
  FunctionToolCall,
  IncompleteToolCall,
  JsonPath,
  JsonValue,
  Logprobs,
  OpaqueItem,
  OpaqueItemKind,
  OpaqueItemPart,
  OpaqueItemPosition,
  PromptProgress,
  ProviderMetadata,
  ProviderToolCall,
  ProviderToolPosition,
  Source,
  TokenLogprob,
  Timings,
  ToolCall,
  ToolCallProgress,
  ToolRequest,
  Usage,
} from './types/replyParts.js';
export { isStandardSchema } from './types/standardSchema.js';
export type {
  StandardSchemaV1,
  StandardSchemaV1Failure,
  StandardSchemaV1Issue,
  StandardSchemaV1PathSegment,
  StandardSchemaV1Props,
  StandardSchemaV1Result,
  StandardSchemaV1Success,
} from './types/standardSchema.js';
