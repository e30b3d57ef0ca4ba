import { Observable, Subject, UnsubscriptionError, from, map, take, tap } from 'rxjs';
import { subscribeLinked } from '../../src/internal/subscribeLinked';
import { decodeUtf8 } from '../../src/frames/decodeUtf8';
import { sseFrames } from '../../src/frames/sseFrames';

// A link between two operators of this library is held without RxJS's finalizer list; these specs
// pin what that list gives, in the order and with the errors RxJS's own `Subscription` has.

/** An operator written as this library's are: `subscribeLinked`, plus a teardown of its own. */
function linked<T>(onTeardown: () => void): (source: Observable<T>) => Observable<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      subscribeLinked(source, subscriber, { next: (value) => subscriber.next(value) });
      return onTeardown;
    });
}

describe('subscribeLinked', () => {
  it('tears a chain of linked operators down source first, each operator before the one below it', () => {
    const log: string[] = [];
    const source = new Observable<number>(() => () => log.push('source'));
    const subscription = source
      .pipe(
        linked(() => log.push('upper')),
        linked(() => log.push('lower')),
      )
      .subscribe();
    subscription.unsubscribe();
    // RxJS runs a subscription's finalizers in the order they were added: each operator's link to its
    // source was added before the teardown the operator returned.
    expect(log).toEqual(['source', 'upper', 'lower']);
  });

  it('runs every teardown when some throw, and throws their errors together, in order', () => {
    const log: string[] = [];
    const sourceFailure = new Error('source teardown');
    const upperFailure = new Error('upper teardown');
    const source = new Observable<number>(() => () => {
      log.push('source');
      throw sourceFailure;
    });
    const subscription = source
      .pipe(
        linked(() => {
          log.push('upper');
          throw upperFailure;
        }),
        linked(() => log.push('lower')),
      )
      .subscribe();
    let thrown: unknown;
    try {
      subscription.unsubscribe();
    } catch (error) {
      thrown = error;
    }
    expect(log).toEqual(['source', 'upper', 'lower']);
    expect(thrown).toBeInstanceOf(UnsubscriptionError);
    expect((thrown as UnsubscriptionError).errors).toEqual([sourceFailure, upperFailure]);
  });

  it('tears a source down once when it completed before the stream below was unsubscribed', () => {
    let teardowns = 0;
    const source = new Subject<number>();
    const counted = new Observable<number>((subscriber) => {
      const inner = source.subscribe(subscriber);
      return () => {
        teardowns++;
        inner.unsubscribe();
      };
    });
    const completions: string[] = [];
    // The lower operator keeps its stream open after the upper one completed (it ignores `complete`).
    const keepsOpen = (upstream: Observable<number>) =>
      new Observable<number>((subscriber) => {
        subscribeLinked(upstream, subscriber, { next: (value) => subscriber.next(value), complete: () => completions.push('upper') });
      });
    const subscription = counted
      .pipe(
        linked(() => undefined),
        keepsOpen,
      )
      .subscribe();
    source.complete();
    expect(completions).toEqual(['upper']);
    expect(teardowns).toBe(1);
    subscription.unsubscribe();
    expect(teardowns).toBe(1);
    expect(subscription.closed).toBe(true);
  });

  it('stops a synchronous source under a chain of linked operators when the end unsubscribes', () => {
    const produced: number[] = [];
    const values: string[] = [];
    from([1, 2, 3, 4, 5, 6])
      .pipe(
        tap((n) => produced.push(n)),
        map((n) => new TextEncoder().encode(`data: ${n}\n\n`)),
        decodeUtf8(),
        sseFrames(),
        take(2),
      )
      .subscribe((frame) => values.push(frame.data));
    expect(values).toEqual(['1', '2']);
    expect(produced).toEqual([1, 2]);
  });

  it('ends a link at once when the subscriber below is already closed', () => {
    let subscribed = 0;
    let tornDown = 0;
    const source = new Observable<number>((subscriber) => {
      subscribed++;
      subscriber.next(1);
      return () => tornDown++;
    });
    const received: number[] = [];
    const lower = new Observable<number>((subscriber) => {
      subscriber.unsubscribe();
      subscribeLinked(source, subscriber, { next: (value) => received.push(value) });
    });
    lower.pipe(linked(() => undefined)).subscribe();
    expect(subscribed).toBe(1);
    expect(received).toEqual([]);
    expect(tornDown).toBe(1);
  });
});
