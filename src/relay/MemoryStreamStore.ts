import { StreamEntry } from './streamEntries.js';
import { StreamClosedEarlyError } from '../errors/errors.js';
import { StoredStreamState, StreamMetadata, StreamStore, StreamStoreTiming } from './StreamStore.js';
import { StoreSettings, StreamStoreOptions, storeSettings } from './storeOptions.js';

/** One stream in memory. */
interface MemoryStream {
  entries: StreamEntry[];
  lastId: number;
  ended: boolean;
  beatAt: number;
  stopRequested: boolean;
  expiry: ReturnType<typeof setTimeout> | undefined;
  metadata: StreamMetadata | undefined;
  readonly waiters: Set<() => void>;
}

/**
 * The embedded `StreamStore`: the streams of one process, in its memory, with the same rules as
 * `RedisStreamStore` (a length cap, a TTL after the end and after the last entry, a heartbeat), so a
 * single instance behaves as a fleet does. What it keeps is what clients may resume from: up to
 * `maxLength` entries per stream, for `endedTtl` after the end.
 *
 * @example
 * ```ts
 * import { MemoryStreamStore, StreamRelay } from 'rxjs-llm-stream/relay';
 *
 * const relay = new StreamRelay({ store: new MemoryStreamStore({ maxLength: 10_000, endedTtl: 60_000 }) });
 * ```
 */
export class MemoryStreamStore implements StreamStore {
  readonly timing: StreamStoreTiming;
  private readonly settings: StoreSettings;
  private readonly streams = new Map<string, MemoryStream>();

  constructor(options: StreamStoreOptions = {}) {
    this.settings = storeSettings(options, 'MemoryStreamStore');
    this.timing = { heartbeatInterval: this.settings.heartbeatInterval, heartbeatTimeout: this.settings.heartbeatTimeout };
  }

  async create(streamId: string): Promise<void> {
    if (this.streams.has(streamId)) throw new TypeError(`MemoryStreamStore: a stream ${streamId} exists already`);
    const stream: MemoryStream = {
      entries: [],
      lastId: 0,
      ended: false,
      beatAt: Date.now(),
      stopRequested: false,
      expiry: undefined,
      metadata: undefined,
      waiters: new Set(),
    };
    this.streams.set(streamId, stream);
    this.expireAfter(streamId, stream, this.settings.liveTtl);
  }

  async append(streamId: string, entries: readonly StreamEntry[]): Promise<void> {
    const stream = this.streams.get(streamId);
    if (stream === undefined) throw lost(streamId);
    for (const entry of entries) {
      if (entry.id !== stream.lastId + 1) throw new TypeError(`MemoryStreamStore: entry ${entry.id} does not follow ${stream.lastId}`);
      stream.entries.push(entry);
      stream.lastId = entry.id;
      if (entry.kind === 'end') stream.ended = true;
    }
    // Trimmed in one splice once well over the cap, as Redis's `MAXLEN ~` trims whole nodes.
    if (stream.entries.length > this.settings.maxLength * 1.1) stream.entries.splice(0, stream.entries.length - this.settings.maxLength);
    this.expireAfter(streamId, stream, stream.ended ? this.settings.endedTtl : this.settings.liveTtl);
    for (const wake of [...stream.waiters]) wake();
  }

  async beat(streamId: string): Promise<boolean> {
    const stream = this.streams.get(streamId);
    if (stream === undefined) throw lost(streamId);
    stream.beatAt = Date.now();
    return stream.stopRequested;
  }

  async requestStop(streamId: string): Promise<boolean> {
    const stream = this.streams.get(streamId);
    if (stream === undefined || stream.ended) return false;
    stream.stopRequested = true;
    return true;
  }

  async state(streamId: string): Promise<StoredStreamState> {
    const stream = this.streams.get(streamId);
    if (stream === undefined) return { stored: false, ended: false, alive: false, lastId: 0 };
    const alive = !stream.ended && Date.now() - stream.beatAt < this.settings.heartbeatTimeout;
    return { stored: true, ended: stream.ended, alive, lastId: stream.lastId };
  }

  async writeMetadata(streamId: string, metadata: StreamMetadata): Promise<void> {
    const stream = this.streams.get(streamId);
    if (stream === undefined) throw lost(streamId);
    stream.metadata = { ...metadata };
  }

  async readMetadata(streamId: string): Promise<StreamMetadata | undefined> {
    return this.streams.get(streamId)?.metadata;
  }

  read(
    streamId: string,
    after: number,
    options: { readonly count: number; readonly waitMs: number; readonly signal?: AbortSignal },
  ): Promise<StreamEntry[]> {
    const stream = this.streams.get(streamId);
    if (stream === undefined) return Promise.resolve([]);
    const now = entriesAfter(stream, after, options.count);
    if (now.length > 0 || options.waitMs <= 0 || options.signal?.aborted === true) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        stream.waiters.delete(done);
        options.signal?.removeEventListener('abort', done);
        resolve(entriesAfter(stream, after, options.count));
      };
      const timer = setTimeout(done, options.waitMs);
      stream.waiters.add(done);
      options.signal?.addEventListener('abort', done);
    });
  }

  /** (Re)sets the stream's expiry; the timer does not keep the process alive. */
  private expireAfter(streamId: string, stream: MemoryStream, ms: number): void {
    clearTimeout(stream.expiry);
    stream.expiry = setTimeout(() => {
      if (this.streams.get(streamId) === stream) this.streams.delete(streamId);
      for (const wake of [...stream.waiters]) wake();
    }, ms);
    stream.expiry.unref?.();
  }
}

/** The entries after `after`, at most `count` (ids are dense, so the first is found by arithmetic). */
function entriesAfter(stream: MemoryStream, after: number, count: number): StreamEntry[] {
  const first = stream.entries[0];
  if (first === undefined) return [];
  const start = Math.max(0, after + 1 - first.id);
  return stream.entries.slice(start, start + count);
}

/** The error for a stream the store no longer holds. */
export function lost(streamId: string): StreamClosedEarlyError {
  return new StreamClosedEarlyError(`the stream store no longer holds stream ${streamId} (expired, or the store was restarted)`, {
    reason: 'store',
  });
}
