import { StreamEntry } from './streamEntries.js';
import { RedisSend, entriesOf, streamsOf, text } from './redisCommands.js';

/** A reader waiting for entries of one key after one id. */
interface Waiter {
  readonly key: string;
  readonly after: number;
  readonly count: number;
  settle(entries: StreamEntry[], error?: unknown): void;
}

/** The `XREAD` id that names what follows entry `after`: the opening marker (`0-1`) is never news. */
function idAfter(after: number): string {
  return after === 0 ? '0-1' : `${after}-0`;
}

/**
 * Follows many Redis streams live over one dedicated connection: a single `XREAD BLOCK` names every
 * stream somebody waits on, and its reply is handed to the readers of the streams that grew (no
 * second read). A reader that starts waiting on a stream the blocked `XREAD` does not name wakes it
 * by appending to a wake-up stream of this follower's own (`wakeKey`), which every `XREAD` names
 * too: data commands only, so a Redis user limited to `+@read +@write` and a key prefix can follow
 * (`CLIENT UNBLOCK` would need `+@connection`). The next `XREAD` is sent only once the readers it
 * woke have asked again, so that a reader that keeps up never needs a wake-up. One connection per
 * reader would hold a connection for every open stream.
 */
export class RedisFollower {
  private readonly waiters = new Set<Waiter>();
  /** The highest entry id seen per followed key: a reader there can wait without reading first. */
  private readonly tips = new Map<string, number>();
  /** Whether its `XREAD` loop runs (somebody waits). */
  running = false;
  /** What the `XREAD` in flight names (key to the id it reads after), while it is in flight. */
  private blockedOn: Map<string, number> | undefined;
  /** The last wake-up seen, so that a wake-up sent before the `XREAD` arrives still ends it. */
  private wakeId = '0-0';

  constructor(
    private readonly blocking: RedisSend,
    private readonly commands: RedisSend,
    private readonly wakeKey: string,
    private readonly blockMs: () => number,
    private readonly timeoutMs: number,
  ) {}

  /** Whether this follower has seen stream `key` up to entry `after` and no further: a read there would find nothing new. */
  knows(key: string, after: number): boolean {
    return this.tips.get(key) === after;
  }

  /**
   * The entries of stream `key` after `after` (at most `count`) as soon as there are some; `[]`
   * after `waitMs`, or at once when `signal` aborts; rejects when the connection fails.
   */
  read(key: string, after: number, count: number, waitMs: number, signal?: AbortSignal): Promise<StreamEntry[]> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        key,
        after,
        count,
        settle: (entries, error) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.waiters.delete(waiter);
          if (error === undefined) resolve(entries);
          else reject(error);
        },
      };
      const onAbort = (): void => waiter.settle([]);
      const timer = setTimeout(() => waiter.settle([]), waitMs);
      signal?.addEventListener('abort', onAbort);
      this.waiters.add(waiter);
      if (!this.running) {
        this.running = true;
        void this.loop();
        return;
      }
      const named = this.blockedOn?.get(key);
      if (this.blockedOn !== undefined && (named === undefined || named > after)) this.wake(waiter);
    });
  }

  /** Ends the blocked `XREAD` early by appending to the wake-up stream (kept to one entry, expiring). */
  private wake(waiter: Waiter): void {
    const ttl = String(Math.max(60_000, this.blockMs() * 10));
    Promise.all([
      this.commands(['XADD', this.wakeKey, 'MAXLEN', '1', '*', 'w', '1'], this.timeoutMs),
      this.commands(['PEXPIRE', this.wakeKey, ttl], this.timeoutMs),
    ]).catch((error: unknown) => waiter.settle([], error));
  }

  private async loop(): Promise<void> {
    try {
      while (this.waiters.size > 0) {
        // The readers the last reply woke ask again first (on this turn of the event loop).
        await new Promise((resume) => setImmediate(resume));
        if (this.waiters.size === 0) break;
        // The lowest id per key: every waiter of that key learns of what is new after its own.
        const from = new Map<string, number>();
        let count = 1;
        for (const waiter of this.waiters) {
          const known = from.get(waiter.key);
          if (known === undefined || waiter.after < known) from.set(waiter.key, waiter.after);
          count = Math.max(count, waiter.count);
        }
        for (const key of this.tips.keys()) if (!from.has(key)) this.tips.delete(key);
        this.blockedOn = from;
        const blockMs = this.blockMs();
        const reply = await this.blocking(
          [
            'XREAD',
            'COUNT',
            String(count),
            'BLOCK',
            String(blockMs),
            'STREAMS',
            ...from.keys(),
            this.wakeKey,
            ...[...from.values()].map(idAfter),
            this.wakeId,
          ],
          blockMs + this.timeoutMs,
        );
        this.blockedOn = undefined;
        this.deliver(streamsOf(reply));
      }
    } catch (error) {
      for (const waiter of [...this.waiters]) waiter.settle([], error);
    } finally {
      this.running = false;
      this.blockedOn = undefined;
    }
  }

  /** Hands each reader the entries after its own of what `XREAD` answered. */
  private deliver(streams: ReadonlyArray<readonly [string, unknown]>): void {
    for (const [key, raw] of streams) {
      if (key === this.wakeKey) {
        const ids = Array.isArray(raw) ? raw.map((item: unknown) => text(Array.isArray(item) ? item[0] : '')) : [];
        this.wakeId = ids[ids.length - 1] ?? this.wakeId;
        continue;
      }
      const entries = entriesOf(raw);
      if (entries.length === 0) continue;
      this.tips.set(key, Math.max(this.tips.get(key) ?? 0, entries[entries.length - 1]!.id));
      for (const waiter of [...this.waiters]) {
        if (waiter.key !== key) continue;
        const news = entries.filter((entry) => entry.id > waiter.after).slice(0, waiter.count);
        if (news.length > 0) waiter.settle(news);
      }
    }
  }
}
