import { RedisSend, keysOf, text } from './redisCommands.js';

/** A reader waiting for entries of one key after one id. */
interface Waiter {
  readonly key: string;
  readonly after: string;
  wake(error?: unknown): void;
}

/**
 * Follows many Redis streams live over one dedicated connection: a single `XREAD BLOCK` names every
 * stream somebody waits on, and each reply wakes the readers of the streams that grew (they then
 * read with `XRANGE` on the command connection). A reader that starts waiting while the `XREAD` is
 * blocked wakes it with `CLIENT UNBLOCK`, so it is never delayed by the others; one connection per
 * reader would hold a connection for every open stream.
 */
export class RedisFollower {
  private readonly waiters = new Set<Waiter>();
  private running = false;
  private blockingId: string | undefined;
  private blocked = false;

  constructor(
    private readonly blocking: RedisSend,
    private readonly commands: RedisSend,
    private readonly blockMs: number,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Resolves when stream `key` may have entries after `after`, after `waitMs` at the most, or at
   * once when `signal` aborts; rejects when the connection fails.
   */
  wait(key: string, after: string, waitMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        key,
        after,
        wake: (error?: unknown) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          this.waiters.delete(waiter);
          if (error === undefined) resolve();
          else reject(error);
        },
      };
      const onAbort = (): void => waiter.wake();
      const timer = setTimeout(() => waiter.wake(), waitMs);
      signal?.addEventListener('abort', onAbort);
      this.waiters.add(waiter);
      if (!this.running) void this.loop();
      else if (this.blocked && this.blockingId !== undefined) {
        // Best effort: should the server refuse it, the block ends by itself within blockMs.
        this.commands(['CLIENT', 'UNBLOCK', this.blockingId], this.timeoutMs).catch(() => undefined);
      }
    });
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.waiters.size > 0) {
        this.blockingId ??= text(await this.blocking(['CLIENT', 'ID'], this.timeoutMs));
        // The lowest id per key: every waiter of that key learns of what is new after its own.
        const after = new Map<string, string>();
        for (const waiter of this.waiters) {
          const known = after.get(waiter.key);
          if (known === undefined || compareIds(waiter.after, known) < 0) after.set(waiter.key, waiter.after);
        }
        this.blocked = true;
        const reply = await this.blocking(
          ['XREAD', 'COUNT', '1', 'BLOCK', String(this.blockMs), 'STREAMS', ...after.keys(), ...after.values()],
          this.blockMs + this.timeoutMs,
        );
        this.blocked = false;
        const grown = new Set(keysOf(reply));
        for (const waiter of [...this.waiters]) if (grown.has(waiter.key)) waiter.wake();
      }
    } catch (error) {
      this.blockingId = undefined;
      for (const waiter of [...this.waiters]) waiter.wake(error);
    } finally {
      this.running = false;
      this.blocked = false;
    }
  }
}

/** Orders two stream ids (`12-0`). */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
}
