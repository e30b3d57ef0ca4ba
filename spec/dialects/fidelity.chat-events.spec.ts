import { readReply, sseOf } from '../support/pipeline';

// The library's own stream carries the events issue 30 (F) added, so that a relayed reply reads as the
// provider's did: `retract` (text the server took back) and `finish-details`. Each payload is an event
// as `toMessageEvents` writes it (`event:` its type, `data:` the event as JSON).

describe('chat-events carries retract and finish-details (issue 30, F)', () => {
  it('reads a retract as text taken back and finish-details as the choice finish details', () => {
    const { completion, error } = readReply(
      sseOf(
        [
          { type: 'start', id: 'r1', model: null },
          { type: 'reasoning', choice: 0, text: 'Think' },
          { type: 'content', choice: 0, text: 'Draft one' },
          { type: 'retract', choice: 0, content: 9, reasoning: 5 },
          { type: 'content', choice: 0, text: 'Final.' },
          { type: 'finish-details', choice: 0, details: { stopSequence: '###' } },
          { type: 'finish', choice: 0, reason: 'stop', raw: 'stop_sequence' },
          { type: 'done' },
        ],
        true,
      ),
      'chat-events',
    );
    expect(error).toBeUndefined();
    expect(completion).toMatchObject({ content: 'Final.', reasoning: null, finishReason: 'stop', finishDetails: { stopSequence: '###' } });
    expect(completion!.choices[0]).not.toHaveProperty('providerMetadata');
  });
});
