// `rxjs-llm-stream/core`: the pure cores the operators wrap, for advanced uses (a parser driven by
// hand, a tracker in a worker, an encoder in a custom sink). None of them uses RxJS. Grouped by the
// folder each lives in, sorted within a group, each name exported once.

// frames
export { AwsEventStreamParser, DEFAULT_MAX_MESSAGE_BYTES } from '../frames/AwsEventStreamParser.js';
export { LineSplitter } from '../frames/LineSplitter.js';
export type { LineSink } from '../frames/LineSplitter.js';
export { NdjsonParser } from '../frames/NdjsonParser.js';
export { SseParser } from '../frames/SseParser.js';
export { Utf8Decoder } from '../frames/Utf8Decoder.js';

// json
export { JsonTemplateParser } from '../json/JsonTemplateParser.js';
export type { JsonTemplateParserOptions, JsonTemplateStats } from '../json/JsonTemplateParser.js';
export { PartialJson } from '../json/PartialJson.js';

// dialects: each format's parser class (the records are on the main entry)
export { AiSdkUiParser } from '../dialects/ai-sdk-ui/aiSdkUi.js';
export { AnthropicParser } from '../dialects/anthropic/anthropic.js';
export { AutoDialectParser } from '../dialects/auto.js';
export { BedrockConverseParser } from '../dialects/bedrock-converse/bedrockConverse.js';
export { BedrockInvokeParser } from '../dialects/bedrock-invoke/bedrockInvoke.js';
export { ChatEventsParser } from '../dialects/chat-events/chatEvents.js';
export { CohereParser } from '../dialects/cohere/cohere.js';
export { GeminiParser } from '../dialects/gemini/gemini.js';
export { GeminiInteractionsParser } from '../dialects/gemini-interactions/geminiInteractions.js';
export { LlamaCppCompletionParser } from '../dialects/llamacpp-completion/llamacppCompletion.js';
export { MistralConversationsParser } from '../dialects/mistral-conversations/mistralConversations.js';
export { OllamaParser } from '../dialects/ollama/ollama.js';
export { OpenAiChatParser } from '../dialects/openai-chat/openaiChat.js';
export { OpenAiRealtimeParser } from '../dialects/openai-realtime/openaiRealtime.js';
export { OpenAiResponsesParser } from '../dialects/openai-responses/openaiResponses.js';
export { TypedEventsParser } from '../dialects/typed-events/typedEvents.js';

// reply
export { CallAssembler } from '../reply/CallAssembler.js';
export type { ClosedToolCall, FinishedCalls } from '../reply/CallAssembler.js';
export { CompletionTracker } from '../reply/CompletionTracker.js';
export { ReplyExtras } from '../reply/ReplyExtras.js';
export type { ReplyExtrasView } from '../reply/ReplyExtras.js';

// messages
export { TokenAssembler } from '../messages/TokenAssembler.js';
export {
  TranscriptPublisher,
  transcriptCommonPrefix,
  transcriptPublishableEnd,
  Utf8TranscriptPublisher,
} from '../messages/TranscriptPublisher.js';

// structured
export { StructuredJson } from '../structured/StructuredJson.js';
export type { StructuredJsonOptions } from '../structured/StructuredJson.js';
export { StructuredOutputReader } from '../structured/StructuredOutputReader.js';
export type { StructuredOutputReaderOptions } from '../structured/StructuredOutputReader.js';

// tool-loop
export { CallSchedule } from '../tool-loop/CallSchedule.js';

// websocket
export { RealtimeSocketRouter } from '../websocket/RealtimeSocketRouter.js';
export type { RealtimeSocketRouterOptions } from '../websocket/RealtimeSocketRouter.js';
export { ResponsesSocketRouter } from '../websocket/ResponsesSocketRouter.js';
export type { ResponsesSocketRouterOptions } from '../websocket/ResponsesSocketRouter.js';
export { parseSocketMessage } from '../websocket/SocketRouter.js';
export type { SocketRoute, SocketRouter, SocketRouterOptions } from '../websocket/SocketRouter.js';
export { socketMessageText } from '../websocket/socketMessageText.js';

// ui
export { SseEncoder } from '../ui/SseEncoder.js';
export { ToolLoopUiEncoder } from '../ui/ToolLoopUiEncoder.js';
export { UiMessageEncoder } from '../ui/UiMessageEncoder.js';

// screen
export { FrameBatch } from '../screen/FrameBatch.js';
export { LatestValue } from '../screen/LatestValue.js';
export { TextSmoother } from '../screen/TextSmoother.js';

// telemetry
export { ReplyClock } from '../telemetry/ReplyClock.js';
export { ReplyFacts } from '../telemetry/ReplyFacts.js';
