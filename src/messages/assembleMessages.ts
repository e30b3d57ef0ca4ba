import { Observable, OperatorFunction } from 'rxjs';
import { TokenAssembler, TokenEvent } from './TokenAssembler.js';
import { StreamClosedEarlyError } from '../errors/errors.js';
import { subscribeLinked } from '../internal/subscribeLinked.js';

/** One completed message, as `assembleMessages` emits it (and as it reports an unfinished one). */
export interface AssembledMessage {
  readonly id: string;
  readonly text: string;
}

/**
 * Assembles `TokenEvent`s into completed messages, emitting each message once, when it is
 * finalized.
 *
 * Deltas are appended per message id (interleaved ids are fine, empty deltas count); a repeated
 * finalization emits nothing more, and deltas for a finalized id are ignored, as `TokenAssembler`
 * defines. If the source completes while a message is still open, the result errors with
 * `StreamClosedEarlyError` whose `partial` lists each open message with its text so far: a truncated
 * message must never pass for a complete one.
 *
 * Intuition: `TokenAssembler.apply` for every event, keeping only the non-null results, once each.
 *
 * ```
 * events:   -{a,"hi"}-{b,"yo"}-{a,final}-{b,"!",final}-|
 * messages: -----------------{a,"hi"}---{b,"yo!"}------|
 * ```
 *
 * @example
 * ```ts
 * import { assembleMessages } from 'rxjs-llm-stream';
 *
 * tokenEvents$.pipe(assembleMessages()).subscribe(({ id, text }) => render(id, text));
 * ```
 *
 * @returns An operator from token events to completed messages.
 */
export function assembleMessages(): OperatorFunction<TokenEvent, AssembledMessage> {
  return (source) =>
    new Observable<AssembledMessage>((subscriber) => {
      // Per subscription, so that a resubscribe (retry, repeat) starts with no messages.
      const assembler = new TokenAssembler();
      subscribeLinked(source, subscriber, {
        next(event) {
          // Asked before applying: `apply` returns the text on every finalize, and only the first counts.
          const alreadyFinal = assembler.isFinalized(event.id);
          const text = assembler.apply(event);
          if (text !== null && !alreadyFinal) subscriber.next({ id: event.id, text });
        },
        complete() {
          const open = assembler.openIds();
          if (open.length > 0) {
            const partial: AssembledMessage[] = open.map((id) => ({ id, text: assembler.get(id) ?? '' }));
            const names = open.map((id) => JSON.stringify(id)).join(', ');
            const count = open.length === 1 ? '1 message' : `${open.length} messages`;
            throw new StreamClosedEarlyError(`the stream ended with ${count} never finalized: ${names}`, { reason: 'unfinished', partial });
          }
          subscriber.complete();
        },
      });
    });
}
