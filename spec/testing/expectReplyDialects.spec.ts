import fc from 'fast-check';
import { pipe, toArray } from 'rxjs';
import { assembleChunks } from '../../src/reply/assembleChunks';
import { ChatEvent } from '../../src/types/events';
import { groupToolCallsByIndex } from '../../src/reply/groupToolCallsByIndex';
import { ReplyMismatchError, expectCompletion, expectEvents } from '../../src/testing/expectReply';
import { TestReply } from '../../src/dialects/writing/TestReply';
import { providerStream } from '../../src/testing/writeProviderStream';
import { ProviderFormat } from '../../src/dialects/writing/wire';
import { collectSync } from '../support/collect';
import { FORMATS } from './dialects/formats';
import { assemble, bodyOf, framesFor } from './dialects/pipeline';
import { chunkings, replyFor } from './dialects/replies';
import { runs } from './dialects/propertySuite';

// The assertions across every format the kit writes: any reply, written by providerStream and read
// by the library, passes expectCompletion and expectEvents (grouped or not); the same reply with one
// word more in its first choice's text fails both, naming that text.

/** The events of a stream, through assembleChunks (and groupToolCallsByIndex when `grouped`). */
function eventsOf(reply: TestReply, format: ProviderFormat, grouped: boolean): ChatEvent[] {
  const stream = providerStream(reply, format, { chunking: { random: 7 } });
  const events = pipe(framesFor(stream.contentType), assembleChunks({ dialect: stream.dialect }));
  const outcome = collectSync(bodyOf(stream).pipe(grouped ? pipe(events, groupToolCallsByIndex()) : events, toArray()));
  expect(outcome.error).toBeUndefined();
  return outcome.values[0]!;
}

/** The reply with its first choice saying one word more. */
const oneWordMore = (reply: TestReply): TestReply => ({
  ...reply,
  choices: reply.choices.map((choice, i) => (i === 0 ? { ...choice, text: `${choice.text ?? ''} more` } : choice)),
});

function expectMismatchAt(check: () => void, path: string): void {
  expect(check).toThrow(ReplyMismatchError);
  expect(check).toThrow(new RegExp(`^  ${path.replace(/[[\].]/g, '\\$&')}: `, 'm'));
}

describe.each(Object.keys(FORMATS) as ProviderFormat[])('expectCompletion and expectEvents on %s streams', (format) => {
  it('pass on what any reply assembles to, at every chunking, and fail on one word more', () => {
    fc.assert(
      fc.property(replyFor(format), chunkings, (reply, cuts) => {
        for (const chunking of cuts) {
          const { values, error } = assemble(providerStream(reply, format, { chunking }));
          expect(error).toBeUndefined();
          expectCompletion(values[0]!, reply);
        }
        const completion = assemble(providerStream(reply, format)).values[0]!;
        expectMismatchAt(() => expectCompletion(completion, oneWordMore(reply)), 'choices[0].text');
      }),
      runs(15),
    );
  });

  it.each([true, false])('pass on the events of any reply (grouped: %s), and fail on one word more', (grouped) => {
    fc.assert(
      fc.property(replyFor(format), (reply) => {
        const events = eventsOf(reply, format, grouped);
        expectEvents(events, reply);
        expectMismatchAt(() => expectEvents(events, oneWordMore(reply)), 'choices[0].text');
      }),
      runs(15),
    );
  });
});
