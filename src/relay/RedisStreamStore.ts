import { StreamEntry } from './streamEntries.js';
import { StreamClosedEarlyError } from '../errors/errors.js';
import { lost } from './MemoryStreamStore.js';
import { RedisClientLike, RedisConnection, encodeEntry, entriesOf, redisConnection, text } from './redisCommands.js';
import { keySlot, tagOfSlot } from './clusterSlots.js';
import { RedisFollower } from './RedisFollower.js';
import { StoredStreamState, StreamStore, StreamStoreTiming } from './StreamStore.js';
import { StoreSettings, StreamStoreOptions, storeSettings } from './storeOptions.js';

/** Options of {@link RedisStreamStore}. */
export interface RedisStreamStoreOptions extends StreamStoreOptions {
  /** The client for ordinary commands (`redis` v4/v5 or `ioredis`), yours. */
  readonly client: RedisClientLike;
  /**
   * A second connection, used only to wait for new entries (`XREAD BLOCK` blocks its connection):
   * `client.duplicate()`, connected. One per process serves every reader.
   */
  readonly blockingClient: RedisClientLike;
  /** Prefix of every key. Default `llm-stream:`. */
  readonly prefix?: string;
  /** The longest wait for a command's answer before the store fails typed. Default 5000 ms. */
  readonly commandTimeout?: number;
}

/** The id of the marker that makes a stream exist before its first entry; entry n is `n-0`, after it. */
const OPENING = '0-1';

/** The longest block of each slot's `XREAD` while several slots are waited on at once (Redis Cluster). */
const CLUSTER_BLOCK_MS = 100;

/**
 * A `StreamStore` in Redis Streams (Redis 6.2 or later), over the user's client, so that every
 * instance behind a load balancer serves every stream. Per stream, under `<prefix>{<id>}`:
 *
 * - the stream itself: each entry one `XADD` with its own id and one field (see `encodeEntry`) (`12-0`, so a second producer of the
 *   same stream is refused), `MAXLEN ~ maxLength`, `NOMKSTREAM` (a stream lost by a restarted
 *   server is noticed, never silently re-made without its start); made with its expiry
 *   (`liveTtl`) in one `MULTI`, the expiry renewed at every heartbeat and set to `endedTtl` in the
 *   transaction that appends the end, so that the key never lives without one;
 * - `:alive`, the producer's heartbeat, `SET ... PX heartbeatTimeout` every `heartbeatInterval`; a
 *   heartbeat found missing is a death once it stays missing, with no new entry, for one more
 *   `heartbeatTimeout` (a failover loses the last heartbeats and stalls writes for a while);
 * - `:stop`, set by `requestStop` on any instance; the producer sees it at its next heartbeat.
 *
 * Readers wait for new entries with one `XREAD BLOCK` for the whole store on `blockingClient`, which
 * hands them what it read; a reader that starts waiting meanwhile wakes it through `<prefix>wake:<uuid>`
 * (a stream of one entry). The store sends data commands only: a Redis user limited to the prefix
 * (`~<prefix>*`) with `+@read +@write +@transaction` may run it (see docs/relay.md, "Deploying", "On Redis").
 * Every command has a timeout: a server that went away fails readers and producers with a
 * `StreamClosedEarlyError` (`reason: 'store'`), never a hang.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { RedisStreamStore, StreamRelay } from 'rxjs-llm-stream/relay';
 *
 * const client = await createClient({ url: process.env['REDIS_URL'] }).connect();
 * const blockingClient = await client.duplicate().connect();
 * const relay = new StreamRelay({ store: new RedisStreamStore({ client, blockingClient }) });
 * ```
 */
export class RedisStreamStore implements StreamStore {
  readonly timing: StreamStoreTiming;
  private readonly settings: StoreSettings;
  private readonly connection: RedisConnection;
  private readonly blocking: RedisConnection;
  /** One follower, or on a Redis Cluster one per slot waited on (an `XREAD` names keys of one slot only). */
  private readonly followers = new Map<number, RedisFollower>();
  private readonly prefix: string;
  private readonly timeout: number;
  /** Since when this instance has found each stream's heartbeat missing, and its last entry then. */
  private readonly lapses = new Map<string, { since: number; lastId: number }>();
  /** Names this instance's wake-up streams. */
  private readonly instanceId = globalThis.crypto.randomUUID();

