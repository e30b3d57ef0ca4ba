import { Subscriber } from 'rxjs';
import type { UpstreamHandlers } from './subscribeLinked.js';

/**
 * The handlers of an operator that pushes every value into a parser and ends it at completion, for
 * `subscribeLinked`: the parser's own output goes to the subscriber. An object with methods rather
 * than closures: closures would keep their scopes alive as long as the stream is open, and with them
 * the source observable and every observable above it.
 *
 * @example
 * ```ts
 * new Observable<SseFrame>((subscriber) => {
 *   subscribeLinked(source, subscriber, new ParserHandlers(new SseParser(subscriber.next.bind(subscriber)), subscriber));
 * });
 * ```
 */
export class ParserHandlers<T> implements UpstreamHandlers<T> {
  readonly #parser: { push(value: T): void; end(): void };
  readonly #subscriber: Subscriber<unknown>;

  constructor(parser: { push(value: T): void; end(): void }, subscriber: Subscriber<unknown>) {
    this.#parser = parser;
    this.#subscriber = subscriber;
  }

  next(value: T): void {
    this.#parser.push(value);
  }

  complete(): void {
    this.#parser.end();
    this.#subscriber.complete();
  }
}
