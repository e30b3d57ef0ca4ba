import { Observable, from, isObservable, map, of } from 'rxjs';
import type { JsonValue } from '../types/replyParts.js';
import type { ToolOutcome } from './LoopTool.js';

/**
 * A tool's outcome as an Observable of exactly one value: an Observable's last value (an error when
 * it completes with none), a promise's value, or the value itself (`undefined` as `null`, so that
 * the result is JSON).
 */
export function toolOutput(outcome: ToolOutcome): Observable<JsonValue> {
  if (isObservable(outcome)) {
    return new Observable<JsonValue>((subscriber) => {
      let last: { value: JsonValue } | undefined;
      return outcome.subscribe({
        next: (value) => (last = { value }),
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          if (last === undefined) return subscriber.error(new Error('the tool completed without a value'));
          subscriber.next(last.value ?? null);
          subscriber.complete();
        },
      });
    });
  }
  if (isThenable(outcome)) return from(outcome);
  return of(outcome ?? null);
}

/**
 * The app's answer to an approval request as an Observable of one boolean: the first value of an
 * Observable (one that completes with none denies), a promise's value, or the value. Only `true`
 * approves.
 */
export function approvalAnswer(answer: Observable<boolean> | PromiseLike<boolean> | boolean): Observable<boolean> {
  if (isObservable(answer)) {
    return new Observable<boolean>((subscriber) => {
      const subscription = answer.subscribe({
        next: (value) => {
          subscriber.next(value === true);
          subscriber.complete();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          subscriber.next(false);
          subscriber.complete();
        },
      });
      return subscription;
    });
  }
  if (isThenable(answer)) return from(answer).pipe(map((value) => value === true));
  return of(answer === true);
}

function isThenable<V>(value: unknown): value is PromiseLike<V> {
  return (
    (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}