  constructor(options: RedisStreamStoreOptions) {
    this.settings = storeSettings(options, 'RedisStreamStore');
    this.timing = { heartbeatInterval: this.settings.heartbeatInterval, heartbeatTimeout: this.settings.heartbeatTimeout };
    this.prefix = options.prefix ?? 'llm-stream:';
    this.timeout = options.commandTimeout ?? 5000;
    this.connection = redisConnection(options.client, 'command');
    this.blocking = redisConnection(options.blockingClient, 'blocking');
  }

  /** The follower of `key`'s slot (of every key, on a single Redis). */
  private followerOf(key: string): RedisFollower {
    const slot = this.blocking.cluster ? keySlot(key) : 0;
    let follower = this.followers.get(slot);
    if (follower === undefined) {
      // The wake-up stream is under the prefix (a user limited to it may write it) and, on a
      // cluster, in the slot it wakes.
      const wakeKey = this.blocking.cluster
        ? `${this.prefix}wake:${this.instanceId}:{${tagOfSlot(slot)}}`
        : `${this.prefix}wake:${this.instanceId}`;
      follower = new RedisFollower(this.blocking.send, this.connection.send, wakeKey, () => this.blockMs(), this.timeout);
      this.followers.set(slot, follower);
    }
    return follower;
  }

  /**
   * How long an `XREAD` blocks. The followers of several slots share the blocking client, whose
   * commands to one node wait their turn: while more than one waits, each blocks briefly.
   */
  private blockMs(): number {
    let running = 0;
    for (const follower of this.followers.values()) if (follower.running) running++;
    return running > 1 ? Math.min(CLUSTER_BLOCK_MS, this.settings.heartbeatInterval) : this.settings.heartbeatInterval;
  }

  async create(streamId: string): Promise<void> {
    const key = this.key(streamId);
    // One transaction: the stream never exists without its expiry, nor its heartbeat.
    await this.transaction([
      ['XADD', key, 'MAXLEN', '~', String(this.settings.maxLength), OPENING, 'e', 'o'],
      ['PEXPIRE', key, String(this.settings.liveTtl)],
      ['SET', `${key}:alive`, '1', 'PX', String(this.settings.heartbeatTimeout)],
      ['DEL', `${key}:stop`],
    ]);
  }

  async append(streamId: string, entries: readonly StreamEntry[]): Promise<void> {
    const key = this.key(streamId);
    const maxLength = String(this.settings.maxLength);
    const adds = entries.map((entry) => ['XADD', key, 'NOMKSTREAM', 'MAXLEN', '~', maxLength, `${entry.id}-0`, 'e', encodeEntry(entry)]);
    const ended = entries.some((entry) => entry.kind === 'end');
    // An XADD keeps the key's expiry (set at create, renewed by each heartbeat): nothing else is
    // needed until the end, whose expiry is set in the same transaction as its entry.
    const replies = ended
      ? await this.transaction([
          ...adds,
          ['PEXPIRE', key, String(this.settings.endedTtl)],
          ['DEL', `${key}:alive`],
          ['PEXPIRE', `${key}:stop`, String(this.settings.endedTtl)],
        ])
      : await Promise.all(adds.map((add) => this.command(add)));
    if (replies.slice(0, adds.length).some((reply) => reply === null || reply === undefined)) throw lost(streamId);
  }

  async beat(streamId: string): Promise<boolean> {
    const key = this.key(streamId);
    const [, , stop] = await Promise.all([
      this.command(['SET', `${key}:alive`, '1', 'PX', String(this.settings.heartbeatTimeout)]),
      // The live stream's expiry runs from its last heartbeat.
      this.command(['PEXPIRE', key, String(this.settings.liveTtl)]),
      this.command(['EXISTS', `${key}:stop`]),
    ]);
    return Number(stop) > 0;
  }

  async requestStop(streamId: string): Promise<boolean> {
    const state = await this.state(streamId);
    if (!state.stored || state.ended) return false;
    await this.command(['SET', `${this.key(streamId)}:stop`, '1', 'PX', String(this.settings.liveTtl)]);
    return true;
  }

