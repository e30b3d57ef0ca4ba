import { Observable, Subscriber, Subscription, UnsubscriptionError } from 'rxjs';

/** The handlers an operator of this library gives its source. */
export interface UpstreamHandlers<T> {
  next(value: T): void;
  /** Any error that ends the stream: the source's, or one thrown by `next` or `complete`. */
  error?(error: unknown): void;
  complete?(): void;
}

/**
 * Subscribes `downstream`'s operator to `source` so that unsubscribing downstream reaches the source
 * even while the source is still inside its synchronous `subscribe` call.
 *
 * Why not `source.subscribe({ next, error, complete })`: RxJS wraps a plain observer in a fresh
 * subscriber that knows nothing of `downstream`, so a synchronous source (`from(array)`, a replayed
 * recording) runs to its end after `take(3)` downstream has already unsubscribed. An object that is
 * both an observer and a `Subscription` is used by RxJS as the subscriber itself; adding it to
 * `downstream` before subscribing links the two, which is what RxJS's own operators do internally.
 *
 * A throw in `next` or `complete` is routed to the `error` handler (or `downstream.error`), never
 * swallowed and never left to escape into the producer.
 */
export function subscribeLinked<T>(source: Observable<T>, downstream: Subscriber<unknown>, handlers: UpstreamHandlers<T>): void {
  source.subscribe(new Link(downstream, handlers));
}

/**
 * The observer and `Subscription` `subscribeLinked` gives the source. A class, its methods shared:
 * a process holds one per operator of every open stream, and closures per instance took about a
 * third of the memory of an idle pipeline.
 */
class Link<T> extends Subscription {
  /** Dropped at teardown, so that a source which keeps its subscriber does not keep the layer's buffers alive. */
  #current: UpstreamHandlers<T> | undefined;
  #stopped = false;
  readonly #downstream: Subscriber<unknown>;
  /**
   * The link of the operator above this one, when that operator is of this library too: held here
   * rather than added with `add`, which would give every link of a pipeline a finalizer array of its
   * own (RxJS grows its first push to 17 slots) for the one subscription most links ever hold.
   */
  #upstream: Link<unknown> | undefined = undefined;

  constructor(downstream: Subscriber<unknown>, handlers: UpstreamHandlers<T>) {
    super();
    this.#downstream = downstream;
    this.#current = handlers;
    // As `downstream.add(this)` would, when `downstream` is a link that holds no upstream yet: the
    // first finalizer added is the first run, and a closed downstream ends this link at once.
    if (downstream instanceof Link && downstream.#upstream === undefined && !downstream.closed) downstream.#upstream = this;
    else downstream.add(this);
  }

  next(value: T): void {
    if (this.#stopped || this.#current === undefined) return;
    try {
      this.#current.next(value);
    } catch (error) {
      this.#fail(error);
    }
  }

  error(error: unknown): void {
    if (this.#stopped || this.#current === undefined) return;
    this.#fail(error);
  }

  complete(): void {
    const current = this.#current;
    if (this.#stopped || current === undefined) return;
    this.#stopped = true;
    try {
      if (current.complete) current.complete();
      else this.#downstream.complete();
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.unsubscribe();
  }

  override unsubscribe(): void {
    if (this.closed) return;
    this.#current = undefined;
    // Off the downstream link that holds this one, as RxJS takes a closed subscription off its parents.
    const downstream = this.#downstream;
    if (downstream instanceof Link && downstream.#upstream === this) downstream.#upstream = undefined;
    const upstream = this.#upstream;
    this.#upstream = undefined;
    // The upstream link was this link's first finalizer: it ends first, and an error it throws does
    // not stop the others, which are then thrown together, as RxJS does with the finalizers it holds.
    let errors: unknown[] = [];
    try {
      upstream?.unsubscribe();
    } catch (error) {
      errors = errorsOf(error);
    }
    try {
      super.unsubscribe();
    } catch (error) {
      errors = [...errors, ...errorsOf(error)];
    }
    if (errors.length > 0) throw new UnsubscriptionError(errors);
  }

  #fail(error: unknown): void {
    const active = this.#current;
    this.#stopped = true;
    try {
      if (active?.error) active.error(error);
      else this.#downstream.error(error);
    } catch (thrown) {
      this.#downstream.error(thrown);
    }
    this.unsubscribe();
  }
}

/** The errors a teardown threw, as RxJS gathers them: those of an `UnsubscriptionError`, or the one. */
function errorsOf(error: unknown): unknown[] {
  return error instanceof UnsubscriptionError ? error.errors : [error];
}
