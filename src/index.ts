export { LlmStreamError, StreamClosedEarlyError, ProtocolError, isLlmStreamError } from './errors.js';
export type { StreamPosition, LlmStreamErrorOptions } from './errors.js';
export { Utf8Decoder } from './core/Utf8Decoder.js';
export type { Utf8DecoderOptions } from './core/Utf8Decoder.js';
export { SseParser, DEFAULT_MAX_EVENT_SIZE } from './core/SseParser.js';
export type { SseFrame, SseParserOptions, SsePartial } from './core/SseParser.js';
export { decodeUtf8 } from './decodeUtf8.js';
export { sseFrames } from './sseFrames.js';
