import { Observable, Subject, Subscription } from 'rxjs';
import { Demand } from '../io/Demand.js';
import { StreamEntry } from './streamEntries.js';
import { streamErrorData } from '../errors/streamErrorData.js';
import { StreamClosedEarlyError } from '../errors/errors.js';
import { isLlmStreamError } from '../errors/isLlmStreamError.js';
import { ChatEvent } from '../types/events.js';
import { storeFailure } from './readStream.js';
import { StreamStore } from './StreamStore.js';

/** What a producer is told to do besides writing to its store. */
export interface ProducerHooks {
  /** The most entry bytes that may wait for the store before the source is paused. */
  readonly maxPendingBytes: number;
  /** A failure of the source or of the store, for the server's log. */
  readonly onError: ((error: unknown, streamId: string) => void) | undefined;
  /** The producer is over (its end stored, or it failed). */
  readonly onOver: () => void;
}

/**
 * The producing side of one relayed stream, in the process that reads its provider: numbers each
 * event, appends it to the store (in batches, one append at a time), hands it to the client that
 * started it, renews the heartbeat and watches for a stop. Its source reads by `demand`, which is
 * paused while the first client is attached and slow, or while too much waits for the store: so
 * the provider is read at the pace of whoever is watching, and never faster than the store takes.
 * Once that client has gone, the source is read as fast as the store takes it.
 */
export class Producer {
  /** The entries as they are made, for the client that started the stream (not replayed). */
  readonly live = new Subject<StreamEntry>();
  /** Paused by the first client's sink while it is slow. */
  readonly clientDemand = new Demand();
  private readonly sourceDemand = new Demand();
  private clientAttached = true;
  private nextId = 1;
  private pending: StreamEntry[] = [];
  private pendingBytes = 0;
  private appending = false;
  private over = false;
  private ending = false;
  private reading: Subscription | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly store: StreamStore,
    readonly streamId: string,
    private readonly hooks: ProducerHooks,
  ) {
    this.clientDemand.watch(() => this.steer());
  }

  /** Starts reading the source (the stream is already created in the store). */
  run(source: (demand: Demand) => Observable<ChatEvent>): void {
    this.heartbeat = setInterval(() => this.beat(), this.store.timing.heartbeatInterval);
    this.heartbeat.unref?.();
    let source$: Observable<ChatEvent>;
    try {
      source$ = source(this.sourceDemand);
    } catch (error) {
      this.failSource(error);
      return;
    }
    this.reading = source$.subscribe({
      next: (event) => this.add('event', event.type, JSON.stringify(event)),
      error: (error: unknown) => this.failSource(error),
      complete: () => this.end(),
    });
    if (this.ending) this.reading.unsubscribe();
  }

  /** The first client went away: the source is no longer held back by it. */
  detach(): void {
    this.clientAttached = false;
    this.steer();
  }

  /** Stops the generation: the source is unsubscribed (its request aborted), and the stream ends as stopped. */
  stop(): void {
    if (this.ending) return;
    this.reading?.unsubscribe();
    const stopped = new StreamClosedEarlyError(`stream ${this.streamId} was stopped on request`, { reason: 'stopped' });
    this.add('error', '', JSON.stringify(streamErrorData(stopped)));
    this.end();
  }

  /** Fails before the store has the stream: the client is told, the source never read. */
  failCreate(error: unknown): void {
    this.fail(isLlmStreamError(error) ? error : storeFailure(this.streamId, error));
  }

  private failSource(error: unknown): void {
    this.hooks.onError?.(error, this.streamId);
    this.add('error', '', JSON.stringify(streamErrorData(error)));
    this.end();
  }

  private end(): void {
    if (this.ending) return;
    this.add('end', '', '');
    this.ending = true;
  }

  private add(kind: StreamEntry['kind'], type: string, data: string): void {
    if (this.ending || this.over) return;
    const entry: StreamEntry = { id: this.nextId++, kind, type, data };
    this.pending.push(entry);
    this.pendingBytes += data.length;
    if (this.clientAttached) this.live.next(entry);
    if (kind === 'end') this.live.complete();
    this.flush();
    this.steer();
  }

  /** Appends what waits, one append at a time, so the store gets the entries in order. */
  private flush(): void {
    if (this.appending || this.over || this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.appending = true;
    this.store.append(this.streamId, batch).then(
      () => {
        this.appending = false;
        for (const entry of batch) this.pendingBytes -= entry.data.length;
        if (batch[batch.length - 1]!.kind === 'end') return this.finish();
        this.flush();
        this.steer();
      },
      (error: unknown) => this.fail(isLlmStreamError(error) ? error : storeFailure(this.streamId, error)),
    );
  }

  /** Pauses the source while the attached client is slow or the store is behind; resumes it otherwise. */
  private steer(): void {
    const hold = (this.clientAttached && this.clientDemand.paused) || this.pendingBytes > this.hooks.maxPendingBytes;
    if (hold) this.sourceDemand.pause();
    else this.sourceDemand.resume();
  }

  private beat(): void {
    this.store.beat(this.streamId).then(
      (stopRequested) => {
        if (stopRequested && !this.over) this.stop();
      },
      (error: unknown) => this.fail(isLlmStreamError(error) ? error : storeFailure(this.streamId, error)),
    );
  }

  /** The store failed: nothing more can be kept, so the source is cancelled and the client told. */
  private fail(error: StreamClosedEarlyError | Error): void {
    if (this.over) return;
    this.ending = true;
    this.reading?.unsubscribe();
    this.hooks.onError?.(error, this.streamId);
    this.live.error(error);
    this.finish();
  }

  private finish(): void {
    this.over = true;
    clearInterval(this.heartbeat);
    this.sourceDemand.resume();
    this.hooks.onOver();
  }
}