  async state(streamId: string): Promise<StoredStreamState> {
    const key = this.key(streamId);
    const read = (): Promise<unknown[]> =>
      Promise.all([
        this.command(['EXISTS', key]),
        this.command(['EXISTS', `${key}:alive`]),
        this.command(['XREVRANGE', key, '+', '-', 'COUNT', '1']),
      ]);
    let [exists, alive, last] = await read();
    if (Number(exists) > 0 && Number(alive) === 0) {
      // Before a missing heartbeat counts, a write of this instance's goes through: while the
      // primary stalls writes (or fails over), it waits, as the producer's heartbeat does.
      await this.command(['DEL', `${key}:probe`]);
      [exists, alive, last] = await read();
    }
    if (Number(exists) === 0) {
      this.lapses.delete(streamId);
      return { stored: false, ended: false, alive: false, lastId: 0 };
    }
    const [entry] = entriesOf(last);
    const ended = entry?.kind === 'end';
    const lastId = entry?.id ?? 0;
    return { stored: true, ended, alive: !ended && this.beating(streamId, Number(alive) > 0, lastId), lastId };
  }

  /**
   * Whether the producer of a stream is taken for alive. A heartbeat found missing is a death only
   * once this instance has found it missing, with no new entry, for a whole `heartbeatTimeout`: a
   * failover loses the last heartbeats (the replica had not received them) and stalls the producer's
   * writes for a while, and neither is a death. A producer that did die is taken for dead about one
   * `heartbeatTimeout` later than its heartbeat lapsed.
   */
  private beating(streamId: string, found: boolean, lastId: number): boolean {
    const now = Date.now();
    // A stream nobody asked about for a while is forgotten (its readers left).
    for (const [id, lapse] of this.lapses) if (now - lapse.since > 10 * this.settings.heartbeatTimeout) this.lapses.delete(id);
    if (found) {
      this.lapses.delete(streamId);
      return true;
    }
    const lapse = this.lapses.get(streamId);
    if (lapse === undefined || lapse.lastId !== lastId) {
      this.lapses.set(streamId, { since: now, lastId });
      return true;
    }
    return now - lapse.since < this.settings.heartbeatTimeout;
  }

  async read(
    streamId: string,
    after: number,
    options: { readonly count: number; readonly waitMs: number; readonly signal?: AbortSignal },
  ): Promise<StreamEntry[]> {
    const key = this.key(streamId);
    // A reader the follower has brought up to date waits at once: reading first would find nothing.
    const follower = this.followerOf(key);
    if (options.waitMs <= 0 || !follower.knows(key, after)) {
      const now = entriesOf(await this.command(['XRANGE', key, `${after + 1}-0`, '+', 'COUNT', String(options.count)]));
      if (now.length > 0 || options.waitMs <= 0 || aborted(options.signal)) return now;
    }
    return follower.read(key, after, options.count, options.waitMs, options.signal);
  }

  /** The stream's key; the braces keep a stream's keys in one slot of a Redis Cluster. */
  private key(streamId: string): string {
    return `${this.prefix}{${streamId}}`;
  }

  private transaction(commands: ReadonlyArray<readonly string[]>): Promise<unknown[]> {
    return this.refused(this.connection.transaction(commands, this.timeout), commands[0]!);
  }

  private command(args: readonly string[]): Promise<unknown> {
    return this.refused(this.connection.send(args, this.timeout), args);
  }

  /** A refused XADD id as an error that says so. */
  private async refused<T>(sent: Promise<T>, args: readonly string[]): Promise<T> {
    try {
      return await sent;
    } catch (error) {
      // A refused XADD id: another producer wrote this stream, or it exists already.
      if (args[0] === 'XADD' && error instanceof StreamClosedEarlyError && /equal or smaller/.test(text(error.message))) {
        throw new StreamClosedEarlyError(
          `the stream store refused entry ${args[args.indexOf('e') - 1]} of ${args[1]}: it holds that id already`,
          {
            reason: 'store',
            cause: error.cause,
          },
        );
      }
      throw error;
    }
  }
}

/** Whether the signal has aborted (a function, so that the check is made anew after an `await`). */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
