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

describe('chat-events carries image-preview (issue 30, F)', () => {
  it('passes an image preview on as the event it was, and keeps none in the completion', () => {
    const preview = { type: 'image-preview', choice: 0, id: 'ig_1', index: 1, data: 'UklGRuIWGQBXRUJQ', format: 'webp' };
    const { completion, error, events } = readReply(
      sseOf(
        [
          { type: 'start', id: 'r1', model: null },
          preview,
          {
            type: 'provider-tool-call',
            choice: 0,
            call: { id: 'ig_1', name: 'image_generation', type: 'image_generation_call', input: {} },
          },
          { type: 'provider-tool-result', choice: 0, id: 'ig_1', result: 'UklGRuIWGQBXRUJQVlA4' },
          { type: 'finish', choice: 0, reason: 'stop', raw: 'completed' },
          { type: 'done' },
        ],
        true,
      ),
      'chat-events',
    );
    expect(error).toBeUndefined();
    expect(events.filter((event) => (event.type as string) === 'image-preview')).toEqual([preview]);
    expect(JSON.stringify(completion)).not.toContain('UklGRuIWGQBXRUJQ"');
  });
});
