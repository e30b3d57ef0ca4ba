import fc from 'fast-check';
import { TestScheduler } from 'rxjs/testing';
import { LlmStreamError, ProviderError, StreamClosedEarlyError, StreamIdleError } from '../../../src/errors/errors';
import { idleTimeout } from '../../../src/io/idleTimeout';
import { coldBytes } from '../../../src/testing/coldBytes';
import { Fault } from '../../../src/testing/faults';
import { TestPartial } from '../../../src/testing/FaultOutcome';
import { TestReply } from '../../../src/dialects/writing/TestReply';
import { UnsupportedReplyError } from '../../../src/dialects/writing/UnsupportedReplyError';
import { providerStream } from '../../../src/testing/writeProviderStream';
import { ProviderFormat } from '../../../src/dialects/writing/wire';
import { argumentsText, expectedCompletion } from './expected';
import { FORMATS } from './formats';
import { assemble, readmePipeline } from './pipeline';
import { chunkings, replyFor } from './replies';

/** Runs per property: seeded, so a failure names a seed that reproduces it; `FUZZ_RUNS` runs more. */
const FUZZ_RUNS = Number(process.env['FUZZ_RUNS']) || 0;
export const runs = (quick: number): fc.Parameters<unknown> => ({ numRuns: FUZZ_RUNS > 0 ? FUZZ_RUNS : quick, seed: 20261 });

const FAULTS: readonly Fault[] = ['cut-mid-line', 'cut-before-end', 'cut-in-arguments', 'error', 'stall'];

/** The error each fault must end in, as docs/dialects.md and the README promise it, written out here. */
function promised(fault: Fault, format: ProviderFormat): { type: typeof LlmStreamError; name: string; reason: string } {
  const facts = FORMATS[format];
  switch (fault) {
    case 'cut-mid-line':
      return { type: StreamClosedEarlyError, name: 'StreamClosedEarlyError', reason: facts.binary ? 'mid-message' : 'mid-line' };
    case 'cut-before-end':
      return { type: StreamClosedEarlyError, name: 'StreamClosedEarlyError', reason: 'no-end-signal' };
    case 'cut-in-arguments':
      return {
        type: StreamClosedEarlyError,
        name: 'StreamClosedEarlyError',
        reason: facts.calls === 'whole' ? 'mid-line' : 'no-end-signal',
      };
    case 'error':
      return { type: ProviderError, name: 'ProviderError', reason: 'in-stream' };
    case 'stall':
      return { type: StreamIdleError, name: 'StreamIdleError', reason: 'idle' };
  }
}

/** Whether the reply has a call whose arguments a cut can fall inside (two characters or more, or any call sent whole). */
function hasCuttableCall(reply: TestReply, format: ProviderFormat): boolean {
  return reply.choices.some((choice) =>
    (choice.toolCalls ?? []).some((call) => FORMATS[format].calls === 'whole' || Array.from(argumentsText(call)).length >= 2),
  );
}

/** A stall's error, met in virtual time: the body (one chunk a millisecond) goes silent, the idle timeout (5 s) fires. */
function stallError(stream: ReturnType<typeof providerStream>): unknown {
  let caught: unknown;
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(() => {
    coldBytes(stream)
      .pipe(idleTimeout(5_000), readmePipeline(stream))
      .subscribe({ next: () => (caught = new Error('a stalled stream gave a completion')), error: (error: unknown) => (caught = error) });
  });
  return caught;
}

/**
 * What a partial shows must be what arrived of the reply: for every choice named, a prefix of its
 * text and reasoning, its calls' names, and a prefix of each call's arguments.
 */
function expectPrefixOf(partial: TestPartial, reply: TestReply): void {
  for (const choice of partial.choices) {
    const whole = reply.choices[choice.index]!;
    expect((whole.text ?? '').startsWith(choice.content ?? '')).toBe(true);
    expect((whole.reasoning ?? '').startsWith(choice.reasoning ?? '')).toBe(true);
    choice.toolCalls.forEach((call, k) => {
      const wholeCall = whole.toolCalls![k]!;
      expect(call.name).toBe(wholeCall.name);
      expect(argumentsText(wholeCall).startsWith(call.arguments)).toBe(true);
    });
  }
}

/**
 * The property test of one format: any reply it can carry, at every chunking the kit offers,
 * assembles through the README's pipeline to the completion the reply says; each fault ends in the
 * error the library promises for it, with what arrived as its `partial`.
 */
export function propertySuite(format: ProviderFormat, numRuns = { replies: 30, faults: 40 }): void {
  describe(`${format}: the kit's streams, property`, () => {
    it('any reply, at every chunking, assembles back to the same reply', () => {
      fc.assert(
        fc.property(replyFor(format), chunkings, (reply, cuts) => {
          const expected = expectedCompletion(reply, format);
          for (const chunking of cuts) {
            const outcome = assemble(providerStream(reply, format, { chunking }));
            expect(outcome.error).toBeUndefined();
            expect(outcome.values).toEqual([expected]);
          }
        }),
        runs(numRuns.replies),
      );
    });

    it('each fault gives the error promised for it, with what arrived as its partial', () => {
      fc.assert(
        fc.property(replyFor(format), fc.constantFrom(...FAULTS), chunkings, (reply, fault, cuts) => {
          if (fault === 'cut-in-arguments' && !hasCuttableCall(reply, format)) {
            expect(() => providerStream(reply, format, { fault })).toThrow(UnsupportedReplyError);
            return;
          }
          const promise = promised(fault, format);
          for (const chunking of cuts) {
            const stream = providerStream(reply, format, { fault, chunking });
            expect(stream.stalls).toBe(fault === 'stall');
            const error = fault === 'stall' ? stallError(stream) : assemble(stream).error;
            expect(error).toBeInstanceOf(promise.type);
            expect(error).toMatchObject({ name: promise.name, reason: promise.reason });
            expect(stream.fault).toMatchObject({ kind: fault, error: promise.name, reason: promise.reason });
            const partial = stream.fault!.partial;
            expect((error as LlmStreamError).partial).toMatchObject(partial);
            expectPrefixOf(partial, reply);
            if (fault === 'error') expect((error as Error).message).toContain(FORMATS[format].errorSays);
            if (fault === 'cut-in-arguments' && FORMATS[format].calls === 'streamed') {
              // The cut call arrived with a part of its arguments, not all.
              const cut = partial.choices.flatMap((choice) =>
                choice.toolCalls.filter(
                  (call, k) => call.arguments.length < argumentsText(reply.choices[choice.index]!.toolCalls![k]!).length,
                ),
              );
              expect(cut.length).toBeGreaterThan(0);
            }
            if (fault === 'cut-before-end') {
              // Only the end signal is missing: every choice's text arrived whole.
              for (const choice of partial.choices) expect(choice.content).toBe(reply.choices[choice.index]!.text || null);
            }
          }
        }),
        runs(numRuns.faults),
      );
    });
  });
}
