import { Observable } from 'rxjs';
import { Demand } from '../io/Demand.js';
import { StreamEntry } from './streamEntries.js';
import { StreamClosedEarlyError } from '../errors/errors.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { StreamStore } from './StreamStore.js';
import { lost } from './MemoryStreamStore.js';

/** Options of {@link readStream}. */
export interface ReadStreamOptions {
  /** The id of the last entry the reader has: reading starts after it. Default 0, the start. */
  readonly after?: number;
  /** The next entries are read only while this is not paused (give `sendSse` the same). */
  readonly demand?: Demand;
  /** The most entries read at once. Default 256. */
  readonly batch?: number;
}

/**
 * A stream's entries from a store, wherever its producer runs: what is stored after `after`, then
 * each entry as it is appended, until the `end` entry (then it completes). It never hangs on a
 * stream whose producer died: while it waits, it checks the producer's heartbeat once per
 * `heartbeatInterval`, and a heartbeat that lapsed with no end stored fails it with a
 * `StreamClosedEarlyError` (`reason: 'producer-lost'`) within `heartbeatTimeout` plus one interval
 * of the death. A stream the store no longer holds, or whose next entries it trimmed away, fails
 * it with `reason: 'store'`, as does a store that fails. Unsubscribing only detaches the reader: the
 * producer goes on.
 *
 * The errors carry no `partial`: pipe the events into `finalizeCompletion` or `scanCompletion` (or
 * let `sendSse` send the error to a client whose own fold has them) for the completion so far.
 *
 * ```
 * store:   1 2 3 | producer appends 4 ... 5 ... end
 * reader:  (after 1) --2--3--4-----5-----end|
 * ```
 *
 * @example
 * ```ts
 * import { readStream, sendSse } from 'rxjs-llm-stream/relay';
 *
 * sendSse(readStream(store, streamId, { after: 12 }), response).subscribe();
 * ```
 *
 * @param store Where the stream is.
 * @param streamId Its id.
 * @param options `after`, `demand`, `batch`.
 * @returns The entries, to the end.
 */
export function readStream(store: StreamStore, streamId: string, options: ReadStreamOptions = {}): Observable<StreamEntry> {
  const batch = options.batch ?? 256;
  return new Observable<StreamEntry>((subscriber) => {
    const aborted = new AbortController();
    const demand = options.demand;
    let after = options.after ?? 0;
    const resumed = (): Promise<void> =>
      new Promise((resolve) => {
        // Each wait takes its listeners off again: a reader paused many times must not pile them up.
        const done = (): void => {
          stop();
          aborted.signal.removeEventListener('abort', done);
          resolve();
        };
        const stop = demand!.watch((paused) => {
          if (!paused) done();
        });
        aborted.signal.addEventListener('abort', done, { once: true });
      });
    /**
     * Delivers entries, holding the rest of them while the demand is paused (a batch may be more than
     * the reader's sink may hold: it pauses between two entries as between two reads); answers true
     * at the end.
     */
    const deliver = async (entries: readonly StreamEntry[]): Promise<boolean> => {
      if (entries[0]!.id !== after + 1) {
        throw new StreamClosedEarlyError(
          `the stream store no longer holds the entries of stream ${streamId} after ${after} (trimmed to its length cap)`,
          {
            reason: 'store',
          },
        );
      }
      for (const entry of entries) {
        if (demand?.paused === true) await resumed();
        if (subscriber.closed) return true;
        subscriber.next(entry);
        after = entry.id;
        if (entry.kind === 'end') return true;
      }
      return false;
    };
    const loop = async (): Promise<void> => {
      const read = (waitMs: number): Promise<StreamEntry[]> =>
        store.read(streamId, after, { count: batch, waitMs, signal: aborted.signal });
      for (;;) {
        if (demand?.paused === true) await resumed();
        if (subscriber.closed) return;
        const entries = await read(store.timing.heartbeatInterval);
        if (subscriber.closed) return;
        if (entries.length > 0) {
          if (await deliver(entries)) return subscriber.complete();
          continue;
        }
        // Nothing for a whole heartbeat interval: is the stream still there, and its producer alive?
        const state = await store.state(streamId);
        if (subscriber.closed) return;
        if (!state.stored) throw lost(streamId);
        if (state.lastId > after || state.alive) continue;
        // Dead, or it ended in between: what it stored last is read before the verdict.
        const last = await read(0);
        if (last.length > 0 && (await deliver(last))) return subscriber.complete();
        if (last.length > 0) continue;
        throw new StreamClosedEarlyError(
          `the producer of stream ${streamId} stopped renewing its heartbeat after entry ${after} with no end stored: taken for dead`,
          { reason: 'producer-lost' },
        );
      }
    };
    loop().catch((error: unknown) => {
      if (subscriber.closed) return;
      subscriber.error(isLlmStreamError(error) ? error : storeFailure(streamId, error));
    });
    return () => aborted.abort();
  });
}

/** A store's own failure (a refused connection, a timeout) as the typed error. */
export function storeFailure(streamId: string, cause: unknown): StreamClosedEarlyError {
  const message = cause instanceof Error ? cause.message : String(cause);
  return new StreamClosedEarlyError(`the stream store failed on stream ${streamId}: ${message}`, { reason: 'store', cause });
}
