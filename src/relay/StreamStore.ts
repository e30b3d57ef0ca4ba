import { StreamEntry } from './streamEntries.js';

/** What a store knows of one stream. */
export interface StoredStreamState {
  /** False when the store holds nothing of it: never made, expired, or lost (a restarted Redis). */
  readonly stored: boolean;
  /** Whether its `end` entry is stored. */
  readonly ended: boolean;
  /** Whether its producer's heartbeat is current. */
  readonly alive: boolean;
  /** The id of its last entry (0 before the first). */
  readonly lastId: number;
}

/**
 * What an app keeps with a stream when it starts it (`StreamRelay.start`'s `metadata`): the user who
 * started it, most often, for the authorization of those who resume or stop it.
 */
export type StreamMetadata = Readonly<Record<string, string>>;

/** How a store times its streams, the same for its producers and readers. */
export interface StreamStoreTiming {
  /** How often a producer renews its heartbeat, and a waiting reader checks it. */
  readonly heartbeatInterval: number;
  /** How long a heartbeat lasts unrenewed: a producer silent this long is taken for dead. */
  readonly heartbeatTimeout: number;
}

/**
 * Where a relay keeps the streams it relays, so that any instance can serve a client that resumes:
 * the producer appends each entry with its id, renews a heartbeat and watches for a stop; readers
 * read what is stored after a position, then wait for more, until the `end` entry.
 *
 * `MemoryStreamStore` is the embedded default (one instance); `RedisStreamStore` keeps the streams in
 * Redis Streams over the user's own client. Every method rejects with a `StreamClosedEarlyError`
 * (`reason: 'store'`) when the store fails: never a hang.
 *
 * @example
 * ```ts
 * import { MemoryStreamStore, StreamRelay, type StreamStore } from 'rxjs-llm-stream/relay';
 *
 * const store: StreamStore = new MemoryStreamStore();
 * const relay = new StreamRelay({ store });
 * ```
 */
export interface StreamStore {
  readonly timing: StreamStoreTiming;
  /** Makes a new, empty stream with a live heartbeat; rejects when the id is taken. */
  create(streamId: string): Promise<void>;
  /**
   * Appends entries, whose ids follow the last one's; an `end` entry sets the stream to expire after the
   * ended-stream TTL. Rejects when the stream is no longer stored.
   */
  append(streamId: string, entries: readonly StreamEntry[]): Promise<void>;
  /** Renews the producer's heartbeat; answers whether a stop was asked for. */
  beat(streamId: string): Promise<boolean>;
  /** Asks the stream's producer, wherever it runs, to stop; answers false when no live stream has that id. */
  requestStop(streamId: string): Promise<boolean>;
  state(streamId: string): Promise<StoredStreamState>;
  /**
   * The entries after id `after`, at most `count`; when there is none yet, waits up to `waitMs` for one
   * (and answers `[]` if none came). An aborted `signal` answers `[]` at once.
   */
  read(
    streamId: string,
    after: number,
    options: { readonly count: number; readonly waitMs: number; readonly signal?: AbortSignal },
  ): Promise<StreamEntry[]>;
  /**
   * Optional: keeps `metadata` with a stream just made, for as long as the stream. A store without it
   * has the relay keep the metadata in a companion stream (`<id>#meta`) through the methods above.
   */
  writeMetadata?(streamId: string, metadata: StreamMetadata): Promise<void>;
  /** Optional, with `writeMetadata`: the metadata kept with the stream (`undefined` when none is). */
  readMetadata?(streamId: string): Promise<StreamMetadata | undefined>;
}
