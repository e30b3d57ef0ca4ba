// The relay (`rxjs-llm-stream/relay`): serving a streamed reply onward, to slow clients, through
// reconnects, across instances. Node servers only: its own entry point, so that none of it reaches a
// browser bundle of the main one.
export { StreamRelay } from './StreamRelay.js';
export type {
  StreamRelayOptions,
  RelayClientOptions,
  RelayStartOptions,
  RelayServeOptions,
  RelayReport,
  RelayErrorContext,
  StreamAccess,
} from './StreamRelay.js';
export { randomStreamId } from './randomStreamId.js';
export { readStreamMetadata, writeStreamMetadata } from './streamMetadata.js';
export { sendSse, DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_STALL_TIMEOUT_MS, DEFAULT_SSE_HEARTBEAT_MS } from './sendSse.js';
export type { SendSseOptions, SentReport, SseWritable } from './sendSse.js';
export { toStreamEntries } from './toStreamEntries.js';
export { readStream } from './readStream.js';
export type { ReadStreamOptions } from './readStream.js';
export type { StreamStore, StoredStreamState, StreamStoreTiming, StreamMetadata } from './StreamStore.js';
export type { StreamStoreOptions } from './storeOptions.js';
export { DEFAULT_PRODUCER_HEARTBEAT_MS, DEFAULT_PRODUCER_TIMEOUT_MS } from './storeOptions.js';
export { MemoryStreamStore } from './MemoryStreamStore.js';
export { RedisStreamStore } from './RedisStreamStore.js';
export type { RedisStreamStoreOptions } from './RedisStreamStore.js';
export type { RedisClientLike } from './redisCommands.js';
export { ClientBacklog } from './ClientBacklog.js';
export { relayFormat } from './RelayFormat.js';
export type { RelayFormat, RelayFormatName, RelayFormatOptions, RelayFrame } from './RelayFormat.js';
export { checkpointingStore, readUiCheckpoint, UI_CHECKPOINT_INTERVAL } from './uiCheckpoints.js';
export type { UiCheckpoint } from './uiCheckpoints.js';
export { parseStreamPosition, STREAM_START } from './streamEntries.js';
export type { StreamEntry, ResumePosition } from './streamEntries.js';
export { Demand } from '../io/Demand.js';
export { SlowClientError } from './SlowClientError.js';
export type { SlowClientErrorOptions, SlowClientReason } from './SlowClientError.js';
