import { Observable, Subscriber, Subscription } from 'rxjs';

/** The handlers an operator of this library gives its source. */
interface UpstreamHandlers<T> {
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
  const link = new Subscription();
  // Dropped at teardown, so that a source which keeps its subscriber does not keep the layer's
  // buffers alive through these handlers.
  let current: UpstreamHandlers<T> | undefined = handlers;
  link.add(() => {
    current = undefined;
  });
  let stopped = false;
  const fail = (error: unknown): void => {
    const active = current;
    stopped = true;
    try {
      if (active?.error) active.error(error);
      else downstream.error(error);
    } catch (thrown) {
      downstream.error(thrown);
    }
    link.unsubscribe();
  };
  const upstream = Object.assign(link, {
    next(value: T): void {
      if (stopped || current === undefined) return;
      try {
        current.next(value);
      } catch (error) {
        fail(error);
      }
    },
    error(error: unknown): void {
      if (stopped || current === undefined) return;
      fail(error);
    },
    complete(): void {
      if (stopped || current === undefined) return;
      stopped = true;
      try {
        if (current.complete) current.complete();
        else downstream.complete();
      } catch (error) {
        fail(error);
        return;
      }
      link.unsubscribe();
    },
  });
  downstream.add(link);
  source.subscribe(upstream);
}
